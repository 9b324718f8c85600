import { describe, expect, it } from 'vitest';
import { bodySlugBase, slugify } from '../../shared/engine';

describe('body slugs (ONB-4): the engine’s one rule', () => {
  it.each([
    ['Köln', 'koeln'],
    ['Düsseldorf', 'duesseldorf'],
    ['Gemeinde Weißenbrunn', 'gemeinde-weissenbrunn'],
    ['ÄÖÜ ẞ', 'aeoeue-ss'],
    ['Stadt Frankfurt (Oder)', 'stadt-frankfurt-oder'],
    ['  Bad   Homburg v.d.H. ', 'bad-homburg-v-d-h'],
    ['Ko\u0308ln (decomposed umlaut)', 'koeln-decomposed-umlaut'],
    ['Château-Gontier', 'chateau-gontier'],
  ])('%s → %s', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it('shortName first, else name, else a stable id-based slug', () => {
    expect(bodySlugBase({ id: 'https://x/b/1', name: 'Stadt Köln', shortName: 'Köln' })).toBe('koeln');
    expect(bodySlugBase({ id: 'https://x/b/1', name: 'Stadt Köln' })).toBe('stadt-koeln');
    expect(bodySlugBase({ id: 'https://x/b/1', name: '—' })).toMatch(/^body-[0-9a-f]{8}$/);
  });
});
