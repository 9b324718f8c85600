import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { sourcePartition } from '../../shared/engine';
import { MIRROR_TYPES } from '../../shared/mirror';
import { listBodies, setBodyListed } from '../../shared/onboarding';
import { PURGE_ORDER, tombstoneBody, tombstoneIds } from '../../shared/takedown';
import type { TakedownMeta } from '../../shared/takedown/types';
import { documentsOf, indexEntries, liveEntries, seededTestbed } from '../support/takedown';

describe('tombstone (OPT-2): gone from every output at once, kept for audit', () => {
  const t = seededTestbed();

  it('OPT-2: tombstone --body hides every object of the body from the live listings and keeps them', async () => {
    const { s } = await t.seed('tomb');
    const [koeln, other] = [
      s.bodies.find((b) => b.slug === 'koeln'),
      s.bodies.find((b) => b.slug !== 'koeln'),
    ];
    await setBodyListed(t.bed.clients.doc, s.deps.tables, 'koeln', {
      listed: true,
      by: 'test',
      sourceId: s.sourceId,
    });
    const before = await liveEntries(s.h, koeln?.id);
    const otherBefore = await liveEntries(s.h, other?.id);
    expect(before.length).toBeGreaterThan(10);

    const result = await tombstoneBody(s.deps, 'koeln', {
      by: 'test',
      sourceId: s.sourceId,
      note: 'Anfrage der Stadt vom 1.7.',
    });

    const total = Object.values(result.tombstoned).reduce((a, b) => a + b, 0);
    expect(total).toBe(before.length);
    expect(result.tombstoned.body).toBe(1);
    // Gone from every listing at once …
    expect(await liveEntries(s.h, koeln?.id)).toEqual([]);
    for (const e of before) expect(await s.h.mirror.readLive(s.sourceId, e.type, e.id)).toBeUndefined();
    // … the other body untouched …
    expect(await liveEntries(s.h, other?.id)).toHaveLength(otherBefore.length);
    // … and everything kept for audit, with who, when, why and the last live copy.
    expect(await indexEntries(s.h, koeln?.id)).toHaveLength(before.length);
    const paper = before.find((e) => e.type === 'paper');
    const record = await s.h.mirror.read(s.sourceId, 'paper', paper?.id ?? '');
    const meta = record?.meta as TakedownMeta;
    expect(meta).toMatchObject({
      deleted: true,
      takedown: { by: 'test', note: 'Anfrage der Stadt vom 1.7.' },
    });
    expect(meta.lastGood).toMatchObject({ id: paper?.id });
    // The body is unlisted and marked; its documents flagged for the document functions (DOC-7).
    const rows = await listBodies(t.bed.clients.doc, s.deps.tables, s.sourceId);
    expect(rows.find((r) => r.slug === 'koeln')).toMatchObject({ listed: false, takedown: true });
    const docs = await documentsOf(t.bed, s.sourceId, koeln?.id);
    expect(docs.length).toBeGreaterThan(0);
    expect(docs.every((d) => d.listed === false && typeof d.takedownAt === 'string')).toBe(true);
    expect(result.documents).toBe(docs.length);
    // A taken-down body is not listed again by accident.
    await expect(
      setBodyListed(t.bed.clients.doc, s.deps.tables, 'koeln', {
        listed: true,
        by: 'test',
        sourceId: s.sourceId,
      }),
    ).rejects.toMatchObject({ code: 'BODY_TAKEN_DOWN' });

    // Repeating is harmless.
    const again = await tombstoneBody(s.deps, 'koeln', { by: 'test', sourceId: s.sourceId });
    expect(again.tombstoned).toEqual({});
    expect(again.alreadyDeleted).toBe(before.length);
  });

  it('OPT-2: tombstone --ids takes the object and what is embedded in it (a paper’s files)', async () => {
    const { s } = await t.seed('tombids');
    const papers = (await liveEntries(s.h)).filter((e) => e.type === 'paper');
    let target: { id: string; embedded: number } | undefined;
    for (const p of papers) {
      const record = await s.h.mirror.read(s.sourceId, 'paper', p.id);
      const files = JSON.stringify(record?.object).match(/schema\.oparl\.org\/1\.1\/File/g) ?? [];
      if (files.length > 0) {
        target = { id: p.id, embedded: files.length };
        break;
      }
    }
    expect(target).toBeDefined();
    const liveBefore = (await liveEntries(s.h)).length;

    const result = await tombstoneIds(s.deps, [target?.id ?? '', 'https://nowhere.example/oparl/x'], {
      by: 'test',
      sourceId: s.sourceId,
    });

    expect(result.tombstoned.paper).toBe(1);
    expect(result.tombstoned.file).toBeGreaterThanOrEqual(1);
    expect(result.notFound).toEqual(['https://nowhere.example/oparl/x']);
    expect(await s.h.mirror.readLive(s.sourceId, 'paper', target?.id ?? '')).toBeUndefined();
    const tombstonedTotal = Object.values(result.tombstoned).reduce((a, b) => a + b, 0);
    expect((await liveEntries(s.h)).length).toBe(liveBefore - tombstonedTotal);
  });

  it('OPT-2: the next full sync neither restores taken-down objects nor fetches the taken-down body’s lists', async () => {
    const { s } = await t.seed('tombsync');
    const koeln = s.bodies.find((b) => b.slug === 'koeln');
    const other = s.bodies.find((b) => b.slug !== 'koeln');
    const otherPaper = (await liveEntries(s.h, other?.id)).find((e) => e.type === 'paper');
    await tombstoneBody(s.deps, 'koeln', { by: 'test', sourceId: s.sourceId });
    await tombstoneIds(s.deps, [otherPaper?.id ?? ''], { by: 'test', sourceId: s.sourceId });
    const otherLive = (await liveEntries(s.h, other?.id)).length;

    // The source still publishes everything; a full sync reads all lists of the other body again.
    s.council.clearRequests();
    const report = await s.h.sync('full');

    expect(report.complete).toBe(true);
    expect(await liveEntries(s.h, koeln?.id)).toEqual([]);
    expect(await s.h.mirror.readLive(s.sourceId, 'paper', otherPaper?.id ?? '')).toBeUndefined();
    expect((await liveEntries(s.h, other?.id)).length).toBe(otherLive);
    const koelnPath = new URL(koeln?.id ?? 'http://x/').pathname;
    expect(s.council.requests.filter((r) => r.path.startsWith(`${koelnPath}/`))).toEqual([]);
    expect(s.council.requests.length).toBeGreaterThan(0);
  });

  it('the purge order covers every mirrored type except the System, body last', () => {
    expect([...PURGE_ORDER].sort()).toEqual(MIRROR_TYPES.filter((t) => t !== 'system').sort());
    expect(PURGE_ORDER.at(-1)).toBe('body');
    expect(PURGE_ORDER[0]).toBe('file');
  });

  it('ONB-4: the BODY# record keeps the sync fields when listed and taken down', async () => {
    const { s, koeln } = await t.seed('tomb-listed');
    await setBodyListed(t.bed.clients.doc, s.deps.tables, 'koeln', {
      listed: true,
      by: 'test',
      sourceId: s.sourceId,
    });
    await tombstoneBody(s.deps, 'koeln', { by: 'test', sourceId: s.sourceId });
    const rows = await listBodies(t.bed.clients.doc, s.deps.tables, s.sourceId);
    const row = rows.find((r) => r.slug === 'koeln');
    const item = await t.bed.clients.doc.send(
      new GetCommand({
        TableName: t.bed.env.STATE_TABLE,
        Key: { pk: sourcePartition(s.sourceId), sk: `BODY#${row?.bodyKey}` },
      }),
    );
    expect(item.Item).toMatchObject({
      id: koeln.id,
      slug: 'koeln',
      listed: false,
      takedown: { by: 'test' },
    });
  });
});
