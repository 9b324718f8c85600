// Public types of the fake council system (a loopback OParl server for tests and the demo).

export type OparlVersion = '1.0' | '1.1';

/** The per-body lists, named like the Body fields that point at them (path segment = key). */
export const LIST_KEYS = [
  'organization',
  'person',
  'meeting',
  'paper',
  'legislativeTerm',
  'agendaItem',
  'membership',
  'consultation',
  'file',
  'locationList',
] as const;
export type ListKey = (typeof LIST_KEYS)[number];

/** OParl calls these optional: systems may lack them (SCH-11). */
export const OPTIONAL_LIST_KEYS: readonly ListKey[] = [
  'membership',
  'agendaItem',
  'consultation',
  'file',
  'locationList',
];

export type Vendor = 'generic' | 'sternberg' | 'cc-egov';

export interface BodySpec {
  name: string;
  shortName?: string;
  /** Amtlicher Gemeindeschlüssel; generated when absent. */
  ags?: string;
}

/** Which deleted objects appear in list pages. OParl 1.1 only requires them for modified_since queries. */
export type ListDeleted = 'filtered' | 'always' | 'never';

export interface FakeCouncilOptions {
  /** OTH-5: whether the demo's live stream (`/stream/…`, demo/stream.ts) is live; default true. */
  streamLive?: boolean;
  /** Listen port on 127.0.0.1; default 0 (any free port). */
  port?: number;
  /** Host name used in generated URLs (e.g. 'ris-a.test'); default '127.0.0.1'. */
  hostname?: string;
  /** Path prefix of the OParl API; default '/oparl/v1'. */
  basePath?: string;
  /** Default '1.1'. With '1.0' type URIs say 1.0 and the Body lacks the 1.1-only list links. */
  oparlVersion?: OparlVersion;
  /** Flavour of the System object (copied from recorded SD.NET / CC e-gov systems); default 'generic'. */
  vendor?: Vendor;
  /** Number of bodies, or their names; default 1. */
  bodies?: number | Array<string | BodySpec>;
  /** Page size of the body list; default 5. */
  bodyPageSize?: number;
  /** Objects generated per list (or per list key); default 12. */
  objectsPerList?: number | Partial<Record<ListKey, number>>;
  /** Page size of every per-body list; default 5. */
  pageSize?: number;
  /** Seed for the deterministic generator; default 1. */
  seed?: number;
  /** The newest generated `modified`; older objects spread over the ~18 months before. Default 2024-06-28T16:30:00+02:00. */
  latestModified?: string;
  /** Lists whose generated `modified` values carry no time of day (00:00:00 local), as some vendors do (SCH-9). */
  midnightModifiedLists?: ListKey[];
  /** Lists advertised by the Body but answered with 404 (SCH-11). */
  missingLists?: ListKey[];
  /** Default 'filtered'. */
  listDeleted?: ListDeleted;
  /** Send ETags on API JSON and answer If-None-Match with 304 (B-1); files and robots.txt always do. Default false. */
  apiEtags?: boolean;
  /** Clock for `modified` of mutations; default the real clock. */
  now?: () => Date;
  /** Initial robots.txt; default allow everything. */
  robots?: RobotsScript | string;
  /** Faults active from the start. */
  faults?: FaultRule[];
  /** Told of every request as it arrives and when its exchange ends (e.g. to relay them to another process). */
  observe?: { arrived?(req: RecordedRequest): void; ended?(req: RecordedRequest): void };
}

export interface RecordedRequest {
  method: string;
  /** Path and query exactly as received. */
  path: string;
  /** Lower-cased header names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  userAgent: string | undefined;
  accept: string | undefined;
  ifNoneMatch: string | undefined;
  ifModifiedSince: string | undefined;
  /** True when If-None-Match or If-Modified-Since was sent. */
  conditional: boolean;
  /** Arrival, `performance.now()` in ms: monotonic, for measuring spacing between requests. */
  at: number;
  /** Arrival, `Date.now()`. */
  epochMs: number;
  /** When the exchange ended (response finished or connection closed), `performance.now()` in ms; undefined while open. */
  endAt?: number;
  /** Status sent, once the head went out (undefined for hang-ups or while pending). */
  status?: number;
  /** Kinds of the faults applied to this request. */
  faults: FaultKind[];
}

export type RedirectStatus = 301 | 302 | 303 | 307 | 308;

/**
 * One hostile behaviour. Short-circuit kinds (status, hangup, redirect*) replace the response;
 * the others modify the normal one and combine freely.
 */
