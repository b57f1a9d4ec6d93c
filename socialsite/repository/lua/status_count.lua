-- Count or uncount one user's like or repost of a status, in the status's slot.
-- KEYS[1] = status         keys.status(sid) (HASH: must exist to count)
-- KEYS[2] = users          keys.likes(sid) or keys.reposts(sid) (ZSET: user -> ms)
-- KEYS[3] = status_counts  keys.status_counts(sid) (HASH: likes, reposts)
-- ARGV[1] = the user, ARGV[2] = now in ms, ARGV[3] = "add" or "remove",
-- ARGV[4] = the count's field in KEYS[3]: "likes" or "reposts"
-- Returns 1 if counted (or uncounted); 0 if it was already (a retry, a second click:
-- nothing changes); -1 if the status is gone (nothing counted: a like or repost racing a
-- delete cannot leave a list or a count behind it).
--
-- The three keys share the status's slot (keys.likes, keys.reposts), so the check, the
-- list and the count are one step: the count is the list's size under any concurrency.
local field = ARGV[4]
if ARGV[3] == 'add' then
    if redis.call('EXISTS', KEYS[1]) == 0 then
        return -1
    end
    if redis.call('ZSCORE', KEYS[2], ARGV[1]) then
        return 0
    end
    -- Unique scores (as follow scores), so that the pages of who liked or reposted
    -- resume from a score without skipping or repeating.
    add_with_unique_score(KEYS[2], ARGV[2], ARGV[1])
    redis.call('HINCRBY', KEYS[3], field, 1)
    return 1
end
if redis.call('ZREM', KEYS[2], ARGV[1]) == 0 then
    return 0
end
-- A deleted status's counts went with it: not made again here.
if redis.call('EXISTS', KEYS[1]) == 1 then
    redis.call('HINCRBY', KEYS[3], field, -1)
end
return 1
