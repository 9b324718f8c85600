import { setPriority } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  type FakeCouncil,
  type FakeCouncilOptions,
  type RecordedRequest,
  startFakeCouncil,
} from '../../test/support/fake-council';
import { gzipBomb } from '../../test/support/fake-council/faults';
import { CHAOS_GZIP_BOMB_BYTES } from './councils';

/**
 * The chaos campaign's council servers in a process of their own: they are the measuring instrument
 * (arrival and end of every exchange, by the server's clock) and must not share an event loop with the
 * code under test, whose bursts of CPU would otherwise shift arrival stamps by tens of milliseconds.
 * Commands come over IPC; every arrival and end goes back as an event, stamped here.
 */
export type CouncilCommand =
  | { id: number; op: 'start'; options: FakeCouncilOptions }
  | {
      id: number;
      op: 'setFault';
      council: number;
      match: string | { regex: string; flags: string };
      fault: unknown;
      scope?: unknown;
    }
  | { id: number; op: 'setRobots'; council: number; script: unknown }
  | { id: number; op: 'mutate'; council: number; mutations: unknown }
  | { id: number; op: 'clearFaults'; council: number }
  | { id: number; op: 'ping' }
  | { id: number; op: 'close'; council: number };

export type WireRequest = Omit<RecordedRequest, 'headers'>;

export type CouncilEvent =
  | { type: 'reply'; id: number; ok: true; value?: unknown }
  | { type: 'reply'; id: number; ok: false; error: string }
  | { type: 'arrived'; council: number; index: number; req: WireRequest }
  | { type: 'ended'; council: number; index: number; req: WireRequest };

const lag = monitorEventLoopDelay({ resolution: 5 });

const councils = new Map<number, FakeCouncil>();
let next = 0;
const send = (event: CouncilEvent) => process.send?.(event);
const wire = ({ headers: _headers, ...rest }: RecordedRequest): WireRequest => rest;

async function handle(cmd: CouncilCommand): Promise<unknown> {
  // The instrument's own delay: arrival stamps are late by up to this much.
  if (cmd.op === 'ping') return { lagMaxMs: Math.round(lag.max / 1e6) };
  if (cmd.op === 'start') {
    next += 1;
    const n = next;
    const index = new Map<RecordedRequest, number>();
    let count = 0;
    const council = await startFakeCouncil({
      ...cmd.options,
      observe: {
        arrived(req) {
          index.set(req, count);
          send({ type: 'arrived', council: n, index: count, req: wire(req) });
          count += 1;
        },
        ended(req) {
          send({ type: 'ended', council: n, index: index.get(req) ?? -1, req: wire(req) });
        },
      },
    });
    councils.set(n, council);
    return { council: n, url: council.url, port: council.port, systemUrl: council.systemUrl };
  }
  const council = councils.get(cmd.council);
  if (!council) throw new Error(`no council ${cmd.council}`);
  switch (cmd.op) {
    case 'setFault': {
      const match = typeof cmd.match === 'string' ? cmd.match : new RegExp(cmd.match.regex, cmd.match.flags);
      council.setFault(match, cmd.fault as never, cmd.scope as never);
      return undefined;
    }
    case 'setRobots':
      council.setRobots(cmd.script as never);
      return undefined;
    case 'mutate':
      return council.mutate(cmd.mutations as never);
    case 'clearFaults':
      council.clearFaults();
      return undefined;
    case 'close':
      await council.close();
      councils.delete(cmd.council);
      return undefined;
  }
}

process.on('message', (cmd: CouncilCommand) => {
  handle(cmd).then(
    (value) => send({ type: 'reply', id: cmd.id, ok: true, value }),
    (err: unknown) => send({ type: 'reply', id: cmd.id, ok: false, error: String(err) }),
  );
});
process.on('disconnect', () => process.exit(0));
// Like the politeness recorder: the instrument goes first when the machine is busy (root only).
try {
  setPriority(-10);
} catch {
  // not root: stamps may be later under load; the kernel capture (tcpdump) covers that
}
await gzipBomb(CHAOS_GZIP_BOMB_BYTES);
lag.enable();
send({ type: 'reply', id: 0, ok: true });
