-- Take a like back: remove the liker from the status's likes and uncount it.
-- KEYS[1] = {status:<sid>}:likes    (ZSET: liker ids)
-- KEYS[2] = {status:<sid>}:counts   (HASH: likes, reposts)
-- ARGV[1] = the liker's id
-- Returns 1 if the like was there; 0 if not (a retry, or never liked: nothing changes).
-- Both keys share the status's slot: the count stays the list's size.
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then
    return 0
end
if redis.call('HINCRBY', KEYS[2], 'likes', -1) <= 0 then
    redis.call('HDEL', KEYS[2], 'likes')
end
return 1
