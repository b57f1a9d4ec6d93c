-- Prepended to the scripts that change whether one user gets another's statuses (see
-- scripts.py). All its keys are in the slot of ``viewer``, the one who may not get them.
-- Works out why ``viewer`` does not get ``other``'s statuses, from the block lists
-- both ways and the mute, and writes the answer where it is read: keys.hides (home
-- pages) and keys.hiding (fan-out). A block, or a mute without end, hides until +inf;
-- a mute with an end until then; nothing: the entries are removed.
local function refresh_hidden(viewer, other, blocks, blocked_by, mute_ends, hides, hiding)
    local till
    if redis.call('ZSCORE', blocks, other) or redis.call('ZSCORE', blocked_by, other) then
        till = '+inf'
    else
        local ends = redis.call('HGET', mute_ends, other)
        if ends == '0' then
            till = '+inf'
        elseif ends then
            till = ends
        end
    end
    if till then
        redis.call('ZADD', hides, till, other)
        redis.call('ZADD', hiding, till, viewer)
    else
        redis.call('ZREM', hides, other)
        redis.call('ZREM', hiding, viewer)
    end
end

