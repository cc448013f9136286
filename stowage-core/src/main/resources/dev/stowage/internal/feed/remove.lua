-- Removes the entry at a score.
-- KEYS: the index, then the list, sealed string and hold of the score's bucket. ARGV: the score,
-- the scores per bucket, how long a hold lasts (milliseconds), then, to open the bucket when it is
-- sealed, the SHA-1 of the sealed value as read and its members.
-- Returns whether there was an entry (1 or 0) and the count of entries lost with the bucket's
-- sealed string, found missing and dropped from the index (usually 0); or, holding the bucket and
-- changing nothing else, -1 when the bucket is sealed and was not opened (no members given, or its
-- value changed since they were read).
local s = tonumber(ARGV[1])
local b = math.floor(s / tonumber(ARGV[2]))
local k = {KEYS[2], KEYS[3], KEYS[4]}
local v = redis.call('GET', k[2])
local lost = 0
if v then
  hold(k, tonumber(ARGV[3]))
  if not ARGV[4] or redis.sha1hex(v) ~= ARGV[4] then return {-1, 0} end
  open(k, b, 5, #ARGV - 4)
else
  lost = drop_lost(b)
end
local items = redis.call('LRANGE', k[1], 0, -1)
for j = 1, #items do
  if score_of(items[j]) == s then
    redis.call('LREM', k[1], 1, items[j])
    if redis.call('LLEN', k[1]) == 0 then redis.call('ZREM', KEYS[1], digits(b)) end
    return {1, lost}
  end
end
return {0, lost}
