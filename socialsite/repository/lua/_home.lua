-- Prepended to the scripts that add ids to home timelines (see scripts.py).
-- A home timeline is a SET of status ids; it may hold up to cap + slack ids, and is
-- cut back to the newest cap ids when it grows past that. Trimming in batches keeps
-- a delivery to one SADD and one SCARD: the SORT runs once every ``slack`` additions.
-- ``size``: the set's size if the caller knows it (no SCARD).
-- An evicted home (eviction.py) holds this one member, which no status has as its id.
local EVICTED_MEMBER = '0'

local function trim_home(home, cap, slack, size)
    size = size or redis.call('SCARD', home)
    if size > cap + slack then
        -- SORT is numeric and ascending: the first size - cap ids are the oldest.
        redis.call('SREM', home, unpack(redis.call('SORT', home, 'LIMIT', 0, size - cap)))
    end
end
