-- Put a member's statuses into lists of the owner's, or take them out.
-- KEYS[1] = listed     keys.listed(owner) (HASH: member -> the lists holding them)
-- KEYS[2] = following  keys.following(owner) (ZSET)
-- KEYS[3] = hides      keys.hides(owner) (ZSET: authors the owner does not get, until when)
-- ARGV[1] = "fill" or "empty"
-- ARGV[2] = the member's id, ARGV[3] = the owner's id, ARGV[4] = now in ms
-- ARGV[5] = one list id, or "" for every list that holds the member
-- ARGV[6] = the timeline's cap, ARGV[7] = its slack
-- ARGV[8..] = the member's newest status ids; with "fill", a reply as
--             "<id>:<id of the user it replies to>"
-- Returns how many ids were added or removed.
--
-- "fill" (a member added, a mute ended): into each list that holds the member now,
-- if the owner follows them and gets their statuses, replies by the home timeline's
-- rule (backfill.lua). "empty" with a list id (a member taken off it): out of that
-- list if the member is not on it again by now; without (a mute): out of every list
-- holding the member, who stays on them.
local action, member, owner, lid = ARGV[1], ARGV[2], ARGV[3], ARGV[5]
local tag = keys.tag_of(KEYS[1])
local held = lists_holding(KEYS[1], member)
local targets = {}
if lid == '' then
    targets = held
else
    local on = false
    for _, other in ipairs(held) do
        if other == lid then on = true end
    end
    if (action == 'fill') == on then targets = {lid} end
end
if #targets == 0 or #ARGV < 8 then return 0 end
local ids = {}
if action == 'fill' then
    if not redis.call('ZSCORE', KEYS[2], member) then return 0 end
    local hidden = redis.call('ZSCORE', KEYS[3], member)
    if hidden and tonumber(hidden) > tonumber(ARGV[4]) then return 0 end
    for i = 8, #ARGV do
        local sid, replied_to = string.match(ARGV[i], '^(%d+):(%d+)$')
        if not sid then
            ids[#ids + 1] = ARGV[i]
        elseif replied_to == owner or redis.call('ZSCORE', KEYS[2], replied_to) then
            ids[#ids + 1] = sid
        end
    end
else
    for i = 8, #ARGV do ids[#ids + 1] = string.match(ARGV[i], '^%d+') end
end
local changed = 0
for _, target in ipairs(targets) do
    local timeline = keys.list_timeline(tag, owner, target)
    for i = 1, #ids, 1000 do
        local chunk = {unpack(ids, i, math.min(i + 999, #ids))}
        if action == 'fill' then
            changed = changed + redis.call('SADD', timeline, unpack(chunk))
        else
            changed = changed + redis.call('SREM', timeline, unpack(chunk))
        end
    end
    if action == 'fill' then trim_home(timeline, tonumber(ARGV[6]), tonumber(ARGV[7])) end
end
return changed
