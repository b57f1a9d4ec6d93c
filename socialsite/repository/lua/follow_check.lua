-- Whether uid may follow other, asked in other's slot before a follow; for a private
-- account, the follow request is recorded here instead.
-- KEYS[1] = user             keys.user(other) (HASH: "private" is "1" for a private account)
-- KEYS[2] = blocks           keys.blocks(other) (ZSET: whom other blocks)
-- KEYS[3] = blocked_by       keys.blocked_by(other) (ZSET: who blocks other)
-- KEYS[4] = followers        keys.followers(other) (ZSET)
-- KEYS[5] = follow_requests  keys.follow_requests(other) (ZSET: who asks to follow other)
-- ARGV[1] = uid, ARGV[2] = now in ms
-- ARGV[3] = "1": other approves uid's request (refused if there is none), "0": uid asks
-- Returns "blocked" (other blocks uid), "blocking" (uid blocks other), "follow" (go
-- on with the follow), "requested" (a request is recorded), "already requested", or
-- "no request" (approving a request that was withdrawn or rejected).
--
-- Privacy and request are read and written in one step, so a request made while the
-- account turns public is either recorded before (and approved by the switch,
-- privacy.set_private) or sees a public account (and follows).
local uid = ARGV[1]
if redis.call('ZSCORE', KEYS[2], uid) then return 'blocked' end
if redis.call('ZSCORE', KEYS[3], uid) then return 'blocking' end
if redis.call('ZSCORE', KEYS[4], uid) then return 'follow' end
if ARGV[3] == '1' then
    if redis.call('ZSCORE', KEYS[5], uid) then return 'follow' end
    return 'no request'
end
if redis.call('HGET', KEYS[1], 'private') ~= '1' then return 'follow' end
if redis.call('ZSCORE', KEYS[5], uid) then return 'already requested' end
add_with_unique_score(KEYS[5], ARGV[2], uid)
return 'requested'
