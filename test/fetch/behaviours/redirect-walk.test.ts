import { describe, expect, it } from 'vitest';
import { MAX_REDIRECTS, type RedirectHop } from '../../../shared/fetch';
import { nextHop } from '../../../shared/fetch/redirect';

/** The redirect walk's decision: where a redirect leads, and when the walk ends (RED). */

describe('redirect walk (RED)', () => {
  it('resolves a relative Location against the hop, drops the fragment and records the hop', () => {
    const hops: RedirectHop[] = [];
    const next = nextHop(new URL('https://ris.test/a/b'), 302, '../c?x=1#frag', hops);
    expect(next.href).toBe('https://ris.test/c?x=1');
    expect(hops).toEqual([{ url: 'https://ris.test/a/b', status: 302, location: 'https://ris.test/c?x=1' }]);
  });

  it('RED-1: five redirects are followed; the sixth ends the fetch with TOO_MANY_REDIRECTS and the chain', () => {
    const hops: RedirectHop[] = [];
    let url = new URL('https://ris.test/0');
    for (let i = 1; i <= MAX_REDIRECTS; i += 1) url = nextHop(url, 301, `/${i}`, hops);
    expect(hops).toHaveLength(MAX_REDIRECTS);
    let error: unknown;
    try {
      nextHop(url, 301, '/6', hops);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'TOO_MANY_REDIRECTS' });
    expect((error as Error).message).toContain('https://ris.test/0');
  });

  it('RED: no Location, an unparsable one or credentials are REDIRECT_INVALID; other schemes REDIRECT_SCHEME', () => {
    const from = new URL('https://ris.test/a');
    expect(() => nextHop(from, 302, undefined, [])).toThrow(
      expect.objectContaining({ code: 'REDIRECT_INVALID' }),
    );
    expect(() => nextHop(from, 302, '  ', [])).toThrow(expect.objectContaining({ code: 'REDIRECT_INVALID' }));
    expect(() => nextHop(from, 302, 'http://[::1', [])).toThrow(
      expect.objectContaining({ code: 'REDIRECT_INVALID' }),
    );
    expect(() => nextHop(from, 302, 'https://u:p@ris.test/', [])).toThrow(
      expect.objectContaining({ code: 'REDIRECT_INVALID' }),
    );
    expect(() => nextHop(from, 302, 'file:///etc/passwd', [])).toThrow(
      expect.objectContaining({ code: 'REDIRECT_SCHEME' }),
    );
  });
});
