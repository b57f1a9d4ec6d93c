-- Change one member's side of a conversation: their inbox or requests, their unread
-- counts, and the badge (how many inbox conversations, not muted, have unread messages).
-- KEYS[1] = inbox     keys.direct_inbox(uid) (ZSET: cid -> last activity, ms)
-- KEYS[2] = requests  keys.direct_requests(uid) (ZSET: cid -> last activity, ms)
-- KEYS[3] = state     keys.direct_state(uid) (HASH: unread, version, u/m/r/x/q/s<cid>)
-- KEYS[4] = joined    keys.direct_joined(uid) (ZSET: cid -> first reached, ms)
-- KEYS[5] = following keys.following(uid) (ZSET: whom the member follows)
-- ARGV[1] = the action: "deliver", "read", "mute", "unmute", "accept", "drop", "leave",
--   "show"
-- ARGV[2] = the conversation's id, ARGV[3] = the member's id
-- ARGV[4] = the channel to publish on ("": none)
-- deliver: ARGV[5] = the message id, ARGV[6] = its time (ms), ARGV[7] = "sender" (the
--   member sent it), "request" (it goes to requests unless the conversation is in the
--   inbox), "inbox", or "auto": "inbox" if the member follows ARGV[8] (the sender), else
--   "request". A message delivered already (a retry) changes nothing.
-- read: everything delivered is read. drop: out of inbox and requests, everything
--   delivered cleared (a deleted request). leave: drop, and no longer joined (a left
--   group). accept: from requests to inbox. show: the inbox row shows message ARGV[5]
--   (0: none) rather than the newest delivered, which the member deleted for themselves,
--   if ARGV[9] is still the newest delivered; the next delivery shows its own.
-- Returns {badge, version, the conversation's unread messages}.
local inbox, requests, state, joined, following = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local action, cid, uid, channel = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local u, m, r, x, q, s = 'u' .. cid, 'm' .. cid, 'r' .. cid, 'x' .. cid, 'q' .. cid, 's' .. cid

local function number(field)
    return tonumber(redis.call('HGET', state, field) or '0')
end

local function counts()
    return redis.call('ZSCORE', inbox, cid) and number(u) > 0 and number(q) == 0
end

local before = counts()
local message = 0
if action == 'deliver' then
    local mid = tonumber(ARGV[5])
    if mid <= number(m) then
        return {number('unread'), number('version'), number(u)}
    end
    message = mid
    local role = ARGV[7]
    if role == 'auto' then
        role = redis.call('ZSCORE', following, ARGV[8]) and 'inbox' or 'request'
    end
    redis.call('HSET', state, m, mid)
    redis.call('HDEL', state, s)
    redis.call('ZADD', joined, 'NX', ARGV[6], cid)
    if role == 'sender' then
        redis.call('HSET', state, r, mid, u, 0)
        redis.call('ZREM', requests, cid)
        redis.call('ZADD', inbox, ARGV[6], cid)
    else
        redis.call('HINCRBY', state, u, 1)
        if redis.call('ZSCORE', inbox, cid) then
            redis.call('ZADD', inbox, ARGV[6], cid)
        elseif redis.call('ZSCORE', requests, cid) or role == 'request' then
            redis.call('ZADD', requests, ARGV[6], cid)
        else
            redis.call('ZADD', inbox, ARGV[6], cid)
        end
    end
elseif action == 'read' then
    redis.call('HSET', state, r, number(m), u, 0)
elseif action == 'mute' then
    redis.call('HSET', state, q, 1)
elseif action == 'unmute' then
    redis.call('HDEL', state, q)
elseif action == 'accept' then
    local at = redis.call('ZSCORE', requests, cid)
    if at then
        redis.call('ZREM', requests, cid)
        redis.call('ZADD', inbox, at, cid)
    end
elseif action == 'drop' or action == 'leave' then
    redis.call('ZREM', inbox, cid)
    redis.call('ZREM', requests, cid)
    redis.call('HSET', state, x, number(m), r, number(m), u, 0)
    redis.call('HDEL', state, s)
    if action == 'leave' then
        redis.call('ZREM', joined, cid)
    end
elseif action == 'show' then
    if number(m) == tonumber(ARGV[9]) then
        if tonumber(ARGV[5]) == number(m) then
            redis.call('HDEL', state, s)
        else
            redis.call('HSET', state, s, ARGV[5])
        end
    end
else
    return redis.error_reply('unknown action ' .. action)
end
local after = counts()
local badge = number('unread')
if before and not after then
    badge = redis.call('HINCRBY', state, 'unread', -1)
elseif after and not before then
    badge = redis.call('HINCRBY', state, 'unread', 1)
end
local version = redis.call('HINCRBY', state, 'version', 1)
if channel ~= '' and (message > 0 or before ~= after) then
    redis.call('PUBLISH', channel, cjson.encode({
        direct = tonumber(uid), conversation = tonumber(cid), message = message,
        count = badge, version = version,
        muted = number(q) == 1,
    }))
end
return {badge, version, number(u)}
