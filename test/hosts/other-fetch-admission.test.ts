import { describe, expect, it } from 'vitest';
import {
  type HostSourceInput,
  hostConditionsOf,
  hostModelOf,
  MAX_OTHER_FETCH_SHARE,
  MIN_OTHER_FETCH_SHARE,
  otherFetchAdmission,
} from '../../shared/hosts';

/**
 * Item 5 of issue 27, pure: may another fetch pass (files, deletion check, photos) start on a host now?
 * Sync runs first; other fetches never starve; nothing while paused (RATE-8).
 */
const NOW_MS = Date.parse('2026-12-02T09:00:00Z');

function sources(n: number, host: string, intervalSeconds = 1): HostSourceInput[] {
  return Array.from({ length: n }, (_, i) => ({
    sourceId: `s${i}`,
    host,
    requestIntervalSeconds: intervalSeconds,
    intervalMinutes: 10,
    expectedIncrementalRequests: 16,
  }));
}

describe('otherFetchAdmission (item 5 of issue 27)', () => {
  it('RATE-9: a host with room admits the pass; the reason names the syncs demand and the other fetches use', () => {
    const model = hostModelOf('calm.example', sources(2, 'calm.example'), {}, NOW_MS);
    const decision = otherFetchAdmission(model, 0.2);
    expect(decision.allowed).toBe(true);
    expect(decision.reason).toMatch(/syncs need 0\.05 and other fetches use 0\.2 requests\/s of 1/);
  });

  it('RATE-9 / RATE-1: on a host the syncs fill, other fetches below their minimum share still start (never starved); above it they skip', () => {
    // 40 councils at 16 requests per 10 min: 1.07 requests/s of a 1 request/s pace.
    const model = hostModelOf('hosting.example', sources(40, 'hosting.example'), {}, NOW_MS);
    expect(model.demand).toBeGreaterThan(1);
    expect(otherFetchAdmission(model, 0).allowed).toBe(true);
    expect(otherFetchAdmission(model, MIN_OTHER_FETCH_SHARE * 0.99).allowed).toBe(true);
    const busy = otherFetchAdmission(model, MIN_OTHER_FETCH_SHARE);
    expect(busy).toEqual({
      allowed: false,
      reason: expect.stringMatching(
        /^host hosting\.example busy with syncs: they need 1\.07 of 1 requests\/s/,
      ),
      ruleIds: ['RATE-9', 'RATE-1'],
    });
  });

  it('RATE-9: other fetches never take more than their share, even of an idle host', () => {
    const model = hostModelOf('idle.example', [], {}, NOW_MS);
    expect(otherFetchAdmission(model, MAX_OTHER_FETCH_SHARE * 0.99).allowed).toBe(true);
    const full = otherFetchAdmission(model, MAX_OTHER_FETCH_SHARE);
    expect(full.allowed).toBe(false);
    expect(full.reason).toMatch(/their whole share/);
  });

  it('RATE-8: nothing starts on a paused host, whatever its room; ROB-10 Crawl-delay slows the pace it is judged by', () => {
    const reading = {
      floors: new Map([
        ['paused.example', { pausedUntilMs: NOW_MS + 60_000 }],
        ['slow.example', { crawlDelayMs: 10_000 }],
      ]),
      otherRequestsPerSecond: new Map([['slow.example', 0.06]]),
    };
    const conditions = hostConditionsOf(reading);
    const paused = hostModelOf('paused.example', [], conditions.get('paused.example') ?? {}, NOW_MS);
    expect(otherFetchAdmission(paused, 0)).toEqual({
      allowed: false,
      reason: `host paused.example paused until ${new Date(NOW_MS + 60_000).toISOString()} (RATE-8)`,
      ruleIds: ['RATE-8'],
    });
    // Ended pauses count for nothing.
    expect(
      otherFetchAdmission(
        hostModelOf('paused.example', [], conditions.get('paused.example') ?? {}, NOW_MS + 60_001),
        0,
      ).allowed,
    ).toBe(true);
    // 10 s Crawl-delay: a pace of 0.1 requests/s, of which other fetches may take 0.05 — 0.06 is too much.
    const slow = hostModelOf('slow.example', [], conditions.get('slow.example') ?? {}, NOW_MS);
    expect(slow.paceRequestsPerSecond).toBeCloseTo(0.1);
    expect(
      otherFetchAdmission(slow, conditions.get('slow.example')?.otherRequestsPerSecond ?? 0).allowed,
    ).toBe(false);
  });
});
