-- Removes every bucket, open or sealed, its hold, and the index.
-- KEYS: the index, then three keys per bucket (functions.lua, bucket_keys). ARGV: the number of
-- buckets given, their numbers.
-- Returns 1. When the index holds a bucket whose keys were not given, changes nothing and returns
-- 0, then the index's members: the caller sends it again with their keys.
local keys = bucket_keys(2, 2, tonumber(ARGV[1]))
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
for _, b in ipairs(members) do
  if not keys[bucket_of(b)] then
    local known = {0}
    for _, m in ipairs(members) do known[#known + 1] = m end
    return known
  end
end
for _, b in ipairs(members) do
  local k = keys[bucket_of(b)]
  redis.call('UNLINK', k[1], k[2], k[3])
end
redis.call('UNLINK', KEYS[1])
return {1}
