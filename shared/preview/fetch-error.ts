import type { DocumentItem } from '../documents';
import { GONE_STATUSES } from '../documents';
import { HttpStatusError, RETRY_AFTER_STATUSES } from '../fetch';
import { busy, errorPage, gone, retryAfterSeconds } from './respond';
import type { PreviewResponse } from './types';

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

/** The visitor's answer when an on-demand fetch did not give the file (pure: the error and `nowMs`). */
export function fetchErrorResponse(item: DocumentItem, error: unknown, nowMs: number): PreviewResponse {
  const code = (error as { code?: unknown })?.code;
  const retryAt = (error as { retryAt?: unknown })?.retryAt;
  if (typeof code === 'string' && NO_SLOT_CODES.has(code)) {
    // PRV-1: rather than exceed the pace, ask the visitor to come back.
    return busy(
      retryAfterSeconds(typeof retryAt === 'number' ? retryAt : undefined, nowMs),
      'Server ausgelastet',
    );
  }
  if (code === 'ROBOTS_DISALLOWED') return errorPage('robots', item.url);
  if (code === 'HTML_INSTEAD_OF_FILE') return errorPage('bot-protection', item.url);
  if (code === 'RESPONSE_TOO_LARGE') return errorPage('too-large', item.url);
  if (error instanceof HttpStatusError) {
    if (GONE_STATUSES.has(error.status)) return gone('bei der Quelle nicht mehr vorhanden');
    if (RETRY_AFTER_STATUSES.has(error.status)) {
      return busy(retryAfterSeconds(error.retryAt, nowMs), 'Quelle bittet um Geduld');
    }
  }
  return errorPage('source-error', item.url);
}