export type Fault =
  /** Fixed response: 500, 503 + Retry-After, 429, 403, 404 with an error body or `[]` (SD.NET), an HTML bot wall with 200 … */
  | { kind: 'status'; status: number; body?: string; contentType?: string; headers?: Record<string, string> }
  /** Close the connection without answering (network error). */
  | { kind: 'hangup' }
  /** Wait before sending the headers. */
  | { kind: 'delay'; delayMs: number }
  /** Slowloris: headers at once, then `chunkBytes` (default 1) every `intervalMs`. */
  | { kind: 'slowBody'; intervalMs: number; chunkBytes?: number }
  /** Declare another Content-Type (e.g. 'text/html') for the unchanged body. */
  | { kind: 'contentType'; contentType: string }
  /** Redirect to `location` (relative or absolute: another host, another scheme). */
  | { kind: 'redirect'; location: string; status?: RedirectStatus }
  /** `hops` redirects in a row, then the resource itself (served under /__hop/0/…). */
  | { kind: 'redirectChain'; hops: number; status?: RedirectStatus }
  /** path → /__loop/path → path → … forever (while the fault lasts). */
  | { kind: 'redirectLoop'; status?: RedirectStatus }
  /** Content-Length larger than the body by `extraBytes` (default 100); the connection is closed after the body. */
  | { kind: 'contentLengthMismatch'; extraBytes?: number }
  /** Gzip the body with Content-Encoding: gzip, asked for or not. */
  | { kind: 'gzip' }
  /** A small gzip body that inflates to `inflatedBytes` (default 64 MiB) of JSON whitespace. */
  | { kind: 'gzipBomb'; inflatedBytes?: number }
  /**
   * A poison PDF (DOC-2, issue 25) instead of the file: `pages` near-empty pages, or a FlateDecode
   * bomb inflating to `inflatedBytes` (demo/poison-pdf.ts).
   */
  | { kind: 'poisonPdf'; pages?: number; inflatedBytes?: number }
  /** Raw (unescaped) control characters inside JSON strings. */
  | { kind: 'controlChars' }
  /** A JSON nesting bomb: `nested` (a field no OParl type has) of the first item becomes an array nested `depth` deep (default 10,000; ~20 KB). */
  | { kind: 'nestingBomb'; depth?: number }
  /** Replace string values of `fields` (default name, website, created) with `value` (default 'N/A'). */
  | { kind: 'placeholders'; fields?: string[]; value?: string }
  /** List filters are accepted but not applied. */
  | { kind: 'ignoreFilters' }
  /** links.next loses modified_since / modified_until. */
  | { kind: 'dropFilterFromNext' }
  /** Any modified_since / modified_until → 400. */
  | { kind: 'rejectFilters' }
  /** Filter values with fractional seconds → 400. */
  | { kind: 'rejectFractionalSeconds' }
  /** The body list URL answers with the first Body object instead of a list. */
  | { kind: 'bodyAsSingleObject' }
  /** From page 2 on, links.next points back to `toPage` (default 1). */
  | { kind: 'nextCycle'; toPage?: number };

export type FaultKind = Fault['kind'];

/**
 * Which requests a fault hits. A string is a pattern where `*` matches any characters; it is
 * compared with the pathname, or with path + query when it contains '?'. A RegExp is tested
 * against path + query.
 */
export type FaultMatcher = string | RegExp | ((req: RecordedRequest) => boolean);

export interface FaultScope {
  /** Only the next N matching requests; default unlimited. */
  times?: number;
  /** Only requests whose User-Agent contains this (case-insensitive), e.g. 'mandari-ingestor' (ID-4). */
  userAgentIncludes?: string;
}

export interface FaultRule extends FaultScope {
  match: FaultMatcher;
  fault: Fault;
}

export interface FaultHandle {
  readonly fault: Fault;
  /** Requests this rule was applied to so far. */
  readonly hits: number;
  /** Uses left, or undefined when unlimited. */
  readonly remaining: number | undefined;
  remove(): void;
}

export interface HeldRequest {
  /** Resolves once the held request has arrived (and is waiting). */
  readonly arrived: Promise<RecordedRequest>;
  /** Answers it: routed then, so it shows the data as it is at release. */
  release(): void;
}

export interface RobotsScript {
  /** Default 200. */
  status?: number;
  /** Default: allow everything. */
  body?: string;
  /** Default 'text/plain; charset=utf-8'. */
  contentType?: string;
  headers?: Record<string, string>;
  /** Wait before answering. */
  delayMs?: number;
  /** ETag to send; default derived from the body; false = none. */
  etag?: string | false;
}

/** Addresses one stored object: by its URL, or by body number (1-based), list and number (1-based). */
export type ObjectRef = { id: string } | { body?: number; list: ListKey; n: number };

export type Mutation =
  | (ObjectRef & { op: 'update'; set: Record<string, unknown>; modified?: string })
  | (ObjectRef & { op: 'delete'; modified?: string })
  | { op: 'add'; body?: number; list: ListKey; set?: Record<string, unknown>; modified?: string };

export interface FakeCouncil {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  readonly url: string;
  readonly port: number;
  readonly systemUrl: string;
  readonly bodyListUrl: string;
  /** Every request received, in arrival order (the same array for the server's lifetime). */
  readonly requests: RecordedRequest[];
  clearRequests(): void;
  bodyUrl(body?: number): string;
  listUrl(list: ListKey, body?: number): string;
  objectUrl(list: ListKey, n: number, body?: number): string;
  /** Current rendered objects of a list, in list order (tombstones included when asked). */
  objects(list: ListKey, options?: { body?: number; includeDeleted?: boolean }): Record<string, unknown>[];
  setFault(match: FaultMatcher, fault: Fault, scope?: FaultScope): FaultHandle;
  clearFaults(): void;
  /**
   * Holds the next request that matches before it is answered, until `release()` (or `close()`): a
   * response in flight for exactly as long as a test needs to act in between — no timer involved.
   */
  hold(match: FaultMatcher): HeldRequest;
  setRobots(script: RobotsScript | string): void;
  /** Applies the mutations in order and returns the ids of the objects touched. */
  mutate(mutations: Mutation | Mutation[]): string[];
  close(): Promise<void>;
}
