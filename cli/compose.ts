import type { BroadcastRuntime } from '../shared/broadcasts';
import { upstashCredentials } from '../shared/config';
import type { DocumentsRuntime } from '../shared/documents';
import type { FetchEvent } from '../shared/fetch';
import type { FetchRuntime, FetchRuntimeOptions } from '../shared/fetch-runtime';
import type { GeoRuntime } from '../shared/geo';
import type { PreviewRuntime } from '../shared/preview';
import type { HostLedger } from '../shared/slots';
import type { SyncRuntime } from '../shared/sync';
import type { LocalRuntime } from './local/runtime';

/**
 * The CLI's composition root (issue 29 item 3): every collaborator a command builds beyond the runtime's
 * clients — the polite fetcher, the host ledger, the sync, geo, broadcast, document and preview
 * runtimes — is wired here, over the clients of the runtime the command runs on (local peers under
 * `--data`, or `--aws`). Commands take their dependencies from `composeCli(rt)` and build no client,
 * fetcher or ledger themselves (test/repo/composition-roots.test.ts). The runtime itself — clients,
 * queues, CloudFront — is opened by `cli/local/runtime.ts` or `cli/aws/runtime.ts`, the two modes.
 *
 * Each runtime module is imported when its builder is called: `status` must not load the sync engine.
 */
export interface CliComposition {
  /** ONB-1/ONB-2: the fetcher of `probe` and `sources add|import`, at each host's pace. */
  fetchRuntime(options?: Pick<FetchRuntimeOptions, 'onRequest' | 'wrapSlots'>): Promise<FetchRuntime>;
  /**
   * RATE-8 / ROB-10 / item 5: the host ledger `status` and `hosts` plan with, as the planner does —
   * Upstash with `--aws`; locally this process's own. Undefined when the Upstash token cannot be read.
   */
  hostLedger(): Promise<HostLedger | undefined>;
  /** One manual sync (`sync --url`). */
  sync(options?: Progressed): Promise<SyncRuntime>;
  /** OTH-4: the geo refresh (`geo refresh`, `npm start`'s daily pass). */
  geo(): Promise<GeoRuntime>;
  /** OTH-5: the broadcast poll (`broadcasts poll`, `npm start`'s pass after each tick). */
  broadcasts(): Promise<BroadcastRuntime>;
  /** DOC-1…7, DEL, PHO: the document passes (`files`, `deletion-check`, `photos`, `npm start`). */
  documents(options?: Progressed): Promise<DocumentsRuntime>;
  /** PRV-1…4: the preview of the local serve port (`serve`, `npm start`). */
  preview(): Promise<PreviewRuntime>;
}

interface Progressed {
  /** Each request as it is made, for the command's progress lines. */
  onRequest?: (event: FetchEvent) => void;
}

export interface CliComposeOptions {
  /**
   * The runtime's `--allow-loopback` unless given: `npm start` allows loopback for the bundled demo
   * council even without the switch (its fetching passes get the same switch as the sync handlers).
   */
  allowLoopback?: boolean;
}

export function composeCli(
  rt: Pick<LocalRuntime, 'env' | 'clients'>,
  options: CliComposeOptions = {},
): CliComposition {
  const env =
    options.allowLoopback === undefined
      ? rt.env
      : { ...rt.env, INGESTOR_ALLOW_LOOPBACK: options.allowLoopback };
  const { clients } = rt;
  const progressed = (o: Progressed = {}) => ({
    clients,
    ...(o.onRequest ? { onRequest: o.onRequest } : {}),
  });
  return {
    async fetchRuntime(o = {}) {
      const { createFetchRuntime } = await import('../shared/fetch-runtime');
      return createFetchRuntime(env, {
        clients,
        ...(o.onRequest ? { onRequest: o.onRequest } : {}),
        ...(o.wrapSlots ? { wrapSlots: o.wrapSlots } : {}),
      });
    },
    async hostLedger() {
      const credentials = await upstashCredentials(env).catch(() => null);
      if (credentials === null) return undefined;
      const { createHostLedgerFromEnv } = await import('../shared/slots');
      return createHostLedgerFromEnv(env, credentials ? { token: credentials.token } : {});
    },
    async sync(o) {
      return (await import('../shared/sync')).composeSync(env, progressed(o));
    },
    async geo() {
      return (await import('../shared/geo')).composeGeo(env, { clients });
    },
    async broadcasts() {
      return (await import('../shared/broadcasts')).composeBroadcasts(env, { clients });
    },
    async documents(o) {
      return (await import('../shared/documents')).composeDocuments(env, progressed(o));
    },
    async preview() {
      return (await import('../shared/preview')).composePreview(env, { clients });
    },
  };
}
