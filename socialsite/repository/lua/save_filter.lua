-- Create or replace one of a user's keyword filters, handing out its id and the ids of
-- its new keywords from the user's counter.
-- KEYS[1] = filters     keys.filters(uid) (HASH: filter id -> JSON)
-- KEYS[2] = filter_ids  keys.filter_ids(uid) (STRING: the user's counter of ids)
-- ARGV[1] = the filter id (0: a new filter), ARGV[2] = the filter as JSON (its keywords'
-- "id" 0 for new ones), ARGV[3] = how many filters a user may have
-- Returns {"saved", id}, {"full", 0} (a new one over the limit) or {"missing", 0} (a
-- filter to replace that is not there: deleted meanwhile).
local fid = tonumber(ARGV[1])
if fid == 0 then
    if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return {'full', 0} end
    fid = redis.call('INCR', KEYS[2])
elseif redis.call('HEXISTS', KEYS[1], fid) == 0 then
    return {'missing', 0}
end
local filter = cjson.decode(ARGV[2])
filter['id'] = fid
local words = filter['keywords']
if type(words) == 'table' then
    for i = 1, #words do
        if tonumber(words[i]['id']) == 0 then words[i]['id'] = redis.call('INCR', KEYS[2]) end
    end
end
redis.call('HSET', KEYS[1], fid, cjson.encode(filter))
return {'saved', fid}
