import { documentId, LIST_CATALOGUE } from '../engine';
import { API_PREFIX, apiIdHash } from '../mirror';

/**
 * OPT-2 "at once" (issue 25 weak spot): the API and the preview sit behind CloudFront, which keeps an
 * object for its `max-age` (300 s) and a list page for 60 s — a taken-down object stayed reachable
 * from the cache for up to ~5.5 min after the takedown. A takedown therefore invalidates the paths it
 * changed, through this small port: in AWS one CreateInvalidation per batch on the stack's
 * distribution; locally (no CDN) nothing is cached and the port only records what it would have done.
 * `ingestor tombstone` calls it (cli/commands/takedown.ts); the CloudFront adapter is cli/aws/cdn.ts.
 *
 * The path set (pure, `takedownPaths`):
 * - each taken-down object by its id: `/oparl/v1/<source>/<type>/<api id>`;
 * - each list it was in, every query variant (`modified_since`, `cursor` …): `…/body/<body id>/<list>*`;
 * - each object committed again without it (an embedder: a paper without its file) by its id;
 * - each of its files at the preview: `/documents/<docId>*` (shown and `?download=1`);
 * - a body: the body list `/oparl/v1/body*` and everything under the source (`/oparl/v1/<source>/*`,
 *   the body, its lists and every object of it — one wildcard rather than one path per object).
 */
export interface TakedownTarget {
  sourceId: string;
  /** Lower-case OParl type of the taken-down object. */
  type: string;
  /** Origin id. */
  id: string;
  /** Origin id of its body (its lists); absent for objects outside a body. */
  bodyId?: string;
  /** The body lists it was in (`paper`, `file`, …). */
  lists?: readonly string[];
  /** File URLs of it (its `accessUrl`s as the sync recorded them): the preview's documents. */
  fileUrls?: readonly string[];
}

export interface TakedownChange {
  objects?: readonly TakedownTarget[];
  /**
   * Objects committed again without a taken-down one they embedded: their own URL, and their lists
   * (a list page carries each object inline, and the new commit moves it in `modified_since` order).
   */
  embedders?: readonly Pick<TakedownTarget, 'sourceId' | 'type' | 'id' | 'bodyId' | 'lists'>[];
  /** A taken-down body. */
  body?: { sourceId: string; id: string; fileUrls?: readonly string[] };
}

/** Pure: every CDN path a takedown changed, each once, in a stable order. */
export function takedownPaths(change: TakedownChange): string[] {
  const paths = new Set<string>();
  const objectPath = (t: Pick<TakedownTarget, 'sourceId' | 'type' | 'id'>) =>
    `${API_PREFIX}/${t.sourceId}/${t.type}/${apiIdHash(t.id)}`;
  const documents = (urls: readonly string[] | undefined) => {
    for (const url of urls ?? []) paths.add(`/documents/${documentId(url)}*`);
  };
  if (change.body) {
    paths.add(`${API_PREFIX}/body*`);
    paths.add(`${API_PREFIX}/${change.body.sourceId}/*`);
    documents(change.body.fileUrls);
  }
  const lists = (t: Pick<TakedownTarget, 'sourceId' | 'bodyId' | 'lists'>) => {
    if (t.bodyId === undefined) return;
    for (const list of t.lists ?? [])
      paths.add(`${API_PREFIX}/${t.sourceId}/body/${apiIdHash(t.bodyId)}/${list}*`);
  };
  for (const t of change.objects ?? []) {
    paths.add(objectPath(t));
    lists(t);
    documents(t.fileUrls);
  }
  for (const e of change.embedders ?? []) {
    paths.add(objectPath(e));
    lists(e);
  }
  return withinWildcardBound([...paths]);
}

/**
 * Pure: CloudFront runs at most 15 wildcard paths at a time per distribution (more in progress are
 * refused, TooManyInvalidationsInProgress) — a body with 40 documents, or five papers with their files,
 * would fail after the first batch. Past the bound the wildcards are widened, cheapest first: every
 * document at the preview (`/documents/*`; a stored copy is a cached redirect, refilled at once), then
 * each source's whole API subtree instead of its lists and objects. One takedown then needs one batch
 * unless it spans more than ~13 sources. Widening only invalidates more, never less.
 */
