-- Append one message to a conversation, creating the conversation with its first.
-- KEYS[1] = conversation  keys.conversation(cid) (HASH: id, created, by, seq, last, at, pair)
-- KEYS[2] = members       keys.conversation_members(cid) (ZSET: uid -> joined, ms)
-- KEYS[3] = messages      keys.conversation_messages(cid) (STREAM: "<mid>-0": from, at, text, e)
-- KEYS[4] = sent          keys.conversation_sent(cid, sender, key) (STRING: the mid sent)
-- ARGV[1] = the sender's id, ARGV[2] = the text, ARGV[3] = its packed entities ("": none)
-- ARGV[4] = now in ms, ARGV[5] = how long the sent key is kept (s)
-- ARGV[6] = the conversation's id, ARGV[7] = its pair ("": a group)
-- ARGV[8..] = the members to create the conversation with (none: it must exist)
-- Returns {message id, 1, at, member ids...}; {message id, 0, at, member ids...} for a form
-- sent again (nothing is written); {-1} if there is no such conversation; {-2} if the
-- sender is not a member.
local meta, members, messages, sent = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local sender, now = ARGV[1], ARGV[4]

local function reply(mid, fresh)
    local out = {tonumber(mid), fresh, tonumber(redis.call('HGET', meta, 'at') or now)}
    for _, uid in ipairs(redis.call('ZRANGE', members, 0, -1)) do
        out[#out + 1] = tonumber(uid)
    end
    return out
end

local already = redis.call('GET', sent)
if already then
    return reply(already, 0)
end
if redis.call('EXISTS', meta) == 0 then
    if #ARGV < 8 then
        return {-1}
    end
    redis.call('HSET', meta, 'id', ARGV[6], 'created', now, 'by', sender, 'seq', 0)
    if ARGV[7] ~= '' then
        redis.call('HSET', meta, 'pair', ARGV[7])
    end
    for i = 8, #ARGV do
        redis.call('ZADD', members, 'NX', now, ARGV[i])
    end
end
if not redis.call('ZSCORE', members, sender) then
    return {-2}
end
local mid = redis.call('HINCRBY', meta, 'seq', 1)
if ARGV[3] ~= '' then
    redis.call('XADD', messages, mid .. '-0', 'from', sender, 'at', now, 'text', ARGV[2], 'e', ARGV[3])
else
    redis.call('XADD', messages, mid .. '-0', 'from', sender, 'at', now, 'text', ARGV[2])
end
redis.call('HSET', meta, 'last', mid, 'at', now)
redis.call('SET', sent, mid, 'EX', ARGV[5])
return reply(mid, 1)
