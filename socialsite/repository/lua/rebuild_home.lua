-- Begin or end the rebuild of an evicted home, so that concurrent first pages rebuild once.
-- KEYS[1] = evicted_homes  keys.evicted_homes(uid) (ZSET: the user scored 0 while
--                          evicted; "r:<uid>" scored by when a rebuild's hold ends, ms)
-- KEYS[2] = lists          keys.lists(uid) (HASH: the user's list ids)
-- KEYS[3] = home           keys.home(uid) (SET)
-- KEYS[4] = home_reposts   keys.home_reposts(uid) (HASH)
-- ARGV[1] = "begin" or "end", ARGV[2] = the user's id, ARGV[3] = now (ms)
-- ARGV[4] = "begin": how long the hold lasts (ms); ARGV[5] = "end": when the hold ends
-- Returns, "begin": {"rebuild", until} (this caller rebuilds, holding until then),
-- {"busy", until} (another request is rebuilding) or {"none", 0}; "end": 1 or 0.
--
-- "begin" takes the mark off in the same step as it holds the rebuild: deliveries
-- reach the home from then on, and the rebuild reads the profiles after, so a status
-- is either delivered or read from its author's profile. What slipped into the
-- evicted home or lists before (a follow's backfill) is cleared: the rebuild starts
-- from nothing. A hold whose time ran out belongs to a request that died: the next
-- one starts over.
local uid, now = ARGV[2], tonumber(ARGV[3])
local hold = 'r:' .. uid
if ARGV[1] == 'end' then
    local held = redis.call('ZSCORE', KEYS[1], hold)
    if held and tonumber(held) == tonumber(ARGV[5]) then
        redis.call('ZREM', KEYS[1], hold)
        return 1
    end
    return 0
end
local evicted = redis.call('ZSCORE', KEYS[1], uid)
local held = redis.call('ZSCORE', KEYS[1], hold)
if not evicted and not held then return {'none', 0} end
if held and tonumber(held) > now then return {'busy', held} end
local tag = keys.tag_of(KEYS[3])
for _, lid in ipairs(redis.call('HKEYS', KEYS[2])) do
    redis.call('DEL', keys.list_timeline(tag, uid, lid))
end
redis.call('DEL', KEYS[3], KEYS[4])
redis.call('ZREM', KEYS[1], uid)
local until_ms = now + tonumber(ARGV[4])
redis.call('ZADD', KEYS[1], until_ms, hold)
return {'rebuild', tostring(until_ms)}
