import { describe, expect, it } from 'vitest';
import { documentId } from '../../shared/engine';
import { apiUrls, rewriteObject } from '../../shared/mirror-api';
import { deliveryAsked } from '../../shared/preview';

/**
 * A File's links in the API (docs/mirror-api.md “What is rewritten”), pure: OParl 1.1 `accessUrl` is the
 * URL to access the file (our document endpoint shows a PDF inline), `downloadUrl` the URL to download it
 * — the same endpoint with `?download=1`, which answers every type as an attachment (test/preview). Both
 * name the one document the sync recorded: the file's `accessUrl`, else its `downloadUrl`.
 */
const urls = apiUrls('https://api.test');
const FILE_TYPE = 'https://schema.oparl.org/1.1/File';
const file = (links: { accessUrl?: string; downloadUrl?: string }) =>
  rewriteObject(
    { id: 'https://ris.example/oparl/file/1', type: FILE_TYPE, name: 'Anlage', ...links },
    'file',
    {
      urls,
      sourceId: 'ris-a',
    },
  );

describe('File.accessUrl / File.downloadUrl in the API (pure)', () => {
  it.each([
    [
      'both at the origin',
      { accessUrl: 'https://ris.example/f/1.pdf', downloadUrl: 'https://ris.example/f/1.pdf?dl=1' },
      'https://ris.example/f/1.pdf',
    ],
    [
      'downloadUrl only (accessUrl is required, but origins omit it)',
      { downloadUrl: 'https://ris.example/f/2.pdf' },
      'https://ris.example/f/2.pdf',
    ],
  ])('%s → accessUrl our document, downloadUrl the same with ?download=1', (_case, links, recorded) => {
    // act
    const out = file(links);
    // assess
    const ours = urls.document(documentId(recorded));
    expect(out.accessUrl).toBe(ours);
    expect(out.downloadUrl).toBe(`${ours}?download=1`);
    expect(out.downloadUrl).toBe(urls.download(documentId(recorded)));
    // What the document endpoint reads from it: a download.
    expect(deliveryAsked(new URL(out.downloadUrl as string).searchParams)).toBe('download');
    expect(deliveryAsked(new URL(out.accessUrl as string).searchParams)).toBe('view');
  });

  it('no downloadUrl at the origin → none in the API (OParl makes it optional; we add nothing)', () => {
    // act
    const out = file({ accessUrl: 'https://ris.example/f/3.pdf' });
    // assess
    expect(out.accessUrl).toBe(urls.document(documentId('https://ris.example/f/3.pdf')));
    expect(out).not.toHaveProperty('downloadUrl');
  });

  it('without a document endpoint beside the API the origin’s own links stay (no dead route)', () => {
    // prepare
    const links = {
      accessUrl: 'https://ris.example/f/4.pdf',
      downloadUrl: 'https://ris.example/f/4.pdf?dl=1',
    };
    // act
    const out = rewriteObject({ id: 'https://ris.example/oparl/file/4', type: FILE_TYPE, ...links }, 'file', {
      urls: apiUrls('https://api.test', { documents: false }),
      sourceId: 'ris-a',
    });
    // assess
    expect(out.accessUrl).toBe(links.accessUrl);
    expect(out.downloadUrl).toBe(links.downloadUrl);
  });

  it('a base with a trailing slash gives the same links', () => {
    // act
    const slashed = apiUrls('https://api.test/');
    // assess
    expect(slashed.download('ab'.repeat(32))).toBe(
      `https://api.test/documents/${'ab'.repeat(32)}?download=1`,
    );
  });
});
