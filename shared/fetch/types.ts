import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { AddressPolicy } from '../net';
import type { RobotsException } from '../robots';
import type { FetchPurpose } from './constants';
import type { Clock, HostSlots, RobotsCacheStore, Sleep } from './ports';
import type { RunContext } from './run-context';

export type { FetchPurpose } from './constants';

/** The source a request is made for (from shared/config `SourceConfig`). */
export interface FetchSource {
  sourceId: string;
  /** ID-3: per-source User-Agent override. */
  userAgent?: string;
  /** RATE-2: this source's interval, seconds (clamped to 1…30 here as well). */
  requestIntervalSeconds: number;
  /** ROB-9: approved exception; ignored without a non-empty note. */
  robotsException?: RobotsException;
}

export interface FetchOptions {
  purpose: FetchPurpose;
  source: FetchSource;
  /** RATE-2: the largest interval configured for any source on this hostname, ms. */
  hostIntervalMs?: number;
  /**
   * OTH-2: the largest interval configured for a council source on a hostname, ms, asked for each
   * hop's host (a redirect to a council host keeps that host's pace too). Counts beside `hostIntervalMs`.
   */
  hostIntervalFor?: (host: string) => number | undefined;
  /** Limit of the (decoded) body; default per purpose (`DEFAULT_MAX_BYTES`). */
  maxBytes?: number;
  /** Total wait for slots and robots.txt before HOST_SLOT_TIMEOUT (PRV-1: 5 s); default 120 s. */
  maxWaitMs?: number;
  /** Extra request headers. User-Agent, Host and framing headers are refused (B-3). */
  headers?: Record<string, string>;
  /** Default GET. */
  method?: 'GET' | 'HEAD';
  /** B-1 / DEL-1: validators of the copy we hold; a 304 then comes back as a result. */
  conditional?: { etag?: string; lastModified?: string };
  /** ERR-2 / ERR-3 / ID-4 bookkeeping of the current source run. */
  runContext?: RunContext;
  /** Headers deadline, default 60 s. */
  headersTimeoutMs?: number;
  /** Whole-body deadline, default per purpose (`DEFAULT_BODY_TIMEOUT_MS`). */
  bodyTimeoutMs?: number;
  /** Attempts on network error, timeout or 5xx (ERR-1); default per purpose. */
  maxAttempts?: number;
}

export interface RedirectHop {
  url: string;
  status: number;
  location: string;
}

export interface FetchTimings {
  /** Waiting for slots and robots.txt, summed over attempts and hops. */
  waitMs: number;
  /** From sending the final request to its response head. */
  headersMs: number;
  /** From the call to the end of the body (buffered results only). */
  totalMs?: number;
}

interface FetchResultBase {
  /** The URL asked for. */
  url: string;
  /** The URL that answered (after redirects). */
  finalUrl: string;
  status: number;
  /** True for a 304 to a conditional request (B-1): keep the copy you hold. */
  notModified: boolean;
  /** Response headers, lower-cased names; repeated headers joined with ', '. Do not log them whole. */
  headers: Record<string, string>;
  contentType: string | undefined;
  etag: string | undefined;
  lastModified: string | undefined;
  redirects: RedirectHop[];
  attempts: number;
  timings: FetchTimings;
}

export interface FetchResult extends FetchResultBase {
  body: Buffer;
  /** True when the limit cut the body (robots.txt only, ROB-5). */
  truncated: boolean;
}

export interface FetchStreamResult extends FetchResultBase {
  /**
   * The decoded body. The limit is enforced while it flows (RESPONSE_TOO_LARGE as a stream
   * error); the host's in-flight place is released when it ends, fails or is destroyed — consume or
   * destroy it.
   */
  body: Readable;
}

/** One HTTP exchange or refusal, for logs and metrics. No headers, no bodies. */
export interface FetchEvent {
  kind: 'request' | 'refused';
  sourceId: string;
  host: string;
  url: string;
  purpose: FetchPurpose;
  method: 'GET' | 'HEAD';
  /** 1-based attempt of the fetch (ERR-1). */
  attempt: number;
  /** Redirect hop this request belongs to (0 = the URL asked for). */
  hop: number;
  status?: number;
  errorCode?: string;
  durationMs: number;
}

export interface UserAgentSettings {
  /** ID-1: the operator's agent (INGESTOR_USER_AGENT / SCRAPER_USER_AGENT); default built from package.json. */
  userAgent?: string;
}

export interface PoliteFetcherDeps {
  slots: HostSlots;
  robotsStore: RobotsCacheStore;
  /** The guarded undici dispatcher (`createGuardedAgent`). Required: there is no unguarded default. */
  dispatcher: Dispatcher;
  /**
   * The policy the dispatcher enforces, repeated here so IP-literal URLs are refused before a
   * slot or a robots.txt fetch is spent on them.
   */
  addressPolicy?: AddressPolicy;
  clock?: Clock;
  sleep?: Sleep;
  userAgent?: UserAgentSettings;
  onRequest?: (event: FetchEvent) => void;
}

export interface PoliteFetcher {
  /** Buffered fetch (API pages, HTML pages, robots.txt, small files). */
  fetch(url: string, options: FetchOptions): Promise<FetchResult>;
  /** Streamed fetch for large files: the limit is enforced while streaming. */
  stream(url: string, options: FetchOptions): Promise<FetchStreamResult>;
  /** The User-Agent a source's requests carry (ID-1 / ID-3). */
  userAgentFor(source: Pick<FetchSource, 'userAgent'>): string;
}
