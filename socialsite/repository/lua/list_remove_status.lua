-- Take a deleted status out of the lists of several followers of its author (the
-- remove job of a deletion, beside their home timelines: fanout.remove).
-- KEYS[1] = listing  keys.listing(shard, author) (SET: who in this shard lists the author)
-- ARGV[1] = the status id, ARGV[2] = the author's id
-- ARGV[3..] = ids of followers of the author, all of KEYS[1]'s shard
-- Returns how many list timelines held it. One EXISTS when nobody in the shard lists
-- the author, as deliver.lua.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local sid, author = ARGV[1], ARGV[2]
local tag = keys.tag_of(KEYS[1])
local removed = 0
for i = 3, #ARGV do
    local follower = ARGV[i]
    if redis.call('SISMEMBER', KEYS[1], follower) == 1 then
        for _, lid in ipairs(lists_holding(keys.listed(tag, follower), author)) do
            removed = removed + redis.call('SREM', keys.list_timeline(tag, follower, lid), sid)
        end
    end
end
return removed
