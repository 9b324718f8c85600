import * as z from 'zod';
import { hostKey } from '../util';
import type { FieldProblem } from './errors';
import { editTrailFields, fieldProblemsOf, rawSourceIdOf, sourceIdField } from './item-problems';
import { userAgentProblem } from './user-agent';

/**
 * The Sources table item — what on-call engineers edit by hand in the DynamoDB console. It is read
 * through this one schema only. An invalid item never crashes a run: `parseSourceItem` returns the
 * problems per field (shown by `status`), and the caller skips that source. Out-of-range numbers are
 * clamped as SPEC says and reported as warnings, so a typo makes a source slower, never faster.
 */

/** RATE-1/RATE-2: the pace bounds of one host, in seconds. */
export const REQUEST_INTERVAL_MIN_SECONDS = 1;
export const REQUEST_INTERVAL_MAX_SECONDS = 30;
/** RATE-3: scraper sources default to 2 s. */
export const SCRAPER_DEFAULT_INTERVAL_SECONDS = 2;

export const SOURCE_KINDS = ['oparl', 'scraper'] as const;
export const SCRAPER_ADAPTERS = ['allris', 'sessionnet'] as const;
export const ROBOTS_EXCEPTION_SCOPES = ['api', 'files', 'both'] as const;

const hhmm = z
  .string()
  .trim()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day "HH:MM" (Europe/Berlin)');

/** DynamoDB console users type numbers as strings now and then; accept both, reject the rest. */
export const numeric = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : v),
  z.number({ error: 'must be a number' }).finite(),
);
export const flag = z.preprocess(
  (v) => (v === 'true' ? true : v === 'false' ? false : v),
  z.boolean({ error: 'must be true or false' }),
);
export const httpUrl = z
  .string({ error: 'must be a URL' })
  .trim()
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'https:' || u.protocol === 'http:') && u.username === '' && u.password === '';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL without credentials');

