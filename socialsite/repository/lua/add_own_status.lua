-- Put a new status on its author's profile and home timelines, count it, and note it
-- as unfinished until its fan-out is queued in full; decide whether it is pushed to
-- the followers or pulled by them (fanout.py).
-- KEYS[1] = profile           keys.profile(uid) (ZSET)
-- KEYS[2] = home              keys.home(uid) (SET)
-- KEYS[3] = user              keys.user(uid) (HASH: the "posts" count, the "fanout" path)
-- KEYS[4] = followers         keys.followers(uid) (ZSET: follower -> follow score)
-- KEYS[5] = unfinished_posts  keys.unfinished_posts(uid) (HASH: status id -> JSON
--           {author, upto, at[, parent, replied][, pulled: its pulled_statuses member]})
-- KEYS[6] = pulled_statuses   keys.pulled_statuses(uid) (ZSET: id or "<id>:<replied
--           to uid>" by id)
-- KEYS[7] = profile_replies?  a reply only: keys.profile_replies(uid) (ZSET:
--           "<id>:<replied-to uid>" by id)
-- ARGV[1] = the status id (also its score in the profile)
-- ARGV[2] = the home timeline's cap, ARGV[3] = its slack
-- ARGV[4] = the author's id, ARGV[5] = now, in ms
-- ARGV[6] = "1" if the post has conversation writes to make (a reply, mentions): then
--           it is noted unfinished even without followers
-- ARGV[7] = followers from which the account is pulled (0: never)
-- ARGV[8] = followers below which a pulled account is pushed again
-- ARGV[9], ARGV[10] = a reply only: the id of the status replied to, and of its author
-- Returns {1 if added or 0 if it was there already (a retry: nothing is counted
-- twice), the newest follower's score or -1 without followers (or when pulled),
-- 1 if the status is pulled, 2 if it is pushed but the account should be registered
-- as pulled (fanout.register_pulled) before its next post, else 0}.
--
-- The note is written in the same step as the status becomes visible on the profile,
-- so a status is never shown without either its fan-out or the note that leads the
-- workers to do it. "upto" fixes who the followers at posting time are. A reply's
-- entry in KEYS[7] lets a follow's backfill apply the reply rule (backfill.lua); only
-- the newest "cap" entries can matter there, as only the newest "cap" statuses are
-- copied.
-- The path is decided in the same step as the status lands on the profile, and a
-- status is pulled only once the account is registered where readers look ("ready"):
-- every status is either delivered (its note and jobs) or in KEYS[6], read by every
-- follower's page, never neither.
local added = redis.call('ZADD', KEYS[1], ARGV[1], ARGV[1])
if added == 1 then
    redis.call('HINCRBY', KEYS[3], 'posts', 1)
end
redis.call('SADD', KEYS[2], ARGV[1])
trim_home(KEYS[2], tonumber(ARGV[2]), tonumber(ARGV[3]))
if KEYS[7] then
    redis.call('ZADD', KEYS[7], ARGV[1], ARGV[1] .. ':' .. ARGV[10])
    redis.call('ZREMRANGEBYRANK', KEYS[7], 0, -(tonumber(ARGV[2]) + 1))
end

local pull_at, push_below = tonumber(ARGV[7]), tonumber(ARGV[8])
local path = redis.call('HGET', KEYS[3], 'fanout')
local pulled = 0
if path == 'pulled' then
    if pull_at > 0 and redis.call('ZCARD', KEYS[4]) >= push_below then
        pulled = 1
    else
        redis.call('HSET', KEYS[3], 'fanout', 'ready')
    end
elseif pull_at > 0 and redis.call('ZCARD', KEYS[4]) >= pull_at then
    if path == 'ready' then
        redis.call('HSET', KEYS[3], 'fanout', 'pulled')
        pulled = 1
    else
        pulled = 2
    end
end

local upto = -1
local member
if pulled == 1 then
    member = ARGV[1]
    if ARGV[10] and ARGV[10] ~= ARGV[4] then member = ARGV[1] .. ':' .. ARGV[10] end
    -- A retry finds the status there already under the same member.
    redis.call('ZADD', KEYS[6], ARGV[1], member)
    redis.call('ZREMRANGEBYRANK', KEYS[6], 0, -(tonumber(ARGV[2]) + 1))
else
    local newest = redis.call('ZRANGE', KEYS[4], -1, -1, 'WITHSCORES')
    if #newest == 2 then
        upto = tonumber(newest[2])
    end
end
if upto >= 0 or ARGV[6] == '1' or member then
    local note = {author = tonumber(ARGV[4]), upto = upto, at = tonumber(ARGV[5])}
    -- Pulled: the copies in every shard (fanout.copy_pulled) are yet to be written.
    note.pulled = member
    if ARGV[9] then
        note.parent = tonumber(ARGV[9])
        note.replied = tonumber(ARGV[10])
    end
    redis.call('HSET', KEYS[5], ARGV[1], cjson.encode(note))
end
return {added, upto, pulled}
