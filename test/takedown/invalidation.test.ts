import { describe, expect, it } from 'vitest';
import { documentId } from '../../shared/engine';
import { apiIdHash } from '../../shared/mirror';
import {
  INVALIDATION_MAX_PATHS,
  INVALIDATION_MAX_WILDCARDS,
  invalidateTakedown,
  invalidationBatches,
  recordingInvalidator,
  takedownPaths,
} from '../../shared/takedown';

/**
 * OPT-2 "at once" (issue 25 weak spot): a takedown invalidates the CDN paths it changed — the object,
 * the lists it was in (every query variant), the objects committed again without it, its files at the
 * preview; for a body the body list and the source's whole subtree. There is no local CloudFront peer,
 * so the port is exercised with its local recording adapter (the one local mode uses); the AWS
 * adapter's CreateInvalidation is tested in test/cli/cdn.test.ts, the command in
 * invalidation-command.test.ts.
 */
const SRC = 'ris-a';
const BODY = 'https://ris.example.de/oparl/body/1';
const PAPER = 'https://ris.example.de/oparl/paper/4711';
const FILE_URL = 'https://ris.example.de/files/4711.pdf';
const MEETING = 'https://ris.example.de/oparl/meeting/9';

describe('CDN invalidation on takedown (OPT-2, OPT-5)', () => {
  it('the path set of a paper taken down: object, its lists (wildcard for query variants), its embedder, its file — each once, nothing else', () => {
    const paths = takedownPaths({
      objects: [
        {
          sourceId: SRC,
          type: 'paper',
          id: PAPER,
          bodyId: BODY,
          lists: ['paper'],
          fileUrls: [FILE_URL, FILE_URL],
        },
      ],
      embedders: [{ sourceId: SRC, type: 'meeting', id: MEETING }],
    });
    expect(paths).toEqual(
      [
        `/oparl/v1/${SRC}/paper/${apiIdHash(PAPER)}`,
        `/oparl/v1/${SRC}/body/${apiIdHash(BODY)}/paper*`,
        `/oparl/v1/${SRC}/meeting/${apiIdHash(MEETING)}`,
        `/documents/${documentId(FILE_URL)}*`,
      ].sort(),
    );
    // Keyed ids only: nothing of the origin id reaches CloudFront's invalidation history either.
    expect(paths.join(' ')).not.toContain('4711');
  });

  it('a body: the body list and the source subtree (body, its lists, its objects), plus its files', () => {
    expect(takedownPaths({ body: { sourceId: SRC, id: BODY, fileUrls: [FILE_URL] } })).toEqual(
      [`/oparl/v1/body*`, `/oparl/v1/${SRC}/*`, `/documents/${documentId(FILE_URL)}*`].sort(),
    );
  });

  it('CloudFront runs ≤ 15 wildcards at a time: a body with 40 documents invalidates /documents/* instead of 40 wildcards', () => {
    const fileUrls = Array.from({ length: 40 }, (_, i) => `https://ris.example.de/files/${i}.pdf`);
    expect(takedownPaths({ body: { sourceId: SRC, id: BODY, fileUrls } })).toEqual([
      '/documents/*',
      '/oparl/v1/body*',
      `/oparl/v1/${SRC}/*`,
    ]);
    // Within the bound nothing is widened.
    expect(
      takedownPaths({ body: { sourceId: SRC, id: BODY, fileUrls: fileUrls.slice(0, 13) } }),
    ).toHaveLength(15);
  });

  it('past the bound with the documents widened, each source subtree replaces its lists and objects (one batch)', () => {
    const objects = Array.from({ length: 20 }, (_, i) => ({
      sourceId: i % 2 === 0 ? SRC : 'ris-b',
      type: 'paper',
      id: `${PAPER}-${i}`,
      bodyId: `${BODY}-${i}`,
      lists: ['paper'],
      fileUrls: [`${FILE_URL}-${i}`],
    }));
    const paths = takedownPaths({
      objects,
      embedders: [{ sourceId: 'ris-c', type: 'meeting', id: MEETING }],
    });
    expect(paths).toEqual(['/documents/*', '/oparl/v1/ris-a/*', '/oparl/v1/ris-b/*', '/oparl/v1/ris-c/*']);
    expect(invalidationBatches(paths)).toHaveLength(1);
  });

  it('batches within CloudFront bounds: ≤ 3,000 paths and ≤ 15 wildcards each, order kept, nothing lost', () => {
    const exact = Array.from({ length: 6500 }, (_, i) => `/oparl/v1/s/paper/${String(i).padStart(5, '0')}`);
    const wild = Array.from({ length: 40 }, (_, i) => `/documents/${i}*`);
    const batches = invalidationBatches([...exact, ...wild]);
    expect(batches.flat()).toEqual([...exact, ...wild]);
    for (const b of batches) {
      expect(b.length).toBeLessThanOrEqual(INVALIDATION_MAX_PATHS);
      expect(b.filter((p) => p.endsWith('*')).length).toBeLessThanOrEqual(INVALIDATION_MAX_WILDCARDS);
    }
    expect(batches.map((b) => b.length)).toEqual([3000, 3000, 500 + 15, 15, 10]);
  });

  it('one port call per batch with a stable reference; the report names every path (locally: kind none)', async () => {
    const port = recordingInvalidator();
    const report = await invalidateTakedown(
      port,
      { objects: [{ sourceId: SRC, type: 'paper', id: PAPER, bodyId: BODY, lists: ['paper'] }] },
      'takedown-2026-12-02T08:00:00Z',
    );
    expect(report).toEqual({
      kind: 'none',
      paths: [
        `/oparl/v1/${SRC}/body/${apiIdHash(BODY)}/paper*`,
        `/oparl/v1/${SRC}/paper/${apiIdHash(PAPER)}`,
      ],
      batches: 1,
    });
    expect(port.calls).toEqual([{ paths: report.paths, reference: 'takedown-2026-12-02T08:00:00Z-0' }]);
  });
});
