-- Prepended (after _home.lua) to the scripts that put reposts into home timelines or
-- take them out (see scripts.py). All keys are in the slot of one home timeline.
--
-- A home timeline shows an original status once, whether it came as itself or through
-- any number of reposts by people its owner follows. For a home that received
-- reposts, keys.home_reposts (``h``) holds, per original shown through reposts:
--   "<orig>"    -> "<entry> <reposter>:<repost id> ..."  the id in the home SET that
--                  stands for it (the original itself, or one repost), then the
--                  followed reposters who bring it, first arrival first;
--   "r:<rid>"   -> "<orig>"  for each of those reposts.
-- and keys.reposts_shown (``note``, one per original and shard) lists the homes of the
-- shard that have such a field, so that a late delivery of the original is refused by
-- deliver.lua without reading every follower's hash. Whether the original's author
-- still brings it is their follow (keys.following), read when a repost leaves.

local function repost_field(h, orig)
    local value = redis.call('HGET', h, orig)
    if not value then
        return nil, {}
    end
    local entry, bringers = nil, {}
    for word in string.gmatch(value, '%S+') do
        if not entry then
            entry = word
        else
            local uid, rid = string.match(word, '^(%d+):(%d+)$')
            bringers[#bringers + 1] = {uid, rid}
        end
    end
    return entry, bringers
end

local function save_repost_field(h, orig, entry, bringers)
    local words = {entry}
    for _, bringer in ipairs(bringers) do
        words[#words + 1] = bringer[1] .. ':' .. bringer[2]
    end
    redis.call('HSET', h, orig, table.concat(words, ' '))
end

local function note_shown(note, follower, shown, note_ms)
    if shown then
        redis.call('SADD', note, follower)
        if note_ms then
            redis.call('PEXPIRE', note, note_ms)
        end
    else
        redis.call('SREM', note, follower)
    end
end

-- Fields of originals whose entry left the home timeline (trimmed as the oldest) are
-- forgotten once the hash holds several times what a full timeline can show.
local function prune_reposts(home, h, cap)
    if redis.call('HLEN', h) <= 4 * cap then
        return
    end
    local all = redis.call('HGETALL', h)
    for i = 1, #all, 2 do
        local field, value = all[i], all[i + 1]
        if string.sub(field, 1, 2) ~= 'r:' then
            local entry = string.match(value, '^(%d+)')
            if redis.call('SISMEMBER', home, entry) == 0 then
                redis.call('HDEL', h, field)
                for rid in string.gmatch(value, ':(%d+)') do
                    redis.call('HDEL', h, 'r:' .. rid)
                end
            end
        end
    end
end

-- Repost ``rid`` by ``reposter`` of ``orig`` (by ``author``) arrives in ``follower``'s
-- home. Returns 1 if it made a new entry, 0 if the home shows the original already
-- (as itself or through another repost: the reposter is only noted) or must not get
-- it (one's own status, one's own repost). A repeat changes nothing. ``note_ms``: how
-- long the note is kept; nil when the caller sets it once for many homes. ``size``: the
-- home's size before, if the caller read it (the trim then needs no SCARD).
local function add_repost(home, h, note, follower, orig, author, reposter, rid, cap, slack, note_ms, size)
    if follower == author or follower == reposter then
        return 0
    end
    local entry, bringers = repost_field(h, orig)
    if entry then
        for _, bringer in ipairs(bringers) do
            if bringer[1] == reposter then
                if bringer[2] == rid then
                    return 0
                end
                -- A new repost by the same user (the old one being undone): it takes over.
                redis.call('HDEL', h, 'r:' .. bringer[2])
                if entry == bringer[2] then
                    redis.call('SREM', home, entry)
                    redis.call('SADD', home, rid)
                    entry = rid
                end
                bringer[2] = rid
                save_repost_field(h, orig, entry, bringers)
                redis.call('HSET', h, 'r:' .. rid, orig)
                return 0
            end
        end
        bringers[#bringers + 1] = {reposter, rid}
        save_repost_field(h, orig, entry, bringers)
        redis.call('HSET', h, 'r:' .. rid, orig)
        return 0
    end
    local added = 0
    if redis.call('SISMEMBER', home, orig) == 1 then
        entry = orig  -- shown as itself already: it stays where it is
    else
        entry = rid
        added = redis.call('SADD', home, rid)
    end
    redis.call('HSET', h, orig, entry .. ' ' .. reposter .. ':' .. rid, 'r:' .. rid, orig)
    note_shown(note, follower, true, note_ms)
    if added == 1 then
        trim_home(home, cap, slack, size and size + 1)
        prune_reposts(home, h, cap)
    end
    return added
end

-- Repost ``rid`` by ``reposter`` of ``orig`` (by ``author``) leaves ``follower``'s home
-- (undone, its reposter unfollowed or hidden). The original stays while another
-- followed reposter brings it (the entry moves to the earliest of their reposts if it
-- was this one), or as itself while its author is followed; otherwise it leaves.
-- ``purge``: the original is deleted: it and every repost of it leave. A repeat
-- changes nothing.
local function remove_repost(home, h, note, following, follower, orig, author, reposter, rid, purge, cap, slack)
    local entry, bringers = repost_field(h, orig)
    redis.call('HDEL', h, 'r:' .. rid)
    if not entry then
        redis.call('SREM', home, rid)
        if purge then
            redis.call('SREM', home, orig)
        end
        return
    end
    if purge then
        redis.call('SREM', home, entry, orig, rid)
        redis.call('HDEL', h, orig)
        for _, bringer in ipairs(bringers) do
            redis.call('HDEL', h, 'r:' .. bringer[2])
        end
        note_shown(note, follower, false)
        return
    end
    local kept = {}
    for _, bringer in ipairs(bringers) do
        if bringer[2] ~= rid then
            kept[#kept + 1] = bringer
        end
    end
    if #kept == #bringers then
        return  -- not one of those that bring it (a repeat, or an older repost)
    end
    if #kept == 0 then
        redis.call('HDEL', h, orig)
        note_shown(note, follower, false)
        if entry ~= orig then
            redis.call('SREM', home, entry)
            if follower ~= author and redis.call('ZSCORE', following, author) then
                redis.call('SADD', home, orig)  -- its author still brings it
                trim_home(home, cap, slack)
            end
        end
        return
    end
    if entry == rid then
        local earliest = kept[1][2]
        for _, bringer in ipairs(kept) do
            if tonumber(bringer[2]) < tonumber(earliest) then
                earliest = bringer[2]
            end
        end
        redis.call('SREM', home, rid)
        redis.call('SADD', home, earliest)
        entry = earliest
    end
    save_repost_field(h, orig, entry, kept)
end

-- The original ``sid`` leaves ``follower``'s home because its author does (unfollowed,
-- hidden): reposts of it by others still followed keep it, through the earliest of
-- them. Returns whether the hash had it.
local function remove_original(home, h, note, sid)
    local entry, bringers = repost_field(h, sid)
    if not entry then
        return false
    end
    if entry == sid then
        if #bringers == 0 then
            redis.call('SREM', home, sid)
            redis.call('HDEL', h, sid)
            return true
        end
        local earliest = bringers[1][2]
        for _, bringer in ipairs(bringers) do
            if tonumber(bringer[2]) < tonumber(earliest) then
                earliest = bringer[2]
            end
        end
        redis.call('SREM', home, sid)
        redis.call('SADD', home, earliest)
        save_repost_field(h, sid, earliest, bringers)
    end
    return true
end

-- Take a user's statuses and reposts out of ``follower``'s home (unfollow, block,
-- mute). ``items`` from ``first`` on: a status id, or a repost as
-- "<rid>/<orig>/<author>"; ``notes`` from KEYS index ``note_at`` on: the
-- reposts_shown key of each repost's original, in the order of the reposts.
-- ``reposter``: the user whose statuses leave.
local function take_out(home, h, following, follower, reposter, items, first, note_at, cap, slack)
    local has_h = redis.call('EXISTS', h) == 1
    local plain = {}
    local n = 0
    for i = first, #items do
        local rid, orig, author = string.match(items[i], '^(%d+)/(%d+)/(%d+)$')
        if rid then
            remove_repost(home, h, KEYS[note_at + n], following, follower, orig, author, reposter, rid, false, cap, slack)
            n = n + 1
        elseif not (has_h and remove_original(home, h, nil, items[i])) then
            plain[#plain + 1] = items[i]
        end
    end
    for i = 1, #plain, 1000 do
        redis.call('SREM', home, unpack(plain, i, math.min(i + 999, #plain)))
    end
end

-- Add statuses to ``follower``'s home (a follow's backfill, a refill) by the same
-- rules as fan-out: ``items`` from ``first`` on, each a status id (added unless the
-- home shows it through reposts) or a repost "<rid>/<orig>/<author>/<reposter>"
-- (add_repost, after the statuses: an original among them is then shown as itself);
-- the reposts' reposts_shown keys from KEYS index ``note_at`` on, in the order of the
-- reposts. Returns the number of entries added.
local function add_items(home, h, follower, items, first, note_at, cap, slack, note_ms)
    local plain, reposts = {}, {}
    local has_h = redis.call('EXISTS', h) == 1
    for i = first, #items do
        local rid, orig, author, reposter = string.match(items[i], '^(%d+)/(%d+)/(%d+)/(%d+)$')
        if rid then
            reposts[#reposts + 1] = {rid, orig, author, reposter}
        elseif not (has_h and redis.call('HEXISTS', h, items[i]) == 1) then
            plain[#plain + 1] = items[i]
        end
    end
    local added = 0
    for i = 1, #plain, 1000 do
        added = added + redis.call('SADD', home, unpack(plain, i, math.min(i + 999, #plain)))
    end
    for n, repost in ipairs(reposts) do
        added = added + add_repost(home, h, KEYS[note_at + n - 1], follower, repost[2], repost[3], repost[4], repost[1], cap, slack, note_ms)
    end
    trim_home(home, cap, slack)
    return added
end
