import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `npm start -- --once` as an operator runs it: a separate process on a fresh data folder mirrors the
 * bundled demo council system at the real pace and ends with the JSON summary as its last line.
 */
describe('npm start -- --once', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ingestor-start-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('mirrors the demo system and prints {"sources","syncs","requests","objects"}', async () => {
    const { code, stdout, stderr } = await new Promise<{
      code: number | null;
      stdout: string;
      stderr: string;
    }>((resolve) => {
      const child = spawn(
        process.execPath,
        ['cli/bin.mjs', 'start', '--once', '--json', '--data', join(dir, 'data')],
        {
          cwd: process.cwd(),
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => {
        out += d;
      });
      child.stderr.on('data', (d) => {
        err += d;
      });
      child.on('close', (c) => resolve({ code: c, stdout: out, stderr: err }));
    });
    expect(code, stderr).toBe(0);
    const summary = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
    expect(summary.sources).toBe(1);
    expect(summary.syncs).toBe(1);
    // robots.txt, System, body list and every list of three bodies.
    expect(summary.requests).toBeGreaterThanOrEqual(30);
    expect(summary.objects).toBeGreaterThan(0);
    expect(stderr).toMatch(/demo council system on http:\/\/127\.0\.0\.1:\d+\//);
    // Incremental by day; inside the nightly default window (03:00–08:00 Berlin) the first run is the full sync.
    expect(stderr).toMatch(/sync demo \((incremental|full)\) done/);
  }, 180_000);
});
