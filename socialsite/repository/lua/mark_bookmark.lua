-- Note a bookmark in the user's own list (bookmarks.py).
-- KEYS[1] = bookmarks  keys.bookmarks(uid) (ZSET: status ids scored by time in ms)
-- ARGV[1] = the status id, ARGV[2] = now, in ms
-- Returns 1 if noted, 0 if it was already (a retry: its time stays).
-- Scores are made unique per list, for paging /bookmarks/ by them.
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
    return 0
end
add_with_unique_score(KEYS[1], ARGV[2], ARGV[1])
return 1
