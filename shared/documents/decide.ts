import type { SourceConfig } from '../config';
import { isTransientStatus } from '../fetch';
import { fileKey } from '../mirror';
import type { SourceScheduleState } from '../schedule';
import { documentsRest, isSpared } from '../schedule';
import { DAY_MS } from '../util';
import {
  DEL_RECHECKS,
  DEL_SAMPLE_INTERVAL_MS,
  DEL_STOP_STATUSES,
  DEL_UNCLEAR_HEAD_STATUSES,
  DOC_GONE_PROVISIONAL_MS,
  DOC_RETRY_LADDER_MS,
  DOC_RETRY_WEEKLY_MS,
  GONE_STATUSES,
  TEXT_MAX_FILE_BYTES,
} from './constants';
import {
  bodyKeyOf,
  sampleWalkBound,
  sampleWalkKey,
  shards,
  WALK_END,
  WALK_KEY_PREFIX,
  WALK_START,
} from './keys';
import type { DocumentChange, DocumentItem, FailureClass, FetchOutcome, SourceGate } from './types';

/**
 * Pure decisions of the document functions: `(item, outcome, now) → change`. No I/O; every time
 * decision takes `now`, so the tests run them on a fake clock.
 */

const iso = (ms: number) => new Date(ms).toISOString();
const msOf = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
};

// ------------------------------------------------------------------------------------------ gates

/**
 * What a run may do for a source (DOC-1, DOC-5, ERR-6, DEL-5, PHO-3, ONB-4):
 * - file fetching off → nothing is fetched by any function (DOC-1); the cache marks due files `disabled`;
 * - inactive → the cache ends its attempts (`disabled`, DOC-5), photos stop (PHO-3); the deletion check
 *   and text from our own copy go on (DEL-5; the seed: "a text worker follows only the file switch");
 * - from the 3rd failed sync run in a row the cache, the deletion check and photos rest (ERR-6);
 *   photos also rest while the source is paused (PHO-3 "spared").
 */
export function sourceGate(
  source: Pick<SourceConfig, 'active' | 'fileFetching'>,
  schedule: Pick<SourceScheduleState, 'failureStreak' | 'pause'> | undefined,
  now: Date,
): SourceGate {
  const rest = documentsRest({ failureStreak: schedule?.failureStreak ?? 0 });
  const spared = schedule?.pause !== undefined && isSpared({ pause: schedule.pause }, now.toISOString());
  if (!source.fileFetching) {
    return {
      cache: false,
      disable: true,
      textFromCopy: false,
      textFromSource: false,
      deletion: false,
      photos: false,
      reason: 'file fetching is off: nothing of this source is fetched',
      ruleIds: ['DOC-1'],
    };
  }
  const reasons: string[] = [];
  const ruleIds: string[] = [];
  if (!source.active) {
    reasons.push('source inactive: cache attempts end, no photos; deletion check and text go on');
    ruleIds.push('DOC-5', 'DEL-5', 'PHO-3');
  }
  if (rest.rest) {
    reasons.push(rest.reason);
    ruleIds.push('ERR-6');
  }
  if (spared) {
    reasons.push('source spared: no photos');
    ruleIds.push('PHO-3');
  }
  return {
    cache: source.active && !rest.rest,
    disable: !source.active,
    textFromCopy: true,
    textFromSource: source.active,
    deletion: !rest.rest,
    photos: source.active && !rest.rest && !spared,
    reason: reasons.length > 0 ? reasons.join('; ') : 'file fetching on',
    ruleIds,
  };
}

// ------------------------------------------------------------------------------------ DOC-4 / DOC-5

/** DOC-4 / DOC-5: what a failed fetch means for the document, by the fetcher's error code. */
export function classifyFailure(code: string, status?: number): FailureClass {
  switch (code) {
    case 'ROBOTS_DISALLOWED':
      return 'blocked-robots';
    case 'HTML_INSTEAD_OF_FILE':
      return 'blocked-html';
    case 'RESPONSE_TOO_LARGE':
      return 'too-large';
    // Nothing was requested: no slot within the wait budget, or this run's breaker is open (ERR-2).
    case 'HOST_SLOT_TIMEOUT':
    case 'SEND_LATE':
    case 'CIRCUIT_OPEN':
      return 'deferred';
    case 'TIMEOUT':
    case 'NETWORK':
    case 'BODY_INCOMPLETE':
    case 'EMPTY_BODY':
    case 'ROBOTS_UNREACHABLE':
      return 'ladder';
    case 'HTTP_STATUS':
      if (status !== undefined && GONE_STATUSES.has(status)) return 'gone';
      // DOC-4 names 429 and 5xx; 408 is the server's own timeout — the transient statuses.
      if (status !== undefined && isTransientStatus(status)) return 'ladder';
      return 'weekly';
    default:
      // 403 and every other error: weekly, without end (DOC-4).
      return 'weekly';
  }
}

