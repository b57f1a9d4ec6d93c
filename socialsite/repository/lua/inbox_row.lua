-- One conversation's row of an inbox (direct.inbox_page): its members and its newest
-- message in one command, as one command per conversation costs the page less than two.
-- KEYS[1] = conversation_members   the conversation's members (ZSET)
-- KEYS[2] = conversation_messages  its messages (STREAM)
-- Returns {members, {} or {id, {field, value, ...}}}.
local newest = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
return {redis.call('ZRANGE', KEYS[1], 0, -1), newest[1] or {}}
