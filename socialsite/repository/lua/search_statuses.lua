-- The newest statuses of one shard of the status index that have every word asked.
-- KEYS[1..] = status_words  keys.status_words(shard, word) (SET of integers), one per
--             word of the query, all of one shard (one slot)
-- ARGV[1] = only ids below this one ("" for no bound: the first page)
-- ARGV[2] = how many ids to return at most
-- Returns the ids, newest first.
--
-- SINTER orders its sets by size and walks the smallest, checking each of its ids in
-- the others: the intersection starts from the rarest word, as the book's does. Only
-- the page crosses the network.
local found = redis.call('SINTER', unpack(KEYS))
local before = tonumber(ARGV[1])
local ids = {}
for _, id in ipairs(found) do
    local n = tonumber(id)
    if before == nil or n < before then
        ids[#ids + 1] = n
    end
end
table.sort(ids, function(a, b) return a > b end)
local result = {}
for i = 1, math.min(#ids, tonumber(ARGV[2])) do
    result[i] = ids[i]
end
return result
