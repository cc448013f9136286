-- Stores members at given scores, replacing one already there, then raises the counter to the
-- largest.
-- KEYS: the index, the counter hash, then three keys per bucket the scores fall in
-- (functions.lua, bucket_keys).
-- ARGV: the counter's field, whether to return full buckets ('1' or '0'), the scores per bucket,
-- how long a hold lasts (milliseconds), the number of buckets, their numbers; the number of sealed
-- buckets to open, and for each its number, the SHA-1 of its sealed value as read, its member count
-- and its members; then score and member pairs.
-- A sealed bucket a pair falls in is opened first, with the members given, if its value is still
-- the one read. Returns 1, then, for each bucket this write filled (it holds all its scores now and
-- did not before), its number and its members (an array), and for each bucket whose sealed string
-- was missing, its number and the count of entries lost with it (an integer), its index repaired;
-- or, changing nothing but holding them, 0 and the sealed buckets to open (again). Every sealed
-- bucket the write finds is held, so that it is not sealed again before the write has read it and
-- sent it again.
local bucket, hold_ms = tonumber(ARGV[3]), tonumber(ARGV[4])
local nb = tonumber(ARGV[5])
local keys = bucket_keys(3, 6, nb)
local opening = {}
local i = 6 + nb + 1
for _ = 1, tonumber(ARGV[6 + nb]) do
  opening[ARGV[i]] = {ARGV[i + 1], i + 3, tonumber(ARGV[i + 2])}
  i = i + 3 + tonumber(ARGV[i + 2])
end
local first = i
local touched, seen, sealed, opened, unsealed = {}, {}, {}, {}, {}
for i = first, #ARGV, 2 do
  local b = math.floor(tonumber(ARGV[i]) / bucket)
  if not seen[b] then
    seen[b] = true
    touched[#touched + 1] = b
    local k = keys[digits(b)]
    local v = redis.call('GET', k[2])
    if v then
      hold(k, hold_ms)
      local o = opening[digits(b)]
      if o and redis.sha1hex(v) == o[1] then opened[#opened + 1] = {b, o} else sealed[#sealed + 1] = b end
    else
      unsealed[#unsealed + 1] = b
    end
  end
end
if #sealed > 0 then
  local out = {0}
  for _, b in ipairs(sealed) do out[#out + 1] = b end
  return out
end
local lost = {}
for _, b in ipairs(unsealed) do
  local n = drop_lost(b)
  if n > 0 then
    lost[#lost + 1] = b
    lost[#lost + 1] = n
  end
end
for _, bo in ipairs(opened) do open(keys[digits(bo[1])], bo[1], bo[2][2], bo[2][3]) end
local before = {}
if ARGV[2] == '1' then
  for _, b in ipairs(touched) do before[b] = redis.call('LLEN', keys[digits(b)][1]) end
end
local top = 0
for i = first, #ARGV, 2 do
  local s = tonumber(ARGV[i])
  local m = ARGV[i + 1]
  local b = math.floor(s / bucket)
  local bk = keys[digits(b)][1]
  local tail = redis.call('LINDEX', bk, -1)
  if not tail then
    redis.call('RPUSH', bk, m)
    redis.call('ZADD', KEYS[1], b, digits(b))
  elseif score_of(tail) < s then
    redis.call('RPUSH', bk, m)
  else
    local items = redis.call('LRANGE', bk, 0, -1)
    for j = 1, #items do
      local t = score_of(items[j])
      if t == s then
        redis.call('LSET', bk, j - 1, m)
        break
      elseif t > s then
        redis.call('LINSERT', bk, 'BEFORE', items[j], m)
        break
      end
    end
  end
  if s > top then top = s end
end
local c = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
if c < top then redis.call('HSET', KEYS[2], ARGV[1], digits(top)) end
local out = {1}
if ARGV[2] == '1' then
  for _, b in ipairs(touched) do
    local bk = keys[digits(b)][1]
    local full = (b == 0 and bucket - 1 or bucket)
    if before[b] < full and redis.call('LLEN', bk) == full then
      out[#out + 1] = b
      out[#out + 1] = redis.call('LRANGE', bk, 0, -1)
    end
  end
end
for _, x in ipairs(lost) do out[#out + 1] = x end
return out
