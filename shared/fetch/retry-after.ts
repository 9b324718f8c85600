import { RETRY_AFTER_CAP_MS } from './constants';

/**
 * RATE-8: `Retry-After` as delta-seconds or HTTP-date (RFC 9110 §10.2.3) → milliseconds from
 * `nowMs`, capped at 24 h. A date in the past gives 0; anything unparsable gives undefined (and is
 * then ignored — it never shortens a pause).
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  let ms: number;
  if (/^\d+$/.test(text)) {
    ms = Number(text) * 1000;
  } else {
    // HTTP-dates always name a weekday and month; this keeps Date.parse from reading '1.5' as a date.
    if (!/[A-Za-z]/.test(text)) return undefined;
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = at - nowMs;
  }
  if (!Number.isFinite(ms)) return RETRY_AFTER_CAP_MS;
  return Math.min(Math.max(ms, 0), RETRY_AFTER_CAP_MS);
}
