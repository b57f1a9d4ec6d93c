-- Prepended (after _home.lua and _keys.lua) to the scripts that reach a user's named
-- lists (see scripts.py, lists.py). A list's keys are built with _keys.lua from the
-- owner's hash tag and the list ids read from keys.listed, so they are in the owner's
-- slot by construction.

-- The ids of the owner's lists that hold ``member``: keys.listed's "3,7" split.
local function lists_holding(listed, member)
    local lids = {}
    local held = redis.call('HGET', listed, member)
    if held then
        for lid in string.gmatch(held, '%d+') do lids[#lids + 1] = lid end
    end
    return lids
end

-- Put status ``sid`` into the lists of the follower whose home is ``home`` that hold the
-- author of ``listing`` (keys.listing: the users of the shard who list the author).
-- Called by deliver.lua for a follower who gets the status in their home, only when
-- ``listing`` exists: a shard where nobody lists the author costs one EXISTS per call.
local function deliver_to_lists(listing, home, sid, cap, slack)
    local follower = keys.user_of(home)
    if redis.call('SISMEMBER', listing, follower) == 0 then return end
    local tag = keys.tag_of(home)
    local author = keys.user_of(listing)
    for _, lid in ipairs(lists_holding(keys.listed(tag, follower), author)) do
        local timeline = keys.list_timeline(tag, follower, lid)
        redis.call('SADD', timeline, sid)
        trim_home(timeline, cap, slack)
    end
end
