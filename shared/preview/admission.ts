import type { SourceConfig } from '../config';
import { HostBudget } from '../documents';
import {
  type HostConditions,
  hostConditionsOf,
  hostModelOf,
  hostSourceInputOf,
  type OtherFetchAdmission,
  otherFetchAdmission,
} from '../hosts';
import type { ScheduleSettings } from '../schedule';
import type { HostLedger } from '../slots';
import { hostKey } from '../util';

/**
 * Issue 27 item 5 (RATE-9 "one host, one budget", RATE-1, RATE-8): a preview's on-demand fetch from a
 * council server is an other fetch like the document passes — admitted against the same host budget and
 * counted in the same host ledger. The preview does fetch from the council (PRV-1: a document we have not
 * stored is streamed from its source), so it must not be admitted blind either.
 *
 * Per fetch: one read of the host's ledger fields (pause, Crawl-delay, other fetches' use — one small
 * store call) and the host's
 * model from the sources on it. The sources' cadence is the syncs' demand, counted as for a source's
 * first run (`hostSourceInputOf` without state: the period's base interval, the default expected
 * requests) — a preview reads no State item per source on the host; the planner, which does, still plans
 * the syncs with their learnt figures. Requests are counted per host and recorded when a fetch ends.
 */
export interface PreviewHostBudgetDeps {
  ledger: HostLedger;
  /** The planner's schedule settings: the same cadence the syncs' demand is computed with. */
  settings: ScheduleSettings;
  /**
   * Every valid source, as the process's Sources cache holds it (shared/fetch-runtime `SourcesCache`:
   * re-read at most every 5 minutes, RATE-2, one scan for the host interval index too). The same array
   * until the table is re-read: the sources per host are derived again only then.
   */
  loadSources: () => Promise<readonly SourceConfig[]>;
  log?: (event: string, fields: Record<string, unknown>) => void;
}

export interface PreviewHostBudget {
  /** May a preview fetch from `host` (URL or host name) now — and if not, why (RATE-9 / RATE-8). */
  admit(host: string, now: Date): Promise<OtherFetchAdmission>;
  /** A request the preview sent to `host` (the fetcher's request event). */
  count(host: string): void;
  /** The counted requests into the ledger (one store call); a failing store only loses the counts. */
  record(): Promise<void>;
  /** Loads the sources per host ahead of the first fetch (cold start), so no visitor waits for it. */
  warm(): Promise<void>;
}

export function createPreviewHostBudget(deps: PreviewHostBudgetDeps): PreviewHostBudget {
  const meter = new HostBudget({ ledger: deps.ledger, settings: deps.settings, ...logOf(deps) });
  let sources: { all: readonly SourceConfig[]; byHost: Map<string, SourceConfig[]> } | undefined;

  async function sourcesByHost(): Promise<Map<string, SourceConfig[]>> {
    const all = await deps.loadSources();
    if (sources?.all !== all) sources = { all, byHost: activeByHost(all) };
    return sources.byHost;
  }

  return {
    async admit(host, now) {
      const key = hostKey(host);
      // The ledger and the sources side by side: both come out of the visitor's PRV-1 budget.
      const onHostLoad = sourcesByHost().then((byHost) => byHost.get(key) ?? []);
      onHostLoad.catch(() => undefined);
      let conditions: HostConditions = {};
      try {
        // One host's fields, not the whole ledger (~450 KB at 10,000 hosts).
        conditions = hostConditionsOf(await deps.ledger.readHost(key)).get(key) ?? {};
      } catch (error) {
        // As the passes: blind rather than no preview — the host slots still keep every pace and pause.
        const code = (error as { code?: string }).code ?? 'ERROR';
        deps.log?.('host ledger unreadable: preview admitted without host budget', { code });
        return { allowed: true, reason: `host ledger unreadable (${code})`, ruleIds: ['RATE-7'] };
      }
      const nowIso = now.toISOString();
      const onHost = await onHostLoad;
      const inputs = onHost.map((s) => hostSourceInputOf(s, undefined, nowIso, deps.settings));
      const model = hostModelOf(key, inputs, conditions, now.getTime());
      return otherFetchAdmission(model, conditions.otherRequestsPerSecond ?? 0);
    },
    count: (host) => meter.count(host),
    record: () => meter.record(),
    warm: async () => {
      await sourcesByHost();
    },
  };
}

function activeByHost(all: readonly SourceConfig[]): Map<string, SourceConfig[]> {
  const map = new Map<string, SourceConfig[]>();
  for (const s of all) {
    if (!s.active) continue;
    const key = hostKey(s.host);
    const list = map.get(key);
    if (list) list.push(s);
    else map.set(key, [s]);
  }
  return map;
}

function logOf(deps: PreviewHostBudgetDeps): { log?: PreviewHostBudgetDeps['log'] } {
  return deps.log === undefined ? {} : { log: deps.log };
}
