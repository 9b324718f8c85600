// A tiny OParl server for quirks the fake council does not script (deleted entries without `type`,
// a single object where an array belongs, links.next to another host). Routes answer raw text, so a
// test can serve exactly the bytes a vendor sent.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MiniReply {
  status?: number;
  body: string;
  headers?: Record<string, string>;
}

export interface MiniCouncil {
  base: string;
  systemUrl: string;
  requests: string[];
  close(): Promise<void>;
}

export type MiniRoutes = (url: URL, base: string) => MiniReply | undefined;

export async function startMiniCouncil(routes: MiniRoutes): Promise<MiniCouncil> {
  const requests: string[] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    requests.push(`${url.pathname}${url.search}`);
    const out = routes(url, base) ?? { status: 404, body: '{"error":"not found"}' };
    res.writeHead(out.status ?? 200, {
      'content-type': 'application/json; charset=utf-8',
      ...(out.headers ?? {}),
    });
    res.end(out.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    systemUrl: `${base}/oparl/system`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** System + one body with the four mandatory lists; `lists` answers the list URLs. */
export function oneBodySystem(
  lists: (list: string, url: URL, base: string) => MiniReply | undefined,
): MiniRoutes {
  return (url, base) => {
    const p = url.pathname;
    if (p === '/oparl/system') {
      return json({
        id: `${base}/oparl/system`,
        type: 'https://schema.oparl.org/1.0/System',
        body: `${base}/oparl/bodies`,
      });
    }
    if (p === '/oparl/bodies') {
      return json({ data: [body(base)], links: {} });
    }
    const m = /^\/oparl\/body\/1\/(\w+)$/.exec(p);
    if (m?.[1]) return lists(m[1], url, base) ?? json({ data: [], links: {} });
    return undefined;
  };
}

export function body(base: string): Record<string, unknown> {
  return {
    id: `${base}/oparl/body/1`,
    type: 'https://schema.oparl.org/1.0/Body',
    name: 'Stadt Quirksheim',
    organization: `${base}/oparl/body/1/organization`,
    person: `${base}/oparl/body/1/person`,
    meeting: `${base}/oparl/body/1/meeting`,
    paper: `${base}/oparl/body/1/paper`,
    modified: '2024-01-01T10:00:00+01:00',
  };
}

export function json(doc: unknown, status = 200): MiniReply {
  return { status, body: JSON.stringify(doc) };
}
