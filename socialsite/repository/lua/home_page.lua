-- Read a page of a home timeline, newest first, without deleted statuses; and the
-- authors whose statuses the user does not get.
-- KEYS[1] = timeline          keys.home(uid), or a named list's keys.list_timeline
--                             (SET of status ids)
-- KEYS[2] = deleted_statuses  keys.deleted_statuses(uid) (ZSET: statuses deleted lately,
--                             noted in every shard)
-- KEYS[3] = hides             keys.hides(uid) (ZSET: authors the user does not get, until when)
-- KEYS[4] = home_reposts?     keys.home_reposts(uid) (HASH: originals shown through
--                             reposts, _reposts.lua; a named list's page (lists.py) passes
--                             the first three keys only)
-- KEYS[5] = reposted?         keys.reposted(uid) (ZSET: the originals the user reposted;
--                             with KEYS[4])
-- KEYS[6] = user_likes?       keys.user_likes(uid) (ZSET: the statuses the user likes)
-- KEYS[7] = likes_changed?    keys.likes_changed(uid) (STRING: the user liked or unliked
--                             lately; with KEYS[6])
-- KEYS[n-5..n-3] = communities?  with ARGV[10] = "1" (a home's page), before the merge's
--                             three: keys.pulled_communities(uid) (SET), keys.memberships
--                             (uid) and keys.communities_out_of_home(uid): the pulled
--                             communities the user belongs to and keeps in their home
--                             are merged as the pulled sources "-<cid>" (their copies:
--                             keys.pulled_copy(uid, -cid))
-- KEYS[n-2..n] = merge?       with ARGV[6] = "1", last: keys.pulled_accounts(uid) (SET:
--                             the pulled accounts), the accounts the page follows (ZSET:
--                             keys.following(uid), or a list's keys.list_members) and
--                             keys.following(uid) (the reply rule); the script reads the
--                             pulled accounts' keys.pulled_copy in the same slot
-- ARGV[1] = the cursor: only ids below it ("" for the newest page)
-- ARGV[2] = how many ids to return at most
-- ARGV[3] = the home timeline's cap: ids past the newest cap are not part of it
-- ARGV[4] = "1" to leave out the noted deleted ids (pages), "0" for all (maintenance)
-- ARGV[5] = now, in ms
-- ARGV[6] = "1" to merge the statuses of the pulled accounts the page follows (the
--           last three KEYS), ARGV[7] = the user's id, ARGV[8] = keys.pulled_copy's cap
-- ARGV[9] = an id ("" for none: every page of the site): the page is read upward from
--           it (the client API's min_id): below the cursor, it starts at the ARGV[2]-th
--           entry above ARGV[9] (delivered or merged), so that it holds every entry
--           between; entries at or below ARGV[9] may follow (the caller cuts them)
-- ARGV[10] = "1" when the communities' three KEYS come (a home's page, with ARGV[6])
-- Returns {the ids, newest first; the ids of the authors hidden now; for each id that
-- stands for an original shown through reposts: the id, the original's id, the first
-- reposter and how many others bring it (flat); the originals among the page's that
-- the user reposted; with KEYS[6], the originals among them the user likes, and 1 if
-- KEYS[7] exists, else 0}; with ARGV[6] = "1", one more last: {"merged", the lowest id
-- the page is sure of ("" for none), the pulled accounts followed, the pulled ids on
-- the page}: the page's ids include the pulled accounts' statuses (fanout.py); or
-- {"fallback", "", the accounts, {}}: a copy cannot reach that far down, and the ids
-- are the timeline's alone (fanout.merge_pulled merges them); or {"none", ...}.
-- With ARGV[9], one more last: {the cursor the page was read below ("" for the newest),
-- the delivered ids it counted, lowest first, 1 if a copy does not reach down to ARGV[9]
-- (else 0)}: then, or with {"fallback", ...}, the caller finds where the page starts
-- (fanout.upward_start) and merges from the accounts' own lists.
--
-- A script rather than a SORT from the client: SORT's keys are "movable", which
-- makes cluster clients ask the server where they are first (two more round trips).
-- A deleted status's id stays in followers' timelines until the deferred cleanup
-- reaches them; skipping the noted ids here means the page's reader need not ask
-- whether each status still exists (statuses.get_statuses).
-- Statuses of hidden authors are kept out when delivered, and taken out when a block
-- or mute is made; the list comes along (empty for nearly everyone) so that the
-- reader can drop any that slipped in before, without asking for it separately. The
-- script cannot drop them itself: an author is in the status's hash, in another slot.
-- The user's likes and reposts are in the same slot: the page's "Like" or "Unlike" and
-- "Repost" or "Undo repost" cost no round trip, and neither does knowing whether the
-- counts shown must be read fresh.
local count, cap = tonumber(ARGV[2]), tonumber(ARGV[3])
local merge = ARGV[6] == '1'
-- How many of KEYS are the page's own (the rest: the merge's two).
local own = #KEYS
local with_communities = merge and ARGV[10] == '1'
if merge then own = own - 3 end
if with_communities then own = own - 3 end
local noted = 0
if ARGV[4] == '1' then noted = redis.call('ZCARD', KEYS[2]) end
local above = nil
if ARGV[9] and ARGV[9] ~= '' then above = tonumber(ARGV[9]) end
local cursor = ARGV[1]
local hidden = redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. ARGV[5], '+inf')

