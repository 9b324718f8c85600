import { DEMO_BODIES, DEMO_STREAM_POINTERS, DEMO_STREAM_STATUS_PATH, type FakeCouncil } from '../../demo';
import {
  addBroadcast,
  type BroadcastPassReport,
  type BroadcastRuntime,
  runBroadcastPass,
} from '../../shared/broadcasts';
import { isIngestorError } from '../../shared/errors';
import { listBodies } from '../../shared/onboarding';
import { composeCli } from '../compose';
import type { LocalRuntime } from '../local/runtime';

/**
 * `npm start`'s share of the broadcast function (OTH-5): a pass after every planner tick, as the
 * once-a-minute schedule does in AWS. With the bundled demo council it also sets up something to show:
 * the demo schedules a meeting of its first body that runs now (so a meeting window is open), and
 * after the first sync a broadcast source for that body reads the demo's stream status endpoint.
 */

/** The demo's first body holds the meeting that runs while `npm start` does. */
const DEMO_BROADCAST_BODY = 1;
/** Which of its meetings is moved to now (any one that is not cancelled in the generated data). */
const DEMO_LIVE_MEETING = 1;
const MIN = 60_000;

/** The demo council schedules one meeting from 10 minutes ago to 2 hours from now. */
export function scheduleDemoMeetingNow(demo: FakeCouncil, now: Date): void {
  demo.mutate({
    op: 'update',
    body: DEMO_BROADCAST_BODY,
    list: 'meeting',
    n: DEMO_LIVE_MEETING,
    set: {
      start: new Date(now.getTime() - 10 * MIN).toISOString(),
      end: new Date(now.getTime() + 120 * MIN).toISOString(),
      cancelled: false,
    },
  });
}

export function createLocalBroadcastPasses(rt: LocalRuntime, opts: { allowLoopback: boolean }) {
  let runtime: Promise<BroadcastRuntime> | undefined;
  const tables = { sources: rt.env.SOURCES_TABLE, state: rt.env.STATE_TABLE };
  return {
    /** After the demo's first sync: its first body gets a broadcast source on the demo's status endpoint. */
    async addDemoBroadcast(
      demo: FakeCouncil,
      demoSourceId: string,
      say: (line: string) => void,
    ): Promise<void> {
      const bodies = await listBodies(rt.clients.doc, tables, demoSourceId);
      const body = bodies.find((b) => b.name === DEMO_BODIES[DEMO_BROADCAST_BODY - 1]?.name);
      if (body === undefined) return;
      try {
        const added = await addBroadcast(rt.clients, tables, {
          body: body.slug,
          councilSourceId: demoSourceId,
          streamUrl: `${demo.url}${DEMO_STREAM_STATUS_PATH}`,
          ...DEMO_STREAM_POINTERS,
          activate: true,
          by: 'npm start',
          now: new Date(),
        });
        say(`first start: broadcast source ${added.id} for ${body.slug} (the demo's stream status, OTH-5)`);
      } catch (error) {
        if (!isIngestorError(error, 'BROADCAST_EXISTS')) throw error;
      }
    },
    async afterTick(say: (line: string) => void, now: Date = new Date()): Promise<BroadcastPassReport> {
      // The demo council lives on loopback: the pass gets the same switch as the sync handlers.
      runtime ??= composeCli(rt, { allowLoopback: opts.allowLoopback }).broadcasts();
      return runBroadcastPassLogged(await runtime, now, say);
    },
    async close(): Promise<void> {
      await (await runtime)?.close();
    },
  };
}

async function runBroadcastPassLogged(
  runtime: BroadcastRuntime,
  now: Date,
  say: (line: string) => void,
): Promise<BroadcastPassReport> {
  const report = await runBroadcastPass(runtime.deps, now);
  for (const o of report.outcomes) {
    const finding = o.error
      ? `error: ${o.error}`
      : o.live === undefined
        ? o.reason
        : o.live
          ? 'LIVE'
          : 'not live';
    say(`broadcast ${o.broadcastId}: ${finding}`);
  }
  return report;
}
