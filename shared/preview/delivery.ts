import type { DocumentItem } from '../documents';
import { PREVIEW_DOWNLOAD_PARAM, PREVIEW_DOWNLOAD_VALUE } from './constants';
import { isHttpUrl } from './decide';
import { PreviewBadRequestError } from './errors';
import type { Delivery } from './types';

/**
 * How the visitor asks for the file, from the query string (pure): no `download` → `view`,
 * `download=1` → `download`.
 *
 * Every other parameter is ignored: CloudFront forwards none of them to the function, so `ingestor
 * serve` must answer without them exactly as the deployed endpoint does, and a cache-buster or a
 * newsletter's `utm_*` must lead to the same document.
 *
 * `download` itself is ours and has one value; any other (`true`, `0`, empty, given twice) is refused
 * rather than read as a view. A client that writes `download=true` is guessing at our contract, and a
 * silent inline answer would hand it a PDF to display where it asked to save one — correct-looking for
 * every other type (always attachments), wrong only for PDFs, so found late. A 400 says so on the first
 * try; nothing a browser follows from our API carries such a value.
 */
export function deliveryAsked(query: URLSearchParams | undefined): Delivery {
  const values = query?.getAll(PREVIEW_DOWNLOAD_PARAM) ?? [];
  if (values.length === 0) return 'view';
  if (values.length === 1 && values[0] === PREVIEW_DOWNLOAD_VALUE) return 'download';
  throw new PreviewBadRequestError(
    `${PREVIEW_DOWNLOAD_PARAM} takes the value ${PREVIEW_DOWNLOAD_VALUE} once, or is left out`,
  );
}

/**
 * PRV-4: where a visitor goes when we request nothing ourselves (file fetching off, source spared or not
 * configured) — the origin's own link. A download goes to the File's own `downloadUrl` where the sync
 * recorded one, so the council's server can answer it as a download; a view, or a download without one,
 * to the recorded file URL. Only an http(s) URL is ever redirected to (`isHttpUrl`).
 */
export function originalUrlFor(
  document: Pick<DocumentItem, 'url' | 'downloadUrl'>,
  delivery: Delivery,
): string {
  const download = document.downloadUrl;
  return delivery === 'download' && download !== undefined && isHttpUrl(download) ? download : document.url;
}
