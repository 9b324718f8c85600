import { afterAll, beforeAll, expect, it } from 'vitest';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { corpusDescribe, oparlSchema } from '../support/corpora';
import { type OParlValidator, oparlValidator } from '../support/oparl-validator';
import { getJson, type ServedMirror, seedServedMirror } from './support';

corpusDescribe(oparlSchema())('mirror API output validates against the OParl 1.1 schemas (issue 16)', () => {
  let bed: AwsTestbed;
  let m: ServedMirror;
  let v: OParlValidator;

  beforeAll(async () => {
    v = oparlValidator();
    bed = await startAwsTestbed();
    m = await seedServedMirror(bed, 'apival');
    // A deletion, so filtered lists carry a `deleted: true` stub too.
    const paper = m.council.objects('paper', { body: 1 })[0] as { id: string };
    m.clock.advance(3 * 60 * 60_000);
    m.council.mutate({ id: paper.id, op: 'delete' });
    await m.h.sync('incremental');
  }, 120_000);

  afterAll(async () => {
    await m?.close();
    await bed?.stop();
  });

  it('the validator rejects what is not OParl (it can fail)', () => {
    expect(v.object({ id: 'not a url', type: 'https://schema.oparl.org/1.1/Paper' })).not.toEqual([]);
    expect(
      v.object({ id: 'https://x.test/b', type: 'https://schema.oparl.org/1.1/Body', name: 'B' }),
    ).not.toEqual([]);
    expect(
      v.listPage({
        data: [{ id: 'https://x.test/p', type: 'https://schema.oparl.org/1.1/Paper' }],
        links: {},
      }),
    ).toEqual([]);
  });

  it('System, body list, every list page (unfiltered and filtered) and every object by id validate', async () => {
    const problems: string[] = [];
    const system = await getJson(m.systemUrl);
    problems.push(...v.object(system.json, 'system'));
    const bodies = await getJson(system.json.body as string);
    problems.push(...v.listPage(bodies.json, 'bodies'));
    let pages = 0;
    let objects = 0;
    for (const body of bodies.json.data as Record<string, unknown>[]) {
      problems.push(...v.object((await getJson(body.id as string)).json, 'body by id'));
      const lists = Object.entries(body).filter(
        ([k, x]) => typeof x === 'string' && /\/body\/[0-9a-f]{40}\/[A-Za-z]+$/.test(x) && k !== 'id',
      );
      expect(lists.length).toBeGreaterThanOrEqual(4);
      for (const [name, url] of lists) {
        for (const start of [`${url}?limit=20`, `${url}?modified_since=2000-01-01T00:00:00Z`]) {
          let next: string | undefined = start;
          while (next) {
            const page = await getJson(next);
            pages += 1;
            problems.push(...v.listPage(page.json, `${name} page ${pages}`));
            for (const o of page.json.data as Record<string, unknown>[]) {
              objects += 1;
              problems.push(...v.object((await getJson(o.id as string)).json, `${name} object`));
            }
            next = (page.json.links as { next?: string }).next;
          }
        }
      }
    }
    expect(pages).toBeGreaterThan(10);
    expect(objects).toBeGreaterThan(100);
    expect(problems.slice(0, 20)).toEqual([]);
  }, 120_000);
});
