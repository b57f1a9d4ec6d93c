-- Prepended to the scripts that add members to ZSETs paged by score (see scripts.py):
-- follow lists, likes, reposters, blocks, mutes, requests, list members,
-- notifications.
-- A score for a new member of ``list``: ``now`` in ms, or one past the newest score if
-- that is not below it. Unique scores let pages and fan-out batches resume from a score
-- without skipping or repeating.
local function unique_score(list, now)
    local score = tonumber(now)
    local newest = redis.call('ZRANGE', list, -1, -1, 'WITHSCORES')
    if newest[2] and tonumber(newest[2]) >= score then
        score = tonumber(newest[2]) + 1
    end
    return score
end

-- ZADD ``member`` to ``list`` at unique_score(list, now).
local function add_with_unique_score(list, now, member)
    redis.call('ZADD', list, unique_score(list, now), member)
end
