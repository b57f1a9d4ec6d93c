-- Count one account's vote in a status's poll, once: the voter's choices and the tally
-- change together, so the tally equals the votes under any concurrency.
-- KEYS[1] = status         keys.status(sid) (HASH: the poll's end, poll_expires, in ms)
-- KEYS[2] = poll_votes     keys.poll_votes(sid) (HASH: voter -> "0,2")
-- KEYS[3] = status_counts  keys.status_counts(sid) (HASH: poll = "<voters>,<n0>,<n1>,...")
-- ARGV[1] = the voter's id, ARGV[2] = the choices ("0,2"), ARGV[3] = how many options,
-- ARGV[4] = now in ms
-- Returns 1 if counted; 0 if the voter had voted already (nothing changes); -1 if there
-- is no such status or poll; -2 if the poll has ended.
local expires = redis.call('HGET', KEYS[1], 'poll_expires')
if not expires then
    return -1
end
if tonumber(ARGV[4]) >= tonumber(expires) then
    return -2
end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then
    return 0
end
local size = tonumber(ARGV[3])
local tally = {}
for index = 1, size + 1 do
    tally[index] = 0
end
local kept = redis.call('HGET', KEYS[3], 'poll')
if kept then
    local index = 1
    for number in string.gmatch(kept, '%d+') do
        if index <= size + 1 then
            tally[index] = tonumber(number)
        end
        index = index + 1
    end
end
tally[1] = tally[1] + 1
for choice in string.gmatch(ARGV[2], '%d+') do
    local index = tonumber(choice) + 2
    if index <= size + 1 then
        tally[index] = tally[index] + 1
    end
end
redis.call('HSET', KEYS[3], 'poll', table.concat(tally, ','))
return 1
