-- The number of entries.
-- KEYS: the index, then three keys per bucket (functions.lua, bucket_keys). ARGV: the number of
-- buckets given, their numbers.
-- Returns it, then, for each sealed bucket whose string is missing (deleted or evicted), which
-- leaves the index, its number and the count its index member claimed. When the index holds a
-- bucket whose keys were not given, changes nothing and returns -1, then the index's members: the
-- caller sends it again with their keys.
local keys = bucket_keys(2, 2, tonumber(ARGV[1]))
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
for _, b in ipairs(members) do
  if not keys[bucket_of(b)] then
    local known = {-1}
    for _, m in ipairs(members) do known[#known + 1] = m end
    return known
  end
end
local n = 0
local out = {0}
for _, b in ipairs(members) do
  local k = keys[bucket_of(b)]
  local id, count = string.match(b, '^(%d+):(%d+)$')
  if not count then
    n = n + redis.call('LLEN', k[1])
  elseif redis.call('EXISTS', k[2]) == 1 then
    n = n + tonumber(count)
  else
    redis.call('ZREM', KEYS[1], b)
    out[#out + 1] = tonumber(id)
    out[#out + 1] = tonumber(count)
  end
end
out[1] = n
return out
