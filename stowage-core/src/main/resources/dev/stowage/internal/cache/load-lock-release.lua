-- Releases a load lock if the caller still holds it. KEYS: the lock. ARGV: the caller's token.
-- Returns 1 when released, 0 when another caller holds it (or nobody does).
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end
