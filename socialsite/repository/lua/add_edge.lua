-- Add one member to a follow list and count it, if it is new.
-- KEYS[1] = follow_list    keys.following(follower) or keys.followers(followed) (ZSET)
-- KEYS[2] = user           keys.user of the list's owner (HASH holding the count)
-- KEYS[3] = outdated_note  a note the new edge makes obsolete, from which ARGV[4] is
--           removed: following side keys.unfollowed(follower, followed) (ZSET, see
--           unfollow.lua); followers side keys.follow_requests(followed) (ZSET: the
--           request is answered)
-- KEYS[4] = blocks?        following side only: keys.blocks(follower) (ZSET)
-- KEYS[5] = blocked_by?    following side only: keys.blocked_by(follower) (ZSET)
-- ARGV[1] = the other user's id
-- ARGV[2] = now, in milliseconds
-- ARGV[3] = the count field: "followers" or "following"
-- ARGV[4] = with KEYS[3]: the member to remove from it
-- Returns 1 if added, 0 if it was already there (then nothing changes), -1 if a block
-- either way refuses it (KEYS[4], KEYS[5]; then nothing changes either).
--
-- Scores are follow times in ms, made unique per list (_scores.lua): a follow in the
-- same millisecond as the newest one gets the next millisecond.
if KEYS[4] and (redis.call('ZSCORE', KEYS[4], ARGV[1]) or redis.call('ZSCORE', KEYS[5], ARGV[1])) then
    return -1
end
if KEYS[3] then
    -- Following again: fan-out must no longer skip this user for other's statuses.
    redis.call('ZREM', KEYS[3], ARGV[4])
end
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
    return 0
end
add_with_unique_score(KEYS[1], ARGV[2], ARGV[1])
redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
return 1
