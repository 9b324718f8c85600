import { describe, expect, it } from 'vitest';
import { tombstoneCommand } from '../../cli/commands/takedown';
import type { LocalRuntime } from '../../cli/local/runtime';
import { documentId, fileUrl, isRecord, LIST_CATALOGUE } from '../../shared/engine';
import type { MirrorIndexEntry } from '../../shared/mirror';
import { apiUrls } from '../../shared/mirror-api';
import { type CdnInvalidator, type InvalidationOutcome, recordingInvalidator } from '../../shared/takedown';
import {
  documentsOf,
  indexEntries,
  liveEntries,
  type SeededSource,
  seededTestbed,
} from '../support/takedown';

/**
 * OPT-2 "at once" (issue 25 weak spot): `ingestor tombstone` invalidates the CDN paths its takedown
 * changed and reports them. Through the command (cli/commands/takedown.ts) against the local peers
 * (dynalite, s3rver, the fake council synced by the real engine); the CDN port is the local recording
 * adapter (there is no CloudFront peer), or a port that throws like a refusing CloudFront. The expected
 * paths are derived from the peers' state after the command — the entries marked, the objects whose
 * hash changed, the Documents items flagged — with the API's own URL builder, not with takedownPaths.
 */
const t = seededTestbed();
const urls = apiUrls('');

function runtime(cdn: CdnInvalidator): LocalRuntime {
  return { env: t.bed.env, clients: t.bed.clients, dataDir: '', cdn, close: async () => {} };
}

/** The object's URL and, for an object of a body, its body list with every query variant. */
function pathsOf(sourceId: string, entries: readonly MirrorIndexEntry[], fileUrls: readonly string[]) {
  const paths = new Set<string>();
  for (const e of entries) {
    paths.add(urls.object(sourceId, e.type, e.id));
    if (e.bodyId === undefined) continue;
    for (const l of LIST_CATALOGUE.filter((c) => c.type === e.type))
      paths.add(`${urls.list(sourceId, e.bodyId, l.list)}*`);
  }
  for (const url of fileUrls) paths.add(`${new URL(urls.document(documentId(url)), 'http://x').pathname}*`);
  return [...paths].sort();
}

async function paperWithFile(s: SeededSource, bodyId: string) {
  for (const e of await liveEntries(s.h, bodyId)) {
    if (e.type !== 'paper') continue;
    const object = (await s.h.mirror.read(s.sourceId, 'paper', e.id))?.object;
    if (isRecord(object) && isRecord(object.mainFile)) return object;
  }
  throw new Error('no paper with a main file');
}

const key = (e: MirrorIndexEntry) => `${e.type}\n${e.id}`;

/** What a takedown changed, read from the peers: marked entries, re-committed objects, flagged files. */
async function changedSince(s: SeededSource, before: Map<string, string>) {
  const after = await indexEntries(s.h);
  const takenDown = after.filter((e) => e.takedown !== undefined);
  const recommitted = after.filter(
    (e) => e.takedown === undefined && !e.deleted && before.get(key(e)) !== e.hash,
  );
  const flagged = (await documentsOf(t.bed, s.sourceId)).filter((d) => d.takedownAt !== undefined);
  return { takenDown, recommitted, fileUrls: flagged.map((d) => String(d.url)) };
}

async function hashes(s: SeededSource): Promise<Map<string, string>> {
  return new Map((await indexEntries(s.h)).map((e) => [key(e), e.hash]));
}

