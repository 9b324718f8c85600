import { BROADCAST_ERROR_TEXTS } from './constants';

/**
 * OTH-5, pure: is the broadcast live, read from what the stream URL answered. A broadcast that is not
 * live is an answer like any other, not an error; an answer that cannot be read is (a fixed text).
 */
export type LiveReading = { ok: true; live: boolean; streamUrl?: string } | { ok: false; error: string };

/**
 * An HLS playlist (RFC 8216):
 * - a media playlist (`#EXTINF` segments) is live while it has segments and no `#EXT-X-ENDLIST` — the
 *   tag that closes a finished recording (§4.3.3.4); a VOD or ended event carries it;
 * - a master playlist (`#EXT-X-STREAM-INF` variants) counts as live when it lists at least one variant.
 *   We decided not to fetch a variant to look for `#EXT-X-ENDLIST` there: that would double the
 *   requests to the provider every minute (OTH-5 sparing), and providers publish the master of a
 *   meeting stream while the broadcast runs. Its first variant is reported as the stream URL.
 * Anything not starting with `#EXTM3U` (§4.3.1.1) is no playlist.
 */
export function readHlsPlaylist(text: string, playlistUrl: string): LiveReading {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines[0] !== '#EXTM3U') return { ok: false, error: BROADCAST_ERROR_TEXTS.notPlaylist };
  const variantAt = lines.findIndex((l) => l.startsWith('#EXT-X-STREAM-INF'));
  if (variantAt >= 0) {
    const uri = lines.slice(variantAt + 1).find((l) => !l.startsWith('#'));
    if (uri === undefined) return { ok: true, live: false };
    return { ok: true, live: true, streamUrl: resolveUri(uri, playlistUrl) };
  }
  const segments = lines.filter((l) => l.startsWith('#EXTINF')).length;
  const ended = lines.includes('#EXT-X-ENDLIST');
  return segments > 0 && !ended
    ? { ok: true, live: true, streamUrl: playlistUrl }
    : { ok: true, live: false };
}

function resolveUri(uri: string, base: string): string | undefined {
  try {
    const u = new URL(uri, base);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.toString() : undefined;
  } catch {
    return undefined;
  }
}

/** RFC 6901: the value a pointer names, `undefined` when any token names nothing. */
export function resolveJsonPointer(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  let at: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    // §4: ~1 first, then ~0 — so "~01" is "~1", not "/".
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(at)) {
      // §4: array indices are decimal without leading zeros; "-" names the (absent) element after the last.
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      at = at[Number(token)];
    } else if (at !== null && typeof at === 'object' && Object.hasOwn(at, token)) {
      at = (at as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return at;
}

/** Live flags as providers write them. */
const LIVE_VALUES: ReadonlySet<unknown> = new Set([true, 1, 'true', 'live', 'online', 'on', '1']);
const NOT_LIVE_VALUES: ReadonlySet<unknown> = new Set([false, 0, 'false', 'offline', 'off', '0', null]);

/** A provider's JSON status: the live flag and, when configured, the stream URL, each by JSON pointer. */
export function readJsonStatus(
  text: string,
  pointers: { livePointer: string; streamPointer?: string },
  statusUrl: string,
): LiveReading {
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return { ok: false, error: BROADCAST_ERROR_TEXTS.notJson };
  }
  const flagValue = resolveJsonPointer(doc, pointers.livePointer);
  const normalized = typeof flagValue === 'string' ? flagValue.trim().toLowerCase() : flagValue;
  if (!LIVE_VALUES.has(normalized) && !NOT_LIVE_VALUES.has(normalized)) {
    return { ok: false, error: BROADCAST_ERROR_TEXTS.pointerMissing };
  }
  const live = LIVE_VALUES.has(normalized);
  if (pointers.streamPointer === undefined) return { ok: true, live };
  const stream = resolveJsonPointer(doc, pointers.streamPointer);
  const streamUrl = typeof stream === 'string' ? resolveUri(stream.trim(), statusUrl) : undefined;
  return streamUrl === undefined ? { ok: true, live } : { ok: true, live, streamUrl };
}
