import { upstashCredentials } from '../../shared/config';
import { explainFleet, type HostStatus } from '../../shared/planner';
import { scheduleSettingsFromEnv } from '../../shared/schedule';
import { createHostLedgerFromEnv } from '../../shared/slots';
import type { LocalRuntime } from '../local/runtime';
import type { CommandResult } from '../output';

/**
 * `hosts [--json]` (RATE-9, issue 27): per host its sources, capacity, demand (requests/s), utilisation,
 * queued runs, stretch factor and full-sync backlog — the planner's own picture (`planFleet`), locally
 * or with `--aws` from the deployed tables. It reads only; it never fetches.
 */
export async function hostsCommand(rt: LocalRuntime, now: Date): Promise<CommandResult> {
  // RATE-8 / ROB-10 / item 5: pauses, Crawl-delays and other fetches' shares from the host ledger
  // (Upstash with --aws; locally this process's own, empty: the local passes run inside `npm start`).
  const credentials = await upstashCredentials(rt.env).catch(() => null);
  const fleet = await explainFleet(
    rt.clients.doc,
    { sources: rt.env.SOURCES_TABLE, state: rt.env.STATE_TABLE },
    scheduleSettingsFromEnv(rt.env),
    now,
    credentials === null
      ? undefined
      : createHostLedgerFromEnv(rt.env, credentials ? { token: credentials.token } : {}),
  );
  const text = fleet.hosts.length === 0 ? ['no hosts (no valid active source)'] : [];
  if (credentials === null || fleet.hostLedgerUnavailable !== undefined)
    text.push("host ledger unreadable: pauses (RATE-8), Crawl-delays and other fetches' shares unknown");
  for (const h of fleet.hosts) text.push(...hostLines(h));
  return { text, json: { at: fleet.at, hosts: fleet.hosts } };
}

function hostLines(h: HostStatus): string[] {
  const lines = [
    `${h.host}  ${h.sources.length} source${h.sources.length === 1 ? '' : 's'}  demand ${fixed(h.demand)} of ${fixed(h.capacity)} requests/s (${Math.round(h.utilisation * 100)} %)${h.saturated ? `  SATURATED: intervals × ${fixed(h.stretch)} (RATE-9)` : ''}`,
    `  pace ${fixed(h.paceRequestsPerSecond)} requests/s${h.crawlDelayMs !== null ? ` (Crawl-delay ${h.crawlDelayMs / 1000} s, ROB-10)` : ''}; other fetches ${fixed(h.otherRequestsPerSecond)} requests/s (documents, deletion check, photos, preview; RATE-9); runs ${h.running} of ${h.runLimit} it keeps busy (RATE-4)${h.queuedRuns > 0 ? `; ${h.queuedRuns} run${h.queuedRuns === 1 ? '' : 's'} queued` : ''}`,
    `  sources: ${h.sources.join(', ')}`,
  ];
  if (h.pausedUntil !== null)
    lines.push(`  paused until ${h.pausedUntil} (RATE-8 Retry-After): no run starts`);
  if (h.fullSyncBacklog.length > 0)
    lines.push(
      `  full syncs behind for host capacity (next night, oldest first): ${h.fullSyncBacklog.join(', ')}`,
    );
  return lines;
}

function fixed(x: number): string {
  return x >= 10 ? x.toFixed(1) : x.toFixed(2);
}
