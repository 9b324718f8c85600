/**
 * The Redis side of host slots: one atomic script per concern, called by hash with a full-script
 * fallback (`createScript().exec()`: EVALSHA, then EVAL on NOSCRIPT).
 *
 * Keys of one host (all share the hash tag `{host}`):
 *   <prefix>{host}:next         string  latest reserved send time + its send allowance, ms, Redis clock
 *   <prefix>{host}:leases       zset    lease id → expiry (send time + lease TTL), ms
 *   <prefix>{host}:interval     string  largest caller interval of the last 5 min, ms (RATE-2)
 *   <prefix>{host}:crawl-delay  string  Crawl-delay floor, ms, ≤ 60 000; expires with the robots cache (ROB-10)
 *   <prefix>{host}:retry-after  string  no send before this time, ms, Redis clock; expires then (RATE-8)
 *   <prefix>{host}:waiting      zset    requester id → when it first found both places taken, ms
 * Every key carries a TTL, so a host nobody fetches leaves nothing behind.
 *
 * All times are taken from the Redis server (`TIME`), and replies carry delays relative to it: clients
 * with skewed clocks still never send early. The hard floors (1 s, 60 s, 5 min) are repeated here on
 * purpose: no client, however configured, can make the shared pace faster than RATE-1.
 */

export const HOST_KEY_SUFFIXES = [
  'next',
  'leases',
  'interval',
  'crawl-delay',
  'retry-after',
  'waiting',
] as const;

/**
 * A requester in a host's waiting line that has not asked again for this long has died or given up
 * without saying so; it leaves the line. Well above the longest poll pause (BUSY_POLL_MAX_MS).
 */
export const WAIT_STALE_MS = 10_000;

/** The keys of one host, in the order the scripts take them. */
export function hostKeys(prefix: string, host: string): string[] {
  return HOST_KEY_SUFFIXES.map((suffix) => `${prefix}{${host}}:${suffix}`);
}

/** Reply status codes of RESERVE_SLOT_SCRIPT. */
export const RESERVE_STATUS = { refused: 0, granted: 1, busy: 2 } as const;

/**
 * reserve-host-slot — RATE-1, RATE-2, RATE-4, RATE-5, RATE-8, ROB-10 in one round trip.
 *
 * KEYS[1..6] next, leases, interval, crawl-delay, retry-after, waiting of the host (see above)
 * KEYS[7]    optional: leases of the host a lease is freed from first (RATE-5 redirect, re-timing)
 * ARGV[1] caller's interval, ms (raised to ≥ 1 000)
 * ARGV[2] new lease id, ending in '/<ARGV[3]>'
 * ARGV[3] lease TTL, ms, counted from the send time
 * ARGV[4] max wait, ms; -1 = no limit
 * ARGV[5] in-flight places per host (2, RATE-4)
 * ARGV[6] not-before delay, ms (the caller's own sends the store may not know of, e.g. after a fallback)
 * ARGV[7] send allowance of this reservation, ms: how late its sender may still send (see constants.ts)
 * ARGV[8] requester id: the same for every attempt of one acquire (its place in the waiting line)
 * ARGV[9] optional: lease id to free from KEYS[7]
 * ARGV[10], ARGV[11] optional: re-timing a slot its holder could not send in time — the `next` value
 *         and the send time that reservation was given. When `next` still holds that value, nobody has
 *         reserved after it: the slot is moved to the new send time instead of a new one being added
 *         an interval later (the send before it was at least an interval before the old send time).
 *         KEYS[7]/ARGV[9] then free the old lease of the same host.
 *
 * Send time = max(now, next + interval, retry-after, now + not-before), where interval =
 * max(1 s, caller's, noted, Crawl-delay ≤ 60 s); `next` becomes send time + allowance.
 *
 * Places go first come, first served: a requester answered "busy" joins the host's waiting line, and
 * a place counts as taken while someone who asked earlier still waits for it. Without the line, a
 * sequential fetcher that frees its place and reserves again a moment later keeps a third party (a
 * redirect, the preview, a file download) out for as long as it runs. An entry leaves the line with
 * its grant or refusal, or after WAIT_STALE_MS (a requester that died or gave up quietly).
 *
 * Reply {status, a, b, interval, now, next}:
 *   1 granted  a = send in ms, next = the new `next` value (the token for re-timing). Writes next,
 *              the lease, and raises the interval note.
 *   0 refused  a = ms until the slot would be free (beyond max wait). Writes nothing but its own
 *              leaving of the waiting line.
 *   2 busy     a = ms until the next free slot, b = ms until the earliest lease expires (0: none held,
 *              the places are promised to earlier requesters), and a 7th element: ms until the
 *              earliest holder sends (≤ 0: in flight). Joins the waiting line.
 * Lease ids end in '/<lease TTL ms>', so the send time of a held lease can be told from its expiry.
 * `now` (Redis clock, ms) lets the client place the send time on its own clock (see redis-store.ts).
 * A reservation is spent even if the request then fails: that is the pace, not a booking.
 */