const sourceItemSchema = z
  .object({
    sourceId: sourceIdField,
    name: z.string().trim().max(200).optional(),
    /** The OParl System URL (kind oparl) or the RIS start page (kind scraper). */
    systemUrl: httpUrl,
    kind: z.enum(SOURCE_KINDS, { error: `must be one of ${SOURCE_KINDS.join(', ')}` }).default('oparl'),
    adapter: z.enum(SCRAPER_ADAPTERS, { error: `must be one of ${SCRAPER_ADAPTERS.join(', ')}` }).optional(),
    /** ONB-3: sources made by tools start inactive; only active sources are synced (ERR-7). */
    active: flag.default(false),
    /** RATE-2: seconds between two requests to this source's host; clamped to 1…30. */
    requestIntervalSeconds: numeric.optional(),
    /** DOC-1: off = no file of this source is fetched by any function. */
    fileFetching: flag.default(true),
    /**
     * ID-3: per-source User-Agent override (API, scraper and files alike). One line (a CR/LF would fail
     * every request) and never a browser's agent (B-3): see `userAgentProblem`.
     */
    userAgent: z
      .string({ error: 'must be a text' })
      .trim()
      .min(1)
      .max(300)
      .superRefine((value, ctx) => {
        const problem = userAgentProblem(value);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional(),
    /** SCH-1 / OPT-4: slower cadence per period, in minutes; faster values are raised to the base. */
    cadenceMinutes: z
      .object({
        weekdayDay: numeric.optional(),
        weekdayNight: numeric.optional(),
        weekend: numeric.optional(),
      })
      .strict()
      .optional(),
    /** FULL-4: an own full-sync window (may cross midnight) and a minimum distance in days. */
    fullSyncWindow: z.object({ start: hhmm, end: hhmm }).strict().optional(),
    fullSyncMinDays: numeric.optional(),
    /** FULL-5: read every list in time slices. */
    fullSyncSliced: flag.default(false),
    /** ROB-9: an approved exception; only valid with a non-empty approval note. */
    robotsException: z
      .object({
        scope: z.enum(ROBOTS_EXCEPTION_SCOPES, {
          error: `must be one of ${ROBOTS_EXCEPTION_SCOPES.join(', ')}`,
        }),
        approvalNote: z.string().trim().default(''),
        approvedBy: z.string().trim().optional(),
        approvedAt: z.string().trim().optional(),
      })
      .strict()
      .optional(),
    /** PHO-1: per body (OParl id or slug) a photo URL pattern with `{personId}` / `{personName}`. */
    photoUrlPatterns: z.record(z.string(), z.string().trim().min(1)).optional(),
    /**
     * Machine-written (issue 27): `hostKey(systemUrl)` as the tools stored it, the key of the Sources
     * table's `byHost` index, through which a running host lane finds a source added to its host. Never
     * read as config — the host is always derived from `systemUrl` — so a stale copy (a hand edit of the
     * URL) only misleads that index, whose readers check the host again.
     */
    hostKey: z.string().optional(),
    ...editTrailFields,
  })
  .strict();

export type SourceItem = z.input<typeof sourceItemSchema>;

export interface SourceConfig {
  sourceId: string;
  name?: string;
  systemUrl: string;
  /** `hostKey(systemUrl)` (shared/util): the unit of pace, robots.txt, host-wide settings, takedown ownership (SPEC "server"). */
  host: string;
  kind: (typeof SOURCE_KINDS)[number];
  adapter?: (typeof SCRAPER_ADAPTERS)[number];
  active: boolean;
  requestIntervalSeconds: number;
  fileFetching: boolean;
  userAgent?: string;
  cadenceMinutes: { weekdayDay?: number; weekdayNight?: number; weekend?: number };
  fullSyncWindow?: { start: string; end: string };
  fullSyncMinDays: number;
  fullSyncSliced: boolean;
  /** Present only when approved with a note (ROB-9). */
  robotsException?: { scope: (typeof ROBOTS_EXCEPTION_SCOPES)[number]; approvalNote: string };
  photoUrlPatterns: Record<string, string>;
  note?: string;
}

export type ParsedSource =
  | { ok: true; source: SourceConfig; warnings: FieldProblem[] }
  | { ok: false; sourceId: string; problems: FieldProblem[] };

/** RATE-2: below 1 s counts as 1 s; the published maximum a source may ask for is 30 s (noted in `warnings`). */
function clampRequestInterval(seconds: number, warnings: FieldProblem[]): number {
  const field = 'requestIntervalSeconds';
  const [min, max] = [REQUEST_INTERVAL_MIN_SECONDS, REQUEST_INTERVAL_MAX_SECONDS];
  if (seconds < min) {
    warnings.push({ field, message: `${seconds} s is below ${min}; ${min} applies` });
    return min;
  }
  if (seconds > max) {
    warnings.push({ field, message: `${seconds} s is above ${max}; ${max} applies` });
    return max;
  }
  return seconds;
}

/** Parse one raw Sources item (as unmarshalled from DynamoDB). Never throws. */
export function parseSourceItem(raw: unknown): ParsedSource {
  const result = sourceItemSchema.safeParse(raw);
  if (!result.success)
    return { ok: false, sourceId: rawSourceIdOf(raw), problems: fieldProblemsOf(result.error) };
  const item = result.data;
  const warnings: FieldProblem[] = [];
  const problems: FieldProblem[] = [];

  if (item.kind === 'scraper' && item.adapter === undefined) {
    problems.push({
      field: 'adapter',
      message: `is required for kind scraper (${SCRAPER_ADAPTERS.join(', ')})`,
    });
  }
  const defaultInterval =
    item.kind === 'scraper' ? SCRAPER_DEFAULT_INTERVAL_SECONDS : REQUEST_INTERVAL_MIN_SECONDS;
  const requestIntervalSeconds = clampRequestInterval(
    item.requestIntervalSeconds ?? defaultInterval,
    warnings,
  );
  const cadenceMinutes: SourceConfig['cadenceMinutes'] = {};
  for (const period of ['weekdayDay', 'weekdayNight', 'weekend'] as const) {
    const v = item.cadenceMinutes?.[period];
    if (v === undefined) continue;
    if (!Number.isInteger(v) || v < 1 || v > 1440) {
      problems.push({ field: `cadenceMinutes.${period}`, message: 'must be whole minutes from 1 to 1440' });
    } else {
      cadenceMinutes[period] = v;
    }
  }
  let fullSyncMinDays = 0;
  if (item.fullSyncMinDays !== undefined) {
    if (!Number.isInteger(item.fullSyncMinDays) || item.fullSyncMinDays < 0 || item.fullSyncMinDays > 365) {
      problems.push({ field: 'fullSyncMinDays', message: 'must be whole days from 0 to 365' });
    } else {
      fullSyncMinDays = item.fullSyncMinDays;
    }
  }
  if (item.fullSyncWindow && item.fullSyncWindow.start === item.fullSyncWindow.end) {
    problems.push({ field: 'fullSyncWindow', message: 'start and end must differ' });
  }
  let robotsException: SourceConfig['robotsException'];
  if (item.robotsException) {
    if (item.robotsException.approvalNote === '') {
      // ROB-9: without a valid note robots.txt applies — the item stays usable, the exception does not.
      warnings.push({
        field: 'robotsException.approvalNote',
        message: 'is empty; the exception is ignored (ROB-9)',
      });
    } else {
      robotsException = {
        scope: item.robotsException.scope,
        approvalNote: item.robotsException.approvalNote,
      };
    }
  }
  if (problems.length > 0) return { ok: false, sourceId: item.sourceId, problems };

  const source: SourceConfig = {
    sourceId: item.sourceId,
    systemUrl: item.systemUrl,
    host: hostKey(item.systemUrl),
    kind: item.kind,
    active: item.active,
    requestIntervalSeconds,
    fileFetching: item.fileFetching,
    cadenceMinutes,
    fullSyncMinDays,
    fullSyncSliced: item.fullSyncSliced,
    photoUrlPatterns: item.photoUrlPatterns ?? {},
  };
  if (item.name !== undefined) source.name = item.name;
  if (item.adapter !== undefined) source.adapter = item.adapter;
  if (item.userAgent !== undefined) source.userAgent = item.userAgent;
  if (item.fullSyncWindow !== undefined) source.fullSyncWindow = item.fullSyncWindow;
  if (robotsException !== undefined) source.robotsException = robotsException;
  if (item.note !== undefined) source.note = item.note;
  return { ok: true, source, warnings };
}

/**
 * RATE-2 (issue 13): the host and interval a broken item still states, each field valid on its own
 * (clamped as for a valid item). Undefined unless both can be read. Only ever used to keep a host
 * *slower*: the caller takes the largest interval it knows for the host.
 */
export function salvageSourcePace(
  raw: unknown,
): { host: string; requestIntervalSeconds: number } | undefined {
  const item = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const url = httpUrl.safeParse(item.systemUrl);
  const interval = numeric.safeParse(item.requestIntervalSeconds);
  if (!url.success || !interval.success) return undefined;
  return {
    host: hostKey(url.data),
    requestIntervalSeconds: clampRequestInterval(interval.data, []),
  };
}

/**
 * OPT-5 (issue 25): who a broken item still says it is — its `sourceId` and the `hostKey` of its
 * `systemUrl`, each read on its own and only if valid on its own. A takedown needs no more than this
 * to know the owner of an id, so a typo elsewhere in the item (`requestIntervalSeconds: "five"`) never
 * keeps a takedown from being recorded. Undefined fields could not be read: the item's problems say why.
 */
export function salvageSourceOwner(raw: unknown): { sourceId?: string; host?: string } {
  const item = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const sourceId = sourceIdField.safeParse(item.sourceId);
  const url = httpUrl.safeParse(item.systemUrl);
  return {
    ...(sourceId.success ? { sourceId: sourceId.data } : {}),
    ...(url.success ? { host: hostKey(url.data) } : {}),
  };
}

/** Stable source id from a system URL, for tools that create sources (ONB-3). */
export function sourceIdFromUrl(systemUrl: string): string {
  const u = new URL(systemUrl);
  const base = `${u.hostname}${u.port ? `-${u.port}` : ''}`.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return base.replace(/^-+|-+$/g, '').slice(0, 63) || 'source';
}
