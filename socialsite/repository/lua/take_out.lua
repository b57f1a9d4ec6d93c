-- Take a user's statuses and reposts out of one home timeline (a block or a mute),
-- by the dedupe rules (lua/_reposts.lua).
-- KEYS[1] = home           keys.home(uid) (SET)
-- KEYS[2] = home_reposts   keys.home_reposts(uid) (HASH)
-- KEYS[3] = following      keys.following(uid) (ZSET)
-- KEYS[4..] = reposts_shown  keys.reposts_shown(uid, orig) for each repost in ARGV, in
--                            their order
-- ARGV[1] = uid, ARGV[2] = the user whose statuses leave
-- ARGV[3], ARGV[4] = the home timeline's cap and slack
-- ARGV[5..] = status ids, a repost as "<rid>/<orig>/<author>"
take_out(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV, 5, 4, tonumber(ARGV[3]), tonumber(ARGV[4]))
return 1