/** The fetch outcome of a thrown error (fetcher, robots or network errors). */
export function outcomeOfError(error: unknown): FetchOutcome {
  const code =
    typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : '';
  const status =
    typeof (error as { status?: unknown })?.status === 'number'
      ? (error as { status: number }).status
      : undefined;
  const retryAtMs =
    typeof (error as { retryAt?: unknown })?.retryAt === 'number'
      ? (error as { retryAt: number }).retryAt
      : undefined;
  const message = error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300);
  if (classifyFailure(code, status) === 'deferred') {
    return { kind: 'deferred', code, ...(retryAtMs === undefined ? {} : { retryAtMs }) };
  }
  return {
    kind: 'failed',
    code: code === '' ? 'ERROR' : code,
    ...(status === undefined ? {} : { status }),
    ...(retryAtMs === undefined ? {} : { retryAtMs }),
    message,
  };
}

/** DOC-4: the pause after the `failures`-th failed attempt in a row of the given class. */
export function retryDelayMs(failures: number, failureClass: 'ladder' | 'weekly'): number {
  if (failureClass === 'weekly') return DOC_RETRY_WEEKLY_MS;
  return DOC_RETRY_LADDER_MS[Math.max(0, failures - 1)] ?? DOC_RETRY_WEEKLY_MS;
}

/** Short code of an outcome for `lastOutcome` and the run counts (`HTTP_404`, `TIMEOUT` …). */
export function outcomeCode(outcome: FetchOutcome): string {
  switch (outcome.kind) {
    case 'stored':
      return 'STORED';
    case 'not-modified':
      return 'NOT_MODIFIED';
    case 'empty':
      return 'EMPTY_BODY';
    case 'failed':
      return outcome.code === 'HTTP_STATUS' && outcome.status !== undefined
        ? `HTTP_${outcome.status}`
        : outcome.code;
    case 'deferred':
      return outcome.code;
  }
}

/** DOC-2: the stored version has no finished text attempt yet and is small enough for extraction. */
export function needsText(item: Pick<DocumentItem, 'sha256' | 'textFor' | 'size'>): boolean {
  return item.sha256 !== undefined && item.textFor !== item.sha256 && (item.size ?? 0) <= TEXT_MAX_FILE_BYTES;
}

/** Where a document we hold a copy of waits next: text, a DEL-1 re-fetch, or its next DEL-2 sample. */
export function storedPlacement(
  item: Pick<
    DocumentItem,
    'sourceId' | 'bodyId' | 'sha256' | 'textFor' | 'size' | 'refetch' | 'lastCheckedAt' | 'storedAt'
  >,
  now: Date,
): { attemptShard: string; nextAttemptAt: string } {
  if (needsText(item)) return { attemptShard: shards.text(item.sourceId), nextAttemptAt: now.toISOString() };
  if (item.refetch) return { attemptShard: shards.refetch(item.sourceId), nextAttemptAt: now.toISOString() };
  const lastMs = msOf(item.lastCheckedAt) ?? msOf(item.storedAt) ?? now.getTime();
  return {
    attemptShard: shards.sample(item.sourceId, bodyKeyOf(item.bodyId)),
    nextAttemptAt: iso(lastMs + DEL_SAMPLE_INTERVAL_MS),
  };
}

// ------------------------------------------------------------------------------------ DEL-2 walk

/** DEL-2: the time of week of `atMs` — its offset into the sample interval. */
export function samplePhaseMs(atMs: number): number {
  return ((atMs % DEL_SAMPLE_INTERVAL_MS) + DEL_SAMPLE_INTERVAL_MS) % DEL_SAMPLE_INTERVAL_MS;
}

/** A sort-key range (`after`, `upTo`] of a body's sample shard. */
export interface WalkRange {
  after: string;
  upTo: string;
}

/**
 * DEL-2: what a body's walk covers at `now`, from its cursor: every document whose place (the time of
 * week of its last sample) the clock has passed since — so each is sampled once a week, at the time of
 * week it was sampled before, and its key never moves. A round wraps at the interval's end; after a
 * whole interval without a run it covers one full round; no cursor yet → nothing (it starts now).
 * `end` is where the cursor goes once every document in the ranges is settled.
 */
export function walkRanges(
  cursor: { position: string; at: string } | undefined,
  now: Date,
): { ranges: WalkRange[]; end: string } {
  const end = sampleWalkBound(samplePhaseMs(now.getTime()));
  if (cursor === undefined) return { ranges: [], end };
  const elapsedMs = now.getTime() - (Date.parse(cursor.at) || 0);
  if (elapsedMs <= 0) return { ranges: [], end: cursor.position };
  // A whole interval or more since the last run: one full round, ending now.
  const from = elapsedMs >= DEL_SAMPLE_INTERVAL_MS ? end : cursor.position;
  if (from < end) return { ranges: [{ after: from, upTo: end }], end };
  if (from === end && elapsedMs < DEL_SAMPLE_INTERVAL_MS) return { ranges: [], end };
  return {
    ranges: [
      { after: from, upTo: WALK_END },
      { after: WALK_START, upTo: end },
    ],
    end,
  };
}

