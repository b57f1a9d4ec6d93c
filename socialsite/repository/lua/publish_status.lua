-- Publish a posted status to the streaming servers and, when it is public, note its id
-- among the recent public statuses, which API clients catch up from (since_id).
-- KEYS[1] = streaming:recent:  (ZSET: recent public status ids, scored by the id)
-- ARGV[1] = the status id
-- ARGV[2] = "1" if the status is public (not posted while its author was private)
-- ARGV[3] = how many ids the ZSET keeps (the newest)
-- ARGV[4] = the channel to publish on, ARGV[5] = the event (the status as JSON)
-- Returns how many subscribers got the event.
--
-- One script, so that noting the id costs posting no round trip of its own: the
-- PUBLISH was one already. Noting it again (a retry) changes nothing.
if ARGV[2] == '1' then
    redis.call('ZADD', KEYS[1], ARGV[1], ARGV[1])
    local extra = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[3])
    if extra > 0 then
        redis.call('ZREMRANGEBYRANK', KEYS[1], 0, extra - 1)
    end
end
return redis.call('PUBLISH', ARGV[4], ARGV[5])
