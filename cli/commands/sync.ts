import { parseSourceItem, type SourceConfig, sourceIdFromUrl } from '../../shared/config';
import { startManualSync } from '../../shared/planner';
import { DEFAULT_LEASE_MINUTES, scheduleSettingsFromEnv } from '../../shared/schedule';
import { loadAllSources, putSourceItem } from '../../shared/store';
import { runSyncMessage, type SyncMessage } from '../../shared/sync';
import { composeCli } from '../compose';
import type { LocalRuntime } from '../local/runtime';
import { type CommandResult, EXIT_FAILED, EXIT_INTERRUPTED, UsageError } from '../output';
import { createProgress, type Progress } from '../progress';
import type { SyncInput } from '.';

/** A manual CLI run has no Lambda budget; an hour is far more than any single run needs locally. */
const LOCAL_RUN_BUDGET_MS = 60 * 60_000;

/**
 * `sync --url <systemUrl> [--full]`: one manual sync now, in this process, under every rule the planner
 * applies to a manual request (SCH-7: sparing wins; FULL-8: own window and minimum distance). An
 * unknown URL becomes a new *inactive* source (ONB-3) and still gets this one run. Ctrl-C ends the
 * run at its next checkpoint (before the next request): cursor saved, lease released, exit 130; a
 * second Ctrl-C quits at once.
 */
export async function syncCommand(
  rt: LocalRuntime,
  opts: SyncInput & { json: boolean },
  now: Date,
): Promise<CommandResult> {
  const progress = createProgress({ json: opts.json });
  const say = progress.say;
  const source = await findOrCreateSource(rt, opts.url, say);

  // The planner's own decision and start of a manual request (SCH-7, FULL-8; the lease, SCH-5); the
  // one run a tool may give an inactive source (ONB-3) is the only difference.
  const { decision, message } = await startManualSync(
    {
      doc: rt.clients.doc,
      tables: { state: rt.env.STATE_TABLE },
      settings: scheduleSettingsFromEnv(rt.env),
      leaseMinutes: DEFAULT_LEASE_MINUTES,
    },
    {
      source: { ...source, active: true },
      request: { kind: opts.full ? 'full' : 'sync', requestedAt: now.toISOString() },
      now,
    },
  );
  if (decision.action !== 'sync' || decision.kind === undefined) {
    return {
      text: [`not synced: ${decision.reason}`],
      json: { sourceId: source.sourceId, synced: false, reason: decision.reason, ruleIds: decision.ruleIds },
      exitCode: 1,
    };
  }
  say(`sync ${source.sourceId}: ${decision.reason}`);
  progress.step(`sync ${source.sourceId} (${decision.kind})`);

  const interrupt = new AbortController();
  const onSigint = () => {
    if (interrupt.signal.aborted) process.exit(EXIT_INTERRUPTED);
    interrupt.abort();
    say('stopping at the next checkpoint (Ctrl-C again quits at once, leaving the lease to expire)');
  };
  process.on('SIGINT', onSigint);
  try {
    return await runLeased(rt, { source, message }, { progress, signal: interrupt.signal });
  } finally {
    process.off('SIGINT', onSigint);
    progress.end();
  }
}

/** The sync this command runs: the source, and its first message when the planner's start took the lease. */
interface LeasedSync {
  source: SourceConfig;
  message: SyncMessage | undefined;
}

async function runLeased(
  rt: LocalRuntime,
  { source, message }: LeasedSync,
  opts: { progress: Progress; signal: AbortSignal },
): Promise<CommandResult> {
  if (message === undefined) {
    return {
      text: ['not synced: another run holds the lease of this source (SCH-5)'],
      json: { sourceId: source.sourceId, synced: false, reason: 'lease held by another run (SCH-5)' },
      exitCode: 1,
    };
  }
  const runtime = await composeCli(rt).sync({ onRequest: opts.progress.request });
  try {
    const result = await runSyncMessage(runtime.runDeps, message, {
      deadlineMs: Date.now() + LOCAL_RUN_BUDGET_MS,
      signal: opts.signal,
    });
    if (result.status === 'dropped') {
      return {
        text: [`not synced: ${result.reason}`],
        json: { sourceId: source.sourceId, synced: false, reason: result.reason },
        exitCode: 1,
      };
    }
    const r = result.report;
    const interrupted = opts.signal.aborted;
    const json = {
      sourceId: source.sourceId,
      kind: r.kind,
      requests: r.requests,
      changed: r.changed,
      complete: r.complete,
      objects: r.objects,
      ...(interrupted ? { interrupted: true } : {}),
      ...(r.failures.length > 0 ? { failures: r.failures, failureDetails: r.failureDetails ?? [] } : {}),
    };
    return {
      text: [
        `${source.sourceId}: ${r.kind} sync ${r.complete ? 'complete' : interrupted ? 'interrupted at a checkpoint (lease released; the next run goes on from the cursor)' : 'incomplete'}, ${r.requests} requests, ` +
          `${r.objects.new} new, ${r.objects.modified} modified, ${r.objects.deleted} deleted`,
        ...(r.failureDetails ?? []).map((d) => `  failure: ${d}`),
      ],
      json,
      exitCode: interrupted ? EXIT_INTERRUPTED : r.failures.length > 0 && !r.complete ? EXIT_FAILED : 0,
    };
  } finally {
    await runtime.close();
  }
}

async function findOrCreateSource(
  rt: LocalRuntime,
  url: string,
  say: (line: string) => void,
): Promise<SourceConfig> {
  const { parsed } = await loadAllSources(rt.clients.doc, rt.env.SOURCES_TABLE);
  const normalized = normalizeUrl(url);
  for (const p of parsed) {
    if (p.ok && normalizeUrl(p.source.systemUrl) === normalized) return p.source;
  }
  const now = new Date().toISOString();
  const item = {
    sourceId: sourceIdFromUrl(url),
    systemUrl: url,
    active: false,
    createdAt: now,
    updatedAt: now,
    updatedBy: 'cli sync',
  };
  const checked = parseSourceItem(item);
  if (!checked.ok)
    throw new UsageError(
      `cannot create a source for ${url}: ${checked.problems.map((p) => `${p.field} ${p.message}`).join('; ')}`,
    );
  const { written } = await putSourceItem(rt.clients.doc, rt.env.SOURCES_TABLE, item, { mustNotExist: true });
  if (written) say(`new source ${item.sourceId} created inactive (ONB-3); this one sync runs anyway`);
  return checked.source;
}

function normalizeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host.toLowerCase()}${u.pathname.replace(/\/+$/, '')}${u.search}`;
  } catch {
    return url;
  }
}
