import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idHash, MirrorStore } from '../../shared/mirror';
import { tombstoneIds } from '../../shared/takedown';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { getJson, paperWrite, seedListedBody, serveApi, stopServer } from '../support/mirror-api';
import { takedownDepsOf } from '../support/takedown';

/**
 * Issue 25 point 5 (OPT-5, OPT-2): a taken-down object's deletion stub is "bare" — no origin id,
 * nothing of the object (docs/mirror-api.md). Its API id was the unkeyed SHA-256 of the origin id, and
 * origin ids are sequential (`…/paper/1`, `…/paper/2`): anyone could hash guesses until one matched the
 * stub and learn which paper was taken down. The ids are keyed now; the stub, the page's links and its
 * cursor must carry nothing that a hash of a guessed origin id matches.
 */
const SOURCE = 'stub-ids';
const ORIGIN = 'https://ris-stub-ids.test/oparl';
const BODY = `${ORIGIN}/body/1`;
const T0 = Date.parse('2024-09-01T08:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

let bed: AwsTestbed;

beforeAll(async () => {
  bed = await startAwsTestbed();
  await seedListedBody(bed, SOURCE, BODY, at(0));
  const mirror = new MirrorStore(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
  for (let n = 1; n <= 5; n += 1) await mirror.writeLive(paperWrite(SOURCE, BODY, n, at(n)));
}, 60_000);
afterAll(async () => {
  await bed?.stop();
});

/** Every hex run a guesser could compare with a hash of a guessed id: 12 digits (a list tie) or more. */
function hashesGuessable(originIds: string[]): string[] {
  return originIds.map((id) => idHash(id).slice(0, 12));
}

describe('a takedown stub reveals no origin id (issue 25 point 5, OPT-5)', () => {
  it('the filtered list shows the taken-down paper as a bare stub whose id and page match no hash of any origin id (fails on the unkeyed ids)', async () => {
    const victim = paperWrite(SOURCE, BODY, 3, at(3)).id;
    await tombstoneIds(takedownDepsOf(bed), [victim], { by: 'test', sourceId: SOURCE });
    const api = await serveApi(bed);
    try {
      const bodies = await getJson(`${api.base}/oparl/v1/body`);
      const body = (bodies.json.data as Record<string, unknown>[])[0] as Record<string, unknown>;
      // One page (20 at least) holds all five.
      const page = await getJson(`${body.paper as string}?modified_since=2000-01-01T00:00:00Z`);
      expect(page.status).toBe(200);
      const stubs = (page.json.data as Record<string, unknown>[]).filter((o) => o.deleted === true);
      expect(stubs).toHaveLength(1);
      const stub = JSON.stringify(stubs[0]);
      const text = JSON.stringify(page.json);
      // The stub is bare (as before): nothing of the object.
      expect(stub).not.toContain(victim);
      expect(stub).not.toContain('Vorlage 3');
      // And now its id says nothing either: no hash of any of the sequential origin ids appears.
      const origins = [1, 2, 3, 4, 5].map((n) => paperWrite(SOURCE, BODY, n, at(n)).id);
      for (const guess of hashesGuessable([...origins, BODY]))
        expect({ guess, found: text.includes(guess) }).toEqual({ guess, found: false });
      // The id is one of ours, under the API's path.
      expect((stubs[0] as { id: string }).id).toMatch(
        new RegExp(`^${api.base}/oparl/v1/${SOURCE}/paper/[0-9a-f]{40}$`),
      );
    } finally {
      await stopServer(api.server);
    }
  });
});