describe('tombstone invalidates what it changed in the CDN (OPT-2 "at once", OPT-5)', () => {
  it('--ids: exactly the object, its embedded objects, their body lists, the objects re-committed without them and the files at the preview', async () => {
    const { s, koeln } = await t.seed('inv-ids');
    const paper = await paperWithFile(s, koeln.id);
    const before = await hashes(s);
    const port = recordingInvalidator();
    const out = await tombstoneCommand(runtime(port), { ids: [String(paper.id)], source: s.sourceId });
    expect(out.exitCode).toBe(0);

    const changed = await changedSince(s, before);
    expect(changed.takenDown.map((e) => e.type)).toContain('file');
    expect(changed.fileUrls.length).toBeGreaterThan(0);
    const expected = pathsOf(s.sourceId, [...changed.takenDown, ...changed.recommitted], changed.fileUrls);
    const sent = port.calls.flatMap((c) => c.paths).sort();
    expect(sent).toEqual(expected);
    // Named literally too: the paper, its list, its main file at the preview.
    const mainUrl = fileUrl(paper.mainFile as Record<string, unknown>) as string;
    expect(sent).toEqual(
      expect.arrayContaining([
        urls.object(s.sourceId, 'paper', String(paper.id)),
        `${urls.list(s.sourceId, koeln.id, 'paper')}*`,
        `/documents/${documentId(mainUrl)}*`,
      ]),
    );
    const invalidation = (out.json as { invalidation: InvalidationOutcome }).invalidation;
    expect(invalidation).toMatchObject({ ok: true, kind: 'none', paths: expected, batches: 1 });
    expect(out.text.join('\n')).toContain(`would invalidate ${expected.length} path(s)`);
  }, 120_000);

  it('--body: the body list, the source subtree and every file of the body at the preview', async () => {
    const { s, koeln } = await t.seed('inv-body');
    const port = recordingInvalidator();
    const out = await tombstoneCommand(runtime(port), { body: 'koeln', source: s.sourceId });
    expect(out.exitCode).toBe(0);
    const docs = await documentsOf(t.bed, s.sourceId, koeln.id);
    expect(docs.length).toBeGreaterThan(0);
    const expected = [
      '/oparl/v1/body*',
      `/oparl/v1/${s.sourceId}/*`,
      ...docs.map((d) => `/documents/${String(d.docId)}*`),
    ].sort();
    expect(port.calls.flatMap((c) => c.paths).sort()).toEqual(expected);
    expect((out.json as { invalidation: InvalidationOutcome }).invalidation).toMatchObject({ ok: true });
  }, 120_000);

  it('a refusing CDN neither undoes nor blocks the takedown: reported loudly, exit 1; the same command again invalidates the same paths, the paper re-committed without the file included', async () => {
    const { s, koeln } = await t.seed('inv-fail');
    const paper = await paperWithFile(s, koeln.id);
    const file = paper.mainFile as Record<string, unknown>;
    const before = await hashes(s);
    const refusing: CdnInvalidator = {
      kind: 'cloudfront',
      async invalidate() {
        throw Object.assign(new Error('User is not authorized to perform: cloudfront:CreateInvalidation'), {
          name: 'AccessDenied',
        });
      },
    };
    const failed = await tombstoneCommand(runtime(refusing), { ids: [String(file.id)], source: s.sourceId });
    expect(failed.exitCode).toBe(1);
    const text = failed.text.join('\n');
    expect(text).toContain('WARNING: CDN INVALIDATION FAILED (AccessDenied');
    expect(text).toContain('the takedown stands');
    expect(text).toMatch(/tombstoned \d+ object\(s\)/);
    const outcome = (failed.json as { invalidation: InvalidationOutcome }).invalidation;
    expect(outcome.ok).toBe(false);
    // The takedown stands: the paper is marked and gone from the live listing.
    const changed = await changedSince(s, before);
    expect(changed.takenDown.map((e) => e.id)).toContain(file.id);
    expect((await liveEntries(s.h, koeln.id)).map((e) => e.id)).not.toContain(file.id);
    // The paper that embedded it was committed again without it: its URL and list are paths too.
    expect(changed.recommitted.map((e) => e.id)).toContain(paper.id);
    const expected = pathsOf(s.sourceId, [...changed.takenDown, ...changed.recommitted], changed.fileUrls);
    expect(outcome.paths).toEqual(expected);
    expect(expected).toEqual(
      expect.arrayContaining([
        urls.object(s.sourceId, 'paper', String(paper.id)),
        `${urls.list(s.sourceId, koeln.id, 'paper')}*`,
      ]),
    );

    // Repeating (idempotent) names the same paths again — the re-committed parents included.
    const port = recordingInvalidator();
    const again = await tombstoneCommand(runtime(port), { ids: [String(file.id)], source: s.sourceId });
    expect(again.exitCode).toBe(0);
    expect(port.calls.flatMap((c) => c.paths).sort()).toEqual(expected);
  }, 120_000);
});
