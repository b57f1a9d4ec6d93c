-- Uncount a deleted reply on the status it replied to.
-- KEYS[1] = status           keys.status(parent) (HASH)
-- KEYS[2] = replies          keys.replies(parent) (ZSET: reply ids scored by id)
-- KEYS[3] = removed_replies  keys.removed_replies(parent) (SET: replies deleted already)
-- ARGV[1] = the reply's id
-- Returns 1 if it was counted, 0 if not (a retry, or never counted).
--
-- The id is noted as removed, so that add_reply.lua never counts it again; not for a
-- parent that is gone, whose lists went with its hash.
if redis.call('EXISTS', KEYS[1]) == 1 then
    redis.call('SADD', KEYS[3], ARGV[1])
end
return redis.call('ZREM', KEYS[2], ARGV[1])
