-- Take a status off its author's profile and home timelines and uncount it.
-- KEYS[1] = profile          keys.profile(uid) (ZSET)
-- KEYS[2] = home             keys.home(uid) (SET)
-- KEYS[3] = user             keys.user(uid) (HASH: the "posts" count)
-- KEYS[4] = pulled_statuses  keys.pulled_statuses(uid) (ZSET by id: readers of a pulled
--                            account stop finding it in the same step)
-- ARGV[1] = the status id
-- Returns 1 if removed, 0 if it was gone already (a retry: nothing is uncounted twice).
redis.call('SREM', KEYS[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[4], ARGV[1], ARGV[1])
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
    redis.call('HINCRBY', KEYS[3], 'posts', -1)
    return 1
end
return 0
