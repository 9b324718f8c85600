import { PassThrough, Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SourceConfig } from '../config';
import type { DocumentItem } from '../documents';
import {
  bodyKeyOf,
  CACHE_MAX_FILE_BYTES,
  cacheChange,
  DocumentsStore,
  fetchSourceOf,
  GONE_STATUSES,
  storeVerifiedCopy,
} from '../documents';
import { SyncStateStore } from '../engine';
import { type FetchStreamResult, HttpStatusError, type PoliteFetcher, RETRY_AFTER_STATUSES } from '../fetch';
import type { SourceScheduleState } from '../schedule';
import { documentsRest, isSpared } from '../schedule';
import { fileKey, getSourceState, loadSource, MirrorIndex } from '../store';
import { TakedownRegistry } from '../takedown';
import { hostKey } from '../util';
import type { PreviewHostBudget } from './admission';
import {
  PREVIEW_CONTEXT_TTL_MS,
  PREVIEW_DOC_ID_PATTERN,
  PREVIEW_HOST_BUSY_RETRY_AFTER_S,
  PREVIEW_LINGER_MAX_BYTES,
  PREVIEW_LINGER_MS,
  PREVIEW_MAX_FETCHES_PER_INSTANCE,
  PREVIEW_MAX_WAIT_MS,
  PREVIEW_STORED_REDIRECT_MAX_AGE_S,
} from './constants';
import { previewDecision } from './decide';
import { deliveryAsked, originalUrlFor } from './delivery';
import {
  PreviewBadRequestError,
  PreviewHostBusyError,
  PreviewLimitsUnavailableError,
  PreviewNoPlaceError,
} from './errors';
import { LocalPlaces, type PreviewLimits, type VisitorVerdict } from './limits';
import {
  badRequest,
  busy,
  errorPage,
  fileHeaders,
  gone,
  notFound,
  page,
  redirect,
  retryAfterSeconds,
  safeFileName,
  tooManyRequests,
} from './respond';
import { headStoredObject, presignStoredObject } from './stored-url';
import type { Delivery, PreviewRequest, PreviewResponse } from './types';

/**
 * The preview endpoint's core (PRV-1 … PRV-4): `GET /documents/{docId}` over node-agnostic request and
 * response types. The document id is the Documents table key (SHA-256 of the file URL): only files
 * the sync recorded can be asked for, and only their recorded URL is ever fetched — no open proxy.
 * `?download=1` (OParl's downloadUrl) changes the Content-Disposition of the answer and nothing else:
 * the same decision, the same stored copy or fetch — a flight is shared by both kinds of visitor.
 */
export interface PreviewDeps {
  doc: DynamoDBDocumentClient;
  s3: S3Client;
  bucket: string;
  tables: { sources: string; state: string; documents: string };
  fetcher: PoliteFetcher;
  limits: PreviewLimits;
  /** RATE-2: the largest interval of any source on a host, ms. */
  hostIntervalMs?: (host: string) => number | undefined;
  /**
   * RATE-9 (issue 27 item 5): the host budget an on-demand fetch is admitted against and its requests
   * counted in. Without it every host is admitted (the host slots still keep every pace).
   */
  hostBudget?: PreviewHostBudget;
  log?: (event: string, fields: Record<string, unknown>) => void;
  /** Overrides for tests and the bench; defaults are the PRV numbers. */
  maxWaitMs?: number;
  maxFetchesPerInstance?: number;
  /** How long a finished fetch still serves openings of the same document (PREVIEW_LINGER_MS). */
  lingerMs?: number;
  now?: () => Date;
}

export interface PreviewHandler {
  handle(request: PreviewRequest): Promise<PreviewResponse>;
  /** On-demand fetches in flight or lingering in this instance (coalesced requests count once). */
  readonly inFlight: number;
}

interface FlightHead {
  contentType: string | undefined;
  finalUrl: string;
}

/**
 * One on-demand fetch of one document, shared by every request for it that arrives while it runs
 * (the bench goal: 100 visitors → 1 source request). Chunks are kept for late joiners until the flight
 * ends — at most the 80 MB file limit per flight, and at most PRV-2's four flights per instance.
 */
class Flight {
  readonly chunks: Buffer[] = [];
  done = false;
  error: unknown;
  head!: Promise<FlightHead>;
  after: Promise<void> = Promise.resolve();
  /** The flight's requests are in the host ledger (RATE-9): the leader's invocation waits for it too. */
  readonly recorded: Promise<void>;
  private markRecorded!: () => void;
  private wake: (() => void) | undefined;
  private changed: Promise<void> = this.renew();

