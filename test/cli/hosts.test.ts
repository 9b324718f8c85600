import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalRuntime } from '../../cli/local/runtime';
import { initialScheduleState } from '../../shared/schedule';
import { patchSourceState } from '../../shared/store/source-state';
import { putSourceItem } from '../../shared/store/sources';
import { runCliInProcess } from '../support/cli-in-process';

/**
 * `ingestor hosts` and `status` explain RATE-9 (issue 27): thirty council systems on one hosting host at
 * 30 s per request (RATE-2) ask more than its pace in every period (SCH-1: even at the weekend's 120 min,
 * 30 × 16 requests / 7200 s = 0.067 requests/s against 0.033) — the host is saturated and every source
 * on it stretched by one factor; a council on a host of its own is not. Local mode, the real peers.
 */
describe('ingestor hosts / status (RATE-9)', () => {
  let dir: string;
  /**
   * `--now` pins the instant every command decides at: a Monday afternoon, outside the nightly
   * full-sync window (FULL-1), whatever hour the suite runs at.
   */
  const NOW = '2026-11-30T14:00:00+01:00';
  const data = () => ['--data', join(dir, 'data'), '--now', NOW];
  const HOSTED = Array.from({ length: 30 }, (_, i) => `hosted-${String(i).padStart(2, '0')}`);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ingestor-hosts-'));
    const rt = await openLocalRuntime({ dataDir: join(dir, 'data') });
    try {
      for (const [i, sourceId] of HOSTED.entries()) {
        await putSourceItem(rt.clients.doc, rt.env.SOURCES_TABLE, {
          sourceId,
          // One host by RATE-2: different ports and case, a trailing dot.
          systemUrl: `https://RIS.Hosting.example.:${8000 + i}/oparl/${sourceId}/system`,
          active: true,
          requestIntervalSeconds: 30,
        });
        // Each synced a minute before NOW: its cadence is not due yet, and stretched further.
        const ended = new Date(Date.parse(NOW) - 60_000).toISOString();
        await patchSourceState({ doc: rt.clients.doc, table: rt.env.STATE_TABLE }, sourceId, {
          schedule: { ...initialScheduleState(), lastSyncStartedAt: ended, lastSyncEndedAt: ended },
          dueAt: ended,
        });
      }
      await putSourceItem(rt.clients.doc, rt.env.SOURCES_TABLE, {
        sourceId: 'solo',
        systemUrl: 'https://ris.solo.example/oparl/system',
        active: true,
      });
    } finally {
      await rt.close();
    }
  }, 60_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('hosts --json: one entry per host key, the hosting host saturated with its stretch factor', async () => {
    const out = await runCliInProcess(['hosts', ...data(), '--json']);
    expect(out.code).toBe(0);
    const hosts = out.json.hosts as {
      host: string;
      sources: string[];
      capacity: number;
      demand: number;
      utilisation: number;
      saturated: boolean;
      stretch: number;
      runLimit: number;
      queuedRuns: number;
      fullSyncBacklog: string[];
    }[];
    expect(hosts.map((h) => h.host)).toEqual(['ris.hosting.example', 'ris.solo.example']);
    const [hosting, solo] = hosts;
    expect(hosting?.sources).toEqual(HOSTED);
    expect(hosting?.capacity).toBeCloseTo(1 / 30);
    expect(hosting?.saturated).toBe(true);
    expect(hosting?.stretch).toBeCloseTo((hosting?.demand ?? 0) / (1 / 30));
    expect(hosting?.stretch).toBeGreaterThanOrEqual(2);
    expect(solo).toMatchObject({ sources: ['solo'], capacity: 1, saturated: false, stretch: 1, runLimit: 1 });
  });

  it('hosts (text) and status say why: "host saturated: needs … requests/s of …; intervals × …"', async () => {
    const text = await runCliInProcess(['hosts', ...data()]);
    expect(text.stdout).toMatch(/ris\.hosting\.example {2}30 sources {2}demand .* SATURATED: intervals × \d/);
    const status = await runCliInProcess(['status', ...data(), '--json']);
    const sources = status.json.sources as {
      sourceId: string;
      action: string;
      reason: string;
      hostSaturated: string | null;
    }[];
    const hosted = sources.find((s) => s.sourceId === 'hosted-00');
    expect(hosted?.action).toBe('wait');
    expect(hosted?.hostSaturated).toMatch(
      /^host ris\.hosting\.example saturated: needs [\d.]+ requests\/s of 0\.03; intervals × [\d.]+ \(RATE-9\)$/,
    );
    expect(hosted?.reason).toContain('saturated');
    expect(sources.find((s) => s.sourceId === 'solo')).toMatchObject({ action: 'sync', hostSaturated: null });
    const human = await runCliInProcess(['status', 'hosted-00', ...data()]);
    expect(status.json.at).toBe(new Date(NOW).toISOString());
    expect(human.stdout).toMatch(/why: .*host ris\.hosting\.example saturated: needs [\d.]+ requests\/s/);
  });
});
