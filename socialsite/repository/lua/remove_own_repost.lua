-- The reposter's side of undoing a repost, in the reposter's slot.
-- KEYS[1] = reposted         keys.reposted(uid) (ZSET: original -> repost id)
-- KEYS[2] = profile          keys.profile(uid) (ZSET)
-- KEYS[3] = profile_reposts  keys.profile_reposts(uid) (ZSET: "<rid>:<orig>:<author>" by rid)
-- KEYS[4] = pulled_statuses  keys.pulled_statuses(uid) (ZSET by id: a pulled repost)
-- ARGV[1] = the original's id; ARGV[2] = a repost id: only undo that one ("" for
-- whichever it is)
-- Returns the id of the repost undone, or 0 if the user had not reposted it (a repeat).
local rid = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not rid or (ARGV[2] ~= '' and tonumber(rid) ~= tonumber(ARGV[2])) then
    if ARGV[2] ~= '' then
        -- Taking back a repost that never got its hash: its profile entries go anyway.
        redis.call('ZREM', KEYS[2], ARGV[2])
        redis.call('ZREMRANGEBYSCORE', KEYS[3], ARGV[2], ARGV[2])
        redis.call('ZREMRANGEBYSCORE', KEYS[4], ARGV[2], ARGV[2])
    end
    return 0
end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], rid)
redis.call('ZREMRANGEBYSCORE', KEYS[3], rid, rid)
redis.call('ZREMRANGEBYSCORE', KEYS[4], rid, rid)
return tonumber(rid)
