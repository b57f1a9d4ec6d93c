-- Move a job that keeps failing to the dead-letter stream.
-- KEYS[1] = fanout:{queue}:jobs  (STREAM)
-- KEYS[2] = fanout:{queue}:dead  (STREAM)
-- ARGV[1] = the consumer group
-- ARGV[2] = the job's stream id
-- ARGV[3] = the job, as JSON text
-- ARGV[4] = how many times it was attempted
-- ARGV[5] = why it is given up on
-- Returns the dead letter's stream id.
local id = redis.call('XADD', KEYS[2], '*', 'job', ARGV[3], 'attempts', ARGV[4],
    'reason', ARGV[5], 'original_id', ARGV[2])
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[1], ARGV[2])
return id
