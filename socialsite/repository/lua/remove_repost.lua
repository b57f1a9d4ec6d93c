-- Take one repost out of the home timelines of several followers of its reposter (the
-- repost undone, or its original deleted), by the dedupe rules (lua/_reposts.lua).
-- KEYS[1] = reposts_shown            keys.reposts_shown(shard, orig) (SET) homes of this
--                                    shard showing the original through reposts
-- KEYS[2..n+1] = home                keys.home(follower) (SET)
-- KEYS[n+2..2n+1] = home_reposts     keys.home_reposts(follower) (HASH)
-- KEYS[2n+2..3n+1] = following       keys.following(follower) (ZSET) whether the author
--                                    brings it
-- ARGV[1] = the repost's id, ARGV[2] = the original's id, ARGV[3] = its author
-- ARGV[4] = the reposter, ARGV[5] = "1" if the original is deleted (it goes too)
-- ARGV[6] = the home timeline's cap, ARGV[7] = its slack
-- Returns nothing useful; a repeat changes nothing.
local rid, orig, author, reposter = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local purge = ARGV[5] == '1'
local cap, slack = tonumber(ARGV[6]), tonumber(ARGV[7])
local n = (#KEYS - 1) / 3
for i = 2, n + 1 do
    local home = KEYS[i]
    local follower = keys.user_of(home)
    remove_repost(home, KEYS[i + n], KEYS[1], KEYS[i + 2 * n], follower, orig, author,
        reposter, rid, purge, cap, slack)
end
return n
