-- Take a user off every list of the owner's, with their statuses (after an unfollow).
-- KEYS[1] = listed   keys.listed(owner) (HASH: member -> the lists holding them)
-- KEYS[2] = listing  keys.listing(owner, member) (SET: who in this shard lists the member)
-- ARGV[1] = the member's id, ARGV[2] = the owner's id
-- ARGV[3..] = the member's newest status ids, to leave the lists
-- Returns how many lists the member was on (0 for nearly every unfollow: one HGET).
local member, owner = ARGV[1], ARGV[2]
local held = lists_holding(KEYS[1], member)
if #held == 0 then return 0 end
local tag = keys.tag_of(KEYS[1])
for _, lid in ipairs(held) do
    redis.call('ZREM', keys.list_members(tag, owner, lid), member)
    local timeline = keys.list_timeline(tag, owner, lid)
    for i = 3, #ARGV, 1000 do
        redis.call('SREM', timeline, unpack(ARGV, i, math.min(i + 999, #ARGV)))
    end
end
redis.call('HDEL', KEYS[1], member)
redis.call('SREM', KEYS[2], owner)
return #held
