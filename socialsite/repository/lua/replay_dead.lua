-- Put dead-lettered jobs back on the jobs stream, oldest first.
-- KEYS[1] = DEAD_JOBS  keys.DEAD_JOBS (STREAM)
-- KEYS[2] = JOBS       keys.JOBS (STREAM)
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
