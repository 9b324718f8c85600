import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  BROADCAST_ITEM_KIND,
  GEO_ITEM_KIND,
  parseBroadcastItem,
  parseGeoSourceItem,
  parseSourceItem,
} from '../../shared/config';
import {
  type OtherItemKind,
  OtherItemNotFoundError,
  putOtherItem,
  putSourceItem,
  setOtherItemActive,
} from '../../shared/store';
import { useAwsTestbed } from '../support/aws';

/**
 * OTH-3: geo and broadcast items are switched on and off through one store function, against the real
 * Sources table (dynalite): a conditional update that keeps every other field and stamps the edit
 * trail (shared/config editTrailFields), and refuses an id that is not an item of that kind.
 */

const bed = useAwsTestbed();
const table = () => bed.env.SOURCES_TABLE;
let counter = 0;

const CREATED = '2026-11-02T09:00:00.000Z';
const NOW = new Date('2026-12-01T10:15:00.000Z');

function itemOf(
  kind: OtherItemKind,
): Record<string, unknown> & { sourceId: string; itemKind: OtherItemKind } {
  counter += 1;
  const common = {
    active: true,
    note: 'on request of the town clerk',
    createdAt: CREATED,
    updatedBy: 'seed',
  };
  return kind === GEO_ITEM_KIND
    ? {
        sourceId: `geo:switch${counter}`,
        itemKind: GEO_ITEM_KIND,
        body: `switch${counter}`,
        kind: 'ogc-api-features',
        url: 'https://geo.example.org/ogc',
        layer: 'bplan',
        numberProperty: 'nummer',
        ...common,
      }
    : {
        sourceId: `broadcast-switch${counter}`,
        itemKind: BROADCAST_ITEM_KIND,
        body: 'rat',
        councilSourceId: 'ris-a',
        bodyId: 'https://council.test/oparl/v1/bodies/1',
        streamUrl: 'https://stream.example.org/live.m3u8',
        ...common,
      };
}

/** Each kind's own schema: the switched item stays what its run reads. */
const parses = (kind: OtherItemKind, item: unknown) =>
  (kind === GEO_ITEM_KIND ? parseGeoSourceItem(item) : parseBroadcastItem(item)).ok;

async function read(sourceId: string): Promise<Record<string, unknown> | undefined> {
  return (await bed.clients.doc.send(new GetCommand({ TableName: table(), Key: { sourceId } }))).Item;
}

async function notFound(promise: Promise<unknown>): Promise<OtherItemNotFoundError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OtherItemNotFoundError);
  return error as OtherItemNotFoundError;
}

const KINDS: [OtherItemKind, string][] = [
  [GEO_ITEM_KIND, 'GEO_SOURCE_NOT_FOUND'],
  [BROADCAST_ITEM_KIND, 'BROADCAST_NOT_FOUND'],
];

describe('OTH-3: setOtherItemActive, the one switch for geo and broadcast items', () => {
  it.each(KINDS)('OTH-3 (%s): off and on again — only `active` and the edit trail change', async (kind) => {
    const item = itemOf(kind);
    expect(parses(kind, item)).toBe(true);
    await putOtherItem(bed.clients.doc, table(), item, { mustNotExist: true });

    await setOtherItemActive({ doc: bed.clients.doc, table: table() }, item, false, {
      by: 'ingestor test deactivate',
      now: NOW,
    });
    const off = await read(item.sourceId);
    expect(off).toEqual({
      ...item,
      active: false,
      updatedAt: NOW.toISOString(),
      updatedBy: 'ingestor test deactivate',
    });
    expect(parses(kind, off)).toBe(true);

    const later = new Date(NOW.getTime() + 60_000);
    await setOtherItemActive({ doc: bed.clients.doc, table: table() }, item, true, {
      by: 'ingestor test activate',
      now: later,
    });
    expect(await read(item.sourceId)).toEqual({
      ...item,
      active: true,
      updatedAt: later.toISOString(),
      updatedBy: 'ingestor test activate',
    });
  });

  it.each(KINDS)(
    "OTH-3 (%s): an unknown id is a clear error with the kind's code, and no item is created",
    async (kind, code) => {
      const sourceId = `${kind}-never-added-${counter++}`;

      const error = await notFound(
        setOtherItemActive({ doc: bed.clients.doc, table: table() }, { sourceId, itemKind: kind }, false, {
          by: 'test',
          now: NOW,
        }),
      );

      expect(error.code).toBe(code);
      expect(error.message).toContain(sourceId);
      // An unconditional update would have written { sourceId, active, updatedAt, updatedBy } here.
      expect(await read(sourceId)).toBeUndefined();
    },
  );

  it.each(KINDS)(
    'OTH-3 (%s): an item removed meanwhile is not brought back by the switch',
    async (kind, code) => {
      const item = itemOf(kind);
      await putOtherItem(bed.clients.doc, table(), item, { mustNotExist: true });
      await bed.clients.doc.send(new DeleteCommand({ TableName: table(), Key: { sourceId: item.sourceId } }));

      const error = await notFound(
        setOtherItemActive({ doc: bed.clients.doc, table: table() }, item, true, { by: 'test', now: NOW }),
      );

      expect(error.code).toBe(code);
      expect(await read(item.sourceId)).toBeUndefined();
    },
  );

  it('OTH-3: an id of the other kind, or of a council source, is not switched and stays as it was', async () => {
    const geo = itemOf(GEO_ITEM_KIND);
    await putOtherItem(bed.clients.doc, table(), geo, { mustNotExist: true });
    const council = {
      sourceId: `ris-switch${counter++}`,
      systemUrl: 'https://ris.example.org/oparl/v1/system',
      active: true,
    };
    expect(parseSourceItem(council).ok).toBe(true);
    await putSourceItem(bed.clients.doc, table(), council, { mustNotExist: true });

    const switchOff = (sourceId: string, itemKind: OtherItemKind) =>
      notFound(
        setOtherItemActive({ doc: bed.clients.doc, table: table() }, { sourceId, itemKind }, false, {
          by: 'test',
          now: NOW,
        }),
      );
    const asBroadcast = await switchOff(geo.sourceId, BROADCAST_ITEM_KIND);
    const councilAsGeo = await switchOff(council.sourceId, GEO_ITEM_KIND);

    expect([asBroadcast.code, councilAsGeo.code]).toEqual(['BROADCAST_NOT_FOUND', 'GEO_SOURCE_NOT_FOUND']);
    expect(await read(geo.sourceId)).toEqual(geo);
    // As written: `putSourceItem` adds the host index's key (issue 27), nothing else.
    expect(await read(council.sourceId)).toEqual({ ...council, hostKey: 'ris.example.org' });
  });

  it('OTH-3: a geo item on-call left invalid can still be switched off (the opt-out never waits for a fix)', async () => {
    const broken = { ...itemOf(GEO_ITEM_KIND), kind: 'shapefile' };
    expect(parseGeoSourceItem(broken).ok).toBe(false);
    await putOtherItem(bed.clients.doc, table(), broken, { mustNotExist: true });

    await setOtherItemActive({ doc: bed.clients.doc, table: table() }, broken, false, {
      by: 'test',
      now: NOW,
    });

    expect(await read(broken.sourceId)).toMatchObject({
      active: false,
      kind: 'shapefile',
      updatedBy: 'test',
    });
  });
});