/**
 * Where a walk stands once its first `done` documents (in key order) are settled: the last of them,
 * or `end` when all are — a document not settled (not asked this run) is never passed.
 */
export function walkPosition(keys: readonly string[], settled: readonly boolean[], end: string) {
  let done = 0;
  while (done < keys.length && settled[done]) done += 1;
  return { done, position: done === keys.length ? end : done > 0 ? keys[done - 1] : undefined };
}

/** Attributes that describe a stored copy (removed when it is deleted). */
const COPY_FIELDS: (keyof DocumentItem)[] = [
  'storedKey',
  'storedAt',
  'size',
  'sha256',
  'contentType',
  'etag',
  'lastModified',
  'fetchedUrl',
];
const TEXT_FIELDS: (keyof DocumentItem)[] = [
  'textKey',
  'hasText',
  'textLayer',
  'textChars',
  'textPages',
  'textAt',
  'textFor',
  'textError',
  'textAttempts',
  'textAttemptFor',
  'textAttemptAt',
];
const QUEUE_FIELDS: (keyof DocumentItem)[] = ['attemptShard', 'nextAttemptAt'];

/** The record of a completed upload: size, SHA-256, type and validators (DOC-3, B-1). */
function copyFields(
  item: Pick<DocumentItem, 'sourceId' | 'docId'>,
  outcome: Extract<FetchOutcome, { kind: 'stored' }>,
  nowIso: string,
): { set: Partial<DocumentItem>; remove: (keyof DocumentItem)[] } {
  const set: Partial<DocumentItem> = {
    storedKey: fileKey(item.sourceId, item.docId),
    storedAt: nowIso,
    size: outcome.size,
    sha256: outcome.sha256,
    fetchedUrl: outcome.fetchedUrl,
    lastCheckedAt: nowIso,
  };
  const remove: (keyof DocumentItem)[] = [];
  for (const [key, value] of [
    ['contentType', outcome.contentType],
    ['etag', outcome.etag],
    ['lastModified', outcome.lastModified],
  ] as const) {
    if (value === undefined) remove.push(key);
    else set[key] = value;
  }
  return { set, remove };
}

/**
 * DOC-3 … DOC-5: the document after one cache attempt. `stored` → text / samples; the ladder and
 * weekly retries stay in the cache queue; robots, HTML and size end the attempts (blocked until an
 * operator clears them, DOC-6); 404/410 is provisional within 7 days of first sight, else final and
 * handed to the deletion check (DEL-3).
 */
export function cacheChange(item: DocumentItem, outcome: FetchOutcome, now: Date): DocumentChange {
  const nowIso = now.toISOString();
  const nowMs = now.getTime();
  const code = outcomeCode(outcome);
  if (outcome.kind === 'deferred') {
    // Nothing was asked: no attempt counted; the next run tries again (not before the given time).
    const atMs = Math.max(nowMs, outcome.retryAtMs ?? nowMs);
    return { set: { nextAttemptAt: iso(atMs), lastOutcome: code }, remove: [], outcome: 'deferred' };
  }
  const attempts = (item.attempts ?? 0) + 1;
  const attempt: CacheAttempt = { item, now, common: { attempts, lastAttemptAt: nowIso, lastOutcome: code } };
  if (outcome.kind === 'stored' || outcome.kind === 'not-modified') return storedChange(attempt, outcome);

  const { common } = attempt;
  const failureClass: FailureClass =
    outcome.kind === 'empty' ? 'ladder' : classifyFailure(outcome.code, outcome.status);
  switch (failureClass) {
    case 'blocked-robots':
    case 'blocked-html':
      // DOC-6: fetched again only after an operator clears it (`files clear`).
      return {
        set: { ...common, state: failureClass, blockedAt: nowIso },
        remove: [...QUEUE_FIELDS, 'retryAt'],
        outcome: failureClass,
      };
    case 'too-large':
      return {
        set: { ...common, state: 'too-large' },
        remove: [...QUEUE_FIELDS, 'retryAt'],
        outcome: 'too-large',
      };
    case 'gone':
      return goneChange(attempt, outcome.kind === 'failed' ? outcome.status : undefined);
    case 'ladder':
    case 'weekly':
      return retryChange(attempt, {
        failureClass,
        retryAtMs: outcome.kind === 'failed' ? (outcome.retryAtMs ?? 0) : 0,
      });
    case 'deferred':
      return { set: { nextAttemptAt: nowIso, lastOutcome: code }, remove: [], outcome: 'deferred' };
  }
}

/** One counted cache attempt: the document before it, when it was made, and the fields every outcome sets. */
interface CacheAttempt {
  item: DocumentItem;
  now: Date;
  common: Partial<DocumentItem>;
}

