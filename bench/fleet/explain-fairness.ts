import { simulateFleet } from './simulate';
import type { SaturatedHostSource } from './types';

/**
 * What makes the fleet's `fairness` (issue 27, RATE-9): runs one fleet simulation and prints, worst
 * saturated host first, the sources at both ends of its spread — at the host's factor in force, their
 * session days (SCH-2), changes (SCH-3 keeps the changed ones at their cadence, doubles the quiet),
 * syncs achieved (how often the lane picked them) and what their own cadence asks alone (./asked.ts).
 *
 *   nice -n 10 npx tsx bench/fleet/explain-fairness.ts            # 1,000 sources, a week, lanes, 110 slots
 *   FLEET_SOURCES=1000 FLEET_DAYS=1 FLEET_SLOTS=110 npx tsx bench/fleet/explain-fairness.ts
 *
 * Progress on stderr, one JSON line on stdout (the figures and the hosts' ends).
 */
const sources = Number(process.env.FLEET_SOURCES ?? 1000);
const days = Number(process.env.FLEET_DAYS ?? 7);
const slots = Number(process.env.FLEET_SLOTS ?? Math.round((sources * 110) / 1000));
const seed = Number(process.env.FLEET_SEED ?? 27);

const line = (s: SaturatedHostSource) =>
  `${s.sourceId} sessions ${s.sessionDays.join('+') || 'none'} changes ${s.changes}: ` +
  `${s.syncs} syncs (${s.incrementalSyncs} incremental) of ${s.asked} asked, ` +
  `week share ${s.weekShare}, at the host's factor ${s.atHostFactor}\n` +
  `    per day: syncs ${s.syncsByDay.join(' ')} | asked alone ${s.askedByDay.join(' ')} | fair ${s.fairByDay.join(' ')}\n` +
  `    per period (syncs/fair): weekday 07–19 ${period(s.byPeriod.weekdayDay)}, weekday nights ` +
  `${period(s.byPeriod.weekdayNight)}, weekend ${period(s.byPeriod.weekend)}`;
const period = (p: { syncs: number; fair: number }) => `${p.syncs}/${p.fair}`;

const result = simulateFleet({ sources, allocation: 'lanes', slots, days, seed });
const hosts = [...result.saturatedHostDetail].sort((a, b) => b.fairness - a.fairness);
for (const h of hosts) {
  console.error(
    `${h.host} (${h.kind}, ${h.sources} sources): fairness ${h.fairness}, week share ${h.weekShareFairness}, raw ${h.rawFairness}`,
  );
  console.error(`  per day: syncs ${h.syncsByDay.join(' ')} | asked alone ${h.askedByDay.join(' ')}`);
  console.error(`  least served: ${line(h.leastServed)}`);
  console.error(`  most served:  ${line(h.mostServed)}`);
}
const { saturatedHostDetail: _detail, ...figures } = result;
console.log(JSON.stringify({ figures, hosts }));
