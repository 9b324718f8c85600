import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP server speaking CloudFormation's query protocol for one action, DescribeStacks
 * (form-encoded POST, XML answer, `ValidationError` for an unknown stack), so the CLI's real SDK client
 * reads stack outputs without AWS. Point a client at it with `AWS_ENDPOINT_URL_CLOUDFORMATION`.
 */
export interface FakeCloudFormation {
  url: string;
  /** Every request's form parameters, in order. */
  requests: Record<string, string>[];
  close(): Promise<void>;
}

function xml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export async function startFakeCloudFormation(
  stacks: Record<string, Record<string, string>>,
): Promise<FakeCloudFormation> {
  const requests: Record<string, string>[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(raw));
      requests.push(form);
      const name = form.StackName ?? '';
      const outputs = stacks[name];
      res.setHeader('content-type', 'text/xml');
      if (form.Action !== 'DescribeStacks' || outputs === undefined) {
        res.statusCode = 400;
        const message =
          form.Action === 'DescribeStacks' ? `Stack with id ${name} does not exist` : 'unsupported';
        res.end(
          `<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type><Code>ValidationError</Code><Message>${xml(message)}</Message></Error><RequestId>r-1</RequestId></ErrorResponse>`,
        );
        return;
      }
      const members = Object.entries(outputs)
        .map(
          ([k, v]) => `<member><OutputKey>${xml(k)}</OutputKey><OutputValue>${xml(v)}</OutputValue></member>`,
        )
        .join('');
      res.end(
        `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member><StackName>${xml(name)}</StackName><StackId>arn:aws:cloudformation:eu-central-1:111122223333:stack/${xml(name)}/1</StackId><CreationTime>2026-01-01T00:00:00Z</CreationTime><StackStatus>UPDATE_COMPLETE</StackStatus><Outputs>${members}</Outputs></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata></DescribeStacksResponse>`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
