import type { GeoRuntime } from '../../shared/geo';
import { composeCli } from '../compose';
import type { LocalRuntime } from '../local/runtime';
import { refreshLines, seedDemoGeoSource } from './geo';

/** OTH-4: the geo function runs daily; locally as in AWS (the first cycle of a process runs it). */
export const LOCAL_GEO_INTERVAL_MS = 24 * 60 * 60_000;

export interface LocalGeoSummary {
  sources: number;
  stored: number;
  created: number;
  updated: number;
  deleted: number;
  errors: number;
}

/**
 * `npm start`'s share of the geo function: after a planner tick, a refresh of every active geo source
 * when a day has passed since the last one. With the demo served, its geoportal is (re)seeded first —
 * its URL follows the demo's port.
 */
export function createLocalGeoPass(
  rt: LocalRuntime,
  opts: { allowLoopback: boolean; demoCouncilUrl?: string },
) {
  let runtime: Promise<GeoRuntime> | undefined;
  let lastRun = Number.NEGATIVE_INFINITY;
  let seeded = false;
  return {
    async afterTick(
      say: (line: string) => void,
      now: Date = new Date(),
    ): Promise<LocalGeoSummary | undefined> {
      if (opts.demoCouncilUrl !== undefined && !seeded) {
        const id = await seedDemoGeoSource(rt, opts.demoCouncilUrl);
        seeded = id !== undefined;
        if (id) say(`demo geoportal: geo source ${id} (OTH-4)`);
      }
      if (now.getTime() - lastRun < LOCAL_GEO_INTERVAL_MS) return undefined;
      lastRun = now.getTime();
      runtime ??= composeCli(rt, { allowLoopback: opts.allowLoopback }).geo();
      const summary = await (await runtime).refresh();
      for (const line of refreshLines(summary)) say(line);
      return {
        sources: summary.sources,
        stored: summary.stored,
        created: summary.created,
        updated: summary.updated,
        deleted: summary.deleted,
        errors: summary.errors.length,
      };
    },
    async close(): Promise<void> {
      if (runtime) await (await runtime).close();
    },
  };
}
