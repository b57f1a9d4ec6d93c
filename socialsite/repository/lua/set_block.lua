-- One side of a block or an unblock, in one user's slot (blocks.block writes both).
-- KEYS[1] = blocks           keys.blocks(uid) (ZSET: whom uid blocks)
-- KEYS[2] = blocked_by       keys.blocked_by(uid) (ZSET: who blocks uid)
-- KEYS[3] = mute_ends        keys.mute_ends(uid) (HASH: uid's mutes and their ends)
-- KEYS[4] = hides            keys.hides(uid) (ZSET: authors uid does not get)
-- KEYS[5] = hiding           keys.hiding(uid, other) (ZSET: users of this shard who do
--                            not get other's)
-- KEYS[6] = follow_requests  keys.follow_requests(uid) (ZSET: who asks to follow uid)
-- ARGV[1] = the other user's id, ARGV[2] = uid, ARGV[3] = now in ms
-- ARGV[4] = "block" or "unblock"
-- ARGV[5] = "blocker" (uid blocks other: KEYS[1] changes) or "blocked" (KEYS[2])
-- Returns 1 if the list changed, 0 if it already said so (a retry changes nothing).
--
-- The hiding notes are written in the same step as the list: from this step on, no
-- delivery of other's statuses lands in uid's home timeline (deliver.lua), and a
-- follow either way is refused on this side (add_edge.lua, follow_check.lua).
local other, uid, now = ARGV[1], ARGV[2], ARGV[3]
local list = ARGV[5] == 'blocker' and KEYS[1] or KEYS[2]
local changed
if ARGV[4] == 'block' then
    changed = 0
    if not redis.call('ZSCORE', list, other) then
        add_with_unique_score(list, now, other)
        changed = 1
    end
    -- A request to follow uid from someone in a block with uid goes.
    redis.call('ZREM', KEYS[6], other)
else
    changed = redis.call('ZREM', list, other)
end
refresh_hidden(uid, other, KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return changed
