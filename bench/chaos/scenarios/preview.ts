import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import type { IngestorEnv } from '../../../shared/config';
import { resetUpstashCredentialsCache } from '../../../shared/config';
import { createTestResolver } from '../../../shared/net';
import type { PreviewResponse } from '../../../shared/preview';
import { composePreview } from '../../../shared/preview';
import { startTcpProxy } from '../../../test/support/tcp-proxy';
import type { Scenario, ScenarioContext } from '../scenario';
import type { Deployment } from '../stack';
import { bodySlug, documentItems, documentPasses, listBody, syncedSource } from './support';

/**
 * The document preview (PRV-1 … PRV-4; issue 13 #9, #2) through its production composition root and
 * handler, as the Function URL adapter calls it (method, path, the visitor's address), and the
 * deletion check's re-fetch (issue 13 #4).
 */
export async function openPreview(
  ctx: ScenarioContext,
  d: Deployment,
  docId: string,
  visitorAddress: string,
  env: Partial<IngestorEnv> = {},
): Promise<PreviewResponse & { ms: number }> {
  const t0 = performance.now();
  const opened = (async () => {
    resetUpstashCredentialsCache();
    const runtime = await composePreview(
      { ...d.env, ...env },
      { clients: d.admin, resolver: createTestResolver() },
    );
    ctx.onClose(() => runtime.close());
    return answer(runtime.handler, docId, visitorAddress);
  })();
  // A cold start plus one opening; a preview that hangs is answered here as the platform would (504).
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<PreviewResponse & { ms: number }>((resolve) => {
    timer = setTimeout(
      () => resolve({ status: 504, headers: {}, ms: performance.now() - t0 }),
      PREVIEW_GIVE_UP_MS,
    );
  });
  const r = await Promise.race([opened, timedOut]);
  clearTimeout(timer);
  return r;
}

const PREVIEW_GIVE_UP_MS = 15_000;

async function answer(
  handler: Awaited<ReturnType<typeof composePreview>>['handler'],
  docId: string,
  visitorAddress: string,
): Promise<PreviewResponse & { ms: number }> {
  const t0 = performance.now();
  const res = await handler.handle({ method: 'GET', path: `/documents/${docId}`, visitorAddress });
  // Drain a streamed body, as the adapter sends it; the time counts until the answer's head.
  const ms = performance.now() - t0;
  if (res.body && typeof res.body !== 'string') res.body.resume();
  await res.after;
  return { ...res, ms };
}

/** What a (presigned S3) URL serves; undefined unless 200. */
async function bytesAt(url: string): Promise<Buffer | undefined> {
  const res = await fetch(url);
  if (res.status !== 200) return undefined;
  return Buffer.from(await res.arrayBuffer());
}

async function storedBytes(d: Deployment, key: string): Promise<Buffer> {
  const obj = await d.admin.s3.send(new GetObjectCommand({ Bucket: d.env.BUCKET, Key: key }));
  return Buffer.from((await obj.Body?.transformToByteArray()) ?? []);
}

async function withStoredFiles(ctx: ScenarioContext, opts: { listed?: boolean } = {}) {
  const { council, d } = await syncedSource(ctx);
  // DOC-7: only listed bodies' documents are stored; the others are fetched on every opening (PRV-3).
  if (opts.listed !== false) await listBody(d, await bodySlug(d));
  return { council, d };
}

