import type { SourceConfig } from '../config';
import { HostBudget } from '../documents';
import {
  type HostConditions,
  type HostStateView,
  hostConditionsOf,
  hostModelOf,
  hostSourceInputOf,
  hostStateView,
  type OtherFetchAdmission,
  otherFetchAdmission,
} from '../hosts';
import type { ScheduleSettings, SourceScheduleState } from '../schedule';
import type { HostLedger } from '../slots';
import { getSourceState, type TableContext } from '../store';
import { hostKey, mapLimit } from '../util';
import { PREVIEW_HOST_SOURCES_TTL_MS } from './constants';

/**
 * Issue 27 item 5 (RATE-9 "one host, one budget", RATE-1, RATE-8): a preview's on-demand fetch from a
 * council server is an other fetch like the document passes — admitted against the same host budget and
 * counted in the same host ledger. The preview does fetch from the council (PRV-1: a document we have not
 * stored is streamed from its source), so it must not be admitted blind either.
 *
 * Per fetch: one read of the host's ledger fields (pause, Crawl-delay, other fetches' use — one small
 * store call) and the host's model from the sources on it. The sources' cadence is the syncs' demand,
 * judged with the figures the planner uses (`hostSourceInputOf` with each source's state: its expected
 * requests and seconds per request learnt from its recent runs, its quiet streak and session days), read
 * per host at most every PREVIEW_HOST_SOURCES_TTL_MS (`loadHostStates`); without them, or should the read
 * fail, as for first runs (the period's base interval, the default expected requests). Requests are
 * counted per host and recorded when a fetch ends.
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
  /**
   * The host model's view of the given sources' states (the planner's learnt figures). One host's
   * sources at a time, cached per host like `loadSources`; absent: every source counted as a first run.
   */
  loadHostStates?: (sourceIds: readonly string[]) => Promise<ReadonlyMap<string, HostStateView>>;
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

  const statesByHost = new Map<string, { at: number; states: Promise<ReadonlyMap<string, HostStateView>> }>();
  /** The learnt figures of a host's sources, read once per TTL and host; none on a failed read. */
  function hostStates(
    key: string,
    onHost: readonly SourceConfig[],
    nowMs: number,
  ): Promise<ReadonlyMap<string, HostStateView>> {
    const load = deps.loadHostStates;
    if (load === undefined || onHost.length === 0) return Promise.resolve(new Map());
    const cached = statesByHost.get(key);
    if (cached !== undefined && nowMs - cached.at < PREVIEW_HOST_SOURCES_TTL_MS) return cached.states;
    const states = load(onHost.map((s) => s.sourceId)).catch((error: unknown) => {
      statesByHost.delete(key);
      const code = (error as { code?: string }).code ?? 'ERROR';
      deps.log?.('source states unreadable: syncs judged with default figures', { host: key, code });
      return new Map<string, HostStateView>();
    });
    statesByHost.set(key, { at: nowMs, states });
    return states;
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
      const states = await hostStates(key, onHost, now.getTime());
      const inputs = onHost.map((s) => hostSourceInputOf(s, states.get(s.sourceId), nowIso, deps.settings));
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

/** STATE items read at once when a host's figures are loaded (a hosting host has up to a few hundred). */
const STATE_READS = 16;

/**
 * `loadHostStates` over the State table: one GetItem per source of the host (≈ 1 read unit each),
 * STATE_READS at a time — for a host of 40 sources, 40 reads once per PREVIEW_HOST_SOURCES_TTL_MS,
 * and only for hosts a visitor previews from.
 */
export function hostStatesReader(
  state: TableContext,
): (sourceIds: readonly string[]) => Promise<ReadonlyMap<string, HostStateView>> {
  return async (sourceIds) => {
    const items = await mapLimit(sourceIds, STATE_READS, (id) =>
      getSourceState<SourceScheduleState>(state.doc, state.table, id),
    );
    const views = new Map<string, HostStateView>();
    items.forEach((item, i) => {
      const id = sourceIds[i];
      if (id !== undefined && item?.schedule !== undefined) views.set(id, hostStateView(item.schedule));
    });
    return views;
  };
}
