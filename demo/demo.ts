// The bundled demo council system that `npm start` mirrors when no source is configured. Runs on
// its own too: `npx tsx demo/demo.ts [port]`.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startFakeCouncil } from './server';
import type { FakeCouncil, FakeCouncilOptions } from './types';

export const DEMO_BODIES = [
  { name: 'Stadt Musterstadt', shortName: 'Musterstadt', ags: '09162000' },
  { name: 'Gemeinde Lütjenburg-Süd', shortName: 'Lütjenburg-Süd', ags: '01057047' },
  { name: 'Landkreis Beispielkreis', shortName: 'Beispielkreis', ags: '03241000' },
];

/** Objects per list and body: 36 per type over the three bodies. */
export const DEMO_OBJECTS_PER_LIST = 12;

export interface DemoCouncilOptions {
  /** Default 0 (any free port). */
  port?: number;
  hostname?: string;
  /**
   * Every this many ms one meeting's name changes, so incremental syncs of the demo find
   * something; default off.
   */
  churnEveryMs?: number;
  /** Passed through for anything else. */
  overrides?: Partial<FakeCouncilOptions>;
}

export async function startDemoCouncil(options: DemoCouncilOptions = {}): Promise<FakeCouncil> {
  const council = await startFakeCouncil({
    bodies: DEMO_BODIES,
    objectsPerList: DEMO_OBJECTS_PER_LIST,
    pageSize: 5,
    seed: 2024,
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.hostname !== undefined ? { hostname: options.hostname } : {}),
    ...options.overrides,
  });
  if (!options.churnEveryMs) return council;
  let tick = 0;
  const timer = setInterval(() => {
    tick += 1;
    const body = (tick % DEMO_BODIES.length) + 1;
    const n = (tick % DEMO_OBJECTS_PER_LIST) + 1;
    try {
      council.mutate({
        op: 'update',
        body,
        list: 'meeting',
        n,
        set: { name: `${n}. Sitzung (geändert, Stand ${tick})` },
      });
    } catch {
      // The meeting may have been removed through overrides; the demo just skips it.
    }
  }, options.churnEveryMs);
  // The churn must never keep a process alive on its own.
  timer.unref();
  const close = council.close;
  return Object.assign(council, {
    close: async () => {
      clearInterval(timer);
      await close();
    },
  });
}

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (invokedDirectly) {
  const port = Number(process.argv[2] ?? 0);
  const council = await startDemoCouncil({ port, churnEveryMs: 60_000 });
  console.log(`Demo-Ratsinformationssystem: ${council.url}/  (OParl: ${council.systemUrl})`);
  const stop = () => {
    council.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
