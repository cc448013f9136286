-- Reserves scores above a floor.
-- KEYS: the counter hash. ARGV: the counter's field, the number of scores, the floor, the highest
-- score (2^53).
-- Returns -1 when the counter is missing (an integer, not nil, which RESP3 would read as a
-- boolean), else the last score. Refuses, changing nothing, scores above 2^53, which Lua (whose
-- numbers are doubles) would return rounded to a score already taken.
local c = redis.call('HGET', KEYS[1], ARGV[1])
if not c then return -1 end
if math.max(tonumber(c) or 0, tonumber(ARGV[3])) > tonumber(ARGV[4]) - tonumber(ARGV[2]) then
  return redis.error_reply('ERR the counter ' .. ARGV[1] .. ' in ' .. KEYS[1] .. ' is at ' .. c .. ' (floor '
      .. ARGV[3] .. '): reserving ' .. ARGV[2] .. ' scores would give scores above 2^53')
end
if tonumber(c) < tonumber(ARGV[3]) then redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) end
return redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])
