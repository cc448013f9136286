-- Raises the counter, never lowering it.
-- KEYS: the counter hash. ARGV: the counter's field, the score. Returns the counter.
local c = redis.call('HGET', KEYS[1], ARGV[1])
if not c or tonumber(c) < tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return tonumber(ARGV[2])
end
return tonumber(c)
