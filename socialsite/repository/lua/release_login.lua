-- Free a login, if it still names the given user.
-- KEYS[1] = LOGINS  keys.LOGINS (HASH: lowercased login -> user id)
-- ARGV[1] = the lowercased login, ARGV[2] = the user id it should name
-- Returns 1 if removed, 0 if it names nobody or someone else (a retry long after:
-- someone has signed up with it since).
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
    return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
