-- Set one field of a user's hash while the hash exists (a display name; the device
-- generation of the credentials hash, devices.py).
-- KEYS[1] = user_hash  keys.user(uid) or keys.credentials(uid) (HASH)
-- ARGV[1] = the field, ARGV[2] = its new value
-- Returns 1 if the hash exists (the field is set), 0 if not.
--
-- As flag_user.lua: a plain HSET on a user whose deletion has just removed the hash
-- would make a hash of that one field.
if redis.call('EXISTS', KEYS[1]) == 0 then
    return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
