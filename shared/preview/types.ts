import type { Readable } from 'node:stream';

/**
 * Node-agnostic request and response of the preview endpoint: the Lambda Function URL adapter
 * (functions/preview.ts) and `ingestor serve` (node:http) translate to and from these.
 */
export interface PreviewRequest {
  method: string;
  /** Path without query string, e.g. `/documents/<docId>`. */
  path: string;
  /** The visitor's address as the platform saw it; only ever used as a salted hash (PRV-2). */
  visitorAddress: string;
  /** The query string: only PREVIEW_DOWNLOAD_PARAM means anything (delivery.ts); absent = none. */
  query?: URLSearchParams;
}

/**
 * How the visitor asked for the file: `view` (the link of `File.accessUrl`: a PDF inline, every other
 * type as an attachment) or `download` (`File.downloadUrl`, `?download=1`: every type as an attachment).
 */
export type Delivery = 'view' | 'download';

/** The part of a Lambda Function URL event the preview reads (functions/preview.ts). */
export interface PreviewFunctionUrlEvent {
  rawPath: string;
  rawQueryString?: string;
  headers?: Record<string, string | undefined>;
  requestContext: { http: { method: string; sourceIp: string } };
}

export interface PreviewResponse {
  status: number;
  headers: Record<string, string>;
  /** A stream (file bytes) or a small text/HTML body of our own. */
  body?: Readable | string;
  /**
   * Work that must finish after the body was sent (PRV-3: storing what was fetched); adapters await
   * it before they end the invocation. Never rejects.
   */
  after?: Promise<void>;
}

export type ErrorPageKind = 'robots' | 'bot-protection' | 'too-large' | 'source-error';

/** What the preview does for one document (the pure decision, decide.ts). */
export type PreviewDecision =
  | { kind: 'stored'; key: string; ruleIds: string[] }
  | { kind: 'fetch'; store: boolean; ruleIds: string[] }
  | { kind: 'original'; url: string; reason: string; ruleIds: string[] }
  | { kind: 'error-page'; page: ErrorPageKind; ruleIds: string[] }
  | { kind: 'not-found'; ruleIds: string[] }
  | { kind: 'gone'; reason: string; ruleIds: string[] };
