/**
 * Fixed units of time in milliseconds, one spelling each (issue 29, one home per word): a rule's
 * constant reads `7 * DAY_MS` wherever it lives. A day here is 24 h; the local calendar days of
 * Europe/Berlin (23 or 25 h on a DST change) are shared/schedule's `calendar`.
 */
export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