export function withinWildcardBound(paths: readonly string[]): string[] {
  let out = [...new Set(paths)];
  const wildcards = () => out.filter((p) => p.endsWith('*')).length;
  if (wildcards() > INVALIDATION_MAX_WILDCARDS && out.some((p) => p.startsWith('/documents/'))) {
    out = [...out.filter((p) => !p.startsWith('/documents/')), '/documents/*'];
  }
  if (wildcards() > INVALIDATION_MAX_WILDCARDS) {
    const bodies = `${API_PREFIX}/body*`;
    const inSource = (p: string) => p.startsWith(`${API_PREFIX}/`) && p !== bodies;
    const sources = new Set(out.filter(inSource).map((p) => p.slice(API_PREFIX.length + 1).split('/')[0]));
    out = [...out.filter((p) => !inSource(p)), ...[...sources].map((s) => `${API_PREFIX}/${s}/*`)];
  }
  return out.sort();
}

/** Pure: the body lists an object of this type is listed in (the API's `…/body/<id>/<list>`). */
export function bodyListsOf(type: string): string[] {
  return LIST_CATALOGUE.filter((entry) => entry.type === type).map((entry) => entry.list);
}

/** A takedown command's CDN outcome: what was invalidated, or why not (the takedown stands either way). */
export type InvalidationOutcome =
  | ({ ok: true } & InvalidationReport)
  | { ok: false; kind: CdnInvalidator['kind']; paths: string[]; error: { code: string; message: string } };

/**
 * Invalidates after a takedown and never throws: the takedown is recorded before this runs, and a CDN
 * that refuses must not undo or hide it (OPT-2). The failure comes back for the command to report
 * loudly; repeating the command invalidates again.
 */
export async function invalidateAfterTakedown(
  invalidator: CdnInvalidator,
  change: TakedownChange,
  reference: string,
): Promise<InvalidationOutcome> {
  try {
    return { ok: true, ...(await invalidateTakedown(invalidator, change, reference)) };
  } catch (error) {
    const code = (error as { code?: unknown; name?: unknown }).code ?? (error as { name?: unknown }).name;
    return {
      ok: false,
      kind: invalidator.kind,
      paths: takedownPaths(change),
      error: {
        code: typeof code === 'string' ? code : 'CDN_INVALIDATION_FAILED',
        message: error instanceof Error ? error.message : String(error),
      },
    };
  }
}

/** CloudFront: at most 3,000 paths per invalidation, of which at most 15 wildcards in progress. */
export const INVALIDATION_MAX_PATHS = 3000;
export const INVALIDATION_MAX_WILDCARDS = 15;

/** Pure: the paths in batches CloudFront accepts (each within both bounds), in order. */
export function invalidationBatches(paths: readonly string[]): string[][] {
  const batches: string[][] = [];
  let current: string[] = [];
  let wildcards = 0;
  for (const path of paths) {
    const wild = path.endsWith('*');
    if (current.length === INVALIDATION_MAX_PATHS || (wild && wildcards === INVALIDATION_MAX_WILDCARDS)) {
      batches.push(current);
      current = [];
      wildcards = 0;
    }
    current.push(path);
    if (wild) wildcards += 1;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** The port: one call per batch; `reference` makes a retried call the same invalidation (idempotent). */
export interface CdnInvalidator {
  readonly kind: 'cloudfront' | 'none';
  invalidate(paths: readonly string[], reference: string): Promise<void>;
}

export interface InvalidationReport {
  /** `none` locally: nothing was cached, the paths are what a CDN would have been told. */
  kind: CdnInvalidator['kind'];
  paths: string[];
  batches: number;
}

/** Invalidates a takedown's paths in batches; the report names them (the CLI prints it). */
export async function invalidateTakedown(
  invalidator: CdnInvalidator,
  change: TakedownChange,
  reference: string,
): Promise<InvalidationReport> {
  const paths = takedownPaths(change);
  const batches = invalidationBatches(paths);
  for (const [n, batch] of batches.entries()) await invalidator.invalidate(batch, `${reference}-${n}`);
  return { kind: invalidator.kind, paths, batches: batches.length };
}

/** Local mode: no CDN in front — nothing to invalidate; the calls are kept for the report and tests. */
export function recordingInvalidator(): CdnInvalidator & { calls: { paths: string[]; reference: string }[] } {
  const calls: { paths: string[]; reference: string }[] = [];
  return {
    kind: 'none',
    calls,
    async invalidate(paths, reference) {
      calls.push({ paths: [...paths], reference });
    },
  };
}
