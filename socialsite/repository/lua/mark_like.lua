-- Note a like in the liker's own list, and that they changed a like lately.
-- KEYS[1] = user_likes     keys.user_likes(uid) (ZSET: status ids scored by time in ms)
-- KEYS[2] = likes_changed  keys.likes_changed(uid) (STRING, expiring: home pages read
--                          counts fresh)
-- ARGV[1] = the status id, ARGV[2] = now, in ms, ARGV[3] = how long KEYS[2] stands, ms
-- Returns 1 if noted, 0 if it was already (a retry: its time stays).
-- Scores are made unique per list, as status_count.lua's, for paging /@login/likes/.
redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
    return 0
end
add_with_unique_score(KEYS[1], ARGV[2], ARGV[1])
return 1
