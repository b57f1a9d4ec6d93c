-- Add one notification to a user's list, unless it is there already or the user is gone.
-- KEYS[1] = notifications        keys.notifications(uid) (ZSET: events, see _notifications.lua)
-- KEYS[2] = notifications_state  keys.notifications_state(uid) (HASH: read, version, unread)
-- KEYS[3] = user                 keys.user(uid) (HASH: must exist)
-- KEYS[4..] = hidden_actors      keys.hidden_actors(uid): SETs or ZSETs of user ids
-- ARGV[1] = the event, "<kind>:<actor>:<status>:<subject>"
-- ARGV[2] = now in ms, ARGV[3] = how many notifications the user keeps
-- ARGV[4] = the user's id, ARGV[5] = the channel to publish the unread count on ("": none)
-- Returns 1 if added; 0 if it was there already (a retry: nothing changes) or the user
-- does not exist.
--
-- Scores are times in ms made unique per list, and above the read mark, so that a new
-- notification is always unread and a page's cursor (a score) never repeats or skips.
local list, state = KEYS[1], KEYS[2]
if redis.call('EXISTS', KEYS[3]) == 0 or redis.call('ZSCORE', list, ARGV[1]) then
    return 0
end
local score = unique_score(list, ARGV[2])
local mark = read_mark(state)
if mark >= score then
    score = mark + 1
end
redis.call('ZADD', list, score, ARGV[1])
-- Keep the newest ARGV[3]: the oldest go first.
redis.call('ZREMRANGEBYRANK', list, 0, -(tonumber(ARGV[3]) + 1))
refresh(list, state, {unpack(KEYS, 4)}, ARGV[4], ARGV[5])
return 1
