-- A near cache's bulk read. KEYS: the keys. Returns, for each key, its value (nil when missing or
-- not a string, as MGET answers) and then its PTTL; MGET in slices, as Lua unpacks only so many
-- values at once.
local reply = {}
for first = 1, #KEYS, 1000 do
  local last = math.min(first + 999, #KEYS)
  local values = redis.call('MGET', unpack(KEYS, first, last))
  for i = first, last do
    reply[2 * i - 1] = values[i - first + 1]
    reply[2 * i] = redis.call('PTTL', KEYS[i])
  end
end
return reply
