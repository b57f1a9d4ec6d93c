-- Edit a status (statuses.edit_status): its version as it was is pushed on its history
-- and the new one written over its hash, with the edit's time in its counts (which every
-- page reads with the status: processes that remember the old version see it changed).
-- KEYS[1] = status          keys.status(sid) (HASH)
-- KEYS[2] = status_history  keys.status_history(sid) (LIST: earlier versions, JSON, oldest first)
-- KEYS[3] = status_counts   keys.status_counts(sid) (HASH: edited = the last edit, ms)
-- ARGV[1] = the author's id, ARGV[2] = the version edited (its ``edited`` field, "" for
-- none), ARGV[3] = now in ms, ARGV[4] = the most edits, ARGV[5] = the fields set, as JSON
-- {name: value} ("" deletes the field)
-- Returns 1 if edited; -1 for no such status (or not the author's); -2 if it changed
-- since ARGV[2] was read (nothing changes: read it again); -3 past the most edits.
local uid = redis.call('HGET', KEYS[1], 'uid')
if not uid or uid ~= ARGV[1] or redis.call('HEXISTS', KEYS[1], 'repost_of') == 1 then
    return -1
end
local edited = redis.call('HGET', KEYS[1], 'edited') or ''
if edited ~= ARGV[2] then
    return -2
end
if redis.call('LLEN', KEYS[2]) >= tonumber(ARGV[4]) then
    return -3
end
local names = {'message', 'entities', 'spoiler', 'sensitive', 'media'}
local old = redis.call('HMGET', KEYS[1], unpack(names))
local version = {}
for index, name in ipairs(names) do
    version[name] = old[index] or ''
end
if edited ~= '' then
    version['at'] = tonumber(edited)
else
    version['at'] = math.floor(tonumber(redis.call('HGET', KEYS[1], 'posted')) * 1000)
end
redis.call('RPUSH', KEYS[2], cjson.encode(version))
local fields = cjson.decode(ARGV[5])
for name, value in pairs(fields) do
    if value == '' then
        redis.call('HDEL', KEYS[1], name)
    else
        redis.call('HSET', KEYS[1], name, value)
    end
end
redis.call('HSET', KEYS[1], 'edited', ARGV[3])
redis.call('HSET', KEYS[3], 'edited', ARGV[3])
return 1
