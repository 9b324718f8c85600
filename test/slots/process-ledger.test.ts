import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createHostSlots, processHostLedger, resetProcessHostLedger } from '../../shared/slots';

const run = promisify(execFile);

interface SideRecord {
  project: string;
  file: string;
  pid: number;
  floors: string[];
  otherFetches: string[];
}

/**
 * Issue 29 item 5: in local mode a process has one host ledger (RATE-9: its slots note, its planner
 * reads). Test files that share a worker process (`isolate: false`) each start with an empty one — the
 * setup file test/support/process-state.ts resets it — so one file's pauses on 127.0.0.1 (every loopback
 * peer's host) no longer cut the next file's budget.
 */
describe('the process host ledger, per process in production and per file in the tests', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-scope-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('RATE-9: one process, one ledger — new slots and the planner get the same one until it is reset', async () => {
    const ledger = processHostLedger();
    expect(processHostLedger()).toBe(ledger);
    const slots = createHostSlots();
    expect(slots.ledger).toBe(ledger);
    await slots.noteRetryAfter('http://ledger-scope.example/', 60_000);
    expect((await processHostLedger().read()).floors.has('ledger-scope.example')).toBe(true);

    resetProcessHostLedger();
    const fresh = processHostLedger();
    expect(fresh).not.toBe(ledger);
    expect((await fresh.read()).floors.size).toBe(0);
    // Slots built before keep the ledger they hold (and its pause).
    expect(slots.ledger).toBe(ledger);
  });

  it('RATE-8: two test files in one worker process no longer see each other’s pauses and other fetches', async () => {
    const out = join(dir, 'sides.jsonl');
    await run(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/slots/process-ledger/vitest.config.ts'],
      {
        cwd: process.cwd(),
        env: { ...process.env, LEDGER_SCOPE_OUT: out, VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true' },
      },
    );
    const records = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as SideRecord);
    const of = (project: string) => records.filter((r) => r.project === project);

    for (const project of ['with-reset', 'without-reset']) {
      const [first, second] = of(project);
      expect(of(project)).toHaveLength(2);
      // Both files ran in one process, one module context: the situation the reset is for.
      expect(second?.pid).toBe(first?.pid);
      expect(first).toMatchObject({ floors: [], otherFetches: [] });
    }
    // With the suite's setup the second file starts clean …
    expect(of('with-reset')[1]).toMatchObject({ floors: [], otherFetches: [] });
    // … without it (the control) it finds the first file's pause and other fetches on 127.0.0.1.
    expect(of('without-reset')[1]).toMatchObject({ floors: ['127.0.0.1'], otherFetches: ['127.0.0.1'] });
  }, 120_000);
});
