-- Count a failed run of a job; dead-letter it once it has failed too often.
-- KEYS[1] = queue     keys.JOBS, or keys.MAIL (STREAM)
-- KEYS[2] = dead      keys.DEAD_JOBS, or keys.DEAD_MAIL (STREAM)
-- KEYS[3] = failures  keys.JOB_FAILURES, or keys.MAIL_FAILURES (HASH: job stream id -> failed runs)
-- ARGV[1] = the consumer group
-- ARGV[2] = the job's stream id
-- ARGV[3] = the job, as JSON text
-- ARGV[4] = the failed runs after which it is given up on
-- ARGV[5] = the error, for the dead letter
-- ARGV[6] = how many times the group has handed it out (claims included), for the record
-- Returns the failed runs so far, 0 if it went to the dead letters now, or -1 if the
-- job is no longer queued (another worker that claimed it completed it meanwhile).
--
-- Only failures count: a job claimed from a worker that died did not fail, and is
-- retried however often that happens. Checking that the entry still exists in the same
-- step as dead-lettering it means a completed job never becomes a dead letter.
if #redis.call('XRANGE', KEYS[1], ARGV[2], ARGV[2]) == 0 then
    redis.call('HDEL', KEYS[3], ARGV[2])
    return -1
end
local failures = redis.call('HINCRBY', KEYS[3], ARGV[2], 1)
if failures < tonumber(ARGV[4]) then
    return failures
end
redis.call('XADD', KEYS[2], '*', 'job', ARGV[3], 'attempts', failures, 'reason', ARGV[5],
    'original_id', ARGV[2], 'deliveries', ARGV[6])
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[1], ARGV[2])
redis.call('HDEL', KEYS[3], ARGV[2])
return 0
