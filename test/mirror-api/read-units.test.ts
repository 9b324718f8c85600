import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHash } from '../../shared/engine';
import { MirrorStore } from '../../shared/mirror';
import { MirrorReader, parseListQuery } from '../../shared/mirror-api';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { incompressibleText } from '../support/mirror-api';

/**
 * Issue 16's goal for a list page: ≤ 2 read units per 100 index entries, object bodies apart. Measured
 * on the local DynamoDB peer, which charges a Query as DynamoDB does (the projected items' sizes, in
 * 4 KB steps, halved for eventual consistency). The objects are too large to ride inline, so a page
 * reads nothing but index entries — of the longest list type (`legislativeterm`). The source id is in
 * every entry (the table's key): the goal holds up to 41 characters in every list, and one more
 * character crosses it (docs/mirror-api.md, Read units). The same entries under the first index's long
 * keys cost 4 units, which is why those keys went.
 */
const TYPE = 'legislativeterm';
const BODY = 'https://ris-units.test/oparl/body/1';
const T0 = Date.parse('2025-03-01T08:00:00Z');
const PAGE = 100;
const sourceOf = (length: number) => `stadt-${'x'.repeat(length - 6)}`;
const WITHIN = sourceOf(41);
const BEYOND = sourceOf(42);

let bed: AwsTestbed;
let reader: MirrorReader;
const ids: string[] = [];

beforeAll(async () => {
  bed = await startAwsTestbed();
  const mirror = new MirrorStore(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
  for (let n = 1; n <= PAGE + 1; n += 1) {
    const id = `https://ris-units.test/oparl/legislativeterm/${n}`;
    const object = {
      id,
      type: 'https://schema.oparl.org/1.1/LegislativeTerm',
      name: `Wahlperiode ${n}`,
      // Too large for an inline copy (INLINE_ITEM_MAX_BYTES) even packed: the body stays in S3.
      text: incompressibleText(8_000, id),
    };
    for (const sourceId of [WITHIN, BEYOND]) {
      await mirror.writeLive({
        sourceId,
        type: TYPE,
        id,
        object,
        sourceUrl: `${BODY}/legislativeTerm`,
        fetchedAt: new Date(T0 + n * 1000).toISOString(),
        bodyId: BODY,
        hash: contentHash(object),
      });
    }
    ids.push(id);
  }
  reader = new MirrorReader(bed.clients, {
    bucket: bed.env.BUCKET,
    tables: { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE },
  });
}, 60_000);
afterAll(async () => {
  await bed?.stop();
});

async function pageUnits(sourceId: string): Promise<number> {
  const before = { ...reader.consumed };
  const rows = await reader.listPage(
    sourceId,
    BODY,
    TYPE,
    parseListQuery(new URLSearchParams(`limit=${PAGE}`)),
  );
  expect(rows).toHaveLength(PAGE + 1);
  expect(rows.every((r) => r.o === undefined)).toBe(true);
  expect(reader.consumed.queries - before.queries).toBe(1);
  return reader.consumed.capacityUnits - before.capacityUnits;
}

describe('read units of a list page (issue 16 goal)', () => {
  it(`a page of ${PAGE} index entries (and the look-ahead row) is one Query of 2 read units, for a source id of 41 characters`, async () => {
    expect(WITHIN).toHaveLength(41);
    expect(await pageUnits(WITHIN)).toBe(2);
  });

  it('a source id of 42 characters crosses the goal (the documented bound)', async () => {
    expect(await pageUnits(BEYOND)).toBe(2.5);
  });
});
