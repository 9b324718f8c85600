import { describe, expect, it } from 'vitest';
import {
  DEL_SAMPLE_INTERVAL_MS,
  samplePhaseMs,
  sampleWalkBound,
  sampleWalkKey,
  WALK_END,
  WALK_START,
  walkPosition,
  walkRanges,
} from '../../shared/documents';

/** Issue 28, DEL-2: the walk's pure decisions (cursor + now → ranges; settled samples → position). */
describe('DEL-2 walk ranges', () => {
  const HOUR = 3_600_000;
  // A Monday noon; the interval's phases are counted from the epoch.
  const t0 = Date.UTC(2026, 2, 2, 12);
  const at = (ms: number) => new Date(ms).toISOString();
  const inRanges = (ranges: { after: string; upTo: string }[], key: string) =>
    ranges.some((r) => key > r.after && key <= r.upTo);

  it('DEL-2: a walk key sorts after every ISO time, and by time of week, then id', () => {
    const key = sampleWalkKey(samplePhaseMs(t0), 'ab');
    expect(key > at(t0 + 100 * DEL_SAMPLE_INTERVAL_MS)).toBe(true);
    expect(sampleWalkKey(5, 'ff') < sampleWalkKey(6, '00')).toBe(true);
    expect(sampleWalkKey(1_000_000_000, '00') > sampleWalkKey(999_999_999, 'ff')).toBe(true);
    expect(key <= sampleWalkBound(samplePhaseMs(t0))).toBe(true);
    expect(samplePhaseMs(t0 + DEL_SAMPLE_INTERVAL_MS)).toBe(samplePhaseMs(t0));
  });

  it('DEL-2: the hour since the cursor covers exactly the documents placed in that hour of the week', () => {
    const cursor = { position: sampleWalkBound(samplePhaseMs(t0)), at: at(t0) };
    const { ranges, end } = walkRanges(cursor, new Date(t0 + HOUR));
    const placed = (ms: number) => sampleWalkKey(samplePhaseMs(ms), '0f');
    // a week ago plus a half hour: due now; a week ago exactly (sampled last run): not again
    expect(inRanges(ranges, placed(t0 - DEL_SAMPLE_INTERVAL_MS + HOUR / 2))).toBe(true);
    expect(inRanges(ranges, placed(t0))).toBe(false);
    expect(inRanges(ranges, placed(t0 + 2 * HOUR))).toBe(false);
    expect(end).toBe(sampleWalkBound(samplePhaseMs(t0 + HOUR)));
  });

  it('DEL-2: a walk wraps at the end of the interval; a whole interval missed is one full round, no more', () => {
    const lastPhase = DEL_SAMPLE_INTERVAL_MS - HOUR / 2;
    const beforeWrap = t0 - samplePhaseMs(t0) + lastPhase;
    const cursor = { position: sampleWalkBound(lastPhase), at: at(beforeWrap) };
    const wrapped = walkRanges(cursor, new Date(beforeWrap + HOUR));
    expect(wrapped.ranges).toEqual([
      { after: cursor.position, upTo: WALK_END },
      { after: WALK_START, upTo: sampleWalkBound(HOUR / 2) },
    ]);
    expect(inRanges(wrapped.ranges, sampleWalkKey(lastPhase + 1, '00'))).toBe(true);
    expect(inRanges(wrapped.ranges, sampleWalkKey(HOUR / 4, '00'))).toBe(true);
    expect(inRanges(wrapped.ranges, sampleWalkKey(HOUR, '00'))).toBe(false);
    // 9 days without a run: every place once
    const missed = walkRanges(
      { position: sampleWalkBound(samplePhaseMs(t0)), at: at(t0) },
      new Date(t0 + 9 * 24 * HOUR),
    );
    for (const phase of [0, HOUR, samplePhaseMs(t0), DEL_SAMPLE_INTERVAL_MS - 1])
      expect(
        missed.ranges.filter(
          (r) => sampleWalkKey(phase, 'aa') > r.after && sampleWalkKey(phase, 'aa') <= r.upTo,
        ),
      ).toHaveLength(1);
  });

  it('DEL-2: no cursor yet → nothing walked, the walk starts now; a clock behind the cursor → nothing', () => {
    expect(walkRanges(undefined, new Date(t0))).toEqual({
      ranges: [],
      end: sampleWalkBound(samplePhaseMs(t0)),
    });
    const cursor = { position: sampleWalkBound(samplePhaseMs(t0)), at: at(t0) };
    expect(walkRanges(cursor, new Date(t0 - HOUR))).toEqual({ ranges: [], end: cursor.position });
  });

  it('DEL-2: the cursor passes only the settled prefix — a document not asked is never passed', () => {
    const keys = ['walk#1', 'walk#2', 'walk#3'];
    expect(walkPosition(keys, [true, false, true], 'walk#9')).toEqual({ done: 1, position: 'walk#1' });
    expect(walkPosition(keys, [false, true, true], 'walk#9')).toEqual({ done: 0, position: undefined });
    expect(walkPosition(keys, [true, true, true], 'walk#9')).toEqual({ done: 3, position: 'walk#9' });
    expect(walkPosition([], [], 'walk#9')).toEqual({ done: 0, position: 'walk#9' });
  });
});
