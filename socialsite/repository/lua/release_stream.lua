-- Forget one stream that hold_stream.lua counted (stream_addresses.py): its address
-- holds one stream fewer. Nothing if it is not counted (released already).
-- KEYS[1] = stream_holders         the process's keys.stream_holders (HASH: stream
--                                   token -> address)
-- KEYS[2] = stream_address_counts  the process's keys.stream_address_counts (HASH:
--                                   address -> streams)
-- ARGV[1] = the stream's token
-- Returns 1 if released, 0 if it was not counted.
local address = redis.call('HGET', KEYS[1], ARGV[1])
if not address then
    return 0
end
redis.call('HDEL', KEYS[1], ARGV[1])
if redis.call('HINCRBY', KEYS[2], address, -1) <= 0 then
    redis.call('HDEL', KEYS[2], address)
end
return 1
