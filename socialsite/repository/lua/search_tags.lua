-- The tags starting with a prefix, most recently used first: one page of them.
-- KEYS[1] = TAG_NAMES  keys.TAG_NAMES (ZSET, scores 0: "<folded tag>\0<tag>" in byte order)
-- KEYS[2] = TAG_USES   keys.TAG_USES (ZSET: tag -> id of the newest status using it)
-- ARGV[1], ARGV[2] = the lex range ("[prefix", "[prefix\xff")
-- ARGV[3] = how many tags of the range are read at most (the candidates)
-- ARGV[4] = how many of the ranked ones to skip, ARGV[5] = how many to return
-- Returns {candidates read, tag, last use, tag, last use, ...}.
--
-- Both keys share a slot, so the range and the recencies are read in one step, and
-- only the page goes back over the network, not the candidates.
local names = redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[2], 'BYLEX', 'LIMIT', 0, tonumber(ARGV[3]))
if #names == 0 then
    return {0}
end
local tags = {}
for i, name in ipairs(names) do
    tags[i] = string.sub(name, string.find(name, '\0', 1, true) + 1)
end
local scores = redis.call('ZMSCORE', KEYS[2], unpack(tags))
local ranked = {}
for i, tag in ipairs(tags) do
    ranked[i] = {tag, tonumber(scores[i]) or 0}
end
table.sort(ranked, function(a, b)
    if a[2] ~= b[2] then
        return a[2] > b[2]
    end
    return a[1] < b[1]
end)
local result = {#names}
local first = tonumber(ARGV[4]) + 1
local last = math.min(#ranked, tonumber(ARGV[4]) + tonumber(ARGV[5]))
for i = first, last do
    result[#result + 1] = ranked[i][1]
    result[#result + 1] = tostring(ranked[i][2])
end
return result
