import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import type { AwsTestbed } from '../test/support/aws';
import { ALLRIS_DISTRICTS, startFakeRisHtml } from '../test/support/fake-ris-html';
import { scraperHarness } from '../test/support/scraper-harness';
import { startDemoCouncil } from './cost';
import { startRemotePeers } from './support';

/**
 * Issue 28: the sync run's own CPU per run kind, and where it goes. `npm run bench -- sync-cpu`.
 *
 * The runs are the cost bench's (bench/cost.ts): the demo council's OParl source (`startDemoCouncil`: 5
 * legislative terms, 150 objects a list, pages of 10) and the fake ALLRIS site, through the real engines.
 * The local DynamoDB/S3/SQS run in a child process of their own (peers-process.ts), so this process's
 * CPU is the engine's and the council's. The council answers from this process (it runs on the engine's
 * virtual clock); its share is taken out by the CPU profile (`attribute`): a sample whose stack holds
 * the council's code or node's HTTP server is the council's — the engine is only ever an HTTP client.
 *
 * Each kind is run `repeat` times after one warm-up run (JIT, connection pools); per kind the result
 * gives CPU ms per run (process.cpuUsage, the ingestor's share of it by the profile) and the top
 * self-time frames of the ingestor's samples.
 */
export interface SyncCpuKind {
  runs: number;
  /** process.cpuUsage() per run (engine + in-process council), ms. */
  processMs: number;
  /** Of that, the engine's (profile share × processMs), ms: the figure the cost model uses. */
  ingestorMs: number;
  councilMs: number;
  requests: number;
  top: { frame: string; selfMs: number }[];
}

export type SyncCpuResult = Record<string, SyncCpuKind>;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Code that answers the engine: the demo council, the fake RIS site, node's HTTP server side. */
const COUNCIL = /\/demo\/|fake-ris-html|_http_server|node:_http_incoming/;
/** Not the runs' CPU work: the profiler's idle bucket (waiting on I/O), the profiler's own calls. */
const NOT_WORK = /^\(idle\)$/;
const PROFILER = /^node:inspector/;
/** Work with no stack to tell whose it is (split in proportion to the two sides). */
const SHARED = /^\((garbage collector|program|root)\)$/;
type Side = 'council' | 'ingestor' | 'shared' | 'none';

