-- The newest statuses of one shard of the status index that have every word asked,
-- read block by block from the newest.
-- KEYS[1..] = status_words  keys.status_words(shard, block, word) (SET of integers):
--             the query's words for one block, then the same for the next older
--             block, and so on; all of one shard (one slot)
-- ARGV[1] = how many words a block has (the keys come in runs of this many)
-- ARGV[2] = only ids below this one ("" for no bound: the first page)
-- ARGV[3] = how many ids to return at most
-- Returns the ids, newest first.
--
-- SINTER orders its sets by size and walks the smallest, checking each of its ids in
-- the others: each block's intersection starts from its rarest word, as the book's
-- does. Blocks hold disjoint ranges of ids, newest first: once a page is full, the
-- older blocks are not read. Only the page crosses the network.
local words = tonumber(ARGV[1])
local before = tonumber(ARGV[2])
local wanted = tonumber(ARGV[3])
local result = {}
for first = 1, #KEYS, words do
    local found = redis.call('SINTER', unpack(KEYS, first, first + words - 1))
    local ids = {}
    for _, id in ipairs(found) do
        local n = tonumber(id)
        if before == nil or n < before then
            ids[#ids + 1] = n
        end
    end
    table.sort(ids, function(a, b) return a > b end)
    for i = 1, #ids do
        result[#result + 1] = ids[i]
        if #result >= wanted then
            return result
        end
    end
end
return result
