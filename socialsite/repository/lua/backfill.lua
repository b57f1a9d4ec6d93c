-- Copy a newly followed user's statuses into the follower's home timeline.
-- KEYS[1] = home:{uid}        (ZSET)
-- KEYS[2] = following:{uid}   (ZSET)
-- ARGV[1] = the followed user's id
-- ARGV[2] = the home timeline's cap
-- ARGV[3..] = status ids (each is also its score)
-- Returns the number of ids added; 0 if the follow was undone in the meantime.
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
    return 0
end
local added = 0
for i = 3, #ARGV, 500 do
    local args = {}
    for j = i, math.min(i + 499, #ARGV) do
        args[#args + 1] = ARGV[j]
        args[#args + 1] = ARGV[j]
    end
    added = added + redis.call('ZADD', KEYS[1], unpack(args))
end
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -tonumber(ARGV[2]) - 1)
return added
