import { describe, expect, it } from 'vitest';
import { createProgress, type ProgressStream } from '../../cli/progress';
import type { FetchEvent } from '../../shared/fetch';

function stream(isTTY: boolean): ProgressStream & { text: string } {
  return {
    isTTY,
    columns: 80,
    text: '',
    write(chunk: string) {
      this.text += chunk;
    },
  };
}

const request = (host: string): FetchEvent => ({
  kind: 'request',
  sourceId: 's',
  host,
  url: `https://${host}/x`,
  purpose: 'api',
  method: 'GET',
  attempt: 1,
  hop: 0,
  status: 200,
  durationMs: 5,
});

describe('progress of long operations', () => {
  it('on a terminal: one status line redrawn in place (step done/total, current host, requests so far)', () => {
    let now = 0;
    const status = stream(true);
    const lines = stream(false);
    const progress = createProgress({ json: false, status, lines, now: () => now });
    progress.step('files', 0, 3);
    progress.request(request('ris.a.de'));
    now += 1_000;
    progress.request(request('ris.b.de'));
    now += 1_000;
    progress.step('files', 3, 3);
    progress.say('files: stored 3');
    progress.end();
    expect(status.text).toContain('\r\x1b[Kfiles 3/3 · ris.b.de · 2 requests');
    expect(status.text.endsWith('\r\x1b[K')).toBe(true);
    expect(lines.text).toBe('files: stored 3\n');
  });

  it('without a terminal: no status line at all, only the lines worth keeping; under --json those go to stderr', () => {
    const status = stream(false);
    const lines = stream(false);
    const progress = createProgress({ json: true, status, lines });
    progress.step('sync demo', 1, 2, 'ris.a.de');
    progress.request(request('ris.a.de'));
    progress.say('sync demo: done');
    progress.end();
    expect(status.text).toBe('');
    expect(lines.text).toBe('sync demo: done\n');
    expect(progress.requests).toBe(1);
  });
});
