-- Mute, unmute, or end a mute that is due, in the muter's slot.
-- KEYS[1] = mutes         keys.mutes(uid) (ZSET: whom uid mutes, by when)
-- KEYS[2] = mute_ends     keys.mute_ends(uid) (HASH: muted -> end in ms, 0 for none)
-- KEYS[3] = blocks        keys.blocks(uid) (ZSET)
-- KEYS[4] = blocked_by    keys.blocked_by(uid) (ZSET)
-- KEYS[5] = hides         keys.hides(uid) (ZSET: authors uid does not get)
-- KEYS[6] = hiding        keys.hiding(uid, other) (ZSET: users of this shard who do not
--                         get other's)
-- KEYS[7] = mute_endings  keys.mute_endings(uid) (ZSET: "uid:other" of the shard's timed
--                         mutes, by end)
-- ARGV[1] = the other user's id, ARGV[2] = uid, ARGV[3] = now in ms
-- ARGV[4] = "mute", "unmute" or "end" (unmute only if the mute's end has come)
-- ARGV[5] = with "mute": when it ends, in ms; 0 for never
-- Returns 1 if it changed whether uid mutes other, else 0 (a mute made again with
-- another end returns 0 but takes the new end).
local other, uid, now, action = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local ending = uid .. ':' .. other
local changed = 0
if action == 'mute' then
    if not redis.call('ZSCORE', KEYS[1], other) then
        add_with_unique_score(KEYS[1], now, other)
        changed = 1
    end
    local ends = ARGV[5]
    redis.call('HSET', KEYS[2], other, ends)
    if ends == '0' then
        redis.call('ZREM', KEYS[7], ending)
    else
        redis.call('ZADD', KEYS[7], ends, ending)
    end
else
    local ends = tonumber(redis.call('HGET', KEYS[2], other) or '-1')
    if action == 'end' and not (ends > 0 and ends <= tonumber(now)) then
        -- Not due: made again since the sweep read it, with a later end (whose
        -- ending stays), without end, or undone (their ending is stale).
        if ends <= 0 then redis.call('ZREM', KEYS[7], ending) end
        return 0
    end
    changed = redis.call('ZREM', KEYS[1], other)
    redis.call('HDEL', KEYS[2], other)
    redis.call('ZREM', KEYS[7], ending)
end
refresh_hidden(uid, other, KEYS[3], KEYS[4], KEYS[2], KEYS[5], KEYS[6])
return changed
