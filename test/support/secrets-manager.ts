import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback server speaking the Secrets Manager JSON protocol (`X-Amz-Target:
 * secretsmanager.GetSecretValue`, `application/x-amz-json-1.1`) for one secret, so the real SDK client
 * (and Powertools Parameters on top of it) runs unchanged and Secrets Manager itself is never reached.
 */
export interface FakeSecretsManager {
  url: string;
  /** GetSecretValue requests answered so far. */
  requests: number;
  /** The value served from now on. */
  setValue(value: string): void;
  /** The next `times` requests fail with this AWS error (HTTP 400, not retried by the SDK). */
  failNext(times: number, type?: string): void;
  close(): Promise<void>;
}

export async function startFakeSecretsManager(secretId: string, value: string): Promise<FakeSecretsManager> {
  let current = value;
  let failures = 0;
  let failureType = 'AccessDeniedException';
  const fake: FakeSecretsManager = {
    url: '',
    requests: 0,
    setValue(next) {
      current = next;
    },
    failNext(times, type = 'AccessDeniedException') {
      failures = times;
      failureType = type;
    },
    close: async () => undefined,
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(body));
    if (req.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue') {
      return send(400, { __type: 'UnknownOperationException', message: 'only GetSecretValue' });
    }
    fake.requests += 1;
    const { SecretId } = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { SecretId?: string };
    if (failures > 0) {
      failures -= 1;
      return send(400, { __type: failureType, message: 'not allowed to read this secret (simulated)' });
    }
    if (SecretId !== secretId) {
      return send(400, {
        __type: 'ResourceNotFoundException',
        message: "Secrets Manager can't find the specified secret.",
      });
    }
    return send(200, {
      ARN: secretId,
      Name: 'mandari-ingestor/upstash-token',
      SecretString: current,
      VersionId: `v${fake.requests}`,
      VersionStages: ['AWSCURRENT'],
      CreatedDate: 1_760_000_000,
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
