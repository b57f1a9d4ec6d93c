-- Create a named list, unless the user has one by that name already.
-- KEYS[1] = lists     keys.lists(uid) (HASH: list id -> name)
-- KEYS[2] = list_ids  keys.list_ids(uid) (STRING: the user's counter of list ids)
-- ARGV[1] = the name, ARGV[2] = how many lists a user may have
-- Returns {"created", id}, {"exists", id} (a list by that name: a form sent twice
-- makes one list), or {"full", 0}.
local names = redis.call('HGETALL', KEYS[1])
for i = 1, #names, 2 do
    if names[i + 1] == ARGV[1] then return {'exists', tonumber(names[i])} end
end
if #names / 2 >= tonumber(ARGV[2]) then return {'full', 0} end
local lid = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], lid, ARGV[1])
return {'created', lid}
