-- Replace the trends with a recompute's result, in one step: a page reads either the
-- old trends or the new, never half of each.
-- KEYS[1] = TRENDS       keys.TRENDS (ZSET: tag -> decayed score)
-- KEYS[2] = TREND_USES   keys.TREND_USES (HASH: tag -> distinct users today)
-- KEYS[3] = TREND_PEAKS  keys.TREND_PEAKS (HASH: tag -> "<best score>:<ms>")
-- ARGV[1] = how many trends follow (n), then n triples: tag, decayed score, uses
-- then how many peaks to set (p), then p pairs: tag, "<score>:<ms>"
-- then the tags whose peak is forgotten (the rest of ARGV)
-- Returns the number of trends stored. Running it again with the same arguments
-- leaves the same state.
redis.call('DEL', KEYS[1], KEYS[2])
local n = tonumber(ARGV[1])
local i = 2
for _ = 1, n do
    redis.call('ZADD', KEYS[1], ARGV[i + 1], ARGV[i])
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 2])
    i = i + 3
end
local p = tonumber(ARGV[i])
i = i + 1
for _ = 1, p do
    redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
    i = i + 2
end
while i <= #ARGV do
    redis.call('HDEL', KEYS[3], ARGV[i])
    i = i + 1
end
return n
