-- Prepended to the scripts that change a user's notifications (see notifications.py).
-- A user's notifications are a ZSET of events (keys.notifications) and a HASH of
-- state (keys.notifications_state): read (the score of the newest one seen), version
-- (raised by every change) and unread (how many score above read, leaving out those
-- whose actor is in one of the user's hidden-actor keys: SETs or ZSETs of user ids in
-- the user's slot, such as whom they block or mute).
--
-- Every change ends with refresh(): the unread count is worked out again in the same
-- step, so it is exact under any concurrency, and published with the new version for
-- the user's open live pages (the stream servers route it by user id). PUBLISH is not a
-- key: a script in one slot may publish, and on a cluster the message reaches every node.

-- The member's actor: "<kind>:<actor>:<status>:<subject>".
local function actor_of(member)
    return string.match(member, '^[^:]*:(%d+):')
end

-- The read mark; one that is not a whole number up to ids.MAX_ID (a float an older
-- version stored from a client's id) counts as none.
local function read_mark(state)
    local read = tonumber(redis.call('HGET', state, 'read') or '0')
    if not read or read ~= math.floor(read) or read > 9007199254740991 then return 0 end
    return read
end

-- Whether ``actor`` is in any of the keys ``hidden`` (whose types are ``types``).
local function is_hidden(actor, hidden, types)
    for i, key in ipairs(hidden) do
        if types[i] == 'set' then
            if redis.call('SISMEMBER', key, actor) == 1 then return true end
        elseif types[i] == 'zset' then
            if redis.call('ZSCORE', key, actor) then return true end
        end
    end
    return false
end

local function key_types(hidden)
    local types = {}
    for i, key in ipairs(hidden) do
        types[i] = redis.call('TYPE', key)['ok']
    end
    return types
end

-- How many notifications score above the read mark and are not by a hidden actor:
-- one ZCOUNT without hidden keys, else a look at each unread one (at most the
-- notifications a user keeps).
local function unread_count(list, state, hidden)
    local above = '(' .. read_mark(state)
    local types = key_types(hidden)
    local any = false
    for _, t in ipairs(types) do
        if t ~= 'none' then any = true end
    end
    if not any then
        return redis.call('ZCOUNT', list, above, '+inf')
    end
    local count = 0
    for _, member in ipairs(redis.call('ZRANGEBYSCORE', list, above, '+inf')) do
        if not is_hidden(actor_of(member), hidden, types) then count = count + 1 end
    end
    return count
end

-- After a change: a new version and unread count, stored and published.
local function refresh(list, state, hidden, uid, channel)
    local version = redis.call('HINCRBY', state, 'version', 1)
    local unread = unread_count(list, state, hidden)
    redis.call('HSET', state, 'unread', unread)
    if channel ~= '' then
        redis.call('PUBLISH', channel, cjson.encode(
            {unread = tonumber(uid), count = unread, version = version}))
    end
    return {unread, version}
end
