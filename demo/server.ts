// The fake council system: a real HTTP server on loopback serving the generated OParl dataset,
// robots.txt and PDFs, with scriptable faults. No test framework imports: `npm start` uses it too.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { Dataset, datasetConfig, type StoredObject } from './dataset';
import {
  applyPlaceholders,
  FaultBook,
  faultOf,
  gzipBomb,
  injectControlChars,
  injectNestingBomb,
  isShortCircuit,
  NESTING_BOMB_DEPTH,
  requestMatches,
} from './faults';
import { geoportalReply } from './geoportal';
import { buildDeflateBombPdf, buildManyPagesPdf } from './poison-pdf';
import { ROBOTS_ALLOW_ALL } from './robots';
import { streamReply } from './stream';
import { parseFilterValue } from './time';
import {
  type FakeCouncil,
  type FakeCouncilOptions,
  type Fault,
  type FaultMatcher,
  LIST_KEYS,
  type ListDeleted,
  type ListKey,
  type RecordedRequest,
  type RobotsScript,
} from './types';

interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const DEFAULT_PLACEHOLDER_FIELDS = ['name', 'website', 'created'];

function reply(
  status: number,
  body: string | Buffer,
  contentType: string,
  headers: Record<string, string> = {},
) {
  return {
    status,
    headers: { 'content-type': contentType, ...headers },
    body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
  } satisfies Reply;
}

function guessContentType(body: string): string {
  const start = body.trimStart()[0];
  if (start === '{' || start === '[') return JSON_TYPE;
  if (start === '<') return 'text/html; charset=utf-8';
  return 'text/plain; charset=utf-8';
}

function etagOf(body: Buffer): string {
  return `"${createHash('sha1').update(body).digest('hex').slice(0, 16)}"`;
}

/** RFC 9110 §13.1.2: weak comparison, a list of tags, or `*`. */
function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = (t: string) => t.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || bare(t) === bare(etag));
}

