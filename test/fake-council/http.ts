// Small HTTP helpers for the fake council tests: real requests through undici, as the fetcher makes them.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent, fetch, type RequestInit } from 'undici';

export const OUR_AGENT = 'mandari-ingestor/0.1.0 (+https://mandari.de/ingestor/; support@mandari.de)';

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** Resolves *.test names to loopback, as the integration tests' resolver does; others via DNS. */
function testLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  if (!hostname.endsWith('.test')) {
    dnsLookup(hostname, { all: true }, (err, addresses) =>
      options.all
        ? callback(err, addresses)
        : callback(err, addresses[0]?.address ?? '', addresses[0]?.family),
    );
    return;
  }
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
}

export const testAgent = new Agent({ connect: { lookup: testLookup as never } });

export function get(url: string, init: RequestInit = {}) {
  return fetch(url, {
    dispatcher: testAgent,
    ...init,
    headers: { 'user-agent': OUR_AGENT, ...(init.headers ?? {}) },
  });
}

export async function getJson<T = Record<string, unknown>>(url: string, init: RequestInit = {}): Promise<T> {
  const res = await get(url, { ...init, headers: { accept: 'application/json', ...(init.headers ?? {}) } });
  if (res.status !== 200) throw new Error(`GET ${url} → ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

export interface ListPage {
  data: Array<Record<string, unknown>>;
  pagination: { totalElements: number; elementsPerPage: number; currentPage: number; totalPages: number };
  links: { first: string; last?: string; prev?: string; next?: string; self: string };
}

/** Follows links.next from `url` and returns every page (stops after `maxPages`). */
export async function walk(url: string, maxPages = 50): Promise<ListPage[]> {
  const pages: ListPage[] = [];
  let next: string | undefined = url;
  while (next && pages.length < maxPages) {
    const page: ListPage = await getJson<ListPage>(next);
    pages.push(page);
    next = page.links.next;
  }
  return pages;
}

/** Every string in a document that looks like an absolute http(s) URL, with its key. */
export function urlsIn(doc: unknown, key = ''): Array<{ key: string; url: string }> {
  if (typeof doc === 'string') return /^https?:\/\//.test(doc) ? [{ key, url: doc }] : [];
  if (Array.isArray(doc)) return doc.flatMap((v) => urlsIn(v, key));
  if (doc === null || typeof doc !== 'object') return [];
  return Object.entries(doc).flatMap(([k, v]) => urlsIn(v, k));
}
