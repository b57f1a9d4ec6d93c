-- Someone joins a community, or asks to join a private one (communities.join).
-- KEYS[1] = community  keys.community(cid) (HASH: kind, suspended, deleted)
-- KEYS[2] = members    keys.community_members(cid) (ZSET)
-- KEYS[3] = banned     keys.community_banned(cid) (ZSET)
-- KEYS[4] = requests   keys.community_requests(cid) (ZSET)
-- KEYS[5] = invites    keys.community_invites(cid) (ZSET)
-- ARGV[1] = the user's id, ARGV[2] = now, in ms
-- ARGV[3] = "approve": an admin lets a requester in (only a pending request is)
-- Returns "missing" (no such community, deleted or suspended), "banned", "member"
-- (already one), "requested" (a private community's request, noted), "not_requested"
-- (an approval without a request) or "joined". Running it twice changes nothing more.
local uid, now, approve = ARGV[1], ARGV[2], ARGV[3] == 'approve'
local kind, suspended, deleted = unpack(redis.call('HMGET', KEYS[1], 'kind', 'suspended', 'deleted'))
if not kind or suspended or deleted then return 'missing' end
if redis.call('ZSCORE', KEYS[3], uid) then return 'banned' end
if redis.call('ZSCORE', KEYS[2], uid) then return 'member' end
if approve then
    if not redis.call('ZSCORE', KEYS[4], uid) then return 'not_requested' end
elseif kind == 'private' and not redis.call('ZSCORE', KEYS[5], uid) then
    redis.call('ZADD', KEYS[4], 'NX', now, uid)
    return 'requested'
end
redis.call('ZADD', KEYS[2], now, uid)
redis.call('ZREM', KEYS[4], uid)
redis.call('ZREM', KEYS[5], uid)
return 'joined'
