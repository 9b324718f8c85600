import { describe, expect, it } from 'vitest';
import {
  BROADCAST_ERROR_TEXTS,
  readHlsPlaylist,
  readJsonStatus,
  resolveJsonPointer,
} from '../../shared/broadcasts';
import { isJsonPointer } from '../../shared/config';

/** OTH-5 live detection, pure: HLS playlists (RFC 8216) and JSON status through RFC 6901 pointers. */
const URL_ = 'https://stream.example/live/rat.m3u8';

const media = (lines: string[]) =>
  ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-TARGETDURATION:6', '#EXT-X-MEDIA-SEQUENCE:41', ...lines].join('\n');

describe('OTH-5: HLS playlists', () => {
  it('OTH-5: a media playlist with segments and no ENDLIST is live', () => {
    expect(readHlsPlaylist(media(['#EXTINF:6.0,', 'seg41.ts', '#EXTINF:6.0,', 'seg42.ts']), URL_)).toEqual({
      ok: true,
      live: true,
      streamUrl: URL_,
    });
  });

  it('OTH-5: #EXT-X-ENDLIST ends it: a finished recording is not live', () => {
    expect(readHlsPlaylist(media(['#EXTINF:6.0,', 'seg41.ts', '#EXT-X-ENDLIST']), URL_)).toEqual({
      ok: true,
      live: false,
    });
  });

  it('OTH-5: a media playlist without segments (before the broadcast) is not live', () => {
    expect(readHlsPlaylist(media([]), URL_)).toEqual({ ok: true, live: false });
  });

  it('OTH-5: a master playlist that lists variants counts as live; its first variant is the stream', () => {
    const master = [
      '#EXTM3U',
      '#EXT-X-STREAM-INF:BANDWIDTH=1280000,RESOLUTION=1280x720',
      'hd/index.m3u8',
      '#EXT-X-STREAM-INF:BANDWIDTH=640000',
      'sd/index.m3u8',
    ].join('\r\n');
    expect(readHlsPlaylist(master, URL_)).toEqual({
      ok: true,
      live: true,
      streamUrl: 'https://stream.example/live/hd/index.m3u8',
    });
  });

  it('OTH-5: anything without #EXTM3U is no playlist: an error with the fixed text', () => {
    expect(readHlsPlaylist('<html>Wartungsarbeiten</html>', URL_)).toEqual({
      ok: false,
      error: BROADCAST_ERROR_TEXTS.notPlaylist,
    });
  });
});

describe('OTH-5: JSON status through RFC 6901 pointers', () => {
  const doc = { 'a/b': { 'm~n': [{ live: true }] }, data: { state: 'LIVE', hls: '/hls/rat.m3u8' }, '': 7 };

  it.each([
    ['', doc],
    ['/a~1b/m~0n/0/live', true],
    ['/data/state', 'LIVE'],
    ['/', 7],
    ['/a~1b/m~0n/01', undefined],
    ['/a~1b/m~0n/-', undefined],
    ['/missing/x', undefined],
    ['/data/state/length', undefined],
  ])('OTH-5: RFC 6901 pointer %j', (pointer, expected) => {
    expect(resolveJsonPointer(doc, pointer)).toEqual(expected);
  });

  it('OTH-5: config accepts only RFC 6901 pointers', () => {
    expect(['', '/live', '/a~0b/~1', '/0'].every(isJsonPointer)).toBe(true);
    expect(['live', '/a~2', '/~', 'a/b'].some(isJsonPointer)).toBe(false);
  });

  it('OTH-5: live flag and stream URL by pointer; a relative stream URL resolves against the endpoint', () => {
    const text = JSON.stringify(doc);
    expect(
      readJsonStatus(
        text,
        { livePointer: '/data/state', streamPointer: '/data/hls' },
        'https://p.example/status',
      ),
    ).toEqual({
      ok: true,
      live: true,
      streamUrl: 'https://p.example/hls/rat.m3u8',
    });
  });

  it('OTH-5: "offline" is an answer, not an error', () => {
    expect(readJsonStatus('{"live":"offline"}', { livePointer: '/live' }, URL_)).toEqual({
      ok: true,
      live: false,
    });
  });

  it.each([
    ['not JSON', 'Service Unavailable', BROADCAST_ERROR_TEXTS.notJson],
    ['no value at the pointer', '{"other":true}', BROADCAST_ERROR_TEXTS.pointerMissing],
    ['a value that is no flag', '{"live":{"x":1}}', BROADCAST_ERROR_TEXTS.pointerMissing],
  ])('OTH-5: %s → a fixed error text', (_label, text, error) => {
    expect(readJsonStatus(text, { livePointer: '/live' }, URL_)).toEqual({ ok: false, error });
  });

  it('OTH-5: a stream URL that is no http(s) URL is not reported', () => {
    expect(
      readJsonStatus(
        '{"live":true,"u":"javascript:alert(1)"}',
        { livePointer: '/live', streamPointer: '/u' },
        URL_,
      ),
    ).toEqual({
      ok: true,
      live: true,
    });
  });
});
