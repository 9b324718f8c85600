import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serveCommand } from '../../cli/commands/serve';
import type { LocalRuntime } from '../../cli/local/runtime';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { getJson, type ServedMirror, seedServedMirror } from './support';

let bed: AwsTestbed;
let m: ServedMirror;

beforeAll(async () => {
  bed = await startAwsTestbed();
  m = await seedServedMirror(bed, 'serve');
}, 120_000);

afterAll(async () => {
  await m?.close();
  await bed?.stop();
});

describe('ingestor serve: the API beside the preview on one port (issue 16)', () => {
  it('prints the System URL, serves /oparl/v1/system and hands /documents/… to the preview', async () => {
    const rt: LocalRuntime = { env: bed.env, clients: bed.clients, dataDir: '.', close: async () => {} };
    const stop = new AbortController();
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    let url = '';
    const listening = new Promise<void>((resolve) => {
      void serveCommand(rt, {
        allowLoopback: true,
        signal: stop.signal,
        onListening: (u) => {
          url = u;
          resolve();
        },
      }).then((r) => written.push(JSON.stringify(r.json)));
    });
    try {
      await listening;
      spy.mockRestore();
      expect(written.join('')).toContain(`OParl API over the mirror: ${url}/oparl/v1/system`);
      const system = await getJson(`${url}/oparl/v1/system`);
      expect(system.json.id).toBe(`${url}/oparl/v1/system`);
      const bodies = await getJson(system.json.body as string);
      expect((bodies.json.data as { name: string }[]).map((b) => b.name)).toEqual(['Stadt Köln']);
      // The preview answers its own route (an unknown document id): not the API's 404 text.
      const doc = await fetch(`${url}/documents/${'0'.repeat(64)}`);
      expect(doc.status).toBe(404);
      expect(await doc.text()).toContain('Dokument nicht gefunden');
    } finally {
      spy.mockRestore();
      stop.abort();
    }
  });
});
