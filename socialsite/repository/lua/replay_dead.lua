-- Put dead-lettered jobs back on their stream, oldest first.
-- KEYS[1] = dead   keys.DEAD_JOBS, or keys.DEAD_MAIL (STREAM)
-- KEYS[2] = queue  keys.JOBS, or keys.MAIL (STREAM)
-- ARGV[1] = how many at most
-- Returns the number replayed.
local entries = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', tonumber(ARGV[1]))
for _, entry in ipairs(entries) do
    local fields = entry[2]
    for i = 1, #fields, 2 do
        if fields[i] == 'job' then
            redis.call('XADD', KEYS[2], '*', 'job', fields[i + 1])
        end
    end
    redis.call('XDEL', KEYS[1], entry[1])
end
return #entries
