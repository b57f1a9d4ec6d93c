-- A user's cached who-to-follow list, and which of its entries still stand: the user
-- may have followed, blocked or muted someone on it, or been blocked, since it was made.
-- KEYS[1] = suggestions  keys.suggestions(uid) (STRING: JSON [[id, ...], ...])
-- KEYS[2] = following    keys.following(uid) (ZSET of user ids)
-- KEYS[3] = blocks       keys.blocks(uid) (ZSET of user ids)
-- KEYS[4] = blocked_by   keys.blocked_by(uid) (ZSET of user ids)
-- KEYS[5] = mutes        keys.mutes(uid) (ZSET of user ids)
-- Returns false if nothing is cached, else {the JSON, the 1-based positions of the
-- entries that stand...}: the caller decodes the JSON, the script need not encode any.
local cached = redis.call('GET', KEYS[1])
if not cached then
    return false
end
local result = {cached}
for position, entry in ipairs(cjson.decode(cached)) do
    local id = entry[1]
    if not (redis.call('ZSCORE', KEYS[2], id) or redis.call('ZSCORE', KEYS[3], id)
            or redis.call('ZSCORE', KEYS[4], id) or redis.call('ZSCORE', KEYS[5], id)) then
        result[#result + 1] = position
    end
end
return result
