import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DocumentItem } from '../documents';
import { DocumentsStore } from '../documents';
import type { PoliteFetcher } from '../fetch';
import type { MirrorTablePlacement } from '../store';
import type { PreviewHostBudget } from './admission';
import {
  PREVIEW_DOC_ID_PATTERN,
  PREVIEW_LINGER_MS,
  PREVIEW_MAX_FETCHES_PER_INSTANCE,
  PREVIEW_MAX_WAIT_MS,
} from './constants';
import { type DocumentContext, DocumentContextReader } from './context';
import { previewDecision } from './decide';
import { deliveryAsked, originalUrlFor } from './delivery';
import { PreviewBadRequestError, PreviewLimitsUnavailableError } from './errors';
import { fetchErrorResponse } from './fetch-error';
import { type Flight, type FlightHead, type FlightRoom, startFlight } from './flight';
import { LocalPlaces, type PreviewLimits, type VisitorVerdict } from './limits';
import {
  badRequest,
  documentFileName,
  errorPage,
  fileHeaders,
  gone,
  notFound,
  page,
  redirect,
  tooManyRequests,
} from './respond';
import { redirectToStored } from './stored-url';
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
  tables: { sources: string; state: string; documents: string; mirror?: MirrorTablePlacement };
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

export function createPreviewHandler(deps: PreviewDeps): PreviewHandler {
  return new PreviewEndpoint(deps);
}

/** What a request asks for once its path, method and query were checked. */
interface Asked {
  docId: string;
  delivery: Delivery;
}

/**
 * The endpoint's steps: the request's shape, the visitor's count (PRV-2), a running flight to join, then
 * the document's decision (PRV-1 … PRV-4) and its answer — a redirect, a page, or a fetch's bytes.
 */
class PreviewEndpoint implements PreviewHandler {
  private readonly room: FlightRoom;
  private readonly context: DocumentContextReader;
  private readonly store: DocumentsStore;
  private readonly log: (event: string, fields: Record<string, unknown>) => void;
  private readonly now: () => Date;

  constructor(private readonly deps: PreviewDeps) {
    this.now = deps.now ?? (() => new Date());
    this.log = deps.log ?? (() => undefined);
    this.store = new DocumentsStore(deps.doc, deps.tables.documents);
    this.context = new DocumentContextReader({ doc: deps.doc, tables: deps.tables, now: this.now });
    this.room = {
      flights: new Map<string, Flight>(),
      places: new LocalPlaces(deps.maxFetchesPerInstance ?? PREVIEW_MAX_FETCHES_PER_INSTANCE),
      limits: deps.limits,
      fetcher: deps.fetcher,
      bucket: { s3: deps.s3, bucket: deps.bucket },
      store: this.store,
      ...(deps.hostBudget === undefined ? {} : { hostBudget: deps.hostBudget }),
      ...(deps.hostIntervalMs === undefined ? {} : { hostIntervalMs: deps.hostIntervalMs }),
      tombstoned: (item) => this.context.tombstoned(item),
      maxWaitMs: deps.maxWaitMs ?? PREVIEW_MAX_WAIT_MS,
      lingerMs: deps.lingerMs ?? PREVIEW_LINGER_MS,
      log: this.log,
      now: this.now,
    };
  }

  get inFlight(): number {
    return this.room.flights.size;
  }

  async handle(request: PreviewRequest): Promise<PreviewResponse> {
    const asked = this.askedOf(request);
    if (!('docId' in asked)) return asked;
    // PRV-2: counted before anything is read, so unknown ids cannot be probed faster either.
    let verdict: VisitorVerdict | undefined;
    try {
      verdict = await this.deps.limits.visitor(request.visitorAddress);
    } catch (error) {
      if (!(error instanceof PreviewLimitsUnavailableError)) throw error;
      // Redis unreachable: what needs no source request is still answered; fetches get 503 (below).
      this.log('preview limits unavailable', { code: error.code });
    }
    if (verdict && !verdict.allowed) return tooManyRequests(verdict.retryAfterS);
    // A fetch of this document is under way in this instance: it was decided moments ago, join it
    // without reading anything (the bench goal: 100 visitors at once → 1 source request).
    const running = this.room.flights.get(asked.docId);
    if (running) return this.subscribeTo(running, { joined: true, delivery: asked.delivery });
    return this.answerDocument(asked, { limitsDown: verdict === undefined });
  }

  /** The path names a document, the method is GET, the query is well-formed — or the refusal. */
  private askedOf(request: PreviewRequest): Asked | PreviewResponse {
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
    try {
      return { docId, delivery: deliveryAsked(request.query) };
    } catch (error) {
      if (!(error instanceof PreviewBadRequestError)) throw error;
      this.log('preview bad request', { code: error.code });
      return badRequest();
    }
  }

  /** The document's decision from its item and context, and the answer it leads to. */
  private async answerDocument(
    { docId, delivery }: Asked,
    { limitsDown }: { limitsDown: boolean },
  ): Promise<PreviewResponse> {
    const item = await this.store.get(docId);
    if (item === undefined) return notFound();
    const [context, tombstoned] = await Promise.all([
      this.context.contextOf(item),
      this.context.tombstoned(item),
    ]);
    const facts = { ...context, tombstoned };
    let decision = previewDecision(item, context.source, facts);
    if (decision.kind === 'stored') {
      // PRV-3: our copy is served by S3 through a presigned redirect, never streamed through here.
      const response = await redirectToStored(this.room.bucket, {
        item,
        key: decision.key,
        delivery,
        signedAt: this.now(),
      });
      if (response) return response;
      // The record names a copy S3 does not have: decide as if it were not stored.
      const { storedKey: _drop, ...rest } = item;
      decision = previewDecision({ ...rest, state: 'pending' }, context.source, facts);
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
        return this.serveFetch(item, context, { storeIt: decision.store, delivery, limitsDown });
    }
  }

  private async serveFetch(
    item: DocumentItem,
    { source }: DocumentContext,
    { storeIt, delivery, limitsDown }: { storeIt: boolean; delivery: Delivery; limitsDown: boolean },
  ): Promise<PreviewResponse> {
    if (!source) return notFound();
    // PRV-1 / PRV-2: no fetch without the limits (and the shared pace in the same Redis).
    if (limitsDown) return this.fetchFailed(item, new PreviewLimitsUnavailableError());
    const joined = this.room.flights.get(item.docId);
    const flight = joined ?? startFlight(this.room, { item, source, storeIt });
    return this.subscribeTo(flight, { joined: joined !== undefined, delivery });
  }

  /**
   * One visitor's answer from a flight: the bytes are the flight's, the headers this visitor's own — a
   * download joining a view's flight (or the reverse) gets the disposition it asked for.
   */
  private async subscribeTo(
    flight: Flight,
    { joined, delivery }: { joined: boolean; delivery: Delivery },
  ): Promise<PreviewResponse> {
    let head: FlightHead;
    try {
      head = await flight.head;
    } catch (error) {
      return this.fetchFailed(flight.item, error);
    }
    return {
      status: 200,
      headers: fileHeaders(
        head.contentType,
        documentFileName(flight.item.docId, head.finalUrl, head.contentType),
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

  private fetchFailed(item: DocumentItem, error: unknown): PreviewResponse {
    const code = (error as { code?: unknown })?.code;
    this.log('preview fetch failed', { docId: item.docId, sourceId: item.sourceId, code: String(code) });
    return fetchErrorResponse(item, error, Date.now());
  }
}
