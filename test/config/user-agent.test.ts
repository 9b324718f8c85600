import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { changeSource } from '../../cli/commands/sources';
import type { LocalRuntime } from '../../cli/local/runtime';
import { BROWSER_AGENT, parseSourceItem, userAgentProblem } from '../../shared/config';
import { defaultUserAgent, OTHER_FETCH_USER_AGENT } from '../../shared/fetch';
import { useAwsTestbed } from '../support/aws';

const base = { sourceId: 'koeln', systemUrl: 'https://ratsinformation.stadt-koeln.de/oparl/system' };

/**
 * Issue 25 weak spot, ID-3 / B-3: a per-source User-Agent override is one header line (a CR/LF would
 * make every request fail FETCH_INPUT, or smuggle a header) and never a browser's agent (B-3: we never
 * disguise the client). Both are refused by the Sources schema with a problem naming `userAgent`.
 */
describe('ID-3 / B-3: the per-source User-Agent override', () => {
  it.each([
    ['CR LF with a smuggled header', 'stadt-koeln-abruf/1.0\r\nX-Injected: 1', /control characters/],
    ['a bare LF', 'stadt-koeln-abruf/1.0\nsecond line', /control characters/],
    ['a bare CR', 'stadt-koeln-abruf/1.0\rsecond', /control characters/],
    ['a NUL', 'stadt-koeln-abruf/1.0\u0000', /control characters/],
    ['a tab', 'stadt-koeln\tabruf/1.0', /control characters/],
    [
      'Chrome on Windows',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      /browser agent.*B-3/,
    ],
    ['Firefox', 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0', /browser agent/],
    ['old Internet Explorer', 'Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)', /browser agent/],
    ['Mozilla/ alone, any case', 'mozilla/5.0', /browser agent/],
    ['our token followed by a browser token', 'mandari-ingestor/1.0 Chrome/120.0', /browser agent/],
    ['Edge', 'Edg/120.0.2210.91', /browser agent/],
    ['Opera', 'OPR/105.0', /browser agent/],
    ['Safari alone', '(Macintosh) Safari/605.1.15', /browser agent/],
    ['"like Gecko" without a token', 'Ratsbot (KHTML, like Gecko)', /browser agent/],
  ])('refuses %s with a problem naming userAgent', (_what, userAgent, message) => {
    const parsed = parseSourceItem({ ...base, userAgent });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems).toEqual([{ field: 'userAgent', message: expect.stringMatching(message) }]);
  });

  it.each([
    'mandari-ingestor/1.2 (+https://ris.example.de/abruf/; it@stadt.de)',
    'Stadt Köln Ratsspiegel/2.0 (+https://www.stadt-koeln.de/; it@stadt-koeln.de)',
    'Geckoboard-sync/1.0 (+https://example.org)',
    'MyEdgeTool/3 (+https://example.org; ops@example.org)',
    'SafariPark-Archiv/1.0 (+https://example.org)',
  ])('accepts an honest agent: %s', (userAgent) => {
    const parsed = parseSourceItem({ ...base, userAgent });
    expect(parsed.ok && parsed.source.userAgent).toBe(userAgent);
  });

  it('our own agents pass the rule (ID-1, OTH-1)', () => {
    expect(userAgentProblem(defaultUserAgent())).toBeUndefined();
    expect(userAgentProblem(OTHER_FETCH_USER_AGENT)).toBeUndefined();
    expect(BROWSER_AGENT.test(defaultUserAgent())).toBe(false);
  });

  describe('through `sources set` against the local DynamoDB peer', () => {
    const bed = useAwsTestbed();
    const rt = (): LocalRuntime => ({
      env: bed.env,
      clients: bed.clients,
      dataDir: '',
      close: async () => undefined,
    });

    it('ID-3 / B-3: `sources set koeln userAgent=<browser agent>` is refused naming the field; the stored item is unchanged', async () => {
      await bed.clients.doc.send(new PutCommand({ TableName: bed.env.SOURCES_TABLE, Item: { ...base } }));
      for (const agent of ['Mozilla/5.0 (X11) Gecko/20100101 Firefox/121.0', 'abruf/1.0\r\nX-Injected: 1']) {
        const error = await changeSource(rt(), {
          sourceId: 'koeln',
          set: [`userAgent=${agent}`],
          only: false,
        }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeDefined();
        expect(String((error as Error).message)).toContain('userAgent');
      }
      const stored = await bed.clients.doc.send(
        new GetCommand({ TableName: bed.env.SOURCES_TABLE, Key: { sourceId: 'koeln' } }),
      );
      expect(stored.Item).not.toHaveProperty('userAgent');
    });
  });
});
