import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { parseGeoSourceItem } from '../../shared/config';
import { loadGeoSources, refreshGeoSource, runGeoRefresh } from '../../shared/geo';
import { loadAllSources } from '../../shared/store';
import { useAwsTestbed } from '../support/aws';
import { closeAfterEach, ok, routes, startTestServer } from '../support/fetch-kit';
import { collection, geoDeps, geoSource, planFeature } from './support';

const { cleanups, kit } = closeAfterEach();
const testbed = useAwsTestbed();

const valid = {
  sourceId: 'geo:musterstadt',
  itemKind: 'geo',
  body: 'musterstadt',
  kind: 'wfs',
  url: 'https://geo.example.org/wfs',
  layer: 'bplan',
  numberProperty: 'nummer',
};

describe('geo sources in the Sources table, validated like council items', () => {
  it('a valid item parses with defaults: inactive, page size, page cap, GeoJSON output format', () => {
    const parsed = parseGeoSourceItem(valid);
    expect(parsed).toMatchObject({
      ok: true,
      source: { active: false, pageSize: 500, maxPages: 50, outputFormat: 'application/json', params: {} },
    });
  });

  it.each([
    [{ kind: 'wms' }, 'kind'],
    [{ url: 'ftp://geo.example.org/' }, 'url'],
    [{ layer: undefined }, 'layer'],
    [{ sourceId: 'musterstadt' }, 'sourceId'],
    [{ numberProperty: '' }, 'numberProperty'],
    [{ maxPages: 0 }, 'maxPages'],
    [{ area: [12, 48, 11, 49] }, 'area'],
    [{ licenseUrl: 'javascript:x' }, 'licenseUrl'],
    [{ colour: 'red' }, '(item)'],
    [{ ags: '5515' }, 'ags'],
  ])('an invalid field is named: %j', (change, field) => {
    const parsed = parseGeoSourceItem({ ...valid, ...change });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems.map((p) => p.field)).toContain(field);
  });

  it('council loads set geo items aside: never a broken council source, available to the geo refresh', async () => {
    await testbed.clients.doc.send(new PutCommand({ TableName: testbed.env.SOURCES_TABLE, Item: valid }));
    await testbed.clients.doc.send(
      new PutCommand({
        TableName: testbed.env.SOURCES_TABLE,
        Item: { sourceId: 'ris-x', systemUrl: 'https://ris.example.org/oparl/system' },
      }),
    );
    const load = await loadAllSources(testbed.clients.doc, testbed.env.SOURCES_TABLE);
    expect(load.parsed.map((p) => (p.ok ? p.source.sourceId : p.sourceId))).not.toContain('geo:musterstadt');
    expect(load.parsed.every((p) => p.ok)).toBe(true);
    expect(load.others.get('geo')?.map((i) => i.sourceId)).toContain('geo:musterstadt');
    const geo = await loadGeoSources(testbed.clients.doc, testbed.env.SOURCES_TABLE);
    expect(geo.sources.map((s) => s.sourceId)).toContain('geo:musterstadt');
  });
});