/** DOC-3 / B-1: a copy stored, or the one we hold confirmed current — the failure marks go. */
function storedChange(
  attempt: CacheAttempt,
  outcome: Extract<FetchOutcome, { kind: 'stored' | 'not-modified' }>,
): DocumentChange {
  const { item, now, common } = attempt;
  const nowIso = now.toISOString();
  const copy =
    outcome.kind === 'stored'
      ? copyFields(item, outcome, nowIso)
      : { set: { lastCheckedAt: nowIso }, remove: [] };
  const after = { ...item, ...copy.set, refetch: false };
  return {
    set: { ...common, ...copy.set, state: 'stored', failures: 0, ...storedPlacement(after, now) },
    remove: [
      ...copy.remove,
      'retryAt',
      'parked',
      'goneSince',
      'goneStatus',
      'goneChecks',
      'blockedAt',
      'refetch',
      'copyDeletedAt',
    ],
    outcome: 'stored',
  };
}

/**
 * DOC-5: 404/410 within 7 days of first sight is provisional — sources often publish the object before
 * the file, so it stays on the ladder; later it is gone and handed to the deletion check (DEL-3).
 */
function goneChange(attempt: CacheAttempt, status: number | undefined): DocumentChange {
  const { item, now, common } = attempt;
  const nowMs = now.getTime();
  const firstSeenMs = msOf(item.firstSeenAt) ?? nowMs;
  if (nowMs - firstSeenMs >= DOC_GONE_PROVISIONAL_MS) {
    return { set: { ...common, ...goneFields(item, status, now) }, remove: ['retryAt'], outcome: 'gone' };
  }
  const failures = (item.failures ?? 0) + 1;
  const retryAt = iso(nowMs + retryDelayMs(failures, 'ladder'));
  return {
    set: {
      ...common,
      state: 'gone-provisional',
      failures,
      retryAt,
      attemptShard: shards.cache(item.sourceId),
      nextAttemptAt: retryAt,
      ...(status === undefined ? {} : { goneStatus: status }),
    },
    remove: [],
    outcome: 'gone-provisional',
  };
}

/** DOC-4: the next try on the ladder or the weekly retry — never before the retry time the failure carries. */
function retryChange(
  attempt: CacheAttempt,
  retry: { failureClass: 'ladder' | 'weekly'; retryAtMs: number },
): DocumentChange {
  const { item, now, common } = attempt;
  const failures = (item.failures ?? 0) + 1;
  const retryMs = Math.max(now.getTime() + retryDelayMs(failures, retry.failureClass), retry.retryAtMs);
  return {
    set: {
      ...common,
      state: 'retrying',
      failures,
      retryAt: iso(retryMs),
      attemptShard: shards.cache(item.sourceId),
      nextAttemptAt: iso(retryMs),
    },
    remove: [],
    outcome: 'retrying',
  };
}

/** DOC-5 → DEL-3: a document found gone; the deletion check re-checks it after 1, 7, 25 and 30 days. */
export function goneFields(
  item: Pick<DocumentItem, 'sourceId' | 'bodyId'>,
  status: number | undefined,
  now: Date,
): Partial<DocumentItem> {
  return {
    state: 'gone',
    goneSince: now.toISOString(),
    goneChecks: 0,
    ...(status === undefined ? {} : { goneStatus: status }),
    attemptShard: shards.recheck(item.sourceId, bodyKeyOf(item.bodyId)),
    nextAttemptAt: iso(now.getTime() + (DEL_RECHECKS[0]?.afterDays ?? 1) * DAY_MS),
  };
}

/** DOC-1 / DOC-5: file fetching or the source is off — attempts end; parked until it is on again. */
export function disableChange(item: DocumentItem, now: Date): DocumentChange {
  return {
    set: {
      state: 'disabled',
      parked: 'disabled',
      attemptShard: shards.disabled(item.sourceId),
      nextAttemptAt: now.toISOString(),
      lastOutcome: 'DISABLED',
    },
    remove: [],
    outcome: 'disabled',
  };
}

/** DOC-7: the body is unlisted — no copy is stored; text first (ONB-4 files are fetched), then parked. */
export function unlistedChange(item: DocumentItem, now: Date, textFromSource: boolean): DocumentChange {
  // OPT-2: a document taken down is not read for text either.
  const wantsText = textFromSource && item.textFor === undefined && item.takedownAt === undefined;
  return {
    set: {
      state: 'pending',
      parked: 'unlisted',
      lastOutcome: 'UNLISTED',
      attemptShard: wantsText
        ? shards.text(item.sourceId)
        : shards.unlisted(item.sourceId, bodyKeyOf(item.bodyId)),
      nextAttemptAt: now.toISOString(),
    },
    remove: [],
    outcome: 'unlisted',
  };
}

/** A parked document whose reason went away (file fetching on again, body listed): back to the cache. */
export function unparkChange(item: DocumentItem, now: Date): DocumentChange {
  return {
    set: {
      state: (item.failures ?? 0) > 0 ? 'retrying' : 'pending',
      attemptShard: shards.cache(item.sourceId),
      nextAttemptAt: now.toISOString(),
      lastOutcome: 'UNPARKED',
    },
    remove: ['parked'],
    outcome: 'unparked',
  };
}

