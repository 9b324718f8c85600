import { MAX_IN_FLIGHT_PER_HOST } from '../slots';

/**
 * RATE-9: the host model's numbers, as data.
 *
 * Expected requests of a run nobody has seen yet. An incremental OParl sync asks each list for what
 * changed since the last run: about a dozen lists, one page each, plus robots.txt — issue 27 measured 65
 * requests for four first runs (~16 each). A full sync of a mid-sized council system is ~225 pages
 * (issue 27). After its first runs a source's own figures replace these (`RECENT_RUNS_KEPT`).
 */
export const DEFAULT_EXPECTED_REQUESTS = { incremental: 16, full: 225, sliced: 225 } as const;
/** The last runs of one kind whose mean is the source's expected requests (recent beats old). */
export const EXPECTED_FROM_LAST_RUNS = 3;
/** RATE-4: never more sync runs on one host than requests it allows in flight. */
export const MAX_RUNS_PER_HOST = MAX_IN_FLIGHT_PER_HOST;
/**
 * A second run on a host only when one run's request takes at least this many host intervals (a slow
 * server): then one run leaves a third or more of the pace unused; below, a second run would only queue.
 */
export const SECOND_RUN_FROM = 1.5;
/**
 * Item 5 of issue 27: other fetches (document passes, deletion checks, photos, previews) take their
 * share of a host's pace first, but never more than this share: the syncs keep at least half of it, so
 * a document backlog cannot starve the cadence (RATE-9: none is starved), and a pass whose host has no
 * budget left waits instead.
 */
export const MAX_OTHER_FETCH_SHARE = 0.5;
/**
 * Sync runs first: a pass starts on a host only while the syncs' demand leaves room for it — except that
 * below this share of the pace other fetches are always admitted, so that on a host the syncs saturate a
 * document backlog still drains (RATE-9: none is starved). A tenth of a 1 s pace is 360 requests an hour:
 * an hourly files pass's DOC-3 share of one host (200 files a source) gets through within the hour, while
 * the syncs keep nine tenths.
 */
export const MIN_OTHER_FETCH_SHARE = 0.1;
/** A host whose utilisation reaches this is reported saturated (metric, alarm, `ingestor hosts`). */
export const SATURATED_UTILISATION = 1;
/**
 * FULL-3 per host: in the full-sync window the slots kept for incremental syncs follow their demand (the
 * slots their runs hold on average, `HostModel.incrementalSlots`) times this headroom — runs do not come
 * evenly (07:00 makes every source due at once), and at the bare mean a queue would build at each peak.
 * The same holds for a host's time: on a host with capacity the full syncs leave its incremental syncs
 * their demand times this (`fullSyncShareOf`); at the bare demand a backlog of due councils never drained
 * between full syncs (test/hosts/full-sync-share.test.ts: 40 councils, some served once in three hours).
 */
export const INCREMENTAL_SLOT_HEADROOM = 1.25;
/**
 * RATE-9 with FULL-3: on a saturated host the window's full syncs take at most this share of its time
 * (`fullSyncShareOf`), so its incremental syncs' factor grows at most to stretch ÷ (1 − this) while full
 * syncs run (`windowStretchOf`) — FULL-3 keeps the incremental cadence first; none is starved either way.
 * A source decided at the window's factor waits that many turns; unbounded (a 90 % share, factor × 10), a
 * hosting centre's councils decided at 07:xx waited into the afternoon (fleet bench, 1,000 sources: SourceStarved
 * at 11–12 h, 137–150 min past their turn at the day's factor 4.5).
 */
export const MAX_SATURATED_FULL_SYNC_SHARE = 0.5;
/** FULL-3: however large the incremental demand, full syncs keep this many slots (when there are two). */
export const MIN_FULL_SYNC_SLOTS = 1;
/** The planner runs once a minute (infra's schedule): a slot freed by a run ending is given at the next tick. */
export const PLANNER_TICK_SECONDS = 60;
/**
 * RATE-9: on a saturated host a source is due again after this share of its stretched interval (never
 * before its own cadence), and the host's lane then serves the due ones by their share of their own
 * cycle waited (`nextLaneRun`). Due exactly at the stretch, the host idled whenever nobody was due and the
 * order was who happened to be due; a small queue of due sources lets the fair order decide, while the
 * host's pace (RATE-1) still serves only what it can. Fleet bench, 1,000 sources × a week (docs/scale.md):
 * due at 1, utilisation 0.88 / 0.85 (mean / least saturated host), fairness 1.25; at 0.8, 0.94 / 0.91 and
 * 1.27 (0.9: 0.93 / 0.89, 1.28 — fairness moves ±0.02 without a trend across 0.8–1).
 */
export const STRETCH_DUE_SHARE = 0.8;
