-- The people starting with a prefix, from the index's tiers: the ids to rank.
-- KEYS[1..] = people_index  keys.people_index(c, tier) for each of limits.SEARCH_TIERS,
--                           lowest first (ZSETs, scores 0, one slot)
-- ARGV[1], ARGV[2] = the lex range ("[prefix", "[prefix\xff")
-- ARGV[3] = how many entries of a tier's range are read at most (the candidates)
-- ARGV[4] = how many people the page needs
-- Returns {matches in each tier (one number per key), the lowest tier read (1-based),
--          uid, uid, ...}: the distinct ids of the tiers read.
--
-- Everyone in a tier has more followers than anyone found only below it, so the tiers
-- are read from the highest down, and no further once they hold ARGV[4] people: a
-- short prefix sends back a few dozen ids, not the thousands that match it.
local low, high = ARGV[1], ARGV[2]
local candidates, need = tonumber(ARGV[3]), tonumber(ARGV[4])
local result = {}
for i = 1, #KEYS do
    result[i] = redis.call('ZLEXCOUNT', KEYS[i], low, high)
end
local seen, uids = {}, {}
local lowest = #KEYS
for top = #KEYS, 1, -1 do
    lowest = top
    if result[top] > 0 then
        local members = redis.call('ZRANGE', KEYS[top], low, high, 'BYLEX', 'LIMIT', 0, candidates)
        for _, member in ipairs(members) do
            local uid = string.sub(member, string.find(member, '\0', 1, true) + 1)
            if not seen[uid] then
                seen[uid] = true
                uids[#uids + 1] = uid
            end
        end
    end
    if #uids >= need then
        break
    end
end
result[#KEYS + 1] = lowest
for _, uid in ipairs(uids) do
    result[#result + 1] = uid
end
return result
