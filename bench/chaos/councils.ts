import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FakeCouncilOptions, Fault, FaultScope, Mutation, RobotsScript } from '../../demo';
import { IngestorError } from '../../shared/errors';
import type { CouncilCommand, CouncilEvent, WireRequest } from './council-process';

/** The gzip bomb the scenarios use (just above the 20 MiB API limit), built before any request is timed. */
export const CHAOS_GZIP_BOMB_BYTES = 21 * 1024 * 1024;

/**
 * The parent's handle on the council servers of council-process.ts. `requests` is kept live from the
 * child's events (arrival stamps are the child's `performance.now()`, `epochMs` its wall clock; use
 * `epochMs` to compare with moments of this process). Call `settle()` before reading final figures:
 * it returns once every event sent before it has arrived.
 */
export interface ChaosCouncil {
  readonly url: string;
  readonly port: number;
  readonly systemUrl: string;
  readonly requests: WireRequest[];
  setFault(match: string | RegExp, fault: Fault, scope?: FaultScope): Promise<void>;
  setRobots(script: RobotsScript | string): Promise<void>;
  mutate(mutations: Mutation | Mutation[]): Promise<string[]>;
  clearFaults(): Promise<void>;
  /** Resolves when a request matching `predicate` arrives (already arrived ones count). */
  arrival(predicate: (r: WireRequest) => boolean): Promise<WireRequest>;
  /** Returns the council process's largest event-loop delay so far (how late a stamp can be), ms. */
  settle(): Promise<number>;
  close(): Promise<void>;
}

export interface CouncilHost {
  start(options: FakeCouncilOptions): Promise<ChaosCouncil>;
  stop(): Promise<void>;
}

type Distributive<T> = T extends unknown ? Omit<T, 'id'> : never;

/**
 * A command for the council process after it exited or its channel closed (`stop()`, a crash). Sending
 * it anyway made Node emit ERR_IPC_CHANNEL_CLOSED on the child, unhandled: the bench died in teardown
 * after its scenario had passed (a council closed late, by the reference run still under way).
 */
export class CouncilHostGoneError extends IngestorError {
  constructor(op: string) {
    super('CHAOS_COUNCIL_HOST_GONE', `the council process is gone; '${op}' not sent`);
  }
}

export async function startCouncilHost(): Promise<CouncilHost> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./council-process.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const byCouncil = new Map<
    number,
    {
      requests: WireRequest[];
      waiters: { p: (r: WireRequest) => boolean; resolve: (r: WireRequest) => void }[];
    }
  >();
  let nextId = 1;
  const ready = new Promise<void>((resolve) =>
    pending.set(0, { resolve: () => resolve(), reject: () => {} }),
  );
  child.on('message', (event: CouncilEvent) => {
    if (event.type === 'reply') {
      const p = pending.get(event.id);
      pending.delete(event.id);
      if (event.ok) p?.resolve(event.value);
      else p?.reject(new Error(event.error));
      return;
    }
    const c = byCouncil.get(event.council);
    if (!c) return;
    if (event.type === 'arrived') {
      c.requests[event.index] = event.req;
      c.waiters = c.waiters.filter((w) => {
        if (!w.p(event.req)) return true;
        w.resolve(event.req);
        return false;
      });
    } else if (event.index >= 0) {
      c.requests[event.index] = event.req;
    }
  });
  const gone = () => !child.connected || child.exitCode !== null || child.signalCode !== null;
  const call = (cmd: Distributive<CouncilCommand>): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (gone()) {
        reject(new CouncilHostGoneError(cmd.op));
        return;
      }
      const id = nextId;
      nextId += 1;
      pending.set(id, { resolve, reject });
      // With a callback a failed send is an answer to this call, not an 'error' event nobody handles.
      child.send({ ...cmd, id }, (error) => {
        if (error === null) return;
        pending.delete(id);
        reject(new CouncilHostGoneError(cmd.op));
      });
    });
  // A call the process never answers (it exited first) fails instead of hanging the bench.
  child.once('exit', () => {
    for (const [id, p] of pending) {
      pending.delete(id);
      p.reject(new CouncilHostGoneError('reply'));
    }
  });
  await ready;

  return {
    async start(options) {
      const started = (await call({ op: 'start', options })) as {
        council: number;
        url: string;
        port: number;
        systemUrl: string;
      };
      const n = started.council;
      const state = { requests: [] as WireRequest[], waiters: [] as never[] };
      byCouncil.set(n, state);
      return {
        url: started.url,
        port: started.port,
        systemUrl: started.systemUrl,
        get requests() {
          return state.requests.filter(Boolean);
        },
        async setFault(match, fault, scope) {
          const m = match instanceof RegExp ? { regex: match.source, flags: match.flags } : match;
          await call({ op: 'setFault', council: n, match: m, fault, ...(scope ? { scope } : {}) });
        },
        async setRobots(script) {
          await call({ op: 'setRobots', council: n, script });
        },
        async mutate(mutations) {
          return (await call({ op: 'mutate', council: n, mutations })) as string[];
        },
        async clearFaults() {
          await call({ op: 'clearFaults', council: n });
        },
        arrival(predicate) {
          const seen = state.requests.find((r) => r && predicate(r));
          if (seen) return Promise.resolve(seen);
          return new Promise((resolve) => {
            (state.waiters as { p: typeof predicate; resolve: typeof resolve }[]).push({
              p: predicate,
              resolve,
            });
          });
        },
        async settle() {
          return ((await call({ op: 'ping' })) as { lagMaxMs: number }).lagMaxMs;
        },
        async close() {
          // Its servers ended with the process: nothing left to close.
          if (gone()) return;
          await call({ op: 'close', council: n }).catch((error: unknown) => {
            if (!(error instanceof CouncilHostGoneError)) throw error;
          });
        },
      };
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}
