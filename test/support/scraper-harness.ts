// Test-only wiring of the scraper engine: the real polite fetcher (robots.txt, slots, redirects, ID-4)
// on a fake clock with process-local slots (test/fetch/support.ts `makeKit`) — the 2 s scraper pace
// (RATE-3) is kept in virtual time, so a 30-request scrape takes no 60 s of wall time — against the
// fake RIS website on loopback and the real local DynamoDB/S3 peers.

import type { SourceConfig } from '../../shared/config/source';
import { syncTablesFromEnv } from '../../shared/engine';
import { MirrorStore } from '../../shared/mirror';
import { type ScrapeReport, type ScraperEngineDeps, scrapeSource } from '../../shared/scraper';
import type { ScrapePolicy } from '../../shared/scraper/constants';
import { takedownGuards } from '../../shared/takedown';
import type { AwsTestbed } from './aws';
import { InstantClock, type Kit, makeKit } from './fetch-kit';

/** Two weeks before the captured meetings (Monday 3 November 2025): they are "near today". */
export const SCRAPE_START_MS = Date.parse('2025-10-20T08:00:00Z');

let counter = 0;
export function uniqueScraperId(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}

export function scraperSource(
  sourceId: string,
  systemUrl: string,
  adapter: 'allris' | 'sessionnet',
  extra: Partial<SourceConfig> = {},
): SourceConfig {
  return {
    sourceId,
    systemUrl,
    host: new URL(systemUrl).hostname,
    kind: 'scraper',
    adapter,
    active: true,
    // RATE-3: the scraper default (shared/config SCRAPER_DEFAULT_INTERVAL_SECONDS).
    requestIntervalSeconds: 2,
    fileFetching: true,
    cadenceMinutes: {},
    fullSyncMinDays: 0,
    fullSyncSliced: false,
    photoUrlPatterns: {},
    ...extra,
  };
}

export interface ScraperHarness {
  kit: Kit;
  clock: InstantClock;
  source: SourceConfig;
  deps: ScraperEngineDeps;
  mirror: MirrorStore;
  scrape(
    kind?: 'incremental' | 'full',
    extra?: { runId?: string; deadlineMs?: number },
  ): Promise<ScrapeReport>;
  close(): Promise<void>;
}

export function scraperHarness(
  bed: AwsTestbed,
  systemUrl: string,
  adapter: 'allris' | 'sessionnet',
  options: { prefix?: string; policy?: Partial<ScrapePolicy>; clock?: InstantClock; sourceId?: string } = {},
): ScraperHarness {
  const clock = options.clock ?? new InstantClock(SCRAPE_START_MS);
  const kit = makeKit({ clock });
  const source = scraperSource(
    options.sourceId ?? uniqueScraperId(options.prefix ?? 'scr'),
    systemUrl,
    adapter,
  );
  const deps: ScraperEngineDeps = {
    fetcher: kit.fetcher,
    clients: bed.clients,
    tables: syncTablesFromEnv(bed.env),
    // Over the run's clients as they are when it starts (a test may give the sync clients of its own,
    // test/takedown/sync-race.test.ts), as the composition root builds the guard on the engine's clients.
    takedowns: (sourceId, log) =>
      takedownGuards({ clients: deps.clients, bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE })(
        sourceId,
        log,
      ),
    now: () => new Date(clock.now()),
    ...(options.policy ? { policy: options.policy } : {}),
  };
  const mirror = new MirrorStore(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
  let runs = 0;
  return {
    kit,
    clock,
    source,
    deps,
    mirror,
    scrape(kind = 'incremental', extra = {}) {
      runs += 1;
      return scrapeSource(deps, source, {
        kind,
        runId: extra.runId ?? `${source.sourceId}-run-${runs}`,
        startedAt: new Date(clock.now()),
        ...(extra.deadlineMs !== undefined ? { deadlineMs: extra.deadlineMs } : {}),
      });
    },
    close: () => kit.close(),
  };
}

/** Ids of the live mirrored objects of one type. */
export async function liveIds(mirror: MirrorStore, sourceId: string, type: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const entry of mirror.listLive(sourceId, type)) ids.push(entry.id);
  return ids.sort();
}
