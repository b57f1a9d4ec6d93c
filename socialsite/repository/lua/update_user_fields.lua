-- Change fields of a user hash together, while the account exists and is not leaving,
-- and return what they held before.
-- KEYS[1] = user  keys.user(uid) (HASH)
-- ARGV[1] = keys.LEAVING_FIELD; then pairs of a field and its new value, "" removing it
-- Returns 0 if the user is gone or being deleted (nothing changed), else the fields'
-- former values in order ("" for a field that was not set).
--
-- In one step, so that of two changes racing (two avatars uploaded at once) each learns
-- exactly which values it replaced: the caller deletes the files they name, and no file
-- is deleted that the hash still names, or kept that it no longer does.
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
    return 0
end
local former = {}
for i = 2, #ARGV, 2 do
    local field, value = ARGV[i], ARGV[i + 1]
    former[#former + 1] = redis.call('HGET', KEYS[1], field) or ''
    if value == '' then
        redis.call('HDEL', KEYS[1], field)
    else
        redis.call('HSET', KEYS[1], field, value)
    end
end
return former
