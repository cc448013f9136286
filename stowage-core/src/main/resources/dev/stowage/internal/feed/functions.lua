-- Functions shared by the feed's scripts; the loader puts this file before each script that
-- needs it (FeedScripts). Every key they touch comes from KEYS: a bucket's keys arrive three per
-- bucket (its list, its sealed string, its hold), with the bucket numbers in the same order in ARGV.

-- digits(n): an integral number in decimal, as Java's Long.toString writes it. Every bucket number
-- turned into an index member or a table key goes through it: Lua's own tostring and .. write
-- numbers with %.14g, so from bucket 10^14 (score 6.4e15, below 2^53) they wrote 1e+14 and gave
-- neighbouring buckets one name.
local function digits(n) return string.format('%.0f', n) end

-- The score a member starts with (its varint prefix); -1 when it is malformed.
local function score_of(m)
  local s, mul, i = 0, 1, 1
  while true do
    local c = string.byte(m, i)
    if c == nil then return -1 end
    s = s + (c % 128) * mul
    if c < 128 then return s end
    mul = mul * 128
    i = i + 1
    if i > 8 then return -1 end
  end
end

-- The varint prefix of score n.
local function prefix(n)
  local p = {}
  while n >= 128 do
    p[#p + 1] = string.char(n % 128 + 128)
    n = math.floor(n / 128)
  end
  p[#p + 1] = string.char(n)
  return table.concat(p)
end

-- The keys of count buckets: a table from each bucket's number (ARGV[argv_from] on, in decimal) to
-- its list, sealed string and hold ({KEYS[key_from], KEYS[key_from + 1], KEYS[key_from + 2]}, then
-- the next three).
local function bucket_keys(key_from, argv_from, count)
  local t = {}
  for i = 0, count - 1 do
    local k = key_from + 3 * i
    t[ARGV[argv_from + i]] = {KEYS[k], KEYS[k + 1], KEYS[k + 2]}
  end
  return t
end

-- The bucket number an index member names: 'n' for an open bucket, 'n:count' for a sealed one.
local function bucket_of(member) return string.match(member, '^(%d+)') end

-- Keeps the bucket of keys k from being sealed for ms milliseconds.
local function hold(k, ms)
  redis.call('SET', k[3], '1', 'PX', ms)
end

-- Puts the members ARGV[from] to ARGV[from + count - 1] back into the list of sealed bucket b
-- (keys k), deleting its string and its sealed index member (index KEYS[1]).
local function open(k, b, from, count)
  redis.call('DEL', k[1], k[2])
  for j = from, from + count - 1 do redis.call('RPUSH', k[1], ARGV[j]) end
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], b, b)) do redis.call('ZREM', KEYS[1], m) end
  if count > 0 then redis.call('ZADD', KEYS[1], b, digits(b)) end
end

-- For a bucket whose sealed string is missing (deleted or evicted): removes its sealed index member
-- and returns the count that member claimed (0 when there is none).
local function drop_lost(b)
  local lost = 0
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], b, b)) do
    local c = string.match(m, '^%d+:(%d+)$')
    if c then
      redis.call('ZREM', KEYS[1], m)
      lost = lost + tonumber(c)
    end
  end
  return lost
end