-- The pulled accounts (fanout.py) the page follows and does not hide, or nil: the
-- few accounts with huge followings are in the registry; a SMEMBERS and one ZMSCORE
-- find those the page follows.
local function followed_pulled()
    if not merge then return nil end
    local authors = {}
    local accounts = redis.call('SMEMBERS', KEYS[#KEYS - 2])
    if #accounts > 0 then
        local not_shown = {}
        for _, author in ipairs(hidden) do not_shown[author] = true end
        local scores = redis.call('ZMSCORE', KEYS[#KEYS - 1], unpack(accounts))
        for i = 1, #accounts do
            if scores[i] and not not_shown[accounts[i]] then
                authors[#authors + 1] = accounts[i]
            end
        end
    end
    -- Groups: the pulled communities the reader belongs to and keeps in their home, as
    -- the sources "-<cid>" (blocks and mutes of their authors: the caller's page).
    if with_communities then
        local pulled = redis.call('SMEMBERS', KEYS[#KEYS - 5])
        if #pulled > 0 then
            local joined = redis.call('ZMSCORE', KEYS[#KEYS - 4], unpack(pulled))
            for i = 1, #pulled do
                if joined[i] and redis.call('SISMEMBER', KEYS[#KEYS - 3], pulled[i]) == 0 then
                    authors[#authors + 1] = '-' .. pulled[i]
                end
            end
        end
    end
    return authors
end

local ids, first
if ARGV[1] == '' and not above then
    -- Enough for a full page even if every noted id is among the newest.
    ids = redis.call('SORT', KEYS[1], 'LIMIT', 0, math.min(count + noted, cap), 'DESC')
    first = 1
else
    ids = redis.call('SORT', KEYS[1], 'LIMIT', 0, cap, 'DESC')
    local before = tonumber(ARGV[1]) or math.huge
    -- Bisect for the first id below the cursor (ids are in descending order).
    local lo, hi = 1, #ids + 1
    while lo < hi do
        local mid = math.floor((lo + hi) / 2)
        if tonumber(ids[mid]) >= before then lo = mid + 1 else hi = mid end
    end
    first = lo
end

-- Read upward: the entries above ``above`` that the page would show, from every source
-- (the timeline's, and each followed pulled account's copy, by the rules below), lowest
-- first; the page starts at the count-th lowest, so that every entry between it and
-- ``above`` is on it. A copy read to its limit is known only up to its last id read: the
-- page starts there at the highest. A copy that does not reach down to ``above`` (full,
-- its lowest above it) makes ``short``: the caller finds the start from the accounts' own
-- lists (fanout.upward_start).
local has_reposts = own >= 4 and redis.call('EXISTS', KEYS[4]) == 1
local authors = nil
local delivered_above, short = {}, 0
if above then
    local lo, hi = first, #ids + 1
    while lo < hi do
        local mid = math.floor((lo + hi) / 2)
        if tonumber(ids[mid]) > above then lo = mid + 1 else hi = mid end
    end
    local candidates = {}
    local i = lo - 1
    while i >= first and #candidates < count do
        local id = ids[i]
        local kept = noted == 0 or not redis.call('ZSCORE', KEYS[2], id)
        if kept and has_reposts and noted > 0 then
            -- An entry for an original through reposts: not shown if the original is gone.
            local orig = redis.call('HGET', KEYS[4], 'r:' .. id)
            kept = not (orig and orig ~= id and redis.call('HEXISTS', KEYS[4], orig) == 1
                and redis.call('ZSCORE', KEYS[2], orig))
        end
        if kept then candidates[#candidates + 1] = tonumber(id) end
        i = i - 1
    end
    for _, id in ipairs(candidates) do delivered_above[#delivered_above + 1] = id end
    local ceiling = nil
    authors = followed_pulled()
    if authors and #authors > 0 then
        local tag, uid = keys.tag_of(KEYS[1]), ARGV[7]
        local top = '+inf'
        if cursor ~= '' then top = '(' .. cursor end
        local not_shown = {}
        for _, author in ipairs(hidden) do not_shown[author] = true end
        local wanted = 2 * count + 8  -- room for some the rules leave out
        for _, author in ipairs(authors) do
            local copy = keys.pulled_copy(tag, author)
            if redis.call('ZCARD', copy) >= tonumber(ARGV[8])
                    and redis.call('ZCOUNT', copy, '-inf', ARGV[9]) == 0 then
                short = 1
            end
            local read = redis.call('ZRANGEBYSCORE', copy, '(' .. ARGV[9], top,
                'LIMIT', 0, wanted)
            for _, member in ipairs(read) do
                -- As the merge below keeps them (a repost: of an original the page
                -- does not show otherwise).
                local sid, to, orig_author = string.match(member, '^(%d+):?(%d*):?(%d*)$')
                local keep = true
                if orig_author ~= '' then
                    keep = own >= 4 and orig_author ~= uid and not not_shown[orig_author]
                        and redis.call('SISMEMBER', KEYS[1], to) == 0
                        and not (has_reposts and redis.call('HEXISTS', KEYS[4], to) == 1)
                        and not (noted > 0 and redis.call('ZSCORE', KEYS[2], to))
                elseif to ~= '' and to ~= uid then
                    keep = redis.call('ZSCORE', KEYS[#KEYS], to) ~= false
                end
                if keep and noted > 0 and redis.call('ZSCORE', KEYS[2], sid) then
                    keep = false
                end
                if keep then candidates[#candidates + 1] = tonumber(sid) end
            end
            if #read >= wanted then
                local last = tonumber(string.match(read[#read], '^%d+'))
                if not ceiling or last < ceiling then ceiling = last end
            end
        end
    end
    local start = ceiling
    if #candidates >= count then
        table.sort(candidates)
        if not start or candidates[count] < start then start = candidates[count] end
    end
    if start then
        cursor = string.format('%.0f', start + 1)
        lo, hi = first, #ids + 1
        while lo < hi do
            local mid = math.floor((lo + hi) / 2)
            if tonumber(ids[mid]) > start then lo = mid + 1 else hi = mid end
        end
        first = lo
    end
end

-- Reposts: only for a home that received some (the hash exists), each entry is looked
-- up: an entry standing for an original (a repost, or the original with reposters)
-- comes back with what its "reposted" header needs, and one whose original is noted
-- deleted is skipped like a deleted status.
local page, shown, through = {}, {}, {}
for i = first, #ids do
    if #page >= count then break end
    local id = ids[i]
    if noted == 0 or not redis.call('ZSCORE', KEYS[2], id) then
        local orig = id
        local value
        if has_reposts then
            orig = redis.call('HGET', KEYS[4], 'r:' .. id) or id
            value = redis.call('HGET', KEYS[4], orig)
        end
        if not value then
            page[#page + 1] = id
            shown[#shown + 1] = id
        elseif orig == id or noted == 0 or not redis.call('ZSCORE', KEYS[2], orig) then
            page[#page + 1] = id
            shown[#shown + 1] = orig
            local first_reposter, others = nil, -1
            for uid in string.gmatch(value, ' (%d+):') do
                first_reposter = first_reposter or uid
                others = others + 1
            end
            if first_reposter then
                through[id] = {orig, first_reposter, others}
            end
        end
    end
end

-- Pulled accounts (fanout.py, followed_pulled): each one's newest statuses are copied
-- into every shard (keys.pulled_copy), so they are merged here, in the reader's slot,
-- by the rules a delivery applies: the reply rule, hidden authors, deleted statuses,
-- one entry per original.
local merged_info
if merge then
    authors = authors or followed_pulled()
    merged_info = {'none', '', authors, {}}
    if #authors > 0 then
        local tag, uid = keys.tag_of(KEYS[1]), ARGV[7]
        local copy_cap = tonumber(ARGV[8])
        local top = '+inf'
        if cursor ~= '' then top = '(' .. cursor end
        -- The lowest id below which some source may hold ids it did not give.
        local floor
        if #page >= count then floor = tonumber(page[#page]) end
        local in_page = {}
        for i = 1, #page do in_page[page[i]] = true end
        local pulled, fallback = {}, false
        local reposted_orig, through_orig = {}, {}
        local not_shown = {}
        for _, author in ipairs(hidden) do not_shown[author] = true end
        for _, author in ipairs(authors) do
            local copy = keys.pulled_copy(tag, author)
            local read = redis.call('ZREVRANGEBYSCORE', copy, top, '-inf', 'LIMIT', 0, count)
            if #read >= count then
                local lowest = tonumber(string.match(read[#read], '^%d+'))
                if not floor or lowest > floor then floor = lowest end
            elseif redis.call('ZCARD', copy) >= copy_cap then
                fallback = true  -- older ones exist only in keys.pulled_statuses
                break
            end
            for _, member in ipairs(read) do
                -- "<id>", "<id>:<replied-to uid>" or, a repost, "<id>:<orig>:<its author>"
                local sid, to, orig_author = string.match(member, '^(%d+):?(%d*):?(%d*)$')
                local keep = not in_page[sid]
                if orig_author ~= '' then
                    -- A repost: its original once per page, as deliver_repost.lua
                    -- decides per home (_reposts.lua); a list holds no reposts.
                    keep = keep and own >= 4 and orig_author ~= uid
                        and not not_shown[orig_author]
                        and redis.call('SISMEMBER', KEYS[1], to) == 0
                        and not (has_reposts and redis.call('HEXISTS', KEYS[4], to) == 1)
                        and not (noted > 0 and redis.call('ZSCORE', KEYS[2], to))
                    local earlier = reposted_orig[to]
                    if keep and (not earlier or tonumber(sid) < tonumber(earlier[1])) then
                        reposted_orig[to] = {sid, author}
                    end
                    keep = false
                elseif keep and to ~= '' and to ~= uid then
                    keep = redis.call('ZSCORE', KEYS[#KEYS], to) ~= false
                end
                if keep and noted > 0 and redis.call('ZSCORE', KEYS[2], sid) then
                    keep = false
                end
                if keep then
                    in_page[sid] = true
                    pulled[sid] = true
                end
            end
        end
        -- Each original brought by pulled reposts alone: by the earliest of them, unless
        -- it is on the page itself (delivered, or a pulled account's own).
        for orig, repost in pairs(reposted_orig) do
            if not pulled[orig] and not in_page[orig] and not in_page[repost[1]] then
                pulled[repost[1]] = true
                in_page[repost[1]] = true
                through[repost[1]] = {orig, repost[2], 0}
                through_orig[repost[1]] = orig
            end
        end
        if fallback then
            merged_info = {'fallback', '', authors, {}}
        else
            -- Delivered entries standing for an original a pulled account brings are
            -- left out: the original shows at its own place.
            local entries = {}
            for i = 1, #page do
                if page[i] == shown[i] or not pulled[shown[i]] then
                    entries[#entries + 1] = {tonumber(page[i]), page[i], shown[i]}
                end
            end
            for sid in pairs(pulled) do
                entries[#entries + 1] = {tonumber(sid), sid, through_orig[sid] or sid}
            end
            table.sort(entries, function(a, b) return a[1] > b[1] end)
            page, shown = {}, {}
            local on_page = {}
            for _, entry in ipairs(entries) do
                if #page >= count or (floor and entry[1] < floor) then break end
                page[#page + 1] = entry[2]
                shown[#shown + 1] = entry[3]
                if pulled[entry[2]] then on_page[#on_page + 1] = entry[2] end
            end
            merged_info = {'merged', floor or '', authors, on_page}
        end
    end
end
local reposts = {}
for _, id in ipairs(page) do
    local seen = through[id]
    if seen then
        reposts[#reposts + 1] = id
        reposts[#reposts + 1] = seen[1]
        reposts[#reposts + 1] = seen[2]
        reposts[#reposts + 1] = seen[3]
    end
end
-- The originals among ``shown`` that are members of the ZSET ``key``.
local function members_among_shown(key)
    local found = {}
    if #shown > 0 and redis.call('EXISTS', key) == 1 then
        local scores = redis.call('ZMSCORE', key, unpack(shown))
        for i = 1, #shown do
            if scores[i] then found[#found + 1] = shown[i] end
        end
    end
    return found
end
local result
if own < 4 then
    result = {page, hidden}  -- a named list's page (lists.py): no reposts, no likes
elseif own < 6 then
    result = {page, hidden, reposts, members_among_shown(KEYS[5])}
else
    result = {page, hidden, reposts, members_among_shown(KEYS[5]),
              members_among_shown(KEYS[6]), redis.call('EXISTS', KEYS[7])}
end
if merge then
    result[#result + 1] = merged_info
end
if above then
    result[#result + 1] = {cursor, delivered_above, short}
end
return result
