import { PassThrough, Readable } from 'node:stream';
import type { SourceConfig } from '../config';
import type { BucketAccess, DocumentItem, DocumentsStore, VerifiedCopy } from '../documents';
import {
  CACHE_MAX_FILE_BYTES,
  cacheChange,
  fetchSourceOf,
  storedOutcome,
  storeVerifiedCopy,
} from '../documents';
import { type FetchStreamResult, HttpStatusError, type PoliteFetcher } from '../fetch';
import { fileKey } from '../store';
import { hostKey } from '../util';
import type { PreviewHostBudget } from './admission';
import { PREVIEW_HOST_BUSY_RETRY_AFTER_S, PREVIEW_LINGER_MAX_BYTES } from './constants';
import { PreviewHostBusyError, PreviewNoPlaceError } from './errors';
import type { LocalPlaces, PreviewLimits } from './limits';

export interface FlightHead {
  contentType: string | undefined;
  finalUrl: string;
}

/**
 * One on-demand fetch of one document, shared by every request for it that arrives while it runs
 * (the bench goal: 100 visitors → 1 source request). Chunks are kept for late joiners until the flight
 * ends — at most the 80 MB file limit per flight, and at most PRV-2's four flights per instance.
 */
export class Flight {
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

/** What every flight of one preview handler shares: its places, peers, store and settings. */
export interface FlightRoom {
  /** The flights in this instance by document id (running, or lingering after a small file). */
  flights: Map<string, Flight>;
  places: LocalPlaces;
  limits: PreviewLimits;
  fetcher: PoliteFetcher;
  bucket: BucketAccess;
  store: DocumentsStore;
  hostBudget?: PreviewHostBudget;
  hostIntervalMs?: (host: string) => number | undefined;
  /** OPT-2 / OPT-5: the document is taken down — asked again before a stored copy goes live. */
  tombstoned: (item: DocumentItem) => Promise<boolean>;
  maxWaitMs: number;
  lingerMs: number;
  log: (event: string, fields: Record<string, unknown>) => void;
  now: () => Date;
}

/** One flight's order: the document, its source, and whether its copy is stored (PRV-3). */
export interface FlightOrder {
  item: DocumentItem;
  source: SourceConfig;
  storeIt: boolean;
}

/**
 * Starts the fetch of `order.item` as a flight others may join; the flight is in `room.flights` until
 * it ends (or its linger does). `flight.head` settles once the source answered, with the file's head
 * or the reason it will not be served.
 */
export function startFlight(room: FlightRoom, order: FlightOrder): Flight {
  const flight = new Flight(order.item);
  room.flights.set(order.item.docId, flight);
  const holds = new FlightHolds();
  const finish = (error?: unknown) => endFlight(room, flight, { storeIt: order.storeIt, error });
  flight.head = (async (): Promise<FlightHead> => {
    let result: FetchStreamResult;
    try {
      result = await admittedFetch(room, order, holds);
    } catch (error) {
      await holds.release();
      finish(error);
      throw error;
    }
    if (result.notModified || result.status < 200 || result.status >= 300) {
      result.body.destroy();
      await holds.release();
      const error = new HttpStatusError(order.item.url, result.status);
      finish(error);
      throw error;
    }
    const stored = relayBody(room, { flight, result, storeIt: order.storeIt, holds, finish });
    if (stored) flight.after = recordStoredCopy(room, order.item, stored, result);
    return { contentType: result.contentType, finalUrl: result.finalUrl };
  })();
  flight.head.catch(() => undefined);
  return flight;
}

/** The places a flight holds while it fetches (PRV-2): this instance's and the global one. */
class FlightHolds {
  place: (() => void) | undefined;
  global: (() => Promise<void>) | undefined;

