import { createHash } from 'node:crypto';
import { textValue } from '../engine';
import { createRunContext, type RunContext } from '../fetch';
import { MirrorStore, photoKey } from '../mirror';
import { PhotoMarks } from '../store';
import { type BusyHost, type PassAdmission, passAdmission } from './admission';
import {
  GONE_STATUSES,
  PHO_MAX_BYTES,
  PHO_MAX_PERSONS_PER_BODY,
  PHO_PAUSE_MS,
  PHO_RECHECK_MS,
} from './constants';
import {
  countOutcome,
  type DocumentsDeps,
  hostOf,
  loadSourceContexts,
  type PassOptions,
  pastDeadline,
  type SourceContext,
} from './context';
import {
  outcomeCode,
  outcomeOfError,
  type PhotoMark,
  photoPatternFor,
  photoUrl,
  selectPersonsForPhotos,
} from './decide';
import { bodyKeyOf } from './keys';
import { fetchSourceOf, putObject } from './objects';
import type { FetchOutcome, OutcomeCounts } from './types';

/**
 * Person photos (Mondays 03:00 Europe/Berlin; SPEC PHO-1 … PHO-3): for bodies with a photo URL pattern
 * only, at most 500 persons per body and run whose photo was never checked or checked more than 30
 * days ago, 0.1 s between photos on top of the host pace. A missing photo or an error is noted (asked
 * again after ≥ 30 days); an unreachable robots.txt notes nothing. An inactive, file-fetching-off or
 * spared source gets nothing, and nothing is noted.
 *
 * Persons come from the S3 mirror's index (live objects of the body); marks live in the State table
 * under `PHOTO#<sourceId>#<bodyKey>`, one item per person.
 */
export interface PhotosReport {
  photos: OutcomeCounts;
  bodies: { sourceId: string; bodyId: string; persons: number; due: number; checked: number }[];
  skippedSources: { sourceId: string; reason: string; ruleIds: string[] }[];
  invalidSources: string[];
  /** Item 5 of issue 27: photo servers this run did not start on (sync runs first, RATE-8), and why. */
  busyHosts: BusyHost[];
}

/** One person's photo as checked: whose, at which URL, and the mark of the check before (if any). */
export interface PhotoCheck {
  personId: string;
  url: string;
  previous: PhotoMark | undefined;
}

/** PHO-2: the mark after a photo fetch, or undefined when nothing is to be noted (next run retries). */
export function photoMarkAfter(
  { personId, url, previous }: PhotoCheck,
  outcome: FetchOutcome,
  now: Date,
): PhotoMark | undefined {
  const checkedAt = now.toISOString();
  const base = { personId, url, checkedAt };
  switch (outcome.kind) {
    case 'stored':
      return {
        ...base,
        result: 'stored',
        sha256: outcome.sha256,
        size: outcome.size,
        ...(outcome.contentType === undefined ? {} : { contentType: outcome.contentType }),
        ...(outcome.etag === undefined ? {} : { etag: outcome.etag }),
        ...(outcome.lastModified === undefined ? {} : { lastModified: outcome.lastModified }),
      };
    case 'not-modified': {
      const { result: _r, code: _c, ...kept } = previous ?? { result: 'stored' as const };
      return { ...kept, ...base, result: 'unchanged' };
    }
    case 'deferred':
      // Nothing was asked (no slot, breaker open): nothing to note.
      return undefined;
    case 'failed':
      // PHO-2: an unreachable robots.txt notes nothing; the next run tries again.
      if (outcome.code === 'ROBOTS_UNREACHABLE') return undefined;
      if (
        outcome.code === 'HTTP_STATUS' &&
        outcome.status !== undefined &&
        GONE_STATUSES.has(outcome.status)
      ) {
        return { ...base, result: 'missing', code: outcomeCode(outcome) };
      }
      return { ...base, result: 'error', code: outcomeCode(outcome) };
    case 'empty':
      return { ...base, result: 'missing', code: 'EMPTY_BODY' };
  }
}

export async function runPhotosPass(deps: DocumentsDeps, options: PassOptions): Promise<PhotosReport> {
  const { now } = options;
  const { contexts, invalid } = await loadSourceContexts(deps, now);
  const mirror = new MirrorStore(
    { doc: deps.doc, s3: deps.s3 },
    { bucket: deps.bucket, stateTable: deps.tables.state, mirrorTable: deps.tables.mirror },
  );
  // Item 5 of issue 27: per photo server, whether this run may fetch there (RATE-9, RATE-8).
  const admission = await passAdmission(deps.hostBudget, contexts, now);
  const report: PhotosReport = {
    photos: {},
    bodies: [],
    skippedSources: [],
    invalidSources: invalid,
    busyHosts: admission.busy,
  };
  let first = true;
  for (const ctx of contexts) {
    if (Object.keys(ctx.source.photoUrlPatterns).length === 0) continue;
    if (!ctx.gate.photos) {
      // PHO-3: no photos and nothing noted.
      report.skippedSources.push({
        sourceId: ctx.source.sourceId,
        reason: ctx.gate.reason,
        ruleIds: ctx.gate.ruleIds,
      });
      continue;
    }
    const runContext = createRunContext(ctx.source.sourceId);
    for (const body of ctx.bodies.values()) {
      if (body.deleted === true) continue;
      // OPT-5: a taken-down body, however its mirror copy fares (purged, unsealed), gets no photos.
      if (body.takedown !== undefined || ctx.takedowns.body(body.id) !== undefined) continue;
      const pattern = photoPatternFor(ctx.source.photoUrlPatterns, body);
      if (pattern === undefined) continue;
      const bodyKey = bodyKeyOf(body.id);
      const photos: BodyPhotos = { deps, ctx, runContext, mirror, pattern, bodyKey, now, admission };
      const marks = await loadMarks(deps, ctx.source.sourceId, bodyKey);
      const persons: { id: string }[] = [];
      for await (const entry of mirror.listLive(ctx.source.sourceId, 'person', { bodyId: body.id })) {
        if (ctx.takedowns.covers({ id: entry.id, bodyId: body.id }) !== undefined) continue;
        persons.push({ id: entry.id });
      }
      const due = selectPersonsForPhotos(persons, marks, now, {
        limit: PHO_MAX_PERSONS_PER_BODY,
        recheckMs: PHO_RECHECK_MS,
      });
      const line = {
        sourceId: ctx.source.sourceId,
        bodyId: body.id,
        persons: persons.length,
        due: due.length,
        checked: 0,
      };
      report.bodies.push(line);
      for (const [done, person] of due.entries()) {
        options.onProgress?.({ stage: 'photos', done, total: due.length, host: ctx.source.host });
        if (pastDeadline(options)) {
          await deps.hostBudget?.record();
          return report;
        }
        // PHO-1: 0.1 s between two photos, on top of the host pace the fetcher keeps.
        if (!first) await deps.sleep(PHO_PAUSE_MS);
        first = false;
        const outcome = await photoOne(photos, person.id, marks.get(person.id));
        countOutcome(report.photos, outcome);
        line.checked += 1;
      }
    }
  }
  // The run's requests into the host ledger: the planner's and the next pass's other-fetch share.
  await deps.hostBudget?.record();
  deps.log?.('photos pass', { photos: report.photos, busyHosts: report.busyHosts.length });
  return report;
}

