import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseInvocation } from '../../cli/ingestor';
import { openLocalRuntime } from '../../cli/local/runtime';
import type { CommandResult } from '../../cli/output';
import type { FakeCouncil } from '../../demo';
import { startFakeCouncil } from '../../demo';
import { getSourceItem } from '../../shared/store';
import { lastJson, spawnCli } from '../support/cli-process';

/**
 * `ingestor geo add|refresh --once|list|deactivate` as an operator runs it (own process, local peers
 * under a fresh --data folder), against the demo council's geoportal on loopback.
 */
describe('ingestor geo (issue 17)', () => {
  let dataDir: string;
  let council: FakeCouncil;
  const cli = (args: string[]) => spawnCli([...args, '--data', dataDir, '--allow-loopback', '--json']);
  const geoCalls = () => council.requests.filter((r) => r.path.startsWith('/geo/')).length;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'ingestor-geo-cli-'));
    council = await startFakeCouncil({ bodies: [{ name: 'Stadt Musterstadt', ags: '09162000' }] });
  });
  afterAll(async () => {
    await council?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('add prints the id; refresh --once prints the counts; list shows last success and counts; deactivate stops fetching (OTH-3)', async () => {
    // In-process through the command table (what `ingestor` runs), one local runtime for the whole flow.
    const rt = await openLocalRuntime({ dataDir, allowLoopback: true });
    const run = async (args: string[]): Promise<CommandResult> => {
      const invocation = parseInvocation(['geo', ...args, '--json']);
      if (!('command' in invocation)) throw new Error('not a command line');
      return invocation.command.run({ ...invocation.ctx, rt });
    };
    try {
      const add = await run([
        'add',
        '--body',
        'musterstadt',
        '--kind',
        'ogc-api-features',
        '--url',
        `${council.url}/geo/ogc`,
        '--layer',
        'bplan',
        '--param',
        'body=1',
        '--filter',
        'planart=1000',
        '--ags',
        '09162000',
        '--link-property',
        'dokument',
        '--attribution',
        'Stadt Musterstadt, Geoportal',
        '--license-url',
        'https://www.govdata.de/dl-de/by-2-0',
        '--activate',
        '--allow-loopback',
      ]);
      expect(add.json).toEqual({ id: 'geo:musterstadt' });

      const refresh = await run(['refresh', '--once', '--allow-loopback']);
      expect(refresh.exitCode ?? 0).toBe(0);
      expect(refresh.json).toEqual({
        sources: 1,
        fetched: 1,
        stored: 3,
        created: 3,
        updated: 0,
        deleted: 0,
        skipped: { filtered: 1, 'not-polygon': 1 },
        errors: [],
      });

      const list = await run(['list']);
      const row = (list.json as { sources: Record<string, unknown>[] }).sources[0];
      expect(row).toMatchObject({
        id: 'geo:musterstadt',
        active: true,
        plans: 3,
        lastCounts: { created: 3 },
      });
      expect(typeof row?.lastSuccessAt).toBe('string');

      const off = await run(['deactivate', 'geo:musterstadt']);
      expect(off.json).toEqual({ id: 'geo:musterstadt', active: false });
      const before = geoCalls();
      const again = await run(['refresh', '--once', '--id', 'geo:musterstadt', '--allow-loopback']);
      expect(again.json).toMatchObject({ sources: 0, fetched: 0, skipped: { inactive: 1 } });
      expect(geoCalls()).toBe(before);
    } finally {
      await rt.close();
    }
  }, 120_000);

  it('as a process: add refuses an invalid source with a clear error (exit 1, JSON error) and stores nothing', async () => {
    const add = await cli([
      'geo',
      'add',
      '--body',
      'x',
      '--kind',
      'wms',
      '--url',
      'https://geo.example.org/',
    ]);
    expect(add.code).toBe(1);
    expect(lastJson(add)).toMatchObject({ error: 'GEO_SOURCE_INVALID' });
    expect(String(lastJson(add).message)).toContain('kind');
    const rt = await openLocalRuntime({ dataDir });
    try {
      expect(await getSourceItem(rt.clients.doc, rt.env.SOURCES_TABLE, 'geo:x')).toBeUndefined();
    } finally {
      await rt.close();
    }
  }, 120_000);
});
