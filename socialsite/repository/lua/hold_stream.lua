-- Count one stream of a client address on one process of a stream server, unless the
-- address holds the limit already over all the server's processes (stream_addresses.py).
-- KEYS[1] = stream_holders         this process's keys.stream_holders (HASH: stream
--                                   token -> address)
-- KEYS[2] = stream_address_counts  this process's keys.stream_address_counts (HASH:
--                                   address -> streams)
-- KEYS[3..] = other_processes_counts  keys.stream_address_counts of the server's other
--                                     processes (the same hash tag: one slot)
-- ARGV[1] = the stream's token (the same stream sent again is not counted twice)
-- ARGV[2] = the client address
-- ARGV[3] = the limit: streams one address may hold on the server (0: none)
-- ARGV[4] = how long this process's keys live unless renewed, in milliseconds
-- Returns {held, streams}: held 1 counted (or counted already), 0 refused (nothing
-- changes); streams: what the address holds on the server, this one included if held.
local token, address, limit = ARGV[1], ARGV[2], tonumber(ARGV[3])
local streams = 0
for i = 2, #KEYS do
    streams = streams + (tonumber(redis.call('HGET', KEYS[i], address)) or 0)
end
if redis.call('HEXISTS', KEYS[1], token) == 1 then
    return {1, streams}
end
if limit > 0 and streams >= limit then
    return {0, streams}
end
redis.call('HSET', KEYS[1], token, address)
redis.call('HINCRBY', KEYS[2], address, 1)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return {1, streams + 1}
