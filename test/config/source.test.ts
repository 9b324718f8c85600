import { describe, expect, it } from 'vitest';
import { parseEnv } from '../../shared/config/env';
import { parseSourceItem, sourceIdFromUrl } from '../../shared/config/source';

const base = { sourceId: 'koeln', systemUrl: 'https://ratsinformation.stadt-koeln.de/oparl/system' };

describe('Sources item schema (parsed once, never fatal)', () => {
  it('fills documented defaults: inactive (ONB-3), 1 s pace (RATE-1), file fetching on (DOC-1)', () => {
    const parsed = parseSourceItem(base);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.source).toMatchObject({
      sourceId: 'koeln',
      host: 'ratsinformation.stadt-koeln.de',
      kind: 'oparl',
      active: false,
      requestIntervalSeconds: 1,
      fileFetching: true,
      fullSyncSliced: false,
      fullSyncMinDays: 0,
    });
    expect(parsed.warnings).toEqual([]);
  });

  it.each([
    [0.2, 1, /below 1/],
    [0, 1, /below 1/],
    [-5, 1, /below 1/],
    [45, 30, /above 30/],
    ['12', 12, null],
  ])('RATE-2: requestIntervalSeconds %s is clamped to %s', (given, expected, warning) => {
    const parsed = parseSourceItem({ ...base, requestIntervalSeconds: given });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.source.requestIntervalSeconds).toBe(expected);
    if (warning) expect(parsed.warnings[0]?.message).toMatch(warning);
    else expect(parsed.warnings).toEqual([]);
  });

  it('RATE-3: scraper sources default to 2 s', () => {
    const parsed = parseSourceItem({ ...base, kind: 'scraper', adapter: 'allris' });
    expect(parsed.ok && parsed.source.requestIntervalSeconds).toBe(2);
  });

  it.each([
    [{ requestIntervalSeconds: 'fast' }, 'requestIntervalSeconds'],
    [{ systemUrl: 'ftp://example.de/' }, 'systemUrl'],
    [{ systemUrl: 'https://user:pw@example.de/' }, 'systemUrl'],
    [{ kind: 'html' }, 'kind'],
    [{ active: 'yes' }, 'active'],
    [{ kind: 'scraper' }, 'adapter'],
    [{ fullSyncWindow: { start: '25:00', end: '04:00' } }, 'fullSyncWindow.start'],
    [{ fullSyncWindow: { start: '01:00', end: '01:00' } }, 'fullSyncWindow'],
    [{ cadenceMinutes: { weekdayDay: 2.5 } }, 'cadenceMinutes.weekdayDay'],
    [{ fullSyncMinDays: -1 }, 'fullSyncMinDays'],
    [{ requestIntervalSecond: 5 }, '(item)'],
    [{ sourceId: 'Köln!' }, 'sourceId'],
  ])('an invalid item %j names the field %s and is not usable', (patch, field) => {
    const parsed = parseSourceItem({ ...base, ...patch });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems.map((p) => p.field)).toContain(field);
    expect(parsed.problems.every((p) => p.message.length > 0)).toBe(true);
  });

  it('reports the sourceId of an invalid item so status can show it', () => {
    const parsed = parseSourceItem({ ...base, active: 'maybe' });
    expect(parsed.ok ? '' : parsed.sourceId).toBe('koeln');
    const missing = parseSourceItem({ systemUrl: base.systemUrl });
    expect(missing.ok ? '' : missing.sourceId).toBe('(missing sourceId)');
  });

  it('accepts strings that the DynamoDB console produces for booleans and numbers', () => {
    const parsed = parseSourceItem({
      ...base,
      active: 'true',
      fileFetching: 'false',
      requestIntervalSeconds: '3',
    });
    expect(
      parsed.ok && [parsed.source.active, parsed.source.fileFetching, parsed.source.requestIntervalSeconds],
    ).toEqual([true, false, 3]);
  });

  it('ROB-9: an exception without approval note is ignored with a warning, with one it is kept', () => {
    const without = parseSourceItem({ ...base, robotsException: { scope: 'files', approvalNote: '  ' } });
    expect(without.ok && without.source.robotsException).toBeUndefined();
    expect(without.ok && without.warnings[0]?.field).toBe('robotsException.approvalNote');
    const withNote = parseSourceItem({
      ...base,
      robotsException: { scope: 'api', approvalNote: 'Mail der Stadt vom 2026-10-01, Az. 123' },
    });
    expect(withNote.ok && withNote.source.robotsException).toEqual({
      scope: 'api',
      approvalNote: 'Mail der Stadt vom 2026-10-01, Az. 123',
    });
  });

  it('derives stable source ids from system URLs', () => {
    expect(sourceIdFromUrl('https://RIS.Example.de/oparl/system')).toBe('ris-example-de');
    expect(sourceIdFromUrl('http://127.0.0.1:8080/x')).toBe('127-0-0-1-8080');
  });
});

describe('environment', () => {
  it('has documented defaults so npm start needs no variables', () => {
    const e = parseEnv({});
    expect([e.INGESTOR_INTERVAL, e.INGESTOR_FULL_SYNC_HOUR, e.INGESTOR_MAX_CONCURRENT_SYNCS]).toEqual([
      10, 3, 4,
    ]);
    expect(e.INGESTOR_ALLOW_LOOPBACK).toBe(false);
  });

  it('fails with a clear message naming the variable', () => {
    expect(() => parseEnv({ INGESTOR_FULL_SYNC_HOUR: '25' })).toThrow(
      /INGESTOR_FULL_SYNC_HOUR must be a whole number from 0 to 23/,
    );
  });

  it('SCH-5: takes a fleet’s slots (920 at 10,000 sources) and refuses more than the bound', () => {
    expect(parseEnv({ INGESTOR_MAX_CONCURRENT_SYNCS: '920' }).INGESTOR_MAX_CONCURRENT_SYNCS).toBe(920);
    expect(() => parseEnv({ INGESTOR_MAX_CONCURRENT_SYNCS: '10001' })).toThrow(
      /INGESTOR_MAX_CONCURRENT_SYNCS/,
    );
  });
});
