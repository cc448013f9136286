-- Appends members with new scores from the counter.
-- KEYS: the index, the counter hash, then three keys per bucket the caller expects the scores in
-- (functions.lua, bucket_keys).
-- ARGV: the counter's field, whether to return full buckets ('1' or '0'), the scores per bucket,
-- the highest score (2^53), the number of buckets given, their numbers, then the members'
-- envelopes.
-- Returns the first score, then, for each bucket the append filled, its number and its members.
-- Refuses, before changing anything, scores above 2^53, which Lua (whose numbers are doubles)
-- would round to a score already taken, and scores in a sealed bucket, which only a counter lowered
-- by hand can give. When the scores fall in a bucket whose keys were not given, changes nothing and
-- returns {'counter', c}: the caller sends it again with the keys of the buckets after c.
local bucket, max = tonumber(ARGV[3]), tonumber(ARGV[4])
local nb = tonumber(ARGV[5])
local keys = bucket_keys(3, 6, nb)
local first_envelope = 6 + nb
local n = #ARGV - first_envelope + 1
local c = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
if c then
  if c > max - n then
    return redis.error_reply('ERR the counter ' .. ARGV[1] .. ' of feed ' .. KEYS[1] .. ' is at ' .. digits(c)
        .. ': adding ' .. n .. ' would give scores above 2^53')
  end
  for b = math.floor((c + 1) / bucket), math.floor((c + n) / bucket) do
    if not keys[digits(b)] then return {'counter', c} end
  end
  for b = math.floor((c + 1) / bucket), math.floor((c + n) / bucket) do
    if redis.call('EXISTS', keys[digits(b)][2]) == 1 then
      return redis.error_reply('ERR bucket ' .. digits(b) .. ' of feed ' .. KEYS[1] .. ' is sealed, but the counter '
          .. digits(c) .. ' is below its scores: was the counter lowered?')
    end
  end
end
local last = redis.call('HINCRBY', KEYS[2], ARGV[1], n)
local first = last - n + 1
local out = {first}
for i = 1, n do
  local s = first + i - 1
  local b = math.floor(s / bucket)
  local bk = keys[digits(b)][1]
  local len = redis.call('RPUSH', bk, prefix(s) .. ARGV[first_envelope + i - 1])
  if len == 1 then
    redis.call('ZADD', KEYS[1], b, digits(b))
  elseif ARGV[2] == '1' and len == (b == 0 and bucket - 1 or bucket) then
    out[#out + 1] = b
    out[#out + 1] = redis.call('LRANGE', bk, 0, -1)
  end
end
return out
