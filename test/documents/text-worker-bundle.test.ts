import { execSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPdf } from '../../demo';
import { buildManyPagesPdf } from '../../demo/poison-pdf';
import { PROJECT_ROOT, workerBundleCommand } from '../../infra/ingestor-function';
import { TEXT_WORKER, TextExtractor } from '../../shared/documents';

/**
 * DOC-2 (issue 25): in the Lambda the text worker is `text-worker.mjs` next to the handler's
 * `index.mjs`, bundled by the stack's after-bundling command. This runs that very command and reads
 * PDFs with the bundled worker (pdf.js and the DOMMatrix stand-in inside it, no node_modules).
 */
describe('DOC-2: the bundled text worker', () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('bundles with the stack command and reads text, bounds included, from next to index.mjs', async () => {
    dir = await mkdtemp(join(tmpdir(), 'text-worker-bundle-'));
    execSync(workerBundleCommand(TEXT_WORKER, PROJECT_ROOT, dir), { stdio: 'pipe' });
    expect((await stat(join(dir, TEXT_WORKER.outfile))).size).toBeGreaterThan(100_000);
    const extractor = new TextExtractor({ maxPages: 10 }, pathToFileURL(join(dir, 'index.mjs')).href);
    try {
      expect(await extractor.extract(buildPdf(['Haushaltssatzung 2027']))).toMatchObject({
        text: 'Haushaltssatzung 2027',
        textLayer: true,
      });
      await expect(extractor.extract(buildManyPagesPdf(11))).rejects.toMatchObject({
        code: 'TEXT_TOO_MANY_PAGES',
      });
    } finally {
      await extractor.close();
    }
  }, 60_000);
});
