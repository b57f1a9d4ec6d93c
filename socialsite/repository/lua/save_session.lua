-- Write a logged-in session and list it among its user's sessions, in one step.
-- KEYS[1] = session        keys.session("<uid>.<random>") (STRING: the session's data)
-- KEYS[2] = user_sessions  keys.user_sessions(uid) (ZSET: the user's session keys -> expiry, ms)
-- ARGV[1] = the data, ARGV[2] = its time to live in seconds
-- ARGV[3] = "NX" (a new session) or "XX" (an existing one, if it still exists)
-- ARGV[4] = the session key (the ZSET's member), ARGV[5] = now, in ms
-- Returns 1 if written, 0 if NX or XX refused it (then nothing changes).
--
-- One step, so that no session exists that its user's list does not name: ending all
-- of a user's sessions (a suspension, a deletion) reads the list. Entries past their
-- expiry are dropped here, and the list expires with its longest-lived session.
if not redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2], ARGV[3]) then
    return 0
end
local now = tonumber(ARGV[5])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]) * 1000, ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[2], last[2])
return 1
