-- Members from the newest.
-- KEYS: the index, then three keys per bucket the caller expects the page in (functions.lua,
-- bucket_keys). ARGV: entries to skip, entries wanted, the number of buckets given, their numbers.
-- Returns 1, then the page: an open bucket's members come as they are, newest first; a sealed
-- bucket comes as one element, an array of its stored value (nil if it is missing), the first and
-- last index, from 0 in ascending order, of the entries of the page it holds, and its number. A
-- sealed bucket is skipped by the count its index member gives, without reading it. A sealed bucket
-- the page needs whose string is missing (deleted or evicted) leaves the index, as if it had no
-- entries, and comes as an array of the count its index member claimed and its number, once: pages
-- and size.lua agree from then on.
-- When the page reaches a bucket whose keys were not given, changes nothing and returns 0, then the
-- index's members from the newest to 64 past that bucket: the caller sends it again with their
-- keys.
local skip = tonumber(ARGV[1])
local want = tonumber(ARGV[2])
local keys = bucket_keys(2, 4, tonumber(ARGV[3]))
local out = {1}
local lost = {}
local from = 0
while want > 0 do
  local buckets = redis.call('ZREVRANGE', KEYS[1], from, from + 63)
  if #buckets == 0 then break end
  for r, b in ipairs(buckets) do
    local k = keys[bucket_of(b)]
    if not k then
      local known = {0}
      for _, m in ipairs(redis.call('ZREVRANGE', KEYS[1], 0, from + r + 63)) do known[#known + 1] = m end
      return known
    end
    local n, count = string.match(b, '^(%d+):(%d+)$')
    local len, v
    if n then len = tonumber(count) else len = redis.call('LLEN', k[1]) end
    if n and skip < len then
      v = redis.call('GET', k[2])
      if not v then
        lost[#lost + 1] = b
        out[#out + 1] = {len, tonumber(n)}
        len = 0
      end
    end
    if skip >= len then
      skip = skip - len
    else
      local hi = len - 1 - skip
      local lo = math.max(0, hi - want + 1)
      if n then
        out[#out + 1] = {v, lo, hi, tonumber(n)}
      else
        local items = redis.call('LRANGE', k[1], lo, hi)
        for i = #items, 1, -1 do out[#out + 1] = items[i] end
      end
      want = want - (hi - lo + 1)
      skip = 0
      if want <= 0 then break end
    end
  end
  from = from + 64
end
for _, b in ipairs(lost) do redis.call('ZREM', KEYS[1], b) end
return out
