/**
 * The numbers of the pace rules, as data. The Lua script repeats the hard floors (it is the last line
 * of defence against a caller passing a smaller interval); keep both in step.
 */

/** RATE-1 / RATE-2: never faster than one request per second per host; values below count as 1 s. */
export const MIN_INTERVAL_MS = 1_000;
/**
 * RATE-2 allows sources up to 30 s; RATE-6 and ROB-10 ask for more on occasion. Anything above 60 s is a
 * pause, not a pace, and belongs in `noteRetryAfter`.
 */
export const MAX_INTERVAL_MS = 60_000;
/** ROB-10: Crawl-delay is a lower bound of the host's interval, capped at 60 s. */
export const CRAWL_DELAY_CAP_MS = 60_000;
/** ROB-5: robots.txt (and so its Crawl-delay) is cached 24 h. */
export const CRAWL_DELAY_VALID_MS = 24 * 60 * 60 * 1_000;
/** RATE-2: a larger interval noted by one caller applies to every fetch to that host for 5 minutes. */
export const INTERVAL_NOTE_TTL_MS = 5 * 60 * 1_000;
/** RATE-4: at most two requests in flight per host, across all instances. */
export const MAX_IN_FLIGHT_PER_HOST = 2;
/** RATE-7: after a store failure, processes throttle alone and ask the store again after 60 s. */
export const SHARED_STORE_RETRY_MS = 60_000;
/**
 * RATE-7: how long the answer of a store call that timed out is still waited for. A timeout is not
 * "Redis unavailable": a starved Redis (or a slow path) runs the call and answers late, while other
 * instances still reach it — pacing alone then puts sends next to theirs (the politeness bench under
 * CPU starvation: 80 / 23 spacing violations, min gaps 0.4 / 1.5 ms). A late answer puts the process
 * back on Redis; only a retry that fails outright or stays unanswered this long makes it pace alone.
 * As long as the quiet before the retry: a process cut off costs one more quiet minute before it
 * fetches alone — in a total outage by a black hole (errors switch at once, as before). Real time:
 * it measures I/O, like the store timeout.
 */
export const SHARED_STORE_ANSWER_PATIENCE_MS = 60_000;

/**
 * Send allowance: every reservation takes its own send time plus an allowance, and the host's next
 * slot comes one interval after that. A send leaves on a timer through an event loop and a socket;
 * within the allowance it may be late without coming closer than the interval to the next slot, and a
 * caller that would be later gives the slot up and reserves anew. This is the minimum (and what a
 * process that keeps time well uses); a process whose timers or answers run late asks for more —
 * its own reservations then cost a little more spacing, never anyone's politeness.
 */
export const PACE_MARGIN_MS = 20;
/** Upper bound of the send allowance a lagging process may ask for. */
export const MAX_SEND_ALLOWANCE_MS = 200;
/**
 * The part of a send allowance kept for the time between the send-time check and the write. The check
 * (`SlotLease.onTime`, in undici's onRequestStart) passes only while the send is at most
 * allowance − guard late: undici builds and writes the head in the same synchronous call after it, but
 * a GC pause or a preempted process in between still writes it later than the check saw it. Measured
 * (bench/politeness, POLITENESS_STALLS=1, workers under Lambda's heap bounds): after a process's first
 * sends, stalls between check and write ≤ 10.9 ms on a quiet machine; within the owner's 20 ms
 * steady-state allowance (PACE_MARGIN_MS) that leaves 10 ms for a late wake-up. On a machine loaded
 * 10–12 on 2 cores single stalls of 13–135 ms were seen: the guard narrows that window, it cannot close
 * it (nothing in the process can see a preemption between the check and the write).
 */
export const SEND_WRITE_GUARD_MS = 10;
/**
 * A process learns its lateness from this many sends before it chooses its own allowance; until
 * then (a cold start) it asks for COLD_START_SEND_ALLOWANCE_MS.
 */