  constructor(readonly item: DocumentItem) {
    this.recorded = new Promise<void>((resolve) => {
      this.markRecorded = resolve;
    });
  }

  recordedBy(recording: Promise<void> | undefined): void {
    const done = this.markRecorded;
    if (recording === undefined) done();
    else recording.then(done, done);
  }

  private renew(): Promise<void> {
    const p = new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    this.changed = p;
    return p;
  }

  notify(): void {
    const wake = this.wake;
    this.renew();
    wake?.();
  }

  /** A stream of the whole file from its first byte, whenever the subscriber joined. */
  subscribe(): Readable {
    const flight = this;
    async function* replay(): AsyncGenerator<Buffer> {
      let i = 0;
      for (;;) {
        while (i < flight.chunks.length) {
          const chunk = flight.chunks[i];
          i += 1;
          if (chunk) yield chunk;
        }
        if (flight.error !== undefined) throw flight.error;
        if (flight.done) return;
        await flight.changed;
      }
    }
    return Readable.from(replay(), { objectMode: false });
  }
}

interface Context {
  source: SourceConfig | undefined;
  spared: boolean;
  listed: boolean;
}

/** Codes after which nothing was requested and a later try may succeed: 503 + Retry-After (PRV-1). */
const NO_SLOT_CODES = new Set([
  'HOST_SLOT_TIMEOUT',
  'SEND_LATE',
  'CIRCUIT_OPEN',
  'ROBOTS_UNREACHABLE',
  'PREVIEW_NO_PLACE',
  'PREVIEW_LIMITS_UNAVAILABLE',
  'PREVIEW_HOST_BUSY',
]);