/** OPT-2: a document taken down waits for nothing any more (no fetch, no text, no check). */
export function takenDownChange(): DocumentChange {
  return { set: { lastOutcome: 'TAKEN_DOWN' }, remove: QUEUE_FIELDS, outcome: 'taken-down' };
}

/** DOC-6: an operator cleared a blocked document; it is fetched again from the next run on. */
export function clearChange(item: DocumentItem, now: Date, by: string): DocumentChange {
  return {
    set: {
      state: 'pending',
      failures: 0,
      attempts: 0,
      clearedAt: now.toISOString(),
      clearedBy: by,
      attemptShard: shards.cache(item.sourceId),
      nextAttemptAt: now.toISOString(),
      lastOutcome: 'CLEARED',
    },
    remove: ['blockedAt', 'retryAt'],
    outcome: 'cleared',
  };
}

/**
 * The intake: the queue a document waiting in `due` belongs in, by its state. The sync puts new
 * documents there and moves known ones back there when the source changed them (DEL-1).
 */
export function routeChange(item: DocumentItem, now: Date): DocumentChange {
  const nowIso = now.toISOString();
  const place = (attemptShard: string, nextAttemptAt: string, outcome: string): DocumentChange => ({
    set: { attemptShard, nextAttemptAt },
    remove: [],
    outcome,
  });
  if (item.takedownAt !== undefined) return takenDownChange();
  switch (item.state) {
    case 'pending':
    case 'retrying':
    case 'gone-provisional':
    case 'disabled':
      // The cache decides again (listed? switched on?), keeping a retry time the ladder chose.
      return place(shards.cache(item.sourceId), item.retryAt ?? nowIso, 'to-cache');
    case 'stored': {
      const changedMs = msOf(item.sourceChangedAt);
      const checkedMs = msOf(item.lastCheckedAt) ?? msOf(item.storedAt) ?? 0;
      if (changedMs !== undefined && changedMs > checkedMs) {
        // DEL-1: the source changed the document after we last fetched it.
        return {
          set: { attemptShard: shards.refetch(item.sourceId), nextAttemptAt: nowIso, refetch: true },
          remove: [],
          outcome: 'to-refetch',
        };
      }
      const p = storedPlacement(item, now);
      return place(p.attemptShard, p.nextAttemptAt, 'to-stored-queue');
    }
    case 'gone':
      // All re-checks made: due now, so the deletion check finishes deleting (idempotent) and ends it.
      return place(
        shards.recheck(item.sourceId, bodyKeyOf(item.bodyId)),
        recheckDueAt(item) ?? nowIso,
        'to-recheck',
      );
    case 'blocked-robots':
    case 'blocked-html':
    case 'too-large':
      // DOC-5 / DOC-6: a change at the source does not lift these; only an operator does.
      return { set: {}, remove: QUEUE_FIELDS, outcome: 'terminal' };
  }
}

// --------------------------------------------------------------------------------------- DEL-1…DEL-4

/** DEL-3: when the next re-check of a gone document is due, or undefined when all were made. */
export function recheckDueAt(item: Pick<DocumentItem, 'goneSince' | 'goneChecks'>): string | undefined {
  const sinceMs = msOf(item.goneSince);
  const step = DEL_RECHECKS[item.goneChecks ?? 0];
  if (sinceMs === undefined || step === undefined) return undefined;
  return iso(sinceMs + step.afterDays * DAY_MS);
}

/** DEL-3: the copy and text of a gone document are deleted; it waits for nothing any more. */
export function finalizeDeletionChange(): DocumentChange {
  return { set: {}, remove: QUEUE_FIELDS, outcome: 'finalized' };
}

/** DEL-3: HEAD for the re-checks after 1, 7 and 25 days; GET for the last one after 30 days. */
export function recheckMethod(item: Pick<DocumentItem, 'goneChecks'>): 'HEAD' | 'GET' {
  return DEL_RECHECKS[item.goneChecks ?? 0]?.method ?? 'GET';
}

/** What the source answered to one deletion-check request (HEAD or GET), as the decisions see it. */
export type CheckAnswer =
  /** 2xx; `changed` undefined when the answer carries nothing to compare (unclear). */
  | { kind: 'present'; changed: boolean | undefined; etag?: string; lastModified?: string }
  /** B-1: 304 — present and unchanged, and it cost the server nothing. */
  | { kind: 'not-modified' }
  | { kind: 'gone'; status: number }
  /** A HEAD the server does not answer usefully (405, 501 …): one GET follows (RATE-6). */
  | { kind: 'unclear'; status: number }
  /** A failure; `stopServer` after 429/503 (DEL-4). */
  | { kind: 'error'; code: string; status?: number; stopServer: boolean }
  /** Nothing was asked (robots.txt forbids or is unreachable, no slot, breaker open). */
  | { kind: 'not-asked'; code: string };

/**
 * DEL-2: did a 2xx HEAD change from our copy? Compared by ETag, else Last-Modified; undefined when
 * the answer has neither (then a GET decides).
 */