  async release(): Promise<void> {
    this.place?.();
    this.place = undefined;
    await this.global?.();
    this.global = undefined;
  }
}

/**
 * The places, the host's admission and then the request itself, all inside the visitor's PRV-1 budget.
 * Throws (with nothing asked of the host) where a place or the host's room is missing.
 */
async function admittedFetch(
  room: FlightRoom,
  { item, source }: FlightOrder,
  holds: FlightHolds,
): Promise<FetchStreamResult> {
  const deadline = Date.now() + room.maxWaitMs;
  // RATE-9 / RATE-1 (issue 27 item 5): may this host take another fetch now? Asked side by side
  // with the places (one ledger read), since both come out of the visitor's PRV-1 budget.
  const admitting = room.hostBudget?.admit(item.url, room.now());
  admitting?.catch(() => undefined);
  // PRV-1: the concurrency place is part of the 5 s budget; PRV-2: four per instance, global cap.
  holds.place = await room.places.acquire(deadline);
  if (!holds.place) throw new PreviewNoPlaceError(Date.now() + 1_000);
  holds.global = await room.limits.acquireGlobal();
  if (!holds.global) throw new PreviewNoPlaceError(Date.now() + 1_000);
  const admission = await admitting;
  if (admission !== undefined && !admission.allowed) {
    // Nothing asked of the host: its syncs and other fetches leave no room, or it is paused (RATE-8).
    room.log('preview host busy', {
      docId: item.docId,
      sourceId: item.sourceId,
      host: hostKey(item.url),
      reason: admission.reason,
      ruleIds: admission.ruleIds,
    });
    throw new PreviewHostBusyError(admission.reason, Date.now() + PREVIEW_HOST_BUSY_RETRY_AFTER_S * 1000);
  }
  const hostIntervalMs = room.hostIntervalMs?.(hostKey(item.url));
  return room.fetcher.stream(item.url, {
    purpose: 'file',
    source: fetchSourceOf(source),
    maxBytes: CACHE_MAX_FILE_BYTES,
    // What is left of the PRV-1 budget for robots.txt and the slots (redirect hops included).
    maxWaitMs: Math.max(1, deadline - Date.now()),
    ...(hostIntervalMs === undefined ? {} : { hostIntervalMs }),
  });
}

interface Relay {
  flight: Flight;
  result: FetchStreamResult;
  storeIt: boolean;
  holds: FlightHolds;
  finish: (error?: unknown) => void;
}

/**
 * The source's bytes into the flight (for every subscriber) and, where the copy is stored, into S3.
 * Returns the stored copy's promise, or undefined when nothing is stored.
 */
function relayBody(
  room: FlightRoom,
  { flight, result, storeIt, holds, finish }: Relay,
): Promise<VerifiedCopy> | undefined {
  const { item } = flight;
  const upload = storeIt ? new PassThrough() : undefined;
  // PRV-3 through DOC-5's write path (storeVerifiedCopy): the live key gets only a complete file (a
  // body that fails destroys `upload`, which fails the write or aborts the upload) of a document not
  // taken down (OPT-5, asked before and after the write).
  const stored = upload
    ? storeVerifiedCopy(room.bucket, {
        key: fileKey(item.sourceId, item.docId),
        body: upload,
        contentType: result.contentType,
        mayKeep: async () => !(await room.tombstoned(item)),
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
    void holds.release();
    finish();
  });
  result.body.once('error', (error) => {
    upload?.destroy(error);
    void holds.release();
    finish(error);
  });
  return stored;
}

/** The flight is over: subscribers are woken, its requests recorded, and it leaves the room. */
function endFlight(
  room: FlightRoom,
  flight: Flight,
  { storeIt, error }: { storeIt: boolean; error?: unknown },
): void {
  const { docId } = flight.item;
  if (error !== undefined) flight.error = error;
  flight.done = true;
  flight.notify();
  // RATE-9: this fetch's requests (robots.txt, hops, the file) into the host ledger.
  flight.recordedBy(room.hostBudget?.record());
  const forget = () => {
    if (room.flights.get(docId) === flight) room.flights.delete(docId);
  };
  const size = flight.chunks.reduce((n, c) => n + c.length, 0);
  // Openings that arrive just after a small file finished belong to the same rush ("at once"):
  // they get the bytes in memory instead of a second request. Kept in memory only, never stored.
  // Stored documents need no linger: the next opening reads our S3 copy (PRV-3).
  if (error === undefined && !storeIt && size <= PREVIEW_LINGER_MAX_BYTES)
    setTimeout(forget, room.lingerMs).unref();
  else forget();
}

/** PRV-3: the stored copy recorded on the document item, as the document cache records its own. */
async function recordStoredCopy(
  room: FlightRoom,
  item: DocumentItem,
  stored: Promise<VerifiedCopy>,
  result: FetchStreamResult,
): Promise<void> {
  try {
    const copy = await stored;
    if (copy.kind === 'not-kept') {
      // OPT-5: taken down while this fetch ran — the copy never stays at the live key.
      room.log('preview copy dropped', { docId: item.docId, sourceId: item.sourceId, ruleIds: ['OPT-5'] });
      return;
    }
    if (copy.kind !== 'stored') return;
    const object = copy.object;
    // Same decision, same write as the document cache's.
    const change = cacheChange(item, storedOutcome(object, result), room.now());
    const applied = await room.store.apply(item, change);
    room.log('preview stored', { docId: item.docId, sourceId: item.sourceId, applied, size: object.size });
  } catch (error) {
    // The visitor got the file; the cache stores it on its own schedule (DOC-3).
    room.log('preview store failed', { docId: item.docId, error: String(error) });
  }
}
