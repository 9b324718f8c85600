import type { SourcesLoad } from '../store';

/**
 * The Sources table as this process last read it, shared by every reader of the process (the RATE-2
 * host interval index, the preview's RATE-9 host budget): one scan of the whole table serves them all
 * instead of one scan each, every HOST_INTERVAL_REFRESH_MS per warm instance.
 */
export interface SourcesCache {
  /**
   * The table as read at most `maxAgeMs` ago (from the scan's start, so no reader sees an older
   * table); callers while a scan runs share it; a failed scan is not kept. The same object until
   * re-read: a reader compares it by identity to know whether to derive its view again.
   */
  read(): Promise<SourcesLoad>;
}

export interface SourcesCacheOptions {
  maxAgeMs: number;
  nowMs?: () => number;
}

export function createSourcesCache(
  scan: () => Promise<SourcesLoad>,
  { maxAgeMs, nowMs = Date.now }: SourcesCacheOptions,
): SourcesCache {
  let entry: { at: number; load: Promise<SourcesLoad> } | undefined;
  return {
    read(): Promise<SourcesLoad> {
      const now = nowMs();
      if (entry !== undefined && now - entry.at < maxAgeMs) return entry.load;
      const mine = { at: now, load: scan() };
      entry = mine;
      mine.load.catch(() => {
        // The next reader scans again; the failure stays the caller's.
        if (entry === mine) entry = undefined;
      });
      return mine.load;
    },
  };
}
