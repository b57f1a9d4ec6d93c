-- Rename one of the user's lists.
-- KEYS[1] = lists  keys.lists(uid) (HASH: list id -> name)
-- ARGV[1] = the list id, ARGV[2] = the new name
-- Returns "renamed", "exists" (another list of the user's has that name) or "missing".
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 'missing' end
local names = redis.call('HGETALL', KEYS[1])
for i = 1, #names, 2 do
    if names[i + 1] == ARGV[2] and names[i] ~= ARGV[1] then return 'exists' end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 'renamed'