/** The photos of one body in one run: the source's context and run, its persons' mirror and URL pattern. */
interface BodyPhotos {
  deps: DocumentsDeps;
  ctx: SourceContext;
  runContext: RunContext;
  mirror: MirrorStore;
  pattern: string;
  bodyKey: string;
  now: Date;
  admission: PassAdmission;
}

async function photoOne(
  photos: BodyPhotos,
  personId: string,
  previous: PhotoMark | undefined,
): Promise<string> {
  const { deps, ctx, mirror, pattern, bodyKey, now } = photos;
  let name: string | undefined;
  if (pattern.includes('{personName}')) {
    const record = await mirror.readLive(ctx.source.sourceId, 'person', personId);
    const object = record?.object as Record<string, unknown> | undefined;
    name = textValue(object?.name);
  }
  const url = photoUrl(pattern, { id: personId, ...(name === undefined ? {} : { name }) });
  let outcome: FetchOutcome;
  if (url === undefined) {
    outcome = { kind: 'failed', code: 'PHOTO_URL_INCOMPLETE' };
  } else if (!photos.admission.allows(hostOf(url))) {
    // Its server is busy with syncs or paused: nothing asked, nothing noted (PHO-2: next run).
    return 'not-noted:HOST_BUSY';
  } else {
    outcome = await fetchPhoto(photos, { personId, url, previous });
  }
  const mark = photoMarkAfter({ personId, url: url ?? pattern, previous }, outcome, now);
  if (mark === undefined) return `not-noted:${outcomeCode(outcome)}`;
  await photoMarksOf(deps).put(ctx.source.sourceId, bodyKey, personId, mark);
  return mark.result;
}

async function fetchPhoto(
  photos: BodyPhotos,
  { personId, url, previous }: PhotoCheck,
): Promise<FetchOutcome> {
  const { deps, ctx, runContext } = photos;
  const conditional =
    previous?.result === 'stored' || previous?.result === 'unchanged'
      ? {
          ...(previous.etag === undefined ? {} : { etag: previous.etag }),
          ...(previous.lastModified === undefined ? {} : { lastModified: previous.lastModified }),
        }
      : {};
  try {
    const result = await deps.fetcher.fetch(url, {
      purpose: 'file',
      source: fetchSourceOf(ctx.source),
      maxBytes: PHO_MAX_BYTES,
      hostIntervalMs: ctx.hostIntervalMs,
      runContext,
      // B-1: a photo we hold is asked for conditionally.
      ...(Object.keys(conditional).length > 0 ? { conditional } : {}),
    });
    if (result.notModified) {
      return {
        kind: 'not-modified',
        ...(result.etag === undefined ? {} : { etag: result.etag }),
        ...(result.lastModified === undefined ? {} : { lastModified: result.lastModified }),
      };
    }
    if (result.body.length === 0) return { kind: 'empty' };
    await putObject(
      deps,
      photoKey(ctx.source.sourceId, personId),
      result.body,
      result.contentType ?? 'application/octet-stream',
    );
    return {
      kind: 'stored',
      size: result.body.length,
      sha256: createHash('sha256').update(result.body).digest('hex'),
      fetchedUrl: result.finalUrl,
      ...(result.contentType === undefined ? {} : { contentType: result.contentType }),
      ...(result.etag === undefined ? {} : { etag: result.etag }),
      ...(result.lastModified === undefined ? {} : { lastModified: result.lastModified }),
    };
  } catch (error) {
    return outcomeOfError(error);
  }
}

/** The State table's photo marks (shared/store). */
function photoMarksOf(deps: DocumentsDeps): PhotoMarks {
  return new PhotoMarks({ doc: deps.doc, table: deps.tables.state });
}

/** The marks of one body, by person id. */
export async function loadMarks(
  deps: DocumentsDeps,
  sourceId: string,
  bodyKey: string,
): Promise<Map<string, PhotoMark>> {
  const marks = new Map<string, PhotoMark>();
  for (const mark of await photoMarksOf(deps).ofBody<PhotoMark>(sourceId, bodyKey))
    marks.set(mark.personId, mark);
  return marks;
}
