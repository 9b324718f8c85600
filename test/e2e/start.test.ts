import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartSummary } from '../../cli/commands/start';
import { lastJson, spawnCli } from '../support/cli-process';

/**
 * `npm start -- --once` as an operator runs it: a separate process on a fresh data folder mirrors the
 * bundled demo council system at the real pace (a full sync, then the files) and ends with the JSON
 * summary as its last line. The demo is cut to 2 objects per list and body (`--demo-objects`): the
 * same lists and requests of the sync (each list fits one page either way), a sixth of the files to
 * fetch at one request per second.
 */
describe('npm start -- --once', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ingestor-start-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('first start: a manual full sync of the demo (FULL-8), its bodies listed, files stored with text, a summary of what is where', async () => {
    const run = await spawnCli([
      'start',
      '--once',
      '--json',
      '--demo-objects',
      '2',
      '--data',
      join(dir, 'data'),
    ]);
    const { code, stderr } = run;
    expect(code, stderr).toBe(0);
    const summary = lastJson(run) as unknown as StartSummary;
    expect(summary.sources).toBe(1);
    expect(summary.syncs).toBe(1);
    // robots.txt, System, body list and every list of three bodies.
    expect(summary.requests).toBeGreaterThanOrEqual(30);
    expect(summary.objects).toBeGreaterThan(0);
    expect(stderr).toMatch(/demo council system on http:\/\/127\.0\.0\.1:\d+\//);
    // FULL-8: the first start asks for a manual full sync, not the 7-day incremental window.
    expect(stderr).toMatch(/sync demo \(full\) done/);
    expect(summary.firstStart).toBe(true);
    // All of all three bodies' lists: 2 objects per list and body.
    expect(summary.demo?.objectsByType).toMatchObject({ body: 3, meeting: 6, paper: 6, file: 6 });
    // ONB-4 / DOC-7: the bodies were listed, so the files pass stored the files and extracted text.
    expect(stderr).toMatch(
      /listed the demo's bodies \(ONB-4\): beispielkreis, luetjenburg-sued, musterstadt/,
    );
    expect(summary.demo?.documents.stored).toBeGreaterThan(0);
    expect(summary.demo?.documents.withText).toBeGreaterThan(0);
    expect(summary.demo?.preview?.path).toMatch(/^\/documents\/[0-9a-f]{64}$/);
    // OTH-4: the demo council's geoportal (same host) is a geo source of Musterstadt; its plans are stored.
    expect(stderr).toMatch(/demo geoportal: geo source geo:musterstadt/);
    expect(summary.geo).toEqual({ sources: 1, stored: 3, created: 3, updated: 0, deleted: 0, errors: 0 });
    expect(stderr).toContain('first start — what is where');
    expect(stderr).toMatch(/status \(npx ingestor status.*\n\s+demo\s+\[active\]/);
    // OTH-5: the demo schedules a meeting that runs now; its broadcast source reads the demo's stream
    // status once in this cycle and finds it live.
    expect(stderr).toMatch(/broadcast source broadcast-musterstadt for musterstadt/);
    expect(stderr).toMatch(/broadcast broadcast-musterstadt: LIVE/);
    expect(summary.broadcasts).toEqual({ requests: 1, live: 1 });
    // No terminal: no progress line and no line per request, only the lines worth keeping.
    expect(stderr).not.toContain('\x1b[K');
    expect(stderr).not.toMatch(/^\s+\S+\s+\d{3}\s+http:/m);
  }, 300_000);
});
