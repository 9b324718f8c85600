import { describe, expect, it } from 'vitest';
import { LIST_CATALOGUE, type ListState, MANDATORY_LISTS } from '../../shared/engine';
import {
  markMissing,
  markSlow,
  newListState,
  outsideFilter,
  planList,
  slowSkipMs,
} from '../../shared/oparl/decisions';

const NOW = Date.parse('2026-10-16T12:00:00+02:00');
const H = 3_600_000;
const mandatory = { list: 'meeting', mandatory: true } as const;
const optional = { list: 'agendaItem', mandatory: false } as const;
const base = (patch: Partial<ListState> = {}): ListState => ({
  ...newListState('b', 'agendaItem', 'https://x.test/a'),
  timeOfDay: true,
  changeSeen: true,
  filter: 'supported',
  ...patch,
});

describe('list catalogue', () => {
  it('SCH-12: organization, person, meeting and paper are the mandatory lists', () => {
    expect([...MANDATORY_LISTS].sort()).toEqual(['meeting', 'organization', 'paper', 'person']);
  });
  it('names the OParl 1.1 Body fields of the optional lists', () => {
    const fields = Object.fromEntries(LIST_CATALOGUE.map((e) => [e.list, e.bodyField]));
    expect(fields.legislativeTerm).toBe('legislativeTermList');
    expect(fields.location).toBe('locationList');
    expect(fields.membership).toBe('membership');
  });
});

describe('SCH-11: missing optional lists', () => {
  const missing = markMissing(base(), NOW - 2 * H, 404);
  // Marked 2 h ago: the incremental sync asks again 24 h after the mark.
  it.each([
    ['incremental', 0, 'skip'],
    ['incremental', 21, 'skip'],
    ['incremental', 22, 'read'],
    ['full', 0, 'read'],
    ['sliced', 100, 'skip'],
  ] as const)('%s %d h later → %s', (kind, hours, action) => {
    const plan = planList({
      kind,
      entry: optional,
      state: missing,
      bodyLastCompleteStartMs: NOW - H,
      nowMs: NOW + hours * H,
    });
    expect(plan.action).toBe(action);
    if (plan.action === 'skip') expect(plan.outcome).toBe('skipped-missing');
  });
});

describe('SCH-12: slow lists', () => {
  it('skip ladder 1, 2, 4, 8, 16, 24, 24 h', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => slowSkipMs(n) / H)).toEqual([1, 2, 4, 8, 16, 24, 24]);
  });
  it('a timeout doubles the skip on each further timeout in a row and remembers where to catch up', () => {
    let s = base();
    s = markSlow(s, optional, NOW, NOW - 3 * H);
    expect(s.slow?.streak).toBe(1);
    expect(Date.parse(s.slow?.skipUntil ?? '')).toBe(NOW + H);
    s = markSlow(s, optional, NOW + H, NOW);
    expect(Date.parse(s.slow?.skipUntil ?? '')).toBe(NOW + 3 * H);
    expect(Date.parse(s.catchUpSince ?? '')).toBe(NOW - 3 * H);
  });
  it('mandatory lists are never marked or skipped', () => {
    const s = markSlow(base({ list: 'meeting' }), mandatory, NOW, NOW);
    expect(s.slow).toBeUndefined();
    const forced = {
      ...base(),
      slow: { streak: 3, skipUntil: new Date(NOW + 4 * H).toISOString(), lastAt: '' },
    };
    for (const kind of ['incremental', 'full', 'sliced'] as const) {
      expect(
        planList({ kind, entry: mandatory, state: forced, bodyLastCompleteStartMs: NOW, nowMs: NOW }).action,
      ).toBe('read');
    }
  });
  it.each(['incremental', 'full', 'sliced'] as const)(
    '%s skips a slow optional list while the skip lasts',
    (kind) => {
      const s = markSlow(base(), optional, NOW, NOW - H);
      const plan = planList({
        kind,
        entry: optional,
        state: s,
        bodyLastCompleteStartMs: NOW,
        nowMs: NOW + 30 * 60_000,
      });
      expect(plan).toMatchObject({ action: 'skip', outcome: 'skipped-slow' });
    },
  );
  it('afterwards catches up in one-day chunks when the server filters, unchunked otherwise', () => {
    const s = markSlow(base(), optional, NOW, NOW - 50 * H);
    const later = NOW + 2 * H;
    const filtering = planList({
      kind: 'incremental',
      entry: optional,
      state: s,
      bodyLastCompleteStartMs: NOW,
      nowMs: later,
    });
    expect(filtering.action === 'read' && filtering.mode).toBe('catchup');
    expect(filtering.action === 'read' && filtering.mode === 'catchup' && filtering.chunks.length).toBe(3);
    const notFiltering = planList({
      kind: 'incremental',
      entry: optional,
      state: { ...s, filter: 'ignored' },
      bodyLastCompleteStartMs: NOW,
      nowMs: later,
    });
    expect(notFiltering.action === 'read' && notFiltering.mode).toBe('unfiltered');
  });
});

describe('SCH-10: filter findings decide the mode', () => {
  it.each([
    ['unknown', 'filtered'],
    ['supported', 'filtered'],
    ['rejected', 'unfiltered'],
    ['ignored', 'unfiltered'],
  ] as const)('%s → %s', (filter, mode) => {
    const plan = planList({
      kind: 'incremental',
      entry: optional,
      state: base({ filter }),
      bodyLastCompleteStartMs: NOW - H,
      nowMs: NOW,
    });
    expect(plan.action === 'read' && plan.mode).toBe(mode);
  });
  it('full and sliced modes do not depend on it', () => {
    expect(
      planList({
        kind: 'full',
        entry: mandatory,
        state: undefined,
        bodyLastCompleteStartMs: undefined,
        nowMs: NOW,
      }),
    ).toMatchObject({ mode: 'full' });
    const sliced = planList({
      kind: 'sliced',
      entry: mandatory,
      state: undefined,
      bodyLastCompleteStartMs: undefined,
      nowMs: NOW,
    });
    expect(sliced.action === 'read' && sliced.mode === 'slices' && sliced.slices.length).toBe(206);
  });
});

describe('SCH-10 / FULL-7: objects outside the asked range', () => {
  const since = NOW - 10 * H;
  const until = NOW;
  it.each([
    [[since + H], undefined],
    [[since - 23 * H], undefined],
    [[since - 25 * H], since - 25 * H],
    [[until + 25 * H], until + 25 * H],
    [[undefined, since], undefined],
  ])('%j → %s', (mods, expected) => {
    expect(outsideFilter(mods, since, until)).toBe(expected);
  });
});
