-- SET with its own TTL for each key. KEYS: the keys. ARGV: value and TTL in milliseconds, key by
-- key. Returns the number of keys.
for i = 1, #KEYS do redis.call('SET', KEYS[i], ARGV[2 * i - 1], 'PX', ARGV[2 * i]) end return #KEYS
