import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { get, getJson, walk } from './http';

const NOW = '2026-10-16T10:15:00+02:00';
const since = (iso: string) => `modified_since=${encodeURIComponent(iso)}`;

describe('fake council: mutate', () => {
  let council: FakeCouncil;
  beforeEach(async () => {
    council = await startFakeCouncil({ objectsPerList: 6, pageSize: 4, now: () => new Date(NOW) });
  });
  afterEach(() => council.close());

  it('SCH-8: a changed object gets a new modified and is the only one an incremental query returns', async () => {
    const [id] = council.mutate({ op: 'update', list: 'meeting', n: 2, set: { name: 'Sondersitzung' } });

    const pages = await walk(`${council.listUrl('meeting')}?${since('2026-10-16T00:00:00+02:00')}`);

    expect(id).toBe(council.objectUrl('meeting', 2));
    expect(pages.flatMap((p) => p.data)).toEqual([
      expect.objectContaining({ id, name: 'Sondersitzung', modified: NOW }),
    ]);
  });

  it('embedded copies show the current state of the object they embed', async () => {
    council.mutate({ op: 'update', id: council.objectUrl('agendaItem', 1), set: { result: 'Abgelehnt' } });

    const meeting = await getJson(council.objectUrl('meeting', 1));

    expect(meeting.agendaItem).toEqual([expect.objectContaining({ result: 'Abgelehnt', modified: NOW })]);
  });

  it('OPT-2: a deleted object is a tombstone at its id and in filtered lists, absent from full lists', async () => {
    const [id] = council.mutate({ op: 'delete', list: 'paper', n: 3 });

    const tombstone = await getJson(String(id));
    const filtered = (
      await walk(`${council.listUrl('paper')}?${since('2026-01-01T00:00:00+01:00')}`)
    ).flatMap((p) => p.data);
    const full = (await walk(council.listUrl('paper'))).flatMap((p) => p.data);

    expect(tombstone).toEqual({
      id,
      type: 'https://schema.oparl.org/1.1/Paper',
      created: expect.any(String),
      modified: NOW,
      deleted: true,
    });
    expect(filtered).toEqual([tombstone]);
    expect(full.map((p) => p.id)).not.toContain(id);
    expect(full).toHaveLength(5);
  });

  it("listDeleted 'always' keeps tombstones in full lists too", async () => {
    const always = await startFakeCouncil({ objectsPerList: 3, listDeleted: 'always' });
    try {
      const [id] = always.mutate({ op: 'delete', list: 'person', n: 1 });
      const full = (await walk(always.listUrl('person'))).flatMap((p) => p.data);

      expect(full).toContainEqual(expect.objectContaining({ id, deleted: true }));
    } finally {
      await always.close();
    }
  });

  it('deleting a file removes it from its meeting and makes its PDF 404', async () => {
    const meetingBefore = await getJson(council.objectUrl('meeting', 1));
    const invitation = meetingBefore.invitation as Record<string, unknown>;

    council.mutate({ op: 'delete', id: String(invitation.id) });
    const meetingAfter = await getJson(council.objectUrl('meeting', 1));
    const pdf = await get(String(invitation.accessUrl));
    await pdf.arrayBuffer();

    expect(meetingAfter).not.toHaveProperty('invitation');
    expect(pdf.status).toBe(404);
  });

  it('add: a new object joins the list and links given as URLs stay live relations', async () => {
    const meetingId = council.objectUrl('meeting', 4);

    const [id] = council.mutate({
      op: 'add',
      list: 'agendaItem',
      set: { meeting: meetingId, name: 'Dringlichkeitsantrag Hochwasserschutz' },
    });
    const meeting = await getJson(meetingId);
    const list = (await walk(council.listUrl('agendaItem'))).flatMap((p) => p.data);

    expect(id).toBe(council.objectUrl('agendaItem', 7));
    expect(list).toHaveLength(7);
    expect(meeting.agendaItem).toContainEqual(
      expect.objectContaining({ id, meeting: meetingId, created: NOW, modified: NOW }),
    );
  });

  it('DEL-1: updating a file changes its bytes, checksum and ETag', async () => {
    const before = await getJson(council.objectUrl('file', 2));
    const firstFetch = await get(String(before.accessUrl));
    await firstFetch.arrayBuffer();

    council.mutate({ op: 'update', list: 'file', n: 2, set: { name: 'Vorlage (neue Fassung)' } });
    const after = await getJson(council.objectUrl('file', 2));
    const revalidate = await get(String(after.accessUrl), {
      headers: { 'if-none-match': String(firstFetch.headers.get('etag')) },
    });
    await revalidate.arrayBuffer();

    expect(after.sha1Checksum).not.toBe(before.sha1Checksum);
    expect(revalidate.status).toBe(200);
    expect(revalidate.headers.get('etag')).not.toBe(firstFetch.headers.get('etag'));
  });

  it('an explicit modified value is kept as given; several mutations apply in order', async () => {
    const ids = council.mutate([
      {
        op: 'update',
        list: 'organization',
        n: 1,
        set: { shortName: 'HFA' },
        modified: '2026-10-15T23:59:59+02:00',
      },
      { op: 'delete', list: 'organization', n: 2, modified: '2026-10-16T00:00:01+02:00' },
    ]);

    const got = (
      await walk(`${council.listUrl('organization')}?${since('2026-10-15T23:59:59+02:00')}`)
    ).flatMap((p) => p.data);

    expect(got.map((o) => [o.id, o.modified])).toEqual([
      [ids[0], '2026-10-15T23:59:59+02:00'],
      [ids[1], '2026-10-16T00:00:01+02:00'],
    ]);
  });

  it('throws for an object that does not exist', () => {
    expect(() => council.mutate({ op: 'update', list: 'meeting', n: 99, set: {} })).toThrow(/no object/);
    expect(() => council.mutate({ op: 'delete', id: 'http://elsewhere.test/x' })).toThrow(/no object/);
  });
});
