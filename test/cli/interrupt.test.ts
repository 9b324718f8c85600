import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalRuntime } from '../../cli/local/runtime';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { sourceIdFromUrl } from '../../shared/config/source';
import { SyncStateStore } from '../../shared/engine';
import type { SyncCursor } from '../../shared/oparl';
import { getSourceState } from '../../shared/store/source-state';
import { spawnCli } from '../support/cli-process';

/**
 * `ingestor sync` as an operator runs it at a terminal: `script` gives the process a pseudo-terminal,
 * and Ctrl-C is typed into it (the terminal sends SIGINT to the CLI, as a keyboard would). The council
 * is a slow loopback server (300 ms per API answer, 1 request/s pace).
 */
describe('sync at a terminal: a progress line, and Ctrl-C ends the run at a checkpoint', () => {
  let dir: string;
  let council: FakeCouncil;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ingestor-interrupt-'));
    council = await startFakeCouncil({
      bodies: 1,
      objectsPerList: 2,
      faults: [{ match: '/oparl/*', fault: { kind: 'delay', delayMs: 300 } }],
    });
  });
  afterAll(async () => {
    await council.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('SCH-5: Ctrl-C → cursor saved (stopReason interrupted), lease released, last run recorded, exit 130', async () => {
    const data = join(dir, 'data');
    const command = [
      process.execPath,
      'cli/bin.mjs',
      'sync',
      '--url',
      council.systemUrl,
      '--full',
      '--allow-loopback',
      '--data',
      data,
    ].join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let terminal = '';
    child.stdout.on('data', (d) => {
      terminal += d;
    });
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    // Ctrl-C once the run is under way: robots.txt, System and the body list are asked.
    while (council.requests.length < 3) await new Promise((r) => setTimeout(r, 50));
    child.stdin.write('\x03');
    const code = await exited;

    expect(code, terminal).toBe(130);
    // The status line: redrawn in place, with the source, its host and the requests so far.
    expect(terminal).toMatch(/\r\x1b\[Ksync [\w-]+ \(full\) · 127\.0\.0\.1 · \d+ requests?/);
    expect(terminal).toContain('stopping at the next checkpoint');
    expect(terminal).toMatch(/full sync interrupted at a checkpoint/);
    const asked = council.requests.length;

    const rt = await openLocalRuntime({ dataDir: data });
    try {
      const sourceId = sourceIdFromUrl(council.systemUrl);
      const state = await getSourceState<Record<string, unknown>>(
        rt.clients.doc,
        rt.env.STATE_TABLE,
        sourceId,
      );
      // SCH-5: the sync lease (DEFAULT_LEASE_MINUTES) is not left behind; the planner may start the next run at once.
      expect(state?.leaseRunId).toBeUndefined();
      expect(state?.leaseUntil).toBeUndefined();
      expect(state?.lastRun).toMatchObject({ trigger: 'manual', kind: 'full', complete: false, ok: true });
      const cursor = await new SyncStateStore(rt.clients, rt.env.STATE_TABLE, sourceId).getCursor<SyncCursor>(
        'full',
      );
      expect(cursor).toMatchObject({ stopReason: 'interrupted' });
      expect(cursor?.status).not.toBe('done');
    } finally {
      await rt.close();
    }
    // Stopped for real: nothing was asked after the process ended.
    await new Promise((r) => setTimeout(r, 1_200));
    expect(council.requests.length).toBe(asked);
  }, 60_000);

  it('SCH-5: Ctrl-C during npm start stops the running sync at a checkpoint and releases its lease', async () => {
    const data = join(dir, 'start-data');
    let output = '';
    const stopped = spawnCli(['start', '--data', data], {
      onSpawn: (child) => {
        // Ctrl-C (once) a few requests into the demo's first (full) sync.
        let armed = false;
        child.stdout?.on('data', (d) => {
          output += d;
          if (!armed && /planner: demo → sync full/.test(output)) {
            armed = true;
            setTimeout(() => child.kill('SIGINT'), 3_000);
          }
        });
      },
    });
    const run = await stopped;
    expect(run.code, run.stderr).toBe(0);
    // Before the first cycle it serves the API and says where (docs/mirror-api.md).
    expect(run.stdout).toMatch(/^OParl API over the mirror: http:\/\/127\.0\.0\.1:\d+\/oparl\/v1\/system$/m);
    expect(run.stdout).toContain('stopping: a running sync ends at its next checkpoint');
    expect(run.stdout).toMatch(/sync demo \(full\) done: \d+ requests.*\(incomplete\)/);
    expect(lastLineJson(run.stdout)).toMatchObject({ interrupted: true, syncs: 1 });

    const rt = await openLocalRuntime({ dataDir: data });
    try {
      const state = await getSourceState<Record<string, unknown>>(rt.clients.doc, rt.env.STATE_TABLE, 'demo');
      expect(state?.leaseRunId).toBeUndefined();
      expect(state?.leaseUntil).toBeUndefined();
      expect(state?.lastRun).toMatchObject({ kind: 'full', complete: false, ok: true });
      const cursor = await new SyncStateStore(rt.clients, rt.env.STATE_TABLE, 'demo').getCursor<SyncCursor>(
        'full',
      );
      expect(cursor).toMatchObject({ stopReason: 'interrupted' });
    } finally {
      await rt.close();
    }
  }, 90_000);
});

/** `stopped: {…}` — the summary `npm start` prints when it ends. */
function lastLineJson(stdout: string): Record<string, unknown> {
  const line = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(line.replace(/^stopped: /, '')) as Record<string, unknown>;
}
