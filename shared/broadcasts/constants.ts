/**
 * OTH-5 numbers: one constant per rule, exported for the rules page and the tests.
 */

/** OTH-5: polling starts this many minutes before a meeting's scheduled start. */
export const BROADCAST_LEAD_MINUTES = 15;

/** OTH-5: without a scheduled end, polling stops this many hours after the start. */
export const BROADCAST_OPEN_END_HOURS = 4;

/** OTH-5: at most one request per broadcast source and minute. */
export const BROADCAST_POLL_INTERVAL_MS = 60_000;

/**
 * OTH-5: one request per poll — no in-poll retries after a 5xx or a timeout (ERR-1's repetitions would
 * be three requests within seconds); the next minute's poll is the retry.
 */
export const BROADCAST_ATTEMPTS_PER_POLL = 1;

/**
 * Longest wait for the host's slot (a Retry-After, a council host's pace): a poll that cannot be sent
 * within this is given up ("paused") and the next minute decides again — it never outlives its minute.
 */
export const BROADCAST_MAX_WAIT_MS = 20_000;

/** Broadcast sources polled at once in a pass: one slow provider never holds up the others. */
export const BROADCAST_POLLS_IN_FLIGHT = 8;

/**
 * A playlist or status answer is small (a few KB); anything bigger is no answer we can read. Enforced
 * while streaming by the fetcher (RESPONSE_TOO_LARGE).
 */
export const BROADCAST_MAX_BYTES = 512 * 1024;

/**
 * Errors of reading an answer are recorded as these fixed texts only (a failed fetch: shared/other-fetch
 * `otherFetchErrorText`) — never an exception's message, a stack or an internal host name (issue 17):
 * on-call reads them in `broadcasts status`, municipalities may see them.
 */
export const BROADCAST_ERROR_TEXTS = {
  notPlaylist: 'Antwort ist keine HLS-Playlist',
  notJson: 'Antwort ist kein gültiges JSON',
  pointerMissing: 'Statusfeld fehlt in der Antwort',
} as const;