describe('OTH-3: an inactive geo source is never fetched', () => {
  it('the daily run skips an inactive source without a single request, and refreshes an active one', async () => {
    const k = kit();
    const server = await startTestServer(routes({ '/items': ok(collection([planFeature('1')])) }));
    cleanups.push(() => server.close());
    const base = { itemKind: 'geo', kind: 'ogc-api-features', numberProperty: 'nummer' };
    await testbed.clients.doc.send(
      new PutCommand({
        TableName: testbed.env.SOURCES_TABLE,
        Item: {
          ...base,
          sourceId: 'geo:off',
          body: 'off',
          url: server.url('/items?who=off', 'geo.test'),
          active: false,
        },
      }),
    );
    await testbed.clients.doc.send(
      new PutCommand({
        TableName: testbed.env.SOURCES_TABLE,
        Item: {
          ...base,
          sourceId: 'geo:on',
          body: 'on',
          url: server.url('/items?who=on', 'geo.test'),
          active: true,
        },
      }),
    );
    const deps = {
      ...geoDeps(testbed, k),
      doc: testbed.clients.doc,
      sourcesTable: testbed.env.SOURCES_TABLE,
    };

    const summary = await runGeoRefresh(deps);

    expect(server.calls.map((c) => new URL(c.path, 'http://x').searchParams.get('who'))).toEqual(['on']);
    expect(summary).toMatchObject({ sources: 1, created: 1, skipped: { inactive: 2 } });
    // Asked for by id, the inactive source is still not fetched.
    const byId = await runGeoRefresh(deps, { sourceId: 'geo:off' });
    expect(byId).toMatchObject({ sources: 0, skipped: { inactive: 1 } });
    expect(server.calls).toHaveLength(1);
    // The refresh itself refuses an inactive source, whoever calls it.
    await expect(
      refreshGeoSource(deps, geoSource({ url: server.url('/items', 'geo.test'), active: false })),
    ).rejects.toThrow(/inactive/);
    expect(server.calls).toHaveLength(1);
  });

  it('an invalid geo item is reported with a fixed text and not fetched', async () => {
    const k = kit();
    await testbed.clients.doc.send(
      new PutCommand({
        TableName: testbed.env.SOURCES_TABLE,
        Item: { ...valid, sourceId: 'geo:broken', body: 'broken', kind: 'wms', active: true },
      }),
    );
    const deps = {
      ...geoDeps(testbed, k),
      doc: testbed.clients.doc,
      sourcesTable: testbed.env.SOURCES_TABLE,
    };
    const summary = await runGeoRefresh(deps, { sourceId: 'geo:broken' });
    expect(summary.errors).toEqual([{ sourceId: 'geo:broken', error: 'Eintrag der Geoquelle ist ungültig' }]);
    expect(summary.sources).toBe(0);
  });
});

describe('OTH-4: papers of the body linked to the plans their titles name', () => {
  it('records which papers concern which plan; a paper without a plan reference links nothing', async () => {
    const k = kit();
    const deps = geoDeps(testbed, k);
    const bodyId = 'https://ris.example.org/oparl/body/1';
    const papers = [
      ['https://ris.example.org/oparl/paper/1', '1. Änderung des Bebauungsplans Nr. 12 – Satzungsbeschluss'],
      ['https://ris.example.org/oparl/paper/2', 'Bebauungspläne Nr. 47 und 45 a – Aufhebung'],
      ['https://ris.example.org/oparl/paper/3', '42. Änderung des Flächennutzungsplans'],
      ['https://ris.example.org/oparl/paper/4', 'Bebauungsplan Nr. 99 – nicht im Geoportal'],
    ];
    for (const [id, name] of papers) {
      await deps.mirror.writeLive({
        sourceId: 'ris-links',
        type: 'paper',
        id: id as string,
        object: { id, type: 'https://schema.oparl.org/1.1/Paper', name },
        sourceUrl: id as string,
        fetchedAt: new Date(k.clock.now()).toISOString(),
        bodyId,
        hash: `h-${id}`,
      });
    }
    const server = await startTestServer(
      routes({
        '/items': ok(
          collection([
            planFeature('12, 1. Änderung'),
            planFeature('47'),
            planFeature('45 a'),
            planFeature('3'),
          ]),
        ),
      }),
    );
    cleanups.push(() => server.close());
    const source = geoSource({
      url: server.url('/items', 'geo.test'),
      councilSourceId: 'ris-links',
      bodyId,
      ags: '09162000',
    });

    const report = await refreshGeoSource(deps, source);

    expect(report.linkedPapers).toBe(2);
    const links = Object.fromEntries(
      (await deps.store.paperLinks(source.sourceId)).map((l) => [l.paperId, l.planIds]),
    );
    expect(links).toEqual({
      'https://ris.example.org/oparl/paper/1': ['DE_09162000__12__1'],
      'https://ris.example.org/oparl/paper/2': ['DE_09162000__45a', 'DE_09162000__47'],
      'https://ris.example.org/oparl/paper/3': [],
      'https://ris.example.org/oparl/paper/4': [],
    });
  });
});
