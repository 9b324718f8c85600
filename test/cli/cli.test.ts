import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSourceItem, putSourceItem } from '../../shared/store/sources';
import { runCliInProcess } from '../support/cli-in-process';

const run = runCliInProcess;

describe('operator CLI (local mode)', () => {
  let dir: string;
  const data = () => ['--data', join(dir, 'data')];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ingestor-cli-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('ONB-3: sources add creates an inactive source; adding it again changes nothing', async () => {
    const first = await run(['sources', 'add', 'https://ris.beispiel.de/oparl/system', ...data(), '--json']);
    expect(first).toMatchObject({
      code: 0,
      json: { sourceId: 'ris-beispiel-de', created: true, active: false },
    });
    await run(['sources', 'activate', 'ris-beispiel-de', ...data()]);
    const again = await run(['sources', 'add', 'https://ris.beispiel.de/oparl/system', ...data(), '--json']);
    expect(again.json).toMatchObject({ created: false });
    const list = await run(['sources', 'list', ...data(), '--json']);
    expect(list.json.sources).toEqual([
      expect.objectContaining({ sourceId: 'ris-beispiel-de', active: true }),
    ]);
  });

  it('RATE-2: sources set validates and clamps; an invalid value is refused and nothing is written', async () => {
    const slow = await run([
      'sources',
      'set',
      'ris-beispiel-de',
      'requestIntervalSeconds=60',
      ...data(),
      '--json',
    ]);
    expect(slow.code).toBe(0);
    expect(slow.json.warnings).toEqual([expect.objectContaining({ field: 'requestIntervalSeconds' })]);
    const bad = await run([
      'sources',
      'set',
      'ris-beispiel-de',
      'fullSyncWindow.start=3 Uhr',
      ...data(),
      '--json',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.json).toMatchObject({ error: 'CONFIG_INVALID' });
    const show = await run(['sources', 'show', 'ris-beispiel-de', ...data(), '--json']);
    expect((show.json.item as Record<string, unknown>).fullSyncWindow).toBeUndefined();
    expect((show.json.item as Record<string, unknown>).requestIntervalSeconds).toBe(60);
  });

  it('status explains each source, including an invalid hand-edited one', async () => {
    const status = await run(['status', ...data(), '--json']);
    const sources = status.json.sources as { sourceId: string; action: string; reason: string }[];
    expect(sources[0]).toMatchObject({ sourceId: 'ris-beispiel-de', action: 'sync' });
    // Never synced: an incremental is due now — or, inside the nightly window, the full sync (FULL-1).
    expect(sources[0]?.reason).toMatch(/due now|full sync/);
  });

  it('robots check prints the verdict with group and rule (ROB-1, ROB-2)', async () => {
    const file = join(dir, 'robots.txt');
    await writeFile(
      file,
      'User-agent: *\nDisallow: /bi/\n\nUser-agent: mandari-ingestor\nAllow: /bi/oparl/\nDisallow: /bi/\n',
    );
    const agent = 'mandari-ingestor/0.1.0 (+https://mandari.de/ingestor/; support@mandari.de)';
    const allowed = await run([
      'robots',
      'check',
      '--robots-file',
      file,
      '--agent',
      agent,
      'https://ris.example.de/bi/oparl/system',
      '--json',
    ]);
    expect(allowed.json).toMatchObject({
      verdict: 'allowed',
      group: 'mandari-ingestor',
      rule: 'Allow: /bi/oparl/',
    });
    const denied = await run([
      'robots',
      'check',
      '--robots-file',
      file,
      '--agent',
      agent,
      'https://ris.example.de/bi/si010.asp',
      '--json',
    ]);
    expect(denied.json).toMatchObject({ verdict: 'disallowed', rule: 'Disallow: /bi/' });
    const deferred = await run([
      'robots',
      'check',
      '--status',
      '503',
      '--agent',
      agent,
      'https://ris.example.de/x',
      '--json',
    ]);
    expect(deferred.json).toMatchObject({ verdict: 'deferred' });
  });

  it('SCH-6: simulate cadence prints 131 syncs for a quiet week', async () => {
    const sim = await run(['simulate', 'cadence', '--from', '2026-11-30T00:00', '--days', '7', '--json']);
    expect(sim.json.syncs).toBe(131);
    expect((sim.json.times as string[]).slice(5, 12)).toEqual([
      '2026-11-30T07:00:00+01:00',
      '2026-11-30T07:10:00+01:00',
      '2026-11-30T07:20:00+01:00',
      '2026-11-30T07:40:00+01:00',
      '2026-11-30T08:00:00+01:00',
      '2026-11-30T08:20:00+01:00',
      '2026-11-30T09:00:00+01:00',
    ]);
  });

  it('rejects unknown commands and options with usage and exit code 2', async () => {
    expect((await run(['frobnicate'])).code).toBe(2);
    expect((await run(['status', '--bogus'])).code).toBe(2);
  });

  it('start --demo-objects takes a whole number from 1 to the demo’s 12; anything else is a usage error (exit 2)', async () => {
    for (const bad of ['0', '13', '2.5', 'many']) {
      const refused = await run(['start', '--once', '--json', '--demo-objects', bad, ...data()]);
      expect(refused.code, bad).toBe(2);
      expect(refused.json, bad).toMatchObject({ error: 'CLI_USAGE' });
      expect(String(refused.json.message), bad).toContain('--demo-objects');
    }
  });
});

describe('--aws: the same commands on deployed resources named by the stack outputs', () => {
  it('reads the tables the stack outputs name, not the local data folder', async () => {
    // The "deployed" resources here are local peers reached through the endpoint variables; the stack
    // outputs come from a loopback server speaking CloudFormation's query protocol.
    const { startAwsTestbed } = await import('../support/aws');
    const { startFakeCloudFormation } = await import('../support/cloudformation');
    const bed = await startAwsTestbed({
      SOURCES_TABLE: 'deployed-sources-x1',
      STATE_TABLE: 'deployed-state-x1',
    });
    const cfn = await startFakeCloudFormation({
      MandariIngestor: {
        SourcesTableName: bed.env.SOURCES_TABLE,
        StateTableName: bed.env.STATE_TABLE,
        DocumentsTableName: bed.env.DOCUMENTS_TABLE,
        MirrorBucketName: bed.env.BUCKET,
        SyncQueueUrl: bed.queues.syncQueueUrl,
      },
    });
    const saved = { ...process.env };
    try {
      Object.assign(process.env, bed.peers.env, {
        AWS_ENDPOINT_URL_CLOUDFORMATION: cfn.url,
        AWS_ACCESS_KEY_ID: 'S3RVER',
        AWS_SECRET_ACCESS_KEY: 'S3RVER',
        // A stale variable in the operator's shell does not win over the outputs.
        SOURCES_TABLE: 'ingestor-sources',
      });
      await putSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, {
        sourceId: 'deployed-only',
        systemUrl: 'https://ris.deployed.de/oparl/system',
      });
      const list = await run(['sources', 'list', '--aws', '--json']);
      expect(list.code).toBe(0);
      expect(list.json.sources).toEqual([expect.objectContaining({ sourceId: 'deployed-only' })]);
      const activated = await run(['sources', 'activate', 'deployed-only', '--aws', '--json']);
      expect(activated.code).toBe(0);
      const item = await getSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, 'deployed-only');
      expect(item?.active).toBe(true);
      const refused = await run(['sources', 'list', '--aws', '--allow-loopback', '--json']);
      expect(refused.code).toBe(2);
    } finally {
      // Put the variables back on the process's own env object (files may share this process).
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
      await cfn.close();
      await bed.stop();
    }
  });
});
