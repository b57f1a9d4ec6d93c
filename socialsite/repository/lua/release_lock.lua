-- Release a lock only if we still hold it (it may have expired and been taken).
-- KEYS[1] = lock  the lock key (STRING: keys.follow_lock, ...)
-- ARGV[1] = the token we set when acquiring it
-- Returns 1 if released, 0 if someone else holds it now.
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
