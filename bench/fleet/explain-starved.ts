import { laneTurnShare } from '../../shared/hosts';
import { resolveScheduleSettings, toBerlin } from '../../shared/schedule';
import { simulateFleet } from './simulate';
import type { StarvedTick } from './types';

/**
 * What the SourceStarved alarm pages for (issue 28, RATE-9): runs one fleet simulation (lanes, 64 slots
 * per 1,000 as `npm run bench -- fleet`) and prints each source `starvationOf` counts starved, once per
 * wait (the first tick it counts): its state, the decision it waits with, its host's runs in flight
 * and where it stands in the host lane's fair order (`laneTurnShare`) — to tell a planner gap (a
 * source that could have been served within its stretched turn) from the host's capacity.
 *
 *   FLEET_DAYS=1 FLEET_WEEK_START=2026-12-01T00:00 nice -n 5 npx tsx bench/fleet/explain-starved.ts
 *
 * Knobs as the fleet bench's, plus FLEET_TRACE_HOST (one host key). One JSON line per starved wait on
 * stdout, progress on stderr.
 */
const sources = Number(process.env.FLEET_SOURCES ?? 1000);
const days = Number(process.env.FLEET_DAYS ?? 1);
const slots = Number(process.env.FLEET_SLOTS ?? Math.round((sources * 64) / 1000));
const seed = Number(process.env.FLEET_SEED ?? 27);
const weekStart = process.env.FLEET_WEEK_START ?? '2026-11-30T00:00';
const warmupHours =
  process.env.FLEET_WARMUP_HOURS === undefined ? undefined : Number(process.env.FLEET_WARMUP_HOURS);
const onlyHost = process.env.FLEET_TRACE_HOST;
const settings = resolveScheduleSettings({ maxConcurrentSyncs: slots });

const local = (ms: number | string | undefined) =>
  ms === undefined ? undefined : toBerlin(new Date(ms).toISOString()).toFormat('ccc HH:mm:ss');
const round = (x: number | undefined) => (x === undefined ? undefined : Math.round(x * 100) / 100);
const told = new Set<string>();

function explain(tick: StarvedTick): void {
  for (const { figure, source, waiting } of tick.starved) {
    if (onlyHost !== undefined && figure.host !== onlyHost) continue;
    const key = `${figure.sourceId}@${waiting.sinceMs}`;
    if (told.has(key)) continue;
    told.add(key);
    const host = tick.hosts[figure.host];
    const own = { config: source.config, settings, stretch: figure.stretch };
    const shareOf = (w: { source: typeof source; decision: typeof waiting.decision }) =>
      laneTurnShare({ decision: w.decision, state: w.source.state, own }, tick.nowMs);
    const ranked = (host?.waiting ?? [])
      .map((w) => ({ id: w.source.fleet.sourceId, share: shareOf(w), kind: w.decision.kind }))
      .sort((a, b) => (b.share ?? 0) - (a.share ?? 0));
    const st = source.state;
    const d = waiting.decision;
    console.log(
      JSON.stringify({
        at: local(tick.nowMs),
        source: figure.sourceId,
        host: figure.host,
        stretch: figure.stretch,
        overdueMinutes: figure.overdueMinutes,
        stretchedIntervalMinutes: figure.stretchedIntervalMinutes,
        cadence: source.config.cadenceMinutes,
        state: {
          lastSyncKind: st.lastSyncKind,
          started: local(st.lastSyncStartedAt),
          ended: local(st.lastSyncEndedAt),
          period: st.lastSyncPeriod,
          quietStreak: st.quietStreak,
          intervalMinutes: st.intervalMinutes,
          sessionDays: st.sessionDays?.slice(0, 3),
        },
        waiting: {
          since: local(waiting.sinceMs),
          kind: d.kind,
          trigger: d.trigger,
          cadenceAt: local(d.cadenceAt),
          dueAt: local(d.dueAt),
          incrementalDue: d.incrementalDue,
          reason: d.reason,
        },
        share: round(shareOf({ source, decision: d })),
        rank: ranked.findIndex((r) => r.id === figure.sourceId) + 1,
        hostWaiting: ranked.length,
        top: ranked.slice(0, 3).map((r) => ({ ...r, share: round(r.share) })),
        running: (host?.running ?? []).map((r) => ({ ...r, startedAtMs: local(r.startedAtMs) })),
      }),
    );
  }
}

const result = simulateFleet({
  sources,
  allocation: 'lanes',
  slots,
  days,
  seed,
  weekStart,
  ...(warmupHours === undefined ? {} : { warmupHours }),
  onStarved: explain,
});
console.error(
  JSON.stringify({ sourceStarved: result.paging?.sourceStarved, episodes: result.paging?.episodes }),
);