export function headChanged(
  item: Pick<DocumentItem, 'etag' | 'lastModified'>,
  answer: { etag?: string; lastModified?: string },
): boolean | undefined {
  const bare = (tag: string) => tag.replace(/^W\//, '');
  if (answer.etag !== undefined && item.etag !== undefined) return bare(answer.etag) !== bare(item.etag);
  if (answer.lastModified !== undefined && item.lastModified !== undefined) {
    return msOf(answer.lastModified) !== msOf(item.lastModified);
  }
  return undefined;
}

/** DEL-2 / DEL-4: the answer of one check request from its status (no body is looked at). */
export function checkAnswerOfStatus(
  status: number,
  method: 'HEAD' | 'GET',
  item: Pick<DocumentItem, 'etag' | 'lastModified'>,
  validators: { etag?: string; lastModified?: string },
): CheckAnswer {
  if (status === 304) return { kind: 'not-modified' };
  if (status >= 200 && status < 300) {
    return { kind: 'present', changed: headChanged(item, validators), ...validators };
  }
  if (GONE_STATUSES.has(status)) return { kind: 'gone', status };
  if (method === 'HEAD' && DEL_UNCLEAR_HEAD_STATUSES.has(status)) return { kind: 'unclear', status };
  return { kind: 'error', code: `HTTP_${status}`, status, stopServer: DEL_STOP_STATUSES.has(status) };
}

/** DEL-4: the answer of a check that threw. */
export function checkAnswerOfError(error: unknown, method: 'HEAD' | 'GET'): CheckAnswer {
  const outcome = outcomeOfError(error);
  if (outcome.kind === 'deferred') return { kind: 'not-asked', code: outcome.code };
  if (outcome.kind !== 'failed') return { kind: 'error', code: 'ERROR', stopServer: false };
  if (outcome.code === 'ROBOTS_DISALLOWED' || outcome.code === 'ROBOTS_UNREACHABLE') {
    return { kind: 'not-asked', code: outcome.code };
  }
  if (outcome.code === 'HTTP_STATUS' && outcome.status !== undefined) {
    return checkAnswerOfStatus(outcome.status, method, {}, {});
  }
  return { kind: 'error', code: outcome.code, stopServer: false };
}

/** DEL-4 bookkeeping of one server within one run. */
export interface ServerRunState {
  errorsInRow: number;
  stopped: boolean;
  stopReason?: string;
  /** Fake-clock ms when the last check of this server ended (RATE-6). */
  lastCheckEndMs?: number;
}

/** DEL-4: after 429/503 or five errors in a row the run asks the server nothing more. */
export function noteServerAnswer(state: ServerRunState, answer: CheckAnswer, maxErrorsInRow: number): void {
  if (answer.kind === 'not-asked') return;
  if (answer.kind === 'error') {
    state.errorsInRow += 1;
    if (answer.stopServer) {
      state.stopped = true;
      state.stopReason = `${answer.code} (DEL-4)`;
    } else if (state.errorsInRow >= maxErrorsInRow) {
      state.stopped = true;
      state.stopReason = `${state.errorsInRow} errors in a row (DEL-4)`;
    }
    return;
  }
  state.errorsInRow = 0;
}

/** RATE-6: when the next check of a server may start (≥ 2 s after the previous one ended). */
export function nextCheckAtMs(state: ServerRunState, spacingMs: number, nowMs: number): number {
  return state.lastCheckEndMs === undefined ? nowMs : Math.max(nowMs, state.lastCheckEndMs + spacingMs);
}

/** DEL-2: a sample answered; the document keeps its copy, is queued for a re-fetch, or is gone. */
export function sampleChange(item: DocumentItem, answer: CheckAnswer, now: Date): DocumentChange {
  const nowIso = now.toISOString();
  switch (answer.kind) {
    case 'not-modified':
    case 'present': {
      if (answer.kind === 'present' && answer.changed !== false) {
        // Changed (or still unclear after the GET): re-fetch conditionally (DEL-1).
        return {
          set: {
            lastCheckedAt: nowIso,
            lastOutcome: 'CHANGED',
            refetch: true,
            attemptShard: shards.refetch(item.sourceId),
            nextAttemptAt: nowIso,
          },
          remove: [],
          outcome: 'changed',
        };
      }
      const after = { ...item, lastCheckedAt: nowIso };
      const placement = storedPlacement(after, now);
      const sampleShard = shards.sample(item.sourceId, bodyKeyOf(item.bodyId));
      if (placement.attemptShard !== sampleShard) {
        return {
          set: { lastCheckedAt: nowIso, lastOutcome: 'PRESENT', ...placement },
          remove: [],
          outcome: 'unchanged',
        };
      }
      // Issue 28: in its body's walk it stays where it is — nothing written (the walk's cursor says
      // when it was sampled); a first sample, or one after a failure, places it at this time of week.
      if (item.attemptShard === sampleShard && item.nextAttemptAt?.startsWith(WALK_KEY_PREFIX)) {
        return { set: {}, remove: [], outcome: 'unchanged' };
      }
      return {
        set: {
          lastCheckedAt: nowIso,
          lastOutcome: 'PRESENT',
          attemptShard: sampleShard,
          nextAttemptAt: sampleWalkKey(samplePhaseMs(now.getTime()), item.docId),
        },
        remove: [],
        outcome: 'unchanged',
      };
    }
    case 'gone':
      return {
        set: {
          lastCheckedAt: nowIso,
          lastOutcome: `HTTP_${answer.status}`,
          ...goneFields(item, answer.status, now),
        },
        remove: [],
        outcome: 'gone',
      };
    case 'unclear':
    case 'error':
    case 'not-asked': {
      // The copy stays; the sample is tried again a day later (no ladder: a sample is optional work).
      const code = answer.kind === 'unclear' ? `HTTP_${answer.status}` : answer.code;
      return {
        set: { lastOutcome: code, nextAttemptAt: new Date(now.getTime() + DAY_MS).toISOString() },
        remove: [],
        outcome: answer.kind === 'not-asked' ? 'not-asked' : 'error',
      };
    }
  }
}

/**
 * DEL-3: a re-check of a gone document answered. Present → the mark is lifted (back to `stored`, or to
 * the cache when we never held a copy); gone again → next re-check, and after the 30-day GET our copy
 * and text go (`deleteCopy`).
 */
export function recheckChange(
  item: DocumentItem,
  answer: CheckAnswer,
  now: Date,
): DocumentChange & { deleteCopy: boolean } {
  const nowIso = now.toISOString();
  switch (answer.kind) {
    case 'present':
    case 'not-modified': {
      const lifted: Partial<DocumentItem> = { lastCheckedAt: nowIso, lastOutcome: 'PRESENT' };
      const remove: (keyof DocumentItem)[] = ['goneSince', 'goneStatus', 'goneChecks'];
      if (item.storedKey !== undefined) {
        const changed = answer.kind === 'present' && answer.changed !== false;
        const after = { ...item, ...lifted, refetch: changed };
        return {
          set: { ...lifted, state: 'stored', refetch: changed, ...storedPlacement(after, now) },
          remove,
          outcome: 'lifted',
          deleteCopy: false,
        };
      }
      return {
        set: {
          ...lifted,
          state: 'pending',
          failures: 0,
          attemptShard: shards.cache(item.sourceId),
          nextAttemptAt: nowIso,
        },
        remove: [...remove, 'retryAt'],
        outcome: 'lifted',
        deleteCopy: false,
      };
    }
    case 'gone': {
      const goneChecks = (item.goneChecks ?? 0) + 1;
      const next = recheckDueAt({ goneSince: item.goneSince ?? nowIso, goneChecks });
      if (next !== undefined) {
        return {
          set: {
            lastCheckedAt: nowIso,
            lastOutcome: `HTTP_${answer.status}`,
            goneChecks,
            nextAttemptAt: next,
          },
          remove: [],
          outcome: 'still-gone',
          deleteCopy: false,
        };
      }
      // DEL-3: still missing after the 30-day GET — our copy and text go. The record forgets them
      // first but stays queued (due now): the objects are deleted next, then `finalizeDeletion`
      // leaves the queue. A crash in between repeats the (idempotent) deletes, never leaves a record
      // pointing at a deleted object.
      return {
        set: {
          lastCheckedAt: nowIso,
          lastOutcome: `HTTP_${answer.status}`,
          goneChecks,
          copyDeletedAt: nowIso,
          nextAttemptAt: nowIso,
        },
        remove: [...COPY_FIELDS, ...TEXT_FIELDS, 'refetch'],
        outcome: item.storedKey === undefined && item.textKey === undefined ? 'gone-final' : 'deleted',
        deleteCopy: true,
      };
    }
    case 'unclear':
    case 'error':
    case 'not-asked': {
      // No answer: the re-check stays due and is made by the next run.
      const code = answer.kind === 'unclear' ? `HTTP_${answer.status}` : answer.code;
      return {
        set: { lastOutcome: code },
        remove: [],
        outcome: answer.kind === 'not-asked' ? 'not-asked' : 'error',
        deleteCopy: false,
      };
    }
  }
}

/**
 * DOC-5: the answer was no valid file (empty, or an HTML page) or failed: the copy and the record we
 * hold stay as they were (`kept-copy` names the invalid answers), and the re-fetch is tried again by a
 * later run, at most daily.
 */
function keptCopyChange(outcome: FetchOutcome, now: Date, label: 'kept-copy' | 'error'): DocumentChange {
  return {
    set: { lastOutcome: outcomeCode(outcome), nextAttemptAt: new Date(now.getTime() + DAY_MS).toISOString() },
    remove: [],
    outcome: label,
  };
}

/**
 * DEL-1: the conditional re-fetch of a changed document answered. 304 → the copy is current (it cost
 * the server nothing, B-1); 200 → a new copy was stored (text again when its hash differs); gone → DEL-3.
 */
export function refetchChange(item: DocumentItem, outcome: FetchOutcome, now: Date): DocumentChange {
  const nowIso = now.toISOString();
  switch (outcome.kind) {
    case 'not-modified':
    case 'stored': {
      const copy =
        outcome.kind === 'stored'
          ? copyFields(item, outcome, nowIso)
          : {
              set: {
                lastCheckedAt: nowIso,
                ...(outcome.etag === undefined ? {} : { etag: outcome.etag }),
                ...(outcome.lastModified === undefined ? {} : { lastModified: outcome.lastModified }),
              } as Partial<DocumentItem>,
              remove: [] as (keyof DocumentItem)[],
            };
      const after = { ...item, ...copy.set, refetch: false };
      return {
        set: {
          ...copy.set,
          state: 'stored',
          lastOutcome: outcomeCode(outcome),
          ...storedPlacement(after, now),
        },
        remove: [...copy.remove, 'refetch', 'goneSince', 'goneStatus', 'goneChecks'],
        outcome:
          outcome.kind === 'stored'
            ? outcome.sha256 === item.sha256
              ? 'unchanged'
              : 'refetched'
            : 'not-modified',
      };
    }
    case 'failed': {
      if (
        outcome.code === 'HTTP_STATUS' &&
        outcome.status !== undefined &&
        GONE_STATUSES.has(outcome.status)
      ) {
        return {
          set: {
            lastCheckedAt: nowIso,
            lastOutcome: outcomeCode(outcome),
            ...goneFields(item, outcome.status, now),
          },
          remove: ['refetch'],
          outcome: 'gone',
        };
      }
      // The copy we hold stays; the re-fetch is tried again by a later run (at most daily).
      return keptCopyChange(outcome, now, outcome.code === 'HTML_INSTEAD_OF_FILE' ? 'kept-copy' : 'error');
    }
    case 'empty':
      return keptCopyChange(outcome, now, 'kept-copy');
    case 'deferred':
      return { set: { lastOutcome: outcome.code }, remove: [], outcome: 'not-asked' };
  }
}

// ----------------------------------------------------------------------------------------- PHO-1…3

/** A photo mark (PHO-2): what the last check found, and when. */
export interface PhotoMark {
  personId: string;
  url: string;
  checkedAt: string;
  result: 'stored' | 'unchanged' | 'missing' | 'error';
  code?: string;
  etag?: string;
  lastModified?: string;
  sha256?: string;
  size?: number;
  contentType?: string;
}

/**
 * PHO-1: persons whose photo is due — never checked, or checked more than 30 days ago — never-checked
 * first, then the oldest check, at most `limit`.
 */
export function selectPersonsForPhotos<P extends { id: string }>(
  persons: readonly P[],
  marks: ReadonlyMap<string, Pick<PhotoMark, 'checkedAt'>>,
  now: Date,
  { limit, recheckMs }: { limit: number; recheckMs: number },
): P[] {
  const nowMs = now.getTime();
  const due = persons
    .map((person) => ({ person, checkedMs: msOf(marks.get(person.id)?.checkedAt) }))
    .filter((p) => p.checkedMs === undefined || nowMs - p.checkedMs > recheckMs);
  due.sort((a, b) => {
    const am = a.checkedMs ?? Number.NEGATIVE_INFINITY;
    const bm = b.checkedMs ?? Number.NEGATIVE_INFINITY;
    return am === bm ? a.person.id.localeCompare(b.person.id) : am - bm;
  });
  return due.slice(0, limit).map((p) => p.person);
}

/**
 * PHO-1: the photo URL of a person from the body's pattern. `{personId}` is the last path segment of
 * the person's OParl id, `{personName}` its name; both URL-encoded. Undefined when a placeholder has
 * no value or the result is no http(s) URL.
 */
export function photoUrl(pattern: string, person: { id: string; name?: string }): string | undefined {
  let segment: string | undefined;
  try {
    segment = new URL(person.id).pathname
      .split('/')
      .filter((s) => s !== '')
      .pop();
  } catch {
    segment = person.id
      .split('/')
      .filter((s) => s !== '')
      .pop();
  }
  const values: Record<string, string | undefined> = {
    personId: segment === undefined ? undefined : decodeURIComponentSafe(segment),
    personName: person.name,
  };
  let missing = false;
  const url = pattern.replace(/\{(personId|personName)\}/g, (_m, key: string) => {
    const value = values[key];
    if (value === undefined || value === '') {
      missing = true;
      return '';
    }
    return encodeURIComponent(value);
  });
  if (missing) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The pattern of a body, configured by its OParl id or its slug (SourceConfig.photoUrlPatterns). */
export function photoPatternFor(
  patterns: Readonly<Record<string, string>>,
  body: { id: string; slug?: string },
): string | undefined {
  return patterns[body.id] ?? (body.slug === undefined ? undefined : patterns[body.slug]);
}
