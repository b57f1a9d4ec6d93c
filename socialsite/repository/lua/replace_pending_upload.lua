-- Replace a pending upload's entry (its alt text changed) if it is still pending and
-- still the entry the caller read: compare and set, so that an upload a status has just
-- shown (taken off the pending ones) is not listed again, and two changes at once do not
-- lose one silently.
-- KEYS[1] = pending   keys.pending_uploads(uid) (ZSET: upload id -> when stored)
-- KEYS[2] = items     keys.pending_upload_items(uid) (HASH: upload id -> entry JSON)
-- ARGV[1] = the upload id, ARGV[2] = the entry read, ARGV[3] = its new entry
-- Returns 1 if replaced, 0 if the upload is no longer pending or its entry changed.
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
    return 0
end
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then
    return 0
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return 1
