import {
  composeDocuments,
  type DocumentItem,
  DocumentsStore,
  runFilesPass,
  TEXT_RETRY_LADDER_MS,
  type TextBounds,
} from '../../../shared/documents';
import { createTestResolver } from '../../../shared/net';
import type { Scenario, ScenarioContext } from '../scenario';
import type { Deployment } from '../stack';
import { bodySlug, listBody, SOURCE, syncedSource } from './support';

/**
 * A poison PDF (issue 25 point 3, DOC-2): the council serves a decompression bomb and a 20,000-page
 * file among its ordinary files. The files pass, built by the production composition root, reads each
 * in its bounded text worker; the page bound is the real one, the time and memory bounds are made
 * smaller (as the tests do) so the bomb is stopped in seconds without the campaign's machine holding
 * the GBs it would inflate to.
 */
const POISON_BOUNDS: Partial<TextBounds> = { maxGrowthBytes: 200 * 1000 * 1000, timeoutMs: 15_000 };
const BOMB = '/files/1/1.pdf';
const PAGES = '/files/1/2.pdf';

async function filesPass(ctx: ScenarioContext, d: Deployment, laterMs: number) {
  const runtime = await composeDocuments(d.env, { clients: d.admin, resolver: createTestResolver() });
  try {
    return await runFilesPass(runtime.deps, {
      now: new Date(Date.now() + laterMs),
      textBounds: POISON_BOUNDS,
    });
  } finally {
    await runtime.close();
    ctx.notes.rssMb = Math.round(process.memoryUsage.rss() / 1e6);
  }
}

async function items(d: Deployment): Promise<DocumentItem[]> {
  const out: DocumentItem[] = [];
  for await (const item of new DocumentsStore(d.admin.doc, d.env.DOCUMENTS_TABLE).listBySource(SOURCE)) {
    out.push(item);
  }
  return out;
}

export const POISON_PDF_SCENARIOS: Scenario[] = [
  {
    name: 'poison-pdf',
    rules: ['DOC-2'],
    holds:
      "A decompression bomb and a 20,000-page PDF among a listed body's files: each is read once from our copy in a bounded worker and recorded (TEXT_MEMORY on the text ladder, TEXT_TOO_MANY_PAGES given up), every other file gets its text, and an hour later the bomb is tried again from the copy without a second download.",
    async run(ctx) {
      const { council, d } = await syncedSource(ctx);
      await listBody(d, await bodySlug(d));
      await council.setFault(BOMB, { kind: 'poisonPdf', inflatedBytes: 1000 * 1000 * 1000 });
      await council.setFault(PAGES, { kind: 'poisonPdf', pages: 20_000 });

      const first = await filesPass(ctx, d, 0);
      ctx.notes.firstPass = { files: first.files, text: first.text };
      const byPath = (all: DocumentItem[], path: string) => all.find((i) => new URL(i.url).pathname === path);
      let all = await items(d);
      const others = all.filter((i) => ![BOMB, PAGES].includes(new URL(i.url).pathname));
      if (
        !ctx.check(
          others.length > 0 && byPath(all, BOMB) !== undefined && byPath(all, PAGES) !== undefined,
          'the council has no ordinary files besides the poison ones',
        )
      )
        return;
      // The text of other files goes on: a file without its text counts as lost.
      const withoutText = others.filter((i) => i.hasText !== true);
      ctx.figures.lostObjects += withoutText.length;
      const bomb = byPath(all, BOMB);
      ctx.check(
        bomb?.textError === 'TEXT_MEMORY' && bomb.textAttempts === 1 && bomb.textFor === undefined,
        `the bomb is not on the text ladder (TEXT_MEMORY): ${bomb?.textError}`,
      );
      const pages = byPath(all, PAGES);
      ctx.check(
        pages?.textError === 'TEXT_TOO_MANY_PAGES' && pages.textFor === pages.sha256,
        `the 20,000-page file is not given up by the page bound: ${pages?.textError}`,
      );

      // An hour later (the first rung): the bomb is tried again, from our copy.
      const second = await filesPass(ctx, d, (TEXT_RETRY_LADDER_MS[0] ?? 0) + 60_000);
      ctx.notes.secondPass = { text: second.text };
      all = await items(d);
      ctx.check(byPath(all, BOMB)?.textAttempts === 2, 'the bomb was not tried again after an hour');
      // DOC-2: each file downloaded once; a second GET of a poison file would be a duplicate.
      for (const path of [BOMB, PAGES]) {
        const gets = council.requests.filter((r) => r.method === 'GET' && r.path === path).length;
        ctx.figures.duplicatedObjects += Math.max(0, gets - 1);
        ctx.notes[`gets ${path}`] = gets;
      }
    },
  },
];
