-- Deliver one status to the home timelines of several followers (fan-out).
-- KEYS[2i-1] = home:{s}:follower       (SET)    for each follower i, all in one slot
-- KEYS[2i]   = following:{s}:follower  (ZSET)
-- ARGV[1] = the author's id
-- ARGV[2] = the status id
-- ARGV[3] = the home timeline's cap, ARGV[4] = its slack
-- Returns how many followers received it. Followers who no longer follow the author
-- are skipped, in the same step as the others' delivery. Delivering twice changes
-- nothing: the home timeline is a set.
local author, sid = ARGV[1], ARGV[2]
local cap, slack = tonumber(ARGV[3]), tonumber(ARGV[4])
local delivered = 0
for i = 1, #KEYS, 2 do
    if redis.call('ZSCORE', KEYS[i + 1], author) then
        delivered = delivered + redis.call('SADD', KEYS[i], sid)
        trim_home(KEYS[i], cap, slack)
    end
end
return delivered