export const PREVIEW_SCENARIOS: Scenario[] = [
  {
    name: 'preview-ipv6-64-rotation',
    rules: ['PRV-2'],
    defect: 9,
    holds:
      'A visitor rotating through addresses of one IPv6 /64 counts as one visitor: of 30 openings within a minute at most 20 are served by a fetch, the rest answered 429.',
    async run(ctx) {
      const { d } = await withStoredFiles(ctx, { listed: false });
      const items = await documentItems(d);
      const docId = String(items[0]?.docId ?? '');
      if (!ctx.check(docId !== '', 'no document to open')) return;
      resetUpstashCredentialsCache();
      const runtime = await composePreview(d.env, { clients: d.admin, resolver: createTestResolver() });
      ctx.onClose(() => runtime.close());
      const statuses: number[] = [];
      for (let i = 1; i <= 30; i += 1) {
        statuses.push((await answer(runtime.handler, docId, `2001:db8:7:42:${i.toString(16)}::1`)).status);
      }
      const limited = statuses.filter((s) => s === 429).length;
      ctx.notes.statuses = statuses.join(',');
      ctx.check(
        limited >= 10,
        `only ${limited} of 30 openings from one /64 were limited (PRV-2: 20 per visitor)`,
      );
    },
  },
  {
    name: 'preview-redis-unreachable',
    rules: ['PRV-1', 'RATE-7'],
    defect: 9,
    holds:
      'With Redis unreachable (connections stall) the preview still serves stored documents and answers the rest with 503 + Retry-After within the 5 s budget.',
    async run(ctx) {
      const { council, d } = await withStoredFiles(ctx);
      // One file the files pass cannot store (a 503 now, DOC-4 retries later): the preview must fetch it.
      await council.setFault('/files/1/1.pdf', { kind: 'status', status: 503 }, { times: 1 });
      await documentPasses(ctx, d, { files: true });
      const items = await documentItems(d);
      const stored = items.find((i) => i.state === 'stored');
      const notStored = items.find((i) => i.state !== 'stored');
      if (!ctx.check(stored !== undefined, 'the files pass stored nothing')) return;
      const proxy = await startTcpProxy({ port: Number(new URL(ctx.stack.redis.adapter.url).port) });
      ctx.onClose(() => proxy.close());
      proxy.stall();
      const env = { UPSTASH_REDIS_REST_URL: proxy.url };
      const a = await openPreview(ctx, d, String(stored?.docId), '198.51.100.4', env);
      ctx.notes.stored = { status: a.status, ms: Math.round(a.ms), source: a.headers['x-preview-source'] };
      // PRV-3: a stored copy is answered by a redirect to a presigned S3 URL (issue 19), never through Redis.
      ctx.check(
        a.status === 302 && a.headers['x-preview-source'] === 'stored',
        `a stored document answered ${a.status} (${a.headers['x-preview-source'] ?? 'no source'}) with Redis unreachable, not a redirect to its stored copy`,
      );
      ctx.check(a.ms <= 5_500, `a stored document took ${Math.round(a.ms)} ms`);
      if (a.status === 302) {
        const served = await bytesAt(String(a.headers.location));
        const copy = await storedBytes(d, String(stored?.storedKey));
        ctx.check(
          served?.equals(copy) === true,
          `the redirect's URL did not serve the stored copy (${served === undefined ? 'no answer' : `${served.length} of ${copy.length} bytes`})`,
        );
      }
      if (ctx.check(notStored !== undefined, 'every document was stored (the 503 case is not exercised)')) {
        const b = await openPreview(ctx, d, String(notStored?.docId), '198.51.100.4', env);
        ctx.notes.notStored = {
          status: b.status,
          ms: Math.round(b.ms),
          retryAfter: b.headers['retry-after'],
        };
        ctx.check(
          b.status === 503 && b.headers['retry-after'] !== undefined,
          `a document not stored answered ${b.status} (want 503 + Retry-After)`,
        );
        ctx.check(b.ms <= 5_500, `a document not stored took ${Math.round(b.ms)} ms (PRV-1: 5 s)`);
      }
    },
  },
  {
    name: 'preview-tarpit-error-body',
    rules: ['PRV-1', 'RATE-4'],
    defect: 2,
    holds:
      'A document whose server answers 500 with a body trickling 1 byte per 150 ms: the preview answers within its 5 s budget and the socket to the council is closed by then.',
    async run(ctx) {
      const { council, d } = await withStoredFiles(ctx);
      const items = await documentItems(d);
      const item = items[0];
      if (!ctx.check(item !== undefined, 'no document to open')) return;
      const path = new URL(String(item?.url)).pathname;
      await council.setFault(path, {
        kind: 'status',
        status: 500,
        body: 'x'.repeat(400),
        contentType: 'text/html',
      });
      await council.setFault(path, { kind: 'slowBody', intervalMs: 150 });
      await council.settle();
      const at = Date.now();
      const r = await Promise.race([
        openPreview(ctx, d, String(item?.docId), '192.0.2.10'),
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 20_000)),
      ]);
      ctx.check(r !== undefined, 'the preview had not answered after 20 s');
      if (r) {
        ctx.notes.answer = { status: r.status, ms: Math.round(r.ms) };
        ctx.check(r.ms <= 5_500, `the preview answered after ${Math.round(r.ms)} ms (PRV-1: 5 s)`);
      }
      await council.settle();
      const open = council.requests.filter((q) => q.epochMs >= at && q.path === path);
      const longest = Math.max(0, ...open.map((q) => (q.endAt ?? Number.POSITIVE_INFINITY) - q.at));
      ctx.notes.socketOpenMs = Number.isFinite(longest) ? Math.round(longest) : 'still open';
      ctx.check(longest <= 6_000, 'the tarpitted answer held its socket open past the 5 s budget');
    },
  },
  {
    name: 'deletion-refetch-empty-200',
    rules: ['DEL-2', 'DOC-5'],
    defect: 4,
    holds:
      'A stored document whose server now answers HEAD and GET with an empty 200: the deletion check never replaces or removes our copy, and the item stays stored.',
    async run(ctx) {
      const { council, d } = await withStoredFiles(ctx);
      await documentPasses(ctx, d, { files: true });
      const stored = (await documentItems(d)).filter((i) => i.state === 'stored' && i.storedKey);
      if (!ctx.check(stored.length > 0, 'the files pass stored nothing')) return;
      const sizes = new Map<string, number | undefined>();
      for (const i of stored) sizes.set(String(i.storedKey), await sizeOf(d, String(i.storedKey)));
      await council.setFault('/files/*', {
        kind: 'status',
        status: 200,
        body: '',
        contentType: 'application/pdf',
      });
      // Past DEL_SAMPLE_INTERVAL_MS (7 days): every stored document is due for its HEAD sample.
      await documentPasses(ctx, d, { deletion: true }, 8 * 24 * 60 * 60_000);
      ctx.check(
        Object.keys((ctx.notes.deletionChecks as object | undefined) ?? {}).length > 0,
        'the deletion check asked nothing (the scenario proves nothing)',
      );
      const after = await documentItems(d);
      let lost = 0;
      for (const i of stored) {
        const now = after.find((a) => a.docId === i.docId);
        const size = await sizeOf(d, String(i.storedKey));
        if (now?.state !== 'stored' || size === undefined || size !== sizes.get(String(i.storedKey)))
          lost += 1;
      }
      ctx.figures.lostObjects += lost;
      ctx.notes.storedCopies = stored.length;
    },
  },
];

async function sizeOf(d: Deployment, key: string): Promise<number | undefined> {
  try {
    const head = await d.admin.s3.send(new HeadObjectCommand({ Bucket: d.env.BUCKET, Key: key }));
    return head.ContentLength;
  } catch {
    return undefined;
  }
}
