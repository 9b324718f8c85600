import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { runFilesPass } from '../../shared/documents';
import { bodyKeyOf } from '../../shared/documents/keys';
import type { PoliteFetcher } from '../../shared/fetch';
import { fileKey } from '../../shared/mirror';
import { BodyRecords } from '../../shared/store';
import {
  type DocumentsBed,
  getDoc,
  objectExists,
  putBody,
  putSource,
  recordFile,
  startDocumentsBed,
} from '../support/documents-bed';

/**
 * DOC-7 / ONB-4 in the document cache: a pass reads the bodies' listing once, at its start. An operator
 * who unlists a body while the pass fetches one of its files must not get that file stored. Real peers
 * (the fake council on loopback, S3 and DynamoDB); the interleaving is a hook in the pass's fetcher:
 * the operator's write (the `BODY#` record, as `bodies unlist` does it) lands before the file's fetch
 * begins, after the pass read the body as listed.
 */
describe('DOC-7: a body unlisted while the document cache fetches its file', () => {
  let bed: DocumentsBed;
  let council: FakeCouncil;
  const SOURCE = 'stadt-race';
  const BODY = 'https://ris-race.test/oparl/v1/bodies/1';

  beforeAll(async () => {
    bed = await startDocumentsBed();
    council = await startFakeCouncil({ hostname: 'ris-race.test' });
    await putSource(bed, { sourceId: SOURCE, systemUrl: council.systemUrl });
    await putBody(bed, SOURCE, { id: BODY, listed: true });
  });
  afterAll(async () => {
    await council?.close();
    await bed?.close();
  });

  /** The pass's fetcher, with `before` run (awaited) ahead of every file fetch. */
  function hooked(fetcher: PoliteFetcher, before: () => Promise<void>): PoliteFetcher {
    return new Proxy(fetcher, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop !== 'stream' || typeof value !== 'function') {
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return async (...args: unknown[]) => {
          await before();
          return value.apply(target, args);
        };
      },
    });
  }

  it('DOC-7: the copy fetched after the operator unlisted the body is not kept; the document is parked unlisted', async () => {
    const docId = await recordFile(bed, {
      sourceId: SOURCE,
      bodyId: BODY,
      url: `${council.url}/files/1/1.pdf`,
    });
    let fetches = 0;
    const fetcher = hooked(bed.deps.fetcher, async () => {
      fetches += 1;
      // The operator's unlist lands once, ahead of the cache's fetch (the first of the pass).
      if (fetches > 1) return;
      await new BodyRecords({ doc: bed.aws.clients.doc, table: bed.aws.env.STATE_TABLE }).setListed(
        SOURCE,
        bodyKeyOf(BODY),
        { listed: false, at: bed.now().toISOString(), by: 'test' },
      );
    });
    const report = await runFilesPass({ ...bed.deps, fetcher }, { now: bed.now() });
    // The hook ran inside the window: the cache fetched the file (the pass held the body as listed),
    // then the text stage fetched it once more, as it does for an unlisted body's file (ONB-4) …
    expect(fetches).toBe(2);
    // … but no copy is kept and the document waits for its body to be listed again.
    expect(report.files.stored ?? 0).toBe(0);
    expect(report.files.unlisted).toBe(1);
    const doc = await getDoc(bed, docId);
    expect(doc).toMatchObject({ state: 'pending', parked: 'unlisted' });
    expect(doc.storedKey).toBeUndefined();
    expect(await objectExists(bed, fileKey(SOURCE, docId))).toBe(false);
  });
});