function headerMap(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

export async function startFakeCouncil(options: FakeCouncilOptions = {}): Promise<FakeCouncil> {
  const hostname = options.hostname ?? '127.0.0.1';
  const pageSize = options.pageSize ?? 5;
  const bodyPageSize = options.bodyPageSize ?? 5;
  if (pageSize < 1 || bodyPageSize < 1) throw new Error('fake-council: page sizes must be ≥ 1');
  const listDeleted: ListDeleted = options.listDeleted ?? 'filtered';
  const missing = new Set<ListKey>(options.missingLists ?? []);
  const data = new Dataset(datasetConfig(options), 'http://placeholder');
  const basePath = data.config.basePath;
  const book = new FaultBook();
  book.addAll(options.faults ?? []);
  const requests: RecordedRequest[] = [];
  let robots: RobotsScript = toScript(options.robots ?? ROBOTS_ALLOW_ALL);
  let base = '';
  let closed = false;

  // Requests a test holds (`hold`): each waits for its release; close() releases them all.
  const holds: { match: FaultMatcher; arrived: (req: RecordedRequest) => void; released: Promise<void> }[] =
    [];
  const releases = new Set<() => void>();

  // Pending waits end early on close(), so no handler outlives the server.
  const sleepers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (closed) return resolve();
      const entry = {
        timer: setTimeout(() => {
          sleepers.delete(entry);
          resolve();
        }, ms),
        resolve,
      };
      sleepers.add(entry);
    });

  function toScript(script: RobotsScript | string): RobotsScript {
    return typeof script === 'string' ? { body: script } : script;
  }

  // Routing ---------------------------------------------------------------------------------

  async function route(url: URL, rec: RecordedRequest, faults: Fault[]): Promise<Reply> {
    const path = url.pathname;
    if (path === '/') return home();
    if (path === '/robots.txt') return robotsReply(rec);
    const stream = streamReply(path, options.streamLive ?? true, data.config.now().getTime());
    if (stream) return reply(stream.status, stream.body, stream.contentType);
    const hop = /^\/__hop\/(\d+)\/(\d{3})(\/.*)$/.exec(path);
    if (hop) {
      const left = Number(hop[1]);
      const target = `${hop[3]}${url.search}`;
      if (left > 0) return redirect(Number(hop[2]), `/__hop/${left - 1}/${hop[2]}${target}`);
      // The chain's end serves the resource without re-matching faults set on its own path.
      return route(new URL(target, base), rec, []);
    }
    const loop = /^\/__loop\/(\d{3})(\/.*)$/.exec(path);
    if (loop) return redirect(Number(loop[1]), `${loop[2]}${url.search}`);
    // OTH-4: the council's geoportal on the same host (plan boundaries, OGC API Features and WFS).
    const geo = geoportalReply(url, (b) => data.hasBody(b));
    if (geo) return reply(geo.status, geo.body, geo.contentType);
    const file = /^\/files\/(\d+)\/(\d+)\.pdf$/.exec(path);
    if (file) return fileReply(Number(file[1]), Number(file[2]), url, rec);
    if (path === `${basePath}/system`) return json(data.renderSystem(), rec, faults);
    if (path === `${basePath}/bodies`) return bodyList(url, rec, faults);
    const prefix = `${basePath}/bodies/`;
    if (path.startsWith(prefix)) {
      const [b, list, n, ...rest] = path.slice(prefix.length).split('/');
      const body = Number(b);
      if (!/^\d+$/.test(b ?? '') || !data.hasBody(body) || rest.length > 0) return notFound();
      if (list === undefined) return json(data.renderBody(body), rec, faults);
      if (!(LIST_KEYS as readonly string[]).includes(list)) return notFound();
      const key = list as ListKey;
      if (missing.has(key)) return notFound();
      if (n === undefined) return listPage(body, key, url, rec, faults);
      const obj = /^\d+$/.test(n) ? data.find(body, key, Number(n)) : undefined;
      return obj ? json(data.renderObject(obj), rec, faults) : notFound();
    }
    return notFound();
  }

  function notFound(): Reply {
    return reply(
      404,
      JSON.stringify({ error: 'Not Found', message: 'Die angeforderte Ressource existiert nicht.' }),
      JSON_TYPE,
    );
  }

  function badRequest(message: string): Reply {
    return reply(400, JSON.stringify({ error: 'Bad Request', message }), JSON_TYPE);
  }

  function redirect(status: number, location: string): Reply {
    return reply(
      status,
      `<html><body><a href="${escapeHtml(location)}">Weiter</a></body></html>`,
      'text/html',
      {
        location,
      },
    );
  }

  function home(): Reply {
    const names = Array.from({ length: data.bodyCount }, (_, i) => String(data.renderBody(i + 1).name));
    const html = `<!doctype html>
<html lang="de">
<head>
<meta charset="utf-8">
<title>Ratsinformationssystem – ${escapeHtml(names.join(', '))}</title>
<link rel="alternate" type="application/json" title="OParl" href="${data.systemUrl}">
</head>
<body>
<h1>Ratsinformationssystem</h1>
<ul>${names.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>
<p><a href="${data.systemUrl}">OParl-Schnittstelle</a></p>
</body>
</html>
`;
    return reply(200, html, 'text/html; charset=utf-8');
  }

  function json(doc: unknown, rec: RecordedRequest, faults: Fault[]): Reply {
    const placeholders = faultOf(faults, 'placeholders');
    const shown = placeholders
      ? applyPlaceholders(
          doc,
          new Set(placeholders.fields ?? DEFAULT_PLACEHOLDER_FIELDS),
          placeholders.value ?? 'N/A',
        )
      : doc;
    let text = JSON.stringify(shown);
    if (faultOf(faults, 'controlChars')) text = injectControlChars(text);
    const bomb = faultOf(faults, 'nestingBomb');
    if (bomb) text = injectNestingBomb(text, bomb.depth ?? NESTING_BOMB_DEPTH);
    const body = Buffer.from(text, 'utf8');
    if (!options.apiEtags) return reply(200, body, JSON_TYPE);
    const etag = etagOf(body);
    if (etagMatches(rec.ifNoneMatch, etag)) return reply(304, '', JSON_TYPE, { etag });
    return reply(200, body, JSON_TYPE, { etag });
  }

  /** OParl list object for one page; `extra` are the query parameters kept in every link. */
  function page<T>(
    items: T[],
    url: URL,
    size: number,
    extra: URLSearchParams,
    faults: Fault[],
    render: (item: T) => unknown,
  ): { doc: Record<string, unknown> } | { error: Reply } {
    const raw = url.searchParams.get('page') ?? '1';
    if (!/^\d+$/.test(raw) || Number(raw) < 1) return { error: badRequest(`invalid page ${raw}`) };
    const current = Number(raw);
    const totalPages = Math.max(1, Math.ceil(items.length / size));
    const linkTo = (p: number, params = extra) => {
      const q = new URLSearchParams(params);
      q.set('page', String(p));
      return `${base}${url.pathname}?${q.toString()}`;
    };
    const links: Record<string, string> = {
      first: linkTo(1),
      last: linkTo(totalPages),
      self: linkTo(current),
    };
    if (current > 1) links.prev = linkTo(Math.min(current - 1, totalPages));
    if (current < totalPages) {
      links.next = faultOf(faults, 'dropFilterFromNext')
        ? linkTo(current + 1, new URLSearchParams())
        : linkTo(current + 1);
    }
    const cycle = faultOf(faults, 'nextCycle');
    if (cycle && current >= 2) links.next = linkTo(cycle.toPage ?? 1);
    return {
      doc: {
        // Only the page's own objects are rendered: embedding makes rendering the costly part.
        data: items.slice((current - 1) * size, current * size).map(render),
        pagination: { totalElements: items.length, elementsPerPage: size, currentPage: current, totalPages },
        links,
      },
    };
  }

  function bodyList(url: URL, rec: RecordedRequest, faults: Fault[]): Reply {
    if (faultOf(faults, 'bodyAsSingleObject')) return json(data.renderBody(1), rec, faults);
    const bodies = Array.from({ length: data.bodyCount }, (_, i) => i + 1);
    const result = page(bodies, url, bodyPageSize, new URLSearchParams(), faults, (b) => data.renderBody(b));
    return 'error' in result ? result.error : json(result.doc, rec, faults);
  }

  function listPage(b: number, list: ListKey, url: URL, rec: RecordedRequest, faults: Fault[]): Reply {
    const kept = new URLSearchParams();
    let sinceMs: number | undefined;
    let untilMs: number | undefined;
    for (const name of ['modified_since', 'modified_until'] as const) {
      const value = url.searchParams.get(name);
      if (value === null) continue;
      if (faultOf(faults, 'rejectFilters')) return badRequest(`${name} wird nicht unterstützt`);
      const parsed = parseFilterValue(value);
      if (!parsed.ok) return badRequest(`invalid ${name}: ${value}`);
      if (parsed.fractional && faultOf(faults, 'rejectFractionalSeconds')) {
        return badRequest(`invalid ${name}: fractional seconds`);
      }
      kept.set(name, value);
      if (name === 'modified_since') sinceMs = parsed.ms;
      else untilMs = parsed.ms;
    }
    const filtering = (sinceMs !== undefined || untilMs !== undefined) && !faultOf(faults, 'ignoreFilters');
    const showDeleted = listDeleted === 'always' || (listDeleted === 'filtered' && filtering);
    const items = data
      .stored(b, list)
      .filter(
        (o: StoredObject) => (showDeleted || !o.deleted) && (!filtering || inRange(o, sinceMs, untilMs)),
      )
      .sort((x, y) => x.n - y.n);
    const result = page(items, url, pageSize, kept, faults, (o) => data.renderObject(o));
    return 'error' in result ? result.error : json(result.doc, rec, faults);
  }

  function inRange(o: StoredObject, sinceMs: number | undefined, untilMs: number | undefined): boolean {
    return (
      (sinceMs === undefined || o.modifiedMs >= sinceMs) && (untilMs === undefined || o.modifiedMs <= untilMs)
    );
  }

  function fileReply(b: number, n: number, url: URL, rec: RecordedRequest): Reply {
    const obj = data.find(b, 'file', n);
    if (!obj || obj.deleted) {
      return reply(
        404,
        '<html><body><h1>404 – Datei nicht gefunden</h1></body></html>',
        'text/html; charset=utf-8',
      );
    }
    const content = data.fileContent(obj);
    const lastModified = new Date(Math.floor(content.modifiedMs / 1000) * 1000).toUTCString();
    const headers: Record<string, string> = { etag: content.etag, 'last-modified': lastModified };
    if (url.searchParams.get('download') === '1') {
      headers['content-disposition'] = `attachment; filename="${content.fileName}"`;
    }
    const ims = rec.ifModifiedSince ? Date.parse(rec.ifModifiedSince) : Number.NaN;
    // RFC 9110 §13.2.2: If-None-Match wins; If-Modified-Since only counts without it.
    const notModified = rec.ifNoneMatch
      ? etagMatches(rec.ifNoneMatch, content.etag)
      : !Number.isNaN(ims) && Math.floor(content.modifiedMs / 1000) * 1000 <= ims;
    if (notModified) return reply(304, '', 'application/pdf', headers);
    return reply(200, content.bytes, 'application/pdf', headers);
  }

  async function robotsReply(rec: RecordedRequest): Promise<Reply> {
    const script = robots;
    if (script.delayMs) await sleep(script.delayMs);
    const status = script.status ?? 200;
    const body = Buffer.from(script.body ?? (status === 200 ? ROBOTS_ALLOW_ALL : ''), 'utf8');
    const headers: Record<string, string> = { ...(script.headers ?? {}) };
    const etag = script.etag === false ? undefined : (script.etag ?? etagOf(body));
    if (etag && status === 200) {
      headers.etag = etag;
      if (etagMatches(rec.ifNoneMatch, etag)) return reply(304, '', 'text/plain', headers);
    }
    return reply(status, body, script.contentType ?? 'text/plain; charset=utf-8', headers);
  }

  // Faults that replace the response ----------------------------------------------------------

  function shortCircuit(fault: Fault, url: URL): Reply | 'hangup' {
    const here = `${url.pathname}${url.search}`;
    switch (fault.kind) {
      case 'hangup':
        return 'hangup';
      case 'status': {
        const body =
          fault.body ?? (fault.status >= 400 ? JSON.stringify({ error: `HTTP ${fault.status}` }) : '');
        return reply(fault.status, body, fault.contentType ?? guessContentType(body), fault.headers);
      }
      case 'poisonPdf':
        return reply(
          200,
          fault.inflatedBytes === undefined
            ? buildManyPagesPdf(fault.pages ?? 20_000)
            : buildDeflateBombPdf(fault.inflatedBytes),
          'application/pdf',
        );
      case 'redirect':
        return redirect(fault.status ?? 302, fault.location);
      case 'redirectChain': {
        const status = fault.status ?? 302;
        return redirect(status, `/__hop/${fault.hops - 1}/${status}${here}`);
      }
      case 'redirectLoop': {
        const status = fault.status ?? 302;
        return redirect(status, `/__loop/${status}${here}`);
      }
      default:
        throw new Error(`fake-council: ${fault.kind} does not replace the response`);
    }
  }

  // Sending ---------------------------------------------------------------------------------

  async function send(res: ServerResponse, rec: RecordedRequest, out: Reply, faults: Fault[]): Promise<void> {
    let body = out.body;
    const headers = { ...out.headers };
    const wrongType = faultOf(faults, 'contentType');
    if (wrongType) headers['content-type'] = wrongType.contentType;
    const bomb = faultOf(faults, 'gzipBomb');
    if (bomb) {
      body = await gzipBomb(bomb.inflatedBytes ?? 64 * 1024 * 1024);
      headers['content-encoding'] = 'gzip';
    } else if (faultOf(faults, 'gzip') && body.length > 0) {
      body = gzipSync(body);
      headers['content-encoding'] = 'gzip';
    }
    const mismatch = faultOf(faults, 'contentLengthMismatch');
    headers['content-length'] = String(body.length + (mismatch ? (mismatch.extraBytes ?? 100) : 0));
    if (closed || res.destroyed) return;
    rec.status = out.status;
    res.writeHead(out.status, headers);
    const slow = faultOf(faults, 'slowBody');
    if (slow && rec.method !== 'HEAD') {
      const step = slow.chunkBytes ?? 1;
      for (let i = 0; i < body.length; i += step) {
        if (closed || res.destroyed) return;
        res.write(body.subarray(i, i + step));
        if (i + step < body.length) await sleep(slow.intervalMs);
      }
    } else if (rec.method !== 'HEAD') {
      res.write(body);
    }
    if (mismatch) {
      // The promised bytes never come: closing the connection is what such servers do.
      res.write('', () => res.socket?.end());
      return;
    }
    res.end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const headers = headerMap(req);
    const rec: RecordedRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers,
      userAgent: headers['user-agent'],
      accept: headers.accept,
      ifNoneMatch: headers['if-none-match'],
      ifModifiedSince: headers['if-modified-since'],
      conditional: headers['if-none-match'] !== undefined || headers['if-modified-since'] !== undefined,
      at: performance.now(),
      epochMs: Date.now(),
      faults: [],
    };
    requests.push(rec);
    options.observe?.arrived?.(rec);
    // In flight until the exchange is over at the socket: what a server counts as concurrent requests.
    res.once('close', () => {
      rec.endAt = performance.now();
      options.observe?.ended?.(rec);
    });
    // Hops of a scripted redirect chain or loop are part of the fault that started them; matching
    // them again (a pattern like '*/system' would) turns every chain into an endless nest.
    const internal = rec.path.startsWith('/__hop/') || rec.path.startsWith('/__loop/');
    const faults = internal ? [] : book.take(rec);
    rec.faults = faults.map((f) => f.kind);
    const delayMs = Math.max(0, ...faults.map((f) => (f.kind === 'delay' ? f.delayMs : 0)));
    if (delayMs > 0) await sleep(delayMs);
    const held = internal ? undefined : holds.find((h) => requestMatches(h.match, rec));
    if (held) {
      holds.splice(holds.indexOf(held), 1);
      held.arrived(rec);
      await held.released;
    }
    if (closed || res.destroyed) return;
    if (rec.method !== 'GET' && rec.method !== 'HEAD') {
      await send(res, rec, reply(405, 'Method Not Allowed', 'text/plain', { allow: 'GET, HEAD' }), []);
      return;
    }
    // Concatenated, not resolved: a request path like '//other.host/x' must stay a path here.
    const url = new URL(`${base}${rec.path.startsWith('/') ? '' : '/'}${rec.path}`);
    const cut = faults.find(isShortCircuit);
    const out = cut ? shortCircuit(cut, url) : await route(url, rec, faults);
    if (out === 'hangup') {
      req.socket.destroy();
      return;
    }
    await send(res, rec, out, faults);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A bug in a test's script should fail that test with a readable 500, not hang it.
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`fake-council error: ${error instanceof Error ? error.stack : String(error)}`);
      } else {
        res.destroy();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  base = `http://${hostname}:${port}`;
  data.setBase(base);

  return {
    url: base,
    port,
    systemUrl: data.systemUrl,
    bodyListUrl: data.bodyListUrl,
    requests,
    clearRequests: () => {
      requests.length = 0;
    },
    bodyUrl: (body = 1) => data.bodyUrl(body),
    listUrl: (list, body = 1) => data.listUrl(body, list),
    objectUrl: (list, n, body = 1) => data.objectUrl(body, list, n),
    objects: (list, opts = {}) =>
      data
        .stored(opts.body ?? 1, list)
        .filter((o) => opts.includeDeleted || !o.deleted)
        .sort((x, y) => x.n - y.n)
        .map((o) => data.renderObject(o)),
    setFault: (match, fault, scope) => book.add(match, fault, scope),
    clearFaults: () => book.clear(),
    hold: (match) => {
      let arrived: (req: RecordedRequest) => void = () => {};
      let release: () => void = () => {};
      const arrival = new Promise<RecordedRequest>((resolve) => {
        arrived = resolve;
      });
      const released = new Promise<void>((resolve) => {
        release = () => {
          releases.delete(release);
          resolve();
        };
      });
      releases.add(release);
      if (closed) release();
      holds.push({ match, arrived, released });
      return { arrived: arrival, release };
    },
    setRobots: (script) => {
      robots = toScript(script);
    },
    mutate: (mutations) => (Array.isArray(mutations) ? mutations : [mutations]).map((m) => data.mutate(m)),
    close: async () => {
      if (closed) return;
      closed = true;
      for (const s of sleepers) {
        clearTimeout(s.timer);
        s.resolve();
      }
      sleepers.clear();
      for (const release of [...releases]) release();
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await done;
    },
  };
}
