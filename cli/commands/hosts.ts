import { explainFleet, type HostStatus } from '../../shared/planner';
import { scheduleSettingsFromEnv } from '../../shared/schedule';
import { composeCli } from '../compose';
import type { LocalRuntime } from '../local/runtime';
import type { CommandResult } from '../output';

/**
 * `hosts [--json]` (RATE-9, issue 27): per host its sources, capacity, demand (requests/s), utilisation,
 * queued runs, stretch factor and full-sync backlog — the planner's own picture (`planFleet`), locally
 * or with `--aws` from the deployed tables. It reads only; it never fetches.
 */
export async function hostsCommand(rt: LocalRuntime, now: Date): Promise<CommandResult> {
  const ledger = await composeCli(rt).hostLedger();
  const fleet = await explainFleet(
    {
      doc: rt.clients.doc,
      tables: { sources: rt.env.SOURCES_TABLE, state: rt.env.STATE_TABLE },
      hostLedger: ledger,
    },
    scheduleSettingsFromEnv(rt.env),
    now,
  );
  const text = fleet.hosts.length === 0 ? ['no hosts (no valid active source)'] : [];
  if (ledger === undefined || fleet.hostLedgerUnavailable !== undefined)
    text.push("host ledger unreadable: pauses (RATE-8), Crawl-delays and other fetches' shares unknown");
  for (const h of fleet.hosts) text.push(...hostLines(h));
  return { text, json: { at: fleet.at, hosts: fleet.hosts } };
}

/** What the host's waiting runs wait for, in the words of the rule that holds them. */
const WAITING_LINES: Record<HostStatus['waiting'][number]['waitingFor'], string | undefined> = {
  host: 'queued for the busy host (RATE-9, RATE-4)',
  'paused-host': 'waiting for the paused host (RATE-8)',
  slot: 'waiting for a free sync slot (SCH-5)',
  // Said by the full-sync backlog line.
  'full-sync-budget': undefined,
};

function hostLines(h: HostStatus): string[] {
  const lines = [
    `${h.host}  ${h.sources.length} source${h.sources.length === 1 ? '' : 's'}  demand ${fixed(h.demand)} of ${fixed(h.capacity)} requests/s (${Math.round(h.utilisation * 100)} %)${h.saturated ? `  SATURATED: intervals × ${fixed(h.stretch)} (RATE-9)` : ''}`,
    `  pace ${fixed(h.paceRequestsPerSecond)} requests/s${h.crawlDelayMs !== null ? ` (Crawl-delay ${h.crawlDelayMs / 1000} s, ROB-10)` : ''}; other fetches ${fixed(h.otherRequestsPerSecond)} requests/s (documents, deletion check, photos, preview; RATE-9); runs ${h.running} of ${h.runLimit} it keeps busy (RATE-4)${h.queuedRuns > 0 ? `; ${h.queuedRuns} run${h.queuedRuns === 1 ? '' : 's'} queued` : ''}`,
    `  sources: ${h.sources.join(', ')}`,
  ];
  // Who keeps the host busy: the runs the queued ones wait for.
  if (h.runningSources.length > 0)
    lines.push(`  running: ${h.runningSources.map((r) => `${r.sourceId} (${r.kind})`).join(', ')}`);
  if (h.saturated)
    lines.push(
      `  stretched (RATE-9): every source here syncs at its interval × ${fixed(h.stretch)} — the host's pace wins, none is starved`,
    );
  for (const [kind, words] of Object.entries(WAITING_LINES)) {
    const ids = h.waiting.filter((w) => w.waitingFor === kind).map((w) => w.sourceId);
    if (words !== undefined && ids.length > 0) lines.push(`  ${words}: ${ids.join(', ')}`);
  }
  // ERR-4/ERR-5: spared by their own errors, not by the host — named so no waiting source goes unexplained.
  if (h.pausedSources.length > 0)
    lines.push(
      `  spared, not synced until their pause ends (SCH-7): ${h.pausedSources.map((p) => `${p.sourceId} — ${p.reason}`).join('; ')}`,
    );
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
