-- Evict one person's home: their home and list timelines go, the marks say so (one in
-- the shard's keys.evicted_homes, for pages and counts; the home holding only
-- EVICTED_MEMBER, for deliveries).
-- KEYS[1] = seen           keys.seen(uid) (ZSET: the shard's users, by the day last seen)
-- KEYS[2] = evicted_homes  keys.evicted_homes(uid) (ZSET: the shard's evicted homes)
-- KEYS[3] = lists          keys.lists(uid) (HASH: the user's list ids)
-- KEYS[4] = home           keys.home(uid) (SET)
-- KEYS[5] = home_reposts   keys.home_reposts(uid) (HASH)
-- ARGV[1] = the user's id, ARGV[2] = evict only if last seen before this (s)
-- Returns 1 if evicted, 0 if not (seen since the sweep read them, or not in KEYS[1]).
--
-- Deciding here, in the step that deletes, is what keeps a person who comes back
-- while the sweep runs from losing their home: their request's seen note (ZADD GT)
-- and this script run one after the other in the same slot. They leave KEYS[1] with
-- the mark, so the sweep's next range read holds only people not evicted yet; their
-- return puts them back.
local uid = ARGV[1]
local seen = redis.call('ZSCORE', KEYS[1], uid)
if not seen or tonumber(seen) >= tonumber(ARGV[2]) then return 0 end
local tag = keys.tag_of(KEYS[4])
for _, lid in ipairs(redis.call('HKEYS', KEYS[3])) do
    redis.call('DEL', keys.list_timeline(tag, uid, lid))
end
redis.call('DEL', KEYS[4], KEYS[5])
-- What deliveries see (deliver.lua): a home of this one member is an evicted one.
redis.call('SADD', KEYS[4], EVICTED_MEMBER)
redis.call('ZREM', KEYS[1], uid)
redis.call('ZADD', KEYS[2], 0, uid)
return 1