export function createPreviewHandler(deps: PreviewDeps): PreviewHandler {
  const maxWaitMs = deps.maxWaitMs ?? PREVIEW_MAX_WAIT_MS;
  const lingerMs = deps.lingerMs ?? PREVIEW_LINGER_MS;
  const places = new LocalPlaces(deps.maxFetchesPerInstance ?? PREVIEW_MAX_FETCHES_PER_INSTANCE);
  const flights = new Map<string, Flight>();
  const store = new DocumentsStore(deps.doc, deps.tables.documents);
  const registry = new TakedownRegistry(deps.doc, deps.tables.state);
  const mirrorIndex = new MirrorIndex({ doc: deps.doc, table: deps.tables.state });
  const now = deps.now ?? (() => new Date());
  const cache = new Map<string, { at: number; value: Promise<unknown> }>();
  const log = deps.log ?? (() => undefined);

  /** Source config, sync state and body flags change rarely: reused for 30 s per process. */
  function cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = cache.get(key);
    if (hit && Date.now() - hit.at < PREVIEW_CONTEXT_TTL_MS) return hit.value as Promise<T>;
    const value = load();
    cache.set(key, { at: Date.now(), value });
    value.catch(() => cache.delete(key));
    return value;
  }

  async function contextOf(item: DocumentItem): Promise<Context> {
    const [parsed, state, body] = await Promise.all([
      cached(`source|${item.sourceId}`, () => loadSource(deps.doc, deps.tables.sources, item.sourceId)),
      cached(`state|${item.sourceId}`, () =>
        getSourceState<SourceScheduleState>(deps.doc, deps.tables.state, item.sourceId),
      ),
      cached(`body|${item.sourceId}|${item.bodyId}`, () =>
        new SyncStateStore({ doc: deps.doc }, deps.tables.state, item.sourceId).getBody(
          bodyKeyOf(item.bodyId),
        ),
      ),
    ]);
    const source = parsed?.ok ? parsed.source : undefined;
    const schedule = state?.schedule;
    // ERR-6 / PRV-4: spared (paused) or resting after the 3rd failed sync run in a row.
    const spared =
      (schedule?.pause !== undefined && isSpared({ pause: schedule.pause }, now().toISOString())) ||
      documentsRest({ failureStreak: schedule?.failureStreak ?? 0 }).rest;
    // DOC-7 / ONB-4: the body's current flag; the sync's copy on the item as fallback.
    const listed =
      item.takedownAt === undefined &&
      (body === undefined ? item.listed === true : body.listed === true && body.deleted !== true);
    return { source, spared, listed };
  }

  /**
   * OPT-2: the File object is tombstoned in the mirror index (by the source or an operator); OPT-5: or
   * it, or its body, is in the takedown registry — which outlives a purge of the index entry and a
   * `tombstone` killed before it flagged the item. Both reads run side by side.
   */
  async function tombstoned(item: DocumentItem): Promise<boolean> {
    const [index, takedowns] = await Promise.all([
      item.fileId === undefined
        ? undefined
        : mirrorIndex.get(item.sourceId, 'file', item.fileId, { consistent: false }),
      registry.find(item.sourceId, [
        { scope: 'object', id: item.fileId ?? item.docId },
        { scope: 'body', id: item.bodyId },
      ]),
    ]);
    return index?.deleted === true || takedowns.length > 0;
  }

  /**
   * A stored copy (PRV-3) is not streamed through the function: the visitor is redirected to a
   * short-lived presigned S3 URL carrying our safe Content-Type and Content-Disposition (from the
   * object's stored headers and what the visitor asked for). S3 serves the bytes, Range requests
   * included. The disposition is inside the signature, so a view and a download are two URLs.
   */
  async function redirectToStored(
    item: DocumentItem,
    key: string,
    delivery: Delivery,
  ): Promise<PreviewResponse | undefined> {
    const head = await headStoredObject(deps.s3, deps.bucket, key);
    if (head === undefined) return undefined;
    const contentType = head.contentType ?? item.contentType;
    const safe = fileHeaders(
      contentType,
      safeFileName(item.fetchedUrl ?? item.url, contentType, fallbackName(item)),
      { delivery },
    );
    const location = await presignStoredObject(
      deps,
      key,
      {
        contentType: safe['content-type'] as string,
        contentDisposition: safe['content-disposition'] as string,
      },
      { signedAt: now() },
    );
    return redirect(location, {
      'x-preview-source': 'stored',
      // Shared caches (CloudFront) may answer the same redirect for a minute: the URL outlives it. Its
      // cache key holds `download`, so a view's redirect is never answered to a download or back.
      'cache-control': `public, max-age=${PREVIEW_STORED_REDIRECT_MAX_AGE_S}`,
    });
  }

  function startFlight(item: DocumentItem, source: SourceConfig, storeIt: boolean): Flight {
    const flight = new Flight(item);
    flights.set(item.docId, flight);
    const deadline = Date.now() + maxWaitMs;
    let releasePlace: (() => void) | undefined;
    let releaseGlobal: (() => Promise<void>) | undefined;
    const releaseAll = async () => {
      releasePlace?.();
      releasePlace = undefined;
      await releaseGlobal?.();
      releaseGlobal = undefined;
    };
    const finish = (error?: unknown) => {
      if (error !== undefined) flight.error = error;
      flight.done = true;
      flight.notify();
      // RATE-9: this fetch's requests (robots.txt, hops, the file) into the host ledger.
      flight.recordedBy(deps.hostBudget?.record());
      const forget = () => {
        if (flights.get(item.docId) === flight) flights.delete(item.docId);
      };
      const size = flight.chunks.reduce((n, c) => n + c.length, 0);
      // Openings that arrive just after a small file finished belong to the same rush ("at once"):
      // they get the bytes in memory instead of a second request. Kept in memory only, never stored.
      // Stored documents need no linger: the next opening reads our S3 copy (PRV-3).
      if (error === undefined && !storeIt && size <= PREVIEW_LINGER_MAX_BYTES)
        setTimeout(forget, lingerMs).unref();
      else forget();
    };
    flight.head = (async (): Promise<FlightHead> => {
      let result: FetchStreamResult;
      try {
        // RATE-9 / RATE-1 (issue 27 item 5): may this host take another fetch now? Asked side by side
        // with the places (one ledger read), since both come out of the visitor's PRV-1 budget.
        const admitting = deps.hostBudget?.admit(item.url, now());
        admitting?.catch(() => undefined);
        // PRV-1: the concurrency place is part of the 5 s budget; PRV-2: four per instance, global cap.
        releasePlace = await places.acquire(deadline);
        if (!releasePlace) throw new PreviewNoPlaceError(Date.now() + 1_000);
        releaseGlobal = await deps.limits.acquireGlobal();
        if (!releaseGlobal) throw new PreviewNoPlaceError(Date.now() + 1_000);
        const admission = await admitting;
        if (admission !== undefined && !admission.allowed) {
          // Nothing asked of the host: its syncs and other fetches leave no room, or it is paused (RATE-8).
          log('preview host busy', {
            docId: item.docId,
            sourceId: item.sourceId,
            host: hostKey(item.url),
            reason: admission.reason,
            ruleIds: admission.ruleIds,
          });
          throw new PreviewHostBusyError(
            admission.reason,
            Date.now() + PREVIEW_HOST_BUSY_RETRY_AFTER_S * 1000,
          );
        }
        const host = hostKey(item.url);
        const hostIntervalMs = deps.hostIntervalMs?.(host);
        result = await deps.fetcher.stream(item.url, {
          purpose: 'file',
          source: fetchSourceOf(source),
          maxBytes: CACHE_MAX_FILE_BYTES,
          // What is left of the PRV-1 budget for robots.txt and the slots (redirect hops included).
          maxWaitMs: Math.max(1, deadline - Date.now()),
          ...(hostIntervalMs === undefined ? {} : { hostIntervalMs }),
        });
      } catch (error) {
        await releaseAll();
        finish(error);
        throw error;
      }
      if (result.notModified || result.status < 200 || result.status >= 300) {
        result.body.destroy();
        await releaseAll();
        const error = new HttpStatusError(item.url, result.status);
        finish(error);
        throw error;
      }
      const upload = storeIt ? new PassThrough() : undefined;
      // PRV-3 through DOC-5's write path: streamed to the incoming key, promoted to the live key only
      // as a complete file (a body that fails destroys `upload`, which aborts the upload) of a document
      // not taken down (OPT-5, asked before and after the promotion).
      const stored = upload
        ? storeVerifiedCopy(deps, fileKey(item.sourceId, item.docId), upload, result.contentType, {
            mayKeep: async () => !(await tombstoned(item)),
          })
        : undefined;
      // Keep the rejection observed even when nobody awaits `after` (a failed fetch).
      stored?.catch(() => undefined);
      result.body.on('data', (chunk: Buffer) => {
        flight.chunks.push(chunk);
        upload?.write(chunk);
        flight.notify();
      });
      result.body.once('end', () => {
        upload?.end();
        void releaseAll();
        finish();
      });
      result.body.once('error', (error) => {
        upload?.destroy(error);
        void releaseAll();
        finish(error);
      });
      if (stored) {
        flight.after = (async () => {
          try {
            const copy = await stored;
            if (copy.kind === 'not-kept') {
              // OPT-5: taken down while this fetch ran — the copy never stays at the live key.
              log('preview copy dropped', { docId: item.docId, sourceId: item.sourceId, ruleIds: ['OPT-5'] });
              return;
            }
            if (copy.kind !== 'stored') return;
            const object = copy.object;
            // PRV-3: recorded as the document cache records its own copies (same decision, same write).
            const change = cacheChange(
              item,
              {
                kind: 'stored',
                size: object.size,
                sha256: object.sha256,
                fetchedUrl: result.finalUrl,
                ...(result.contentType === undefined ? {} : { contentType: result.contentType }),
                ...(result.etag === undefined ? {} : { etag: result.etag }),
                ...(result.lastModified === undefined ? {} : { lastModified: result.lastModified }),
              },
              now(),
            );
            const applied = await store.apply(item, change);
            log('preview stored', { docId: item.docId, sourceId: item.sourceId, applied, size: object.size });
          } catch (error) {
            // The visitor got the file; the cache stores it on its own schedule (DOC-3).
            log('preview store failed', { docId: item.docId, error: String(error) });
          }
        })();
      }
      return { contentType: result.contentType, finalUrl: result.finalUrl };
    })();
    flight.head.catch(() => undefined);
    return flight;
  }

  async function serveFetch(
    item: DocumentItem,
    source: SourceConfig,
    storeIt: boolean,
    delivery: Delivery,
  ): Promise<PreviewResponse> {
    const joined = flights.get(item.docId);
    return subscribeTo(joined ?? startFlight(item, source, storeIt), item, joined !== undefined, delivery);
  }

  /**
   * One visitor's answer from a flight: the bytes are the flight's, the headers this visitor's own — a
   * download joining a view's flight (or the reverse) gets the disposition it asked for.
   */
  async function subscribeTo(
    flight: Flight,
    item: DocumentItem,
    joined: boolean,
    delivery: Delivery,
  ): Promise<PreviewResponse> {
    let head: FlightHead;
    try {
      head = await flight.head;
    } catch (error) {
      return fetchErrorResponse(item, error);
    }
    return {
      status: 200,
      headers: fileHeaders(
        head.contentType,
        safeFileName(head.finalUrl, head.contentType, fallbackName(item)),
        {
          delivery,
          extra: { 'x-preview-source': joined ? 'coalesced' : 'fetched' },
        },
      ),
      body: flight.subscribe(),
      // Only the leader's invocation waits for the upload and the ledger record (a Lambda instance
      // serves one request).
      ...(joined ? {} : { after: Promise.all([flight.after, flight.recorded]).then(() => undefined) }),
    };
  }

  function fetchErrorResponse(item: DocumentItem, error: unknown): PreviewResponse {
    const code = (error as { code?: unknown })?.code;
    const retryAt = (error as { retryAt?: unknown })?.retryAt;
    log('preview fetch failed', { docId: item.docId, sourceId: item.sourceId, code: String(code) });
    if (typeof code === 'string' && NO_SLOT_CODES.has(code)) {
      // PRV-1: rather than exceed the pace, ask the visitor to come back.
      return busy(
        retryAfterSeconds(typeof retryAt === 'number' ? retryAt : undefined, Date.now()),
        'Server ausgelastet',
      );
    }
    if (code === 'ROBOTS_DISALLOWED') return errorPage('robots', item.url);
    if (code === 'HTML_INSTEAD_OF_FILE') return errorPage('bot-protection', item.url);
    if (code === 'RESPONSE_TOO_LARGE') return errorPage('too-large', item.url);
    if (error instanceof HttpStatusError) {
      if (GONE_STATUSES.has(error.status)) return gone('bei der Quelle nicht mehr vorhanden');
      if (RETRY_AFTER_STATUSES.has(error.status)) {
        return busy(retryAfterSeconds(error.retryAt, Date.now()), 'Quelle bittet um Geduld');
      }
    }
    return errorPage('source-error', item.url);
  }

  async function handle(request: PreviewRequest): Promise<PreviewResponse> {
    const match = /^\/documents\/([^/]+)\/?$/.exec(request.path);
    const docId = match?.[1];
    if (docId === undefined || !PREVIEW_DOC_ID_PATTERN.test(docId)) return notFound();
    if (request.method !== 'GET') {
      return {
        ...page(405, 'Methode nicht erlaubt', 'Nur GET.'),
        headers: { ...page(405, '', '').headers, allow: 'GET' },
      };
    }
    // Like the method, the query is checked before anything is counted or read: it names no document.
    let delivery: Delivery;
    try {
      delivery = deliveryAsked(request.query);
    } catch (error) {
      if (!(error instanceof PreviewBadRequestError)) throw error;
      log('preview bad request', { code: error.code });
      return badRequest();
    }
    // PRV-2: counted before anything is read, so unknown ids cannot be probed faster either.
    let verdict: VisitorVerdict | undefined;
    try {
      verdict = await deps.limits.visitor(request.visitorAddress);
    } catch (error) {
      if (!(error instanceof PreviewLimitsUnavailableError)) throw error;
      // Redis unreachable: what needs no source request is still answered; fetches get 503 (below).
      log('preview limits unavailable', { code: error.code });
    }
    if (verdict && !verdict.allowed) return tooManyRequests(verdict.retryAfterS);
    const limitsDown = verdict === undefined;

    // A fetch of this document is under way in this instance: it was decided moments ago, join it
    // without reading anything (the bench goal: 100 visitors at once → 1 source request).
    const running = flights.get(docId);
    if (running) return subscribeTo(running, running.item, true, delivery);

    const item = await store.get(docId);
    if (item === undefined) return notFound();
    const [context, isTombstoned] = await Promise.all([contextOf(item), tombstoned(item)]);
    let decision = previewDecision(item, context.source, { ...context, tombstoned: isTombstoned });
    if (decision.kind === 'stored') {
      const response = await redirectToStored(item, decision.key, delivery);
      if (response) return response;
      // The record names a copy S3 does not have: decide as if it were not stored.
      const { storedKey: _drop, ...rest } = item;
      decision = previewDecision({ ...rest, state: 'pending' }, context.source, {
        ...context,
        tombstoned: isTombstoned,
      });
    }
    switch (decision.kind) {
      case 'stored':
      case 'not-found':
        return notFound();
      case 'gone':
        return gone(decision.reason);
      case 'error-page':
        return errorPage(decision.page, item.url);
      case 'original':
        // PRV-4: the visitor goes to the source; we request nothing.
        return redirect(originalUrlFor(item, delivery), {
          'x-preview-reason': decision.reason.replace(/[^\w -]/g, ''),
        });
      case 'fetch':
        if (!context.source) return notFound();
        // PRV-1 / PRV-2: no fetch without the limits (and the shared pace in the same Redis).
        if (limitsDown) return fetchErrorResponse(item, new PreviewLimitsUnavailableError());
        return serveFetch(item, context.source, decision.store, delivery);
    }
  }

  return {
    handle,
    get inFlight() {
      return flights.size;
    },
  };
}

function fallbackName(item: Pick<DocumentItem, 'docId'>): string {
  return `dokument-${item.docId.slice(0, 12)}`;
}