export const RESERVE_SLOT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local WAIT_STALE_MS = ${WAIT_STALE_MS}

if KEYS[7] then redis.call('ZREM', KEYS[7], ARGV[9]) end

local callerInterval = math.max(1000, tonumber(ARGV[1]))
local noted = tonumber(redis.call('GET', KEYS[3]) or '0')
local crawl = math.min(tonumber(redis.call('GET', KEYS[4]) or '0'), 60000)
local interval = math.max(callerInterval, noted, crawl)

local sendAt = now + math.max(0, tonumber(ARGV[6]))
local last = redis.call('GET', KEYS[1])
if last and ARGV[10] and tonumber(last) == tonumber(ARGV[10]) then
  sendAt = math.max(sendAt, tonumber(ARGV[11]))
elseif last then
  sendAt = math.max(sendAt, tonumber(last) + interval)
end
local retryUntil = redis.call('GET', KEYS[5])
if retryUntil then sendAt = math.max(sendAt, tonumber(retryUntil)) end

local maxWait = tonumber(ARGV[4])
if maxWait >= 0 and sendAt - now > maxWait then
  redis.call('ZREM', KEYS[6], ARGV[8])
  return {0, sendAt - now, 0, interval, now, 0}
end

redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now - WAIT_STALE_MS)
local since = redis.call('ZSCORE', KEYS[6], ARGV[8])
local ahead
if since then ahead = redis.call('ZCOUNT', KEYS[6], '-inf', '(' .. since) else ahead = redis.call('ZCARD', KEYS[6]) end
local live = redis.call('ZCOUNT', KEYS[2], '(' .. now, '+inf')
if live + ahead >= tonumber(ARGV[5]) then
  if not since then redis.call('ZADD', KEYS[6], now, ARGV[8]) end
  redis.call('PEXPIRE', KEYS[6], WAIT_STALE_MS)
  -- When the places may free: the earliest lease expiry for certain, and, more usefully, soon after the
  -- earliest holder sends (a lease id ends in '/<ttl>': send time = expiry - ttl).
  local placeFree = 0
  local holderSends = 0
  if live > 0 then
    local held = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. now, '+inf', 'WITHSCORES')
    placeFree = tonumber(held[2]) - now
    holderSends = placeFree
    for i = 1, #held, 2 do
      local ttl = tonumber(string.match(held[i], '/(%d+)$') or '')
      if ttl then holderSends = math.min(holderSends, tonumber(held[i + 1]) - ttl - now) end
    end
  end
  return {2, sendAt - now, placeFree, interval, now, 0, holderSends}
end
if since then redis.call('ZREM', KEYS[6], ARGV[8]) end

redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local expiry = sendAt + tonumber(ARGV[3])
redis.call('ZADD', KEYS[2], expiry, ARGV[2])
if redis.call('PTTL', KEYS[2]) < expiry - now then redis.call('PEXPIRE', KEYS[2], expiry - now) end
-- Kept for the largest interval a later caller may bring (Crawl-delay cap), not just this one.
local nextBase = sendAt + math.max(0, tonumber(ARGV[7]))
redis.call('SET', KEYS[1], nextBase, 'PX', nextBase - now + 60000)
if callerInterval > noted then
  redis.call('SET', KEYS[3], callerInterval, 'PX', 300000)
elseif callerInterval == noted then
  redis.call('PEXPIRE', KEYS[3], 300000)