/** Splits a profile's samples into the council's and the ingestor's, with the ingestor's self time per frame. */
export function attribute(profile: CpuProfile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const side = new Map<number, Side>();
  const sideOf = (id: number): Side => {
    const known = side.get(id);
    if (known) return known;
    const name = (byId.get(id) as ProfileNode).callFrame.functionName;
    let s: Side = NOT_WORK.test(name) ? 'none' : SHARED.test(name) ? 'shared' : 'ingestor';
    for (let at: number | undefined = id; s === 'ingestor' && at !== undefined; at = parent.get(at)) {
      const url = (byId.get(at) as ProfileNode).callFrame.url;
      if (PROFILER.test(url)) s = 'none';
      else if (COUNCIL.test(url)) s = 'council';
    }
    side.set(id, s);
    return s;
  };
  const us = { council: 0, ingestor: 0, shared: 0, none: 0 };
  const self = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const s = sideOf(id);
    us[s] += dt;
    if (s === 'council' || s === 'none') return;
    const f = (byId.get(id) as ProfileNode).callFrame;
    const where = f.url
      ? `${f.url.replace(/^.*\/(node_modules|wt-sync-cpu|main)\//, '')}:${f.lineNumber + 1}`
      : '';
    const key = `${f.functionName || '(anonymous)'} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + dt);
  });
  const work = us.council + us.ingestor;
  const ingestorShare = work > 0 ? us.ingestor / work : 1;
  /** Sampled CPU time (µs): a frame's self time ÷ this is its share of the process's CPU. */
  const cpuUs = us.council + us.ingestor + us.shared;
  return { us, ingestorShare, cpuUs, self };
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e3;
};

async function profiled(
  session: Session,
  kind: string,
  repeat: number,
  run: () => Promise<{ requests: number }>,
): Promise<SyncCpuKind> {
  await run(); // warm-up: JIT, connection pools
  // The CPU per run without the profiler (its sampling costs CPU too) …
  const started = process.cpuUsage();
  let requests = 0;
  for (let i = 0; i < repeat; i++) requests += (await run()).requests;
  const processMs = cpuMs(started) / repeat;
  // … and as many runs again under it, for whose it is and where it goes.
  await session.post('Profiler.start');
  for (let i = 0; i < repeat; i++) await run();
  const { profile } = (await session.post('Profiler.stop')) as { profile: CpuProfile };
  const a = attribute(profile);
  // SYNC_CPU_PROFILE_DIR: the raw profiles too (open in Chrome DevTools or speedscope).
  const dir = process.env.SYNC_CPU_PROFILE_DIR;
  if (dir) await writeFile(join(dir, `${kind}.cpuprofile`), JSON.stringify(profile));
  const ingestorMs = processMs * a.ingestorShare;
  const top = [...a.self.entries()]
    .sort((x, y) => y[1] - x[1])
    .slice(0, 10)
    // A frame's share of the sampled CPU time × the process's CPU per run (the samples' clock is wall time:
    // on a loaded machine it also counts other processes' turns).
    .map(([frame, us]) => ({ frame, selfMs: round((us / a.cpuUs) * processMs) }));
  return {
    runs: repeat,
    processMs: round(processMs),
    ingestorMs: round(ingestorMs),
    councilMs: round(processMs - ingestorMs),
    requests: requests / repeat,
    top,
  };
}

const round = (n: number) => Math.round(n * 10) / 10;

export async function runSyncCpuBench(opts: { repeat?: number; log?: (line: string) => void } = {}) {
  const repeat = opts.repeat ?? 5;
  const log = opts.log ?? (() => {});
  const peers = await startRemotePeers();
  const bed = { clients: peers.clients, env: peers.env } as unknown as AwsTestbed;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  const out: SyncCpuResult = {};
  try {
    const { clock, fake, h, changePapers } = await startDemoCouncil(bed, 'cpu');
    try {
      await h.sync('full'); // the first full sync: the source's store
      out.oparlUnchanged = await profiled(session, 'oparlUnchanged', repeat * 4, async () => {
        clock.advance(10 * 60_000);
        return h.sync('incremental');
      });
      log(`oparl unchanged: ${JSON.stringify(out.oparlUnchanged)}`);
      out.oparlChanged = await profiled(session, 'oparlChanged', repeat, async () => {
        clock.advance(10 * 60_000);
        changePapers(`Cpu ${clock.ms}`);
        clock.advance(60_000);
        return h.sync('incremental');
      });
      log(`oparl changed: ${JSON.stringify(out.oparlChanged)}`);
      out.oparlNightlyFull = await profiled(session, 'oparlNightlyFull', repeat, async () => {
        clock.advance(24 * 3_600_000);
        return h.sync('full');
      });
      log(`oparl nightly full: ${JSON.stringify(out.oparlNightlyFull)}`);
    } finally {
      await fake.close();
    }
    const site = await startFakeRisHtml({ districts: [...ALLRIS_DISTRICTS] });
    const s = scraperHarness(bed, site.allrisUrl, 'allris', { prefix: 'cpu' });
    try {
      await s.scrape('full');
      out.scrapeUnchanged = await profiled(session, 'scrapeUnchanged', repeat, async () => {
        s.clock.advance(3_600_000);
        return s.scrape();
      });
      log(`scrape unchanged: ${JSON.stringify(out.scrapeUnchanged)}`);
      // A change on every run: the calendar and an agenda flip between their two versions.
      let flipped = false;
      out.scrapeChanged = await profiled(session, 'scrapeChanged', repeat, async () => {
        flipped = !flipped;
        site.setCalendarChanged(flipped);
        site.setAgendaChanged(flipped);
        s.clock.advance(3_600_000);
        return s.scrape();
      });
      log(`scrape changed: ${JSON.stringify(out.scrapeChanged)}`);
      out.scrapeNightlyFull = await profiled(session, 'scrapeNightlyFull', repeat, async () => {
        s.clock.advance(24 * 3_600_000);
        return s.scrape('full');
      });
      log(`scrape nightly full: ${JSON.stringify(out.scrapeNightlyFull)}`);
    } finally {
      await s.close();
      await site.close();
    }
  } finally {
    session.disconnect();
    await peers.stop();
  }
  return out;
}