export const SEND_LATENESS_MIN_SAMPLES = 16;
/**
 * The send allowance of a cold start (fewer than SEND_LATENESS_MIN_SAMPLES sends), checked with
 * COLD_START_WRITE_GUARD_MS. A fresh process's first sends stall longest between check and write
 * (lazy compilation of the request path, the init's garbage, ~10 instances starting on 2 cores):
 * a worker's first request (robots.txt) was written 21.2, 46.4 and 72.2 ms after its check in three
 * politeness bench runs (POLITENESS_STALLS=1; load 1.5–11 on 2 cores), where its later requests
 * mostly stalled ≤ 10 ms. The check still passes at up to 20 ms late — as many cold slots are given up
 * as with the plain 20 ms allowance — and 80 ms, above the largest first-request stall measured, are
 * kept for the write. Costs 80 ms of the host's pace after each of a fresh process's first 16 sends,
 * never anyone's politeness. No guard bounds a process preempted for longer: that stays a measured risk.
 */
export const COLD_START_SEND_ALLOWANCE_MS = 100;
export const COLD_START_WRITE_GUARD_MS = 80;
/**
 * RATE-7 alone: under Redis, processes that take turns on a host send one slot apart, a slot being the
 * interval plus the sender's allowance (up to MAX_SEND_ALLOWANCE_MS). Alone, each keeps its phase on a
 * grid whose step is a cycle of `instances` such slots: (interval + this slack) × instances. The cycle
 * then never wraps into the first process's next slot, each process's own sends stay at least
 * interval × instances apart even when sent a whole allowance late, and the step is one constant for
 * every process (so no two grids drift together). Costs 20 % of the fallback's pace at 1 s.
 */
export const FALLBACK_GRID_SLACK_MS = MAX_SEND_ALLOWANCE_MS;
/**
 * RATE-7 alone, RATE-1 kept (fallback-phase.ts): a process keeps its phase on a host only from a slot
 * in the last cycle before it found Redis gone — and from at least this many slots before, however few
 * the instances (the step then grows past interval × instances to keep the grids apart). Two: a
 * sequential fetcher finds Redis gone at its next call, after its request's answer (up to 1.8 s in the
 * politeness bench), so its last slot is up to two slots old by then. With 4 instances (the bench) the
 * step grows from 4 to 5 slots (−20 % pace alone); from 5 instances on (production) it costs nothing.
 */
export const FALLBACK_PHASE_MIN_SLOTS = 2;

/**
 * Upper bound of the send lead: an idle host's slot is placed this far ahead so that the answer of a
 * slow Redis call still arrives before it (costs that much latency on an idle host, no throughput).
 */
export const MAX_SEND_LEAD_MS = 100;
/**
 * A lease outlives an instance that died holding it by at most this long. It must exceed the
 * fetcher's whole-request timeout (headers and body); callers with longer transfers pass their own.
 */
export const DEFAULT_LEASE_TTL_MS = 120_000;
export const MIN_LEASE_TTL_MS = 1_000;
/**
 * A released lease's Redis release waits this long for the same process's next reservation of the
 * host to carry it (one round trip per request for a sequential fetcher instead of two). Covers the
 * parsing and storing between two pages; the place counts as taken meanwhile (stricter, never looser).
 */
export const RELEASE_LINGER_MS = 250;
/** A store call slower than this counts as a failure (RATE-7: "errors or times out"). */
export const DEFAULT_STORE_TIMEOUT_MS = 2_000;
/** Waiting for a busy host: first poll after this, doubling up to BUSY_POLL_MAX_MS; never a hot loop. */
export const BUSY_POLL_MIN_MS = 100;
export const BUSY_POLL_MAX_MS = 2_000;
/** Spread of the poll times of several waiters, so they do not arrive at Redis together. */
export const BUSY_POLL_JITTER_MS = 40;
/** A waiter polls this long after the earliest holder's send: most answers are done by then. */
export const HOLDER_ANSWER_AIM_MS = 60;
/**
 * Item 5 of issue 27: other fetches' requests per host are counted in buckets of this length; their use
 * is read over the last bucket and the current one (10–20 minutes). Long enough to see an hourly pass
 * that runs for a few minutes, short enough that its share is given back soon after it ends.
 */
export const OTHER_FETCH_BUCKET_MS = 10 * 60_000;
