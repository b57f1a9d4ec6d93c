-- Add a user to one of the owner's lists, or take them off it.
-- KEYS[1] = lists         keys.lists(owner) (HASH: list id -> name)
-- KEYS[2] = list_members  keys.list_members(owner, lid) (ZSET: members by when added)
-- KEYS[3] = listed        keys.listed(owner) (HASH: member -> the lists holding them)
-- KEYS[4] = listing       keys.listing(owner, member) (SET: who in this shard lists the member)
-- KEYS[5] = following     keys.following(owner) (ZSET)
-- ARGV[1] = "add" or "remove", ARGV[2] = the list id, ARGV[3] = the member's id
-- ARGV[4] = the owner's id, ARGV[5] = now in ms, ARGV[6] = the most members a list has
-- Returns "added", "removed", "already" (added before: nothing changes), "absent"
-- (not a member: nothing changes), "missing" (no such list), "not following" (only
-- people the owner follows may be added) or "full".
--
-- Written before the list's timeline is filled or emptied (lists.py): from this step
-- on, deliver.lua puts the member's new statuses into the list (or no more of them).
-- The follow is checked in the same step as the add: an unfollow (graph.unfollow)
-- takes the member off every list after it, and no add can come in between.
local action, lid, member, owner = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if redis.call('HEXISTS', KEYS[1], lid) == 0 then return 'missing' end
local held = lists_holding(KEYS[3], member)
local index
for i, other in ipairs(held) do
    if other == lid then index = i end
end
if action == 'add' then
    if index then return 'already' end
    if not redis.call('ZSCORE', KEYS[5], member) then return 'not following' end
    if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[6]) then return 'full' end
    add_with_unique_score(KEYS[2], ARGV[5], member)
    held[#held + 1] = lid
    redis.call('HSET', KEYS[3], member, table.concat(held, ','))
    redis.call('SADD', KEYS[4], owner)
    return 'added'
end
if not index then return 'absent' end
redis.call('ZREM', KEYS[2], member)
table.remove(held, index)
if #held > 0 then
    redis.call('HSET', KEYS[3], member, table.concat(held, ','))
else
    redis.call('HDEL', KEYS[3], member)
    redis.call('SREM', KEYS[4], owner)
end
return 'removed'
