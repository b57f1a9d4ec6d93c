-- Prepended to the scripts that derive keys from data they read (see scripts.py): the
-- named lists of a follower whose id a delivery reads from the home key it is given, the
-- lists whose ids keys.listed holds. Every other key a script uses comes in KEYS.
-- These are the only key formats written in Lua (decision 0045). Each function builds
-- what the keys.py function of its name builds, given the owner's hash tag (keys.shard,
-- read from a key the script was given: the key is in that key's slot by construction);
-- tests/test_repository_scripts.py holds each against keys.py.
local keys = {}

function keys.listed(tag, uid)
    return 'listed:' .. tag .. ':' .. uid
end

function keys.listing(tag, author)
    return 'listing:' .. tag .. ':' .. author
end

function keys.list_members(tag, uid, lid)
    return 'list-members:' .. tag .. ':' .. uid .. ':' .. lid
end

function keys.list_timeline(tag, uid, lid)
    return 'list:' .. tag .. ':' .. uid .. ':' .. lid
end

function keys.pulled_copy(tag, author)
    return 'pulled-copy:' .. tag .. ':' .. author
end

-- The hash tag of a key given to the script ("{s42}" of "home:{s42}:1066").
function keys.tag_of(key)
    return string.match(key, '{[^}]*}')
end

-- The user id a user's key ends with (1066 of "home:{s42}:1066").
function keys.user_of(key)
    return string.match(key, '%d+$')
end
