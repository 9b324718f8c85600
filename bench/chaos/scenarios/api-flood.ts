import { createFeedClients, destroyFeedClients } from '../../../shared/changes';
import { createMirrorApiHandler, MirrorReader } from '../../../shared/mirror-api';
import { countCalls } from '../../../test/support/write-counter';
import { CdnModel, junkUrls } from '../../api-flood';
import type { Scenario } from '../scenario';
import { syncUntilComplete } from '../scenario';
import { bodySlug, listBody, SOURCE, syncedSource } from './support';

/**
 * Issue 25 point 4: an anonymous flood of the OParl API (junk query parameters, values written
 * differently, refused values) through the CDN as deployed (cache key = path + the query strings the
 * API reads), while the source keeps syncing. The API's reader has clients of its own, counted by the
 * write-counter middleware on the real SDK client in front of the local DynamoDB peer.
 */
export const API_FLOOD_SCENARIOS: Scenario[] = [
  {
    name: 'api-flood',
    rules: ['RATE-1', 'OPT-2'],
    holds:
      'A flood of 1,000 junk API requests costs no DynamoDB or S3 read beyond the honest first pages, never reaches the function more often than its distinct junk, leaves every link a client follows cacheable, and the sync goes on mirroring politely meanwhile.',
    async run(ctx) {
      const { council, d, instance } = await syncedSource(ctx);
      await listBody(d, await bodySlug(d));
      const clients = createFeedClients(d.env);
      ctx.onClose(async () => destroyFeedClients(clients));
      const calls = countCalls(clients.dynamo);
      const reader = new MirrorReader(clients, {
        bucket: d.env.BUCKET,
        tables: { sources: d.env.SOURCES_TABLE, state: d.env.STATE_TABLE },
      });
      const base = 'https://api.chaos.test';
      const handler = createMirrorApiHandler({ reader, baseUrl: base });
      const cdn = new CdnModel((r) => handler.handle(r), 'known');
      const bodies = JSON.parse((await cdn.get(`${base}/oparl/v1/body`)).body) as {
        data: { id: string; paper: string }[];
      };
      const listUrl = bodies.data[0]?.paper;
      if (listUrl === undefined) {
        ctx.check(false, 'the listed body is not in the API');
        return;
      }
      await cdn.get(listUrl);
      const before = {
        calls: calls.calls().length,
        reads: reader.consumed.objectReads,
        hits: cdn.invocations,
      };
      // The flood and the next syncs at once: their politeness is watched on the council's wire as always.
      d.clock.advance(31 * 60_000);
      const junk = junkUrls(base, listUrl);
      const statuses: Record<number, number> = {};
      const [synced] = await Promise.all([
        syncUntilComplete(d, instance, SOURCE),
        (async () => {
          for (const url of junk) {
            const res = await cdn.get(url);
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          }
        })(),
      ]);
      const invocations = cdn.invocations - before.hits;
      const dynamo = calls.calls().slice(before.calls);
      const s3 = reader.consumed.objectReads - before.reads;
      ctx.notes.flood = {
        requests: junk.length,
        invocations,
        dynamoCalls: dynamo.length,
        s3Reads: s3,
        statuses,
      };
      ctx.check(synced.complete, 'the sync did not complete during the flood');
      // Cached honest pages answer the dropped names; refusals are cached per URL; nothing else reads.
      ctx.check(s3 === 0, `the flood read ${s3} objects from S3`);
      // The bodies' cache may expire once during the flood (BODIES_TTL_MS): that reload is the only read.
      const reads = dynamo.filter(
        (c) => c.command !== 'Scan' && !(c.command === 'Query' && c.index === undefined),
      );
      ctx.check(reads.length === 0, `the flood made ${reads.length} list or object reads`);
      ctx.check(invocations <= junk.length, `${invocations} invocations for ${junk.length} junk requests`);
      // A client following links from a page it asked with junk lands on the cache of the first.
      const walk = async (tag: string) => {
        let next: string | undefined = `${listUrl}?utm_source=${tag}`;
        while (next !== undefined) {
          const res = await cdn.get(next);
          if (!ctx.check(res.status === 200, `a walk answered ${res.status}`)) return;
          next = (JSON.parse(res.body) as { links: { next?: string } }).links.next;
        }
      };
      await walk('a');
      const w0 = cdn.invocations;
      await walk('b');
      ctx.check(
        cdn.invocations === w0,
        `a second client's walk invoked the API ${cdn.invocations - w0} times`,
      );
      await ctx.compare(d, SOURCE, council, {}, () => false);
      await ctx.expectNotBlamed(d, SOURCE);
    },
  },
];
