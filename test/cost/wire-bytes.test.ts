import { describe, expect, it } from 'vitest';
import {
  ACK_IP_BYTES,
  acksOnPath,
  type CountedPacket,
  clientSideOf,
  councilBytesOut,
  PATH_MSS_BYTES,
  TCP_CONNECTION_IP_BYTES,
} from '../../bench/cost/wire-bytes';

const SERVER = 8080;
const packet = (
  from: number,
  to: number,
  payload: number,
  extra: Partial<CountedPacket> = {},
): CountedPacket => ({
  srcPort: from,
  dstPort: to,
  ipBytes: payload + ACK_IP_BYTES,
  payloadBytes: payload,
  syn: false,
  fin: false,
  head: '',
  ...extra,
});

describe('issue 28: bytes out per council request, counted from packets (bench/cost/wire-bytes.ts)', () => {
  it('counts the client’s request packets, its SYN/FIN and pure ACKs apart, and each answer’s bytes by connection', () => {
    const packets = [
      packet(5001, SERVER, 0, { syn: true, ipBytes: 60 }),
      packet(SERVER, 5001, 0, { syn: true }),
      packet(5001, SERVER, 0),
      packet(5001, SERVER, 300, { head: 'GET /robots.txt HTTP/1.1\r\n' }),
      packet(SERVER, 5001, 200),
      packet(5002, SERVER, 0, { syn: true, ipBytes: 60 }),
      packet(5002, SERVER, 310, { head: 'GET /a HTTP/1.1\r\n' }),
      packet(5001, SERVER, 320, { head: 'HEAD /b HTTP/1.1\r\n' }),
      packet(SERVER, 5002, 5_000),
      packet(SERVER, 5001, 150),
      packet(SERVER, 5002, 1_000),
      packet(5002, SERVER, 0),
      packet(5001, SERVER, 0, { fin: true }),
    ];
    const side = clientSideOf(packets, SERVER);
    expect(side).toEqual({
      requests: 3,
      connections: 2,
      requestIpBytes: 300 + 310 + 320 + 3 * ACK_IP_BYTES,
      controlIpBytes: 60 + 60 + ACK_IP_BYTES,
      pureAcks: 2,
      responseBytes: [200, 6_000, 150],
    });
  });

  it('a TLS payload (no readable method) is counted as bytes, not as a request', () => {
    const side = clientSideOf([packet(5001, SERVER, 517, { head: '\u0016\u0003\u0001' })], SERVER);
    expect(side).toMatchObject({ requests: 0, requestIpBytes: 517 + ACK_IP_BYTES, responseBytes: [] });
  });

  it('one ACK per two full segments on a 1,500-byte path, at least one', () => {
    expect(acksOnPath(0)).toBe(1);
    expect(acksOnPath(2 * PATH_MSS_BYTES)).toBe(1);
    expect(acksOnPath(2 * PATH_MSS_BYTES + 1)).toBe(2);
    // A 400 KB file: ≈ 139 ACKs, ≈ 7 KB out.
    expect(acksOnPath(400_000) * ACK_IP_BYTES).toBeGreaterThan(7_000);
  });

  it('a run’s bytes out: each request with its TLS record and its answer’s ACKs, each new connection its TCP and TLS handshake', () => {
    const wire = { requestIpBytes: 250, tlsRecordBytesPerRequest: 22, tlsHandshakeBytesPerConnection: 669 };
    const oneRun = councilBytesOut(wire, { requests: 11, connections: 1, responseBytesPerRequest: 1_000 });
    expect(oneRun).toBe(11 * (250 + 22 + ACK_IP_BYTES) + TCP_CONNECTION_IP_BYTES + 669);
    // Ten times the answer: more ACKs, nothing else.
    const bigger = councilBytesOut(wire, { requests: 11, connections: 1, responseBytesPerRequest: 10_000 });
    expect(bigger - oneRun).toBe(11 * (acksOnPath(10_000) - 1) * ACK_IP_BYTES);
  });
});
