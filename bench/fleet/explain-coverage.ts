import { FULL_SYNC_DEFAULT_WINDOW_HOURS, resolveScheduleSettings, toBerlin } from '../../shared/schedule';
import { buildFleet, hostIntervalMs, RUN_REQUESTS } from './model';
import { simulateFleet } from './simulate';
import type { EndedRun } from './types';

/**
 * What makes the fleet's `fullSyncCoverage` per host class (issue 27, FULL-1/FULL-3, RATE-9): runs one
 * fleet simulation (lanes) and prints, per hosting host and for the lone hosts together, at each
 * window's end (08:00) the share of sources with a complete full sync in the day before it (the
 * figure's definition, ./simulate.ts), the full syncs the window started and how long each held the
 * host, the share of the window's host time they took, the incremental runs meanwhile, and how old
 * the missed sources' last full sync was (the night before, or not since the simulation began).
 *
 *   FLEET_SOURCES=1000 FLEET_DAYS=1 nice -n 10 npx tsx bench/fleet/explain-coverage.ts
 *
 * Progress on stderr, one JSON line on stdout.
 */
const sources = Number(process.env.FLEET_SOURCES ?? 1000);
const days = Number(process.env.FLEET_DAYS ?? 1);
const slots = Number(process.env.FLEET_SLOTS ?? Math.round((sources * 110) / 1000));
const seed = Number(process.env.FLEET_SEED ?? 27);
const weekStart = process.env.FLEET_WEEK_START ?? '2026-11-30T00:00';
const warmupHours =
  process.env.FLEET_WARMUP_HOURS === undefined ? undefined : Number(process.env.FLEET_WARMUP_HOURS);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const fulls: EndedRun[] = [];
const incrementalsInWindow = new Map<string, number>();
const settings = resolveScheduleSettings({ maxConcurrentSyncs: slots });
const start = toBerlin(weekStart);
const windows: { startMs: number; endMs: number }[] = [];
for (let d = 0; d < days; d += 1) {
  const startMs = start.plus({ days: d }).set({ hour: settings.fullSyncHour }).toMillis();
  windows.push({ startMs, endMs: startMs + FULL_SYNC_DEFAULT_WINDOW_HOURS * HOUR });
}
const inWindow = (ms: number) => windows.some((w) => ms >= w.startMs && ms < w.endMs);

const result = simulateFleet({
  sources,
  allocation: 'lanes',
  slots,
  days,
  seed,
  weekStart,
  ...(warmupHours === undefined ? {} : { warmupHours }),
  onRunEnded: (run) => {
    if (run.kind !== 'incremental') fulls.push(run);
    else if (inWindow(run.startedAtMs))
      incrementalsInWindow.set(run.host, (incrementalsInWindow.get(run.host) ?? 0) + 1);
  },
});

const fleet = buildFleet(sources, seed);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? null : (s[Math.floor(s.length / 2)] as number);
};
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Per group of hosts, per window: covered share, fulls started, their time on the host, misses' age. */
function explain(hostNames: ReadonlySet<string>, sourceIds: readonly string[]) {
  const ours = fulls.filter((f) => hostNames.has(f.host));
  return windows.map((w) => {
    const lastEnded = new Map<string, number>();
    for (const f of ours) {
      if (f.endAtMs > w.endMs) continue;
      lastEnded.set(f.sourceId, Math.max(lastEnded.get(f.sourceId) ?? 0, f.endAtMs));
    }
    const covered = sourceIds.filter((id) => (lastEnded.get(id) ?? 0) >= w.endMs - DAY).length;
    const started = ours.filter((f) => f.startedAtMs >= w.startMs && f.startedAtMs < w.endMs);
    const minutes = started.map((f) => (f.endAtMs - f.startedAtMs) / 60_000);
    const hostMs = started.reduce((sum, f) => sum + Math.min(f.endAtMs, w.endMs) - f.startedAtMs, 0);
    // The missed: with a full sync simulated the night before (FULL-3 served them then), or none since
    // the start state (their last one the night before the simulation began: the oldest, next in turn).
    const missed = sourceIds.filter((id) => (lastEnded.get(id) ?? 0) < w.endMs - DAY);
    const missedServedBefore = missed.filter((id) => lastEnded.has(id)).length;
    // A full sync that started in the window and ended after its end is complete only after 08:00.
    const endedLate = new Set(
      started.filter((f) => f.endAtMs > w.endMs && hostNames.has(f.host)).map((f) => f.sourceId),
    );
    return {
      windowEnd: new Date(w.endMs).toISOString(),
      sources: sourceIds.length,
      covered: round(covered / Math.max(1, sourceIds.length), 3),
      fullSyncsStartedInWindow: started.length,
      fullSyncMinutes: { median: round(median(minutes) ?? 0, 1), max: round(Math.max(0, ...minutes), 1) },
      fullSyncRequestsMedian: median(started.map((f) => f.requests)),
      /** Of the window's host time (summed over the group's hosts), what full syncs held. */
      windowHostShareOfFulls: round(hostMs / (hostNames.size * (w.endMs - w.startMs)), 3),
      incrementalRunsInWindow: [...hostNames].reduce((sum, h) => sum + (incrementalsInWindow.get(h) ?? 0), 0),
      missed: missed.length,
      missedServedTheNightBefore: missedServedBefore,
      missedNotServedSinceTheStart: missed.length - missedServedBefore,
      missedStartedInWindowEndedAfterIt: missed.filter((id) => endedLate.has(id)).length,
      lastFullSyncStartInWindow:
        started.length === 0 ? null : new Date(Math.max(...started.map((f) => f.startedAtMs))).toISOString(),
    };
  });
}

const hosting = fleet.hosts
  .filter((h) => h.hosting)
  .map((h) => {
    const intervalMs = hostIntervalMs(h, fleet);
    const saturated =
      (h.sourceIndexes.length * RUN_REQUESTS[h.kind].incremental) / (settings.weekdayDayBaseMinutes * 60) >
      1000 / intervalMs;
    const ids = h.sourceIndexes.map((i) => fleet.sources[i]?.sourceId as string);
    return { host: h.host, kind: h.kind, intervalMs, saturated, windows: explain(new Set([h.host]), ids) };
  });
const lone = fleet.hosts.filter((h) => !h.hosting);
const loneIds = lone.flatMap((h) => h.sourceIndexes.map((i) => fleet.sources[i]?.sourceId as string));
const loneWindows = explain(new Set(lone.map((h) => h.host)), loneIds);

for (const h of hosting) {
  const w = h.windows[0];
  console.error(
    `${h.host} (${h.kind}, ${w?.sources} sources, ${h.saturated ? 'saturated' : 'spare'}): covered ${h.windows.map((x) => x.covered).join(' ')}; ` +
      `fulls started in window ${h.windows.map((x) => x.fullSyncsStartedInWindow).join(' ')}, median ${w?.fullSyncMinutes.median} min, ` +
      `window share ${h.windows.map((x) => x.windowHostShareOfFulls).join(' ')}, incrementals ${h.windows.map((x) => x.incrementalRunsInWindow).join(' ')}`,
  );
}
console.error(`lone hosts: covered ${loneWindows.map((x) => x.covered).join(' ')}`);
const { saturatedHostDetail: _detail, ...figures } = result;
console.log(JSON.stringify({ figures, hosting, lone: loneWindows }));
