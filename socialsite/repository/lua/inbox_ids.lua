-- A page of one member's inbox (or requests) and their side of each conversation on it,
-- in one command in their slot, so that it rides the session's round trip
-- (direct.InboxIdsRead).
-- KEYS[1] = conversations  keys.direct_inbox(uid) or keys.direct_requests(uid) (ZSET: cid -> ms)
-- KEYS[2] = requests       keys.direct_requests(uid) (ZSET)
-- KEYS[3] = state          keys.direct_state(uid) (HASH: u/x/q/m/s<cid>, ...)
-- ARGV[1] = the highest last activity ("+inf", or "(<ms>" for below it)
-- ARGV[2] = how many conversations at most
-- ARGV[3] = the lowest last activity ("-inf", or "(<ms>" for above it)
-- ARGV[4] = "1": the oldest of that range first (the ones just above ARGV[3]), else the
--   newest first
-- Returns {{cid, at, ...}, requests waiting, {u, x, q, m, s of each cid listed, ...}}:
-- unread count, cleared up to, muted, newest message delivered (nil: none), the message
-- the row shows instead (nil: the newest delivered; direct.hide_message).
local listed
if ARGV[4] == '1' then
    listed = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[3], ARGV[1], 'WITHSCORES', 'LIMIT', 0, ARGV[2])
else
    listed = redis.call('ZREVRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[3], 'WITHSCORES', 'LIMIT', 0, ARGV[2])
end
local fields = {}
for i = 1, #listed, 2 do
    local cid = listed[i]
    fields[#fields + 1] = 'u' .. cid
    fields[#fields + 1] = 'x' .. cid
    fields[#fields + 1] = 'q' .. cid
    fields[#fields + 1] = 'm' .. cid
    fields[#fields + 1] = 's' .. cid
end
local sides = {}
if #fields > 0 then
    sides = redis.call('HMGET', KEYS[3], unpack(fields))
end
return {listed, redis.call('ZCARD', KEYS[2]), sides}
