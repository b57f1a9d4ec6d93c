-- Finish a job: queue its follow-up jobs, acknowledge it and delete it, in one step.
-- KEYS[1] = queue     keys.JOBS, or keys.MAIL (STREAM)
-- KEYS[2] = failures  keys.JOB_FAILURES, or keys.MAIL_FAILURES (HASH: job stream id -> failed runs)
-- KEYS[3] = done      keys.JOBS_COMPLETED, or keys.MAIL_SENT (STRING: completed, ever)
-- ARGV[1] = the consumer group
-- ARGV[2] = the finished job's stream id
-- ARGV[3..] = follow-up jobs, each a JSON text
-- Returns the number of follow-ups queued.
--
-- One step, so a worker killed between "queue the rest" and "ack" cannot leave both
-- the old job (to be retried) and its follow-ups (already queued): that would
-- duplicate work. Acked entries are deleted so that XLEN = waiting + in flight.
for i = 3, #ARGV do
    redis.call('XADD', KEYS[1], '*', 'job', ARGV[i])
end
-- Counted once: a job claimed from a slow worker may be completed by both.
if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 1 then
    redis.call('INCR', KEYS[3])
end
redis.call('XDEL', KEYS[1], ARGV[2])
redis.call('HDEL', KEYS[2], ARGV[2])
return #ARGV - 2
