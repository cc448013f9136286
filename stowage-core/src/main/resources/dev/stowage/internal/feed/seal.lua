-- Seals a full bucket.
-- KEYS: the index, then the bucket's list, sealed string and hold. ARGV: the bucket's number, its
-- member count, the SHA-1 of its members as read (length, ':' and bytes of each, concatenated), the
-- sealed value.
-- Only while the list still holds exactly those members, the bucket is not sealed and no write
-- holds it: 1 when sealed, 0 when not, and minus the milliseconds the hold has left when a write
-- holds it.
local b = ARGV[1]
local held = redis.call('PTTL', KEYS[4])
if held > 0 then return -held end
local items = redis.call('LRANGE', KEYS[2], 0, -1)
if #items ~= tonumber(ARGV[2]) or redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
local parts = {}
for i = 1, #items do parts[i] = #items[i] .. ':' .. items[i] end
if redis.sha1hex(table.concat(parts)) ~= ARGV[3] then return 0 end
redis.call('SET', KEYS[3], ARGV[4])
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[1], b)
redis.call('ZADD', KEYS[1], b, b .. ':' .. #items)
return 1
