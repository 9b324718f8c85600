// The demo council's live stream (OTH-5): a provider-style JSON status endpoint and an HLS media
// playlist, so `npm start` can show a broadcast. The stream is live whenever the demo runs; tests that
// need "not live" pass `streamLive: false`.

/** The status endpoint: `{"live":…,"stream":{"hls":…}}` — read with the pointers below. */
export const DEMO_STREAM_STATUS_PATH = '/stream/status.json';
export const DEMO_STREAM_PLAYLIST_PATH = '/stream/live.m3u8';
/** RFC 6901 pointers into the status answer, as an operator would configure them. */
export const DEMO_STREAM_POINTERS = { livePointer: '/live', streamPointer: '/stream/hls' } as const;

const SEGMENT_SECONDS = 6;

/** The answer for a `/stream/…` path, or undefined for any other path. */
export function streamReply(
  path: string,
  live: boolean,
  nowMs: number,
): { status: number; contentType: string; body: string } | undefined {
  if (path === DEMO_STREAM_STATUS_PATH) {
    return {
      status: 200,
      contentType: 'application/json; charset=utf-8',
      body: JSON.stringify({
        title: 'Demo-Livestream der Ratssitzung',
        live,
        stream: { hls: DEMO_STREAM_PLAYLIST_PATH },
      }),
    };
  }
  if (path === DEMO_STREAM_PLAYLIST_PATH) {
    // A sliding window of three segments; a stream that is over ends with #EXT-X-ENDLIST (RFC 8216).
    const sequence = Math.floor(nowMs / 1000 / SEGMENT_SECONDS);
    const lines = ['#EXTM3U', '#EXT-X-VERSION:3', `#EXT-X-TARGETDURATION:${SEGMENT_SECONDS}`];
    lines.push(`#EXT-X-MEDIA-SEQUENCE:${sequence}`);
    for (let i = 0; i < 3; i += 1) lines.push(`#EXTINF:${SEGMENT_SECONDS}.0,`, `segment-${sequence + i}.ts`);
    if (!live) lines.push('#EXT-X-ENDLIST');
    return { status: 200, contentType: 'application/vnd.apple.mpegurl', body: `${lines.join('\n')}\n` };
  }
  return undefined;
}
