-- One conversation's row of an inbox (direct.inbox_page): its members and the message the
-- row shows, in one command, as one command per conversation costs the page less than two.
-- KEYS[1] = conversation_members   the conversation's members (ZSET)
-- KEYS[2] = conversation_messages  its messages (STREAM)
-- ARGV[1] = the message's id (the newest delivered to the reader; "0": none)
-- Returns {members, {} or {id, {field, value, ...}}}.
local shown = {}
if ARGV[1] ~= '0' then
    local id = ARGV[1] .. '-0'
    shown = redis.call('XRANGE', KEYS[2], id, id)[1] or {}
end
return {redis.call('ZRANGE', KEYS[1], 0, -1), shown}
