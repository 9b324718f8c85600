import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis as IORedis, ReplyError } from 'ioredis';

/**
 * The Upstash REST protocol in front of a real redis-server, so tests and benches run the production
 * client (@upstash/redis) unchanged. Covers what that client sends: `POST /` (one command),
 * `POST /pipeline`, `POST /multi-exec`, bearer token, `Upstash-Encoding: base64`.
 */
export interface UpstashAdapter {
  url: string;
  token: string;
  /** HTTP requests answered so far (one per client round trip), e.g. for round-trips-per-request figures. */
  requestCount(): number;
  /**
   * Issue 28: JSON body bytes received and sent so far (HTTP headers and TLS apart) — what one command
   * carries against a plan's bandwidth.
   */
  bodyBytes(): { received: number; sent: number };
  /** Commands received so far, each of a pipeline or transaction counted: what Upstash bills. */
  commandCount(): number;
  stop(): Promise<void>;
}

type Command = [string, ...(string | number)[]];
type Outcome = { result: unknown } | { error: string };

export async function startUpstashAdapter(opts: {
  redisUrl: string;
  token: string;
}): Promise<UpstashAdapter> {
  // No offline queue: while Redis is down every command fails at once, so clients get a 5xx (RATE-7).
  const redis = new IORedis(opts.redisUrl, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => 100,
  });
  redis.on('error', () => {}); // reconnects on its own; failures surface per command
  await redis.connect();
  let requests = 0;
  const bytes = { received: 0, sent: 0 };
  let commands = 0;

  const run = async ([name, ...args]: Command): Promise<Outcome> => {
    try {
      return { result: await redis.callBuffer(name, args.map(String)) };
    } catch (error) {
      if (error instanceof ReplyError) return { error: (error as Error).message };
      throw error; // connection trouble: the whole request fails
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    requests += 1;
    const send = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      bytes.sent += Buffer.byteLength(text);
      res.writeHead(status, { 'content-type': 'application/json' }).end(text);
    };
    if (req.headers.authorization !== `Bearer ${opts.token}`) return send(401, { error: 'Unauthorized' });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    bytes.received += raw.length;
    const body = JSON.parse(raw.toString() || 'null') as Command | Command[];
    commands += Array.isArray(body) && Array.isArray(body[0]) ? body.length : 1;
    const encode = (v: unknown) => encodeReply(v, req.headers['upstash-encoding'] === 'base64');
    const path = (req.url ?? '/').split('?')[0];
    try {
      if (path === '/pipeline') {
        const outcomes = await Promise.all((body as Command[]).map(run));
        return send(
          200,
          outcomes.map((o) => ('error' in o ? o : { result: encode(o.result) })),
        );
      }
      if (path === '/multi-exec') {
        const multi = redis.multi();
        for (const [name, ...args] of body as Command[]) multi.callBuffer(name, args.map(String));
        const replies = (await multi.exec()) ?? [];
        return send(
          200,
          replies.map(([err, result]) => (err ? { error: err.message } : { result: encode(result) })),
        );
      }
      const outcome = await run(body as Command);
      return 'error' in outcome ? send(400, outcome) : send(200, { result: encode(outcome.result) });
    } catch (error) {
      // EXECABORT is a reply error of the whole transaction; anything else means Redis is unreachable.
      if (error instanceof ReplyError) return send(400, { error: (error as Error).message });
      return send(503, { error: `ERR redis unavailable: ${(error as Error).message}` });
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      if (!res.headersSent)
        res.writeHead(500).end(JSON.stringify({ error: `ERR adapter: ${error.message}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    token: opts.token,
    requestCount: () => requests,
    bodyBytes: () => ({ ...bytes }),
    commandCount: () => commands,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      redis.disconnect();
    },
  };
}

/** Upstash's base64 reply encoding: every string but a literal OK is base64; integers and nil as is. */
function encodeReply(value: unknown, base64: boolean): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value;
  if (Buffer.isBuffer(value)) {
    if (!base64 || value.toString() === 'OK') return value.toString();
    return value.toString('base64');
  }
  if (typeof value === 'string') return encodeReply(Buffer.from(value), base64);
  if (Array.isArray(value)) return value.map((v) => encodeReply(v, base64));
  // ioredis turns HGETALL into an object even for callBuffer; the wire format is a flat array.
  if (typeof value === 'object')
    return Object.entries(value)
      .flat()
      .map((v) => encodeReply(v, base64));
  return String(value);
}
