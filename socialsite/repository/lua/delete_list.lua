-- Delete one of the user's lists, with its members and timeline.
-- KEYS[1] = lists          keys.lists(uid) (HASH: list id -> name)
-- KEYS[2] = listed         keys.listed(uid) (HASH: member -> the lists holding them)
-- KEYS[3] = list_members   keys.list_members(uid, lid) (ZSET)
-- KEYS[4] = list_timeline  keys.list_timeline(uid, lid) (SET: the list's timeline)
-- ARGV[1] = the list id, ARGV[2] = the user's id
-- Returns 1 if deleted, 0 if there was no such list (a retry: it is gone).
--
-- Each member's entry in KEYS[2] loses the list; a member in no list of the user's
-- any more leaves keys.listing of the user's shard (built from the tag: same slot).
local lid, owner = ARGV[1], ARGV[2]
local existed = redis.call('HDEL', KEYS[1], lid)
local tag = keys.tag_of(KEYS[1])
for _, member in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
    local left = {}
    for _, held in ipairs(lists_holding(KEYS[2], member)) do
        if held ~= lid then left[#left + 1] = held end
    end
    if #left > 0 then
        redis.call('HSET', KEYS[2], member, table.concat(left, ','))
    else
        redis.call('HDEL', KEYS[2], member)
        redis.call('SREM', keys.listing(tag, member), owner)
    end
end
redis.call('DEL', KEYS[3], KEYS[4])
return existed
