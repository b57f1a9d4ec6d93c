-- Count a reply on the status it replies to.
-- KEYS[1] = status           keys.status(parent) (HASH: must exist)
-- KEYS[2] = replies          keys.replies(parent) (ZSET: reply ids scored by id)
-- KEYS[3] = removed_replies  keys.removed_replies(parent) (SET: replies deleted already)
-- ARGV[1] = the reply's id
-- Returns 1 if counted; 0 if it was already (a retry), or was deleted meanwhile, or
-- the parent is gone (its lists went with it: nothing is written for it again).
--
-- All three keys share the parent's slot (keys.replies), so the check and the count
-- are one step: a reply counted late, after its own deletion (a form sent again, the
-- sweep of unfinished posts), is refused rather than counted for ever.
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('SISMEMBER', KEYS[3], ARGV[1]) == 1 then
    return 0
end
return redis.call('ZADD', KEYS[2], ARGV[1], ARGV[1])