end
return {1, sendAt - now, 0, interval, now, nextBase}
`;

/**
 * raise-host-floor — RATE-8 Retry-After and ROB-10 Crawl-delay notes (B-2). A note only ever raises a floor:
 * it never shortens a pause (RATE-8), and a lower Crawl-delay takes over when the higher one expires
 * with its robots cache (ROB-5, 24 h).
 *
 * KEYS[1] the retry-after or crawl-delay key of the host
 * ARGV[1] 'until': the value is now + ARGV[2] and expires then (Retry-After)
 *         'value': the value is ARGV[2] and expires after ARGV[3] ms (Crawl-delay)
 * ARGV[2] ms   ARGV[3] TTL ms ('value' only)
 * Reply 1 when the note was raised or refreshed, 0 when a larger one stays.
 */
export const RAISE_FLOOR_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local value, ttl
if ARGV[1] == 'until' then
  value = now + tonumber(ARGV[2])
  ttl = tonumber(ARGV[2])
else
  value = tonumber(ARGV[2])
  ttl = tonumber(ARGV[3])
end
if ttl <= 0 then return 0 end
local current = tonumber(redis.call('GET', KEYS[1]) or '-1')
if value > current then
  redis.call('SET', KEYS[1], value, 'PX', ttl)
  return 1
end
if value == current and ARGV[1] == 'value' then
  redis.call('PEXPIRE', KEYS[1], ttl)
  return 1
end
return 0
`;

/**
 * host-slot-state — read-only, for status output and tests.
 * KEYS[1..5] as RESERVE_SLOT_SCRIPT.
 * Reply {now, next, live leases, interval note, crawl-delay, retry-after until}; absent = -1.
 */
export const HOST_STATE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function num(key) return tonumber(redis.call('GET', key) or '-1') end
return {now, num(KEYS[1]), redis.call('ZCOUNT', KEYS[2], '(' .. now, '+inf'), num(KEYS[3]), num(KEYS[4]), num(KEYS[5])}
`;

/**
 * note-host-floor — the fleet-wide copy of a RATE-8 pause or ROB-10 Crawl-delay (see ledger.ts), in one
 * hash: field `pause:<host>` or `crawl:<host>` → "value:expiresAt" (Redis clock, ms). Same rule as
 * RAISE_FLOOR_SCRIPT: a note only raises a floor in force (a pause is never shortened; a lower
 * Crawl-delay takes over when the higher one expires). Expired fields are dropped on every note (notes
 * are rare: a robots.txt fetch a day per host, a 429/503), so the hash holds only what is in force.
 *
 * KEYS[1] the floors hash
 * ARGV[1] field   ARGV[2] 'until' (value = now + ARGV[3], expires then) or 'value' (ARGV[3], for ARGV[4] ms)
 * Reply 1 when written, 0 when a larger floor stays.
 */
export const NOTE_HOST_FLOOR_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local value, expires
if ARGV[2] == 'until' then
  value = now + tonumber(ARGV[3])
  expires = value
else
  value = tonumber(ARGV[3])
  expires = now + tonumber(ARGV[4])
end
if expires <= now then return 0 end
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local v, e = string.match(all[i + 1], '^(%-?%d+):(%-?%d+)$')
  if e == nil or tonumber(e) <= now then
    redis.call('HDEL', KEYS[1], all[i])
  elseif all[i] == ARGV[1] then
    if tonumber(v) > value or (tonumber(v) == value and ARGV[2] == 'until') then return 0 end
  end
end
redis.call('HSET', KEYS[1], ARGV[1], value .. ':' .. expires)
if redis.call('PTTL', KEYS[1]) < expires - now then redis.call('PEXPIRE', KEYS[1], expires - now) end
return 1
`;

/**
 * record-other-fetches — item 5 of issue 27: requests other fetches sent, per host, into the current
 * time bucket (OTHER_FETCH_BUCKET_MS; the caller names it). One call per pass flush, whatever the hosts.
 *
 * KEYS[1] the bucket's hash   ARGV[1] its TTL, ms   ARGV[2], ARGV[3], … host, requests (pairs)
 */
export const RECORD_OTHER_FETCHES_SCRIPT = `
for i = 2, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`;

/**
 * read-host-ledger — everything the planner reads of all hosts, in one round trip.
 * KEYS[1] floors hash, KEYS[2] last bucket, KEYS[3] current bucket.
 * Reply {now (Redis clock, ms), floors, last bucket, current bucket} (each a flat field/value list).
 */
export const READ_HOST_LEDGER_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return {now, redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[2]), redis.call('HGETALL', KEYS[3])}
`;
