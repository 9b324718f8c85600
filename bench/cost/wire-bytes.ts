import type { WirePacket } from '../wire-capture';
/**
 * Issue 28: the bytes a council request sends out, from a capture's packets (bench/wire-bytes.ts) —
 * pure, so the counting is tested on packets made by hand (test/cost/wire-bytes.test.ts).
 */

/** A TCP segment's payload on a 1,500-byte path: 1,500 − 20 (IPv4) − 20 (TCP) − 12 (timestamps). */
export const PATH_MSS_BYTES = 1_448;

/** A pure ACK at the IP level: 20 (IPv4) + 20 (TCP) + 12 (the timestamp option Linux sends). */
export const ACK_IP_BYTES = 52;

/**
 * The client's packets of a connection besides its requests: SYN (60 B with MSS, SACK, timestamps and
 * window scale), the handshake's ACK, its FIN and the ACK of the server's FIN (52 B each).
 */
export const TCP_CONNECTION_IP_BYTES = 60 + 3 * ACK_IP_BYTES;

/**
 * ACKs a receiver sends for an answer of `bytes` on a 1,500-byte path: one for every second full
 * segment (delayed ACK, RFC 1122 4.2.3.2 / RFC 5681 4.2), at least one.
 */
export function acksOnPath(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / (2 * PATH_MSS_BYTES)));
}

/** The packets the counting needs: a capture's packets without their time (a type import only). */
export type CountedPacket = Omit<WirePacket, 'atMs'>;

/** The client's side of a capture against one server port. */
export interface ClientSide {
  /** Plain-HTTP requests (packets starting with a method); 0 over TLS (encrypted). */
  requests: number;
  /** Connections opened (the client's SYNs). */
  connections: number;
  /** IP bytes of the client's packets that carry data (the requests; over TLS the handshake too). */
  requestIpBytes: number;
  /** IP bytes of its SYN and FIN packets. */
  controlIpBytes: number;
  /** Its pure ACKs on this path (the loopback's: few, its MTU is 64 KiB). */
  pureAcks: number;
  /** The answer's TCP payload bytes of each plain-HTTP request, in order. */
  responseBytes: number[];
}

const METHOD = /^(GET|HEAD|POST|PUT|DELETE|OPTIONS|PATCH) /;

export function clientSideOf(packets: readonly CountedPacket[], serverPort: number): ClientSide {
  const side: ClientSide = {
    requests: 0,
    connections: 0,
    requestIpBytes: 0,
    controlIpBytes: 0,
    pureAcks: 0,
    responseBytes: [],
  };
  /** The request an answer's bytes belong to, by the client's port (one request at a time each). */
  const current = new Map<number, number>();
  for (const p of packets) {
    if (p.dstPort === serverPort) {
      if (p.syn) side.connections += 1;
      if (p.payloadBytes > 0) {
        side.requestIpBytes += p.ipBytes;
        if (METHOD.test(p.head)) {
          current.set(p.srcPort, side.responseBytes.length);
          side.responseBytes.push(0);
          side.requests += 1;
        }
      } else if (p.syn || p.fin) side.controlIpBytes += p.ipBytes;
      else side.pureAcks += 1;
    } else if (p.srcPort === serverPort && p.payloadBytes > 0) {
      const at = current.get(p.dstPort);
      if (at !== undefined) side.responseBytes[at] = (side.responseBytes[at] ?? 0) + p.payloadBytes;
    }
  }
  return side;
}

/** What a council request costs on the wire, measured (assumptions.ts `councilWire`). */
export interface CouncilWire {
  /** IP bytes of a request's packets, plain HTTP (headers; one packet). */
  requestIpBytes: number;
  /** TLS 1.3's record overhead a request (header, content type, AEAD tag). */
  tlsRecordBytesPerRequest: number;
  /** The client's TLS handshake bytes a connection (ClientHello, Finished; ACKs apart). */
  tlsHandshakeBytesPerConnection: number;
}

/**
 * IP bytes our side sends for `requests` HTTPS requests over `connections` new connections whose
 * answers are `responseBytesPerRequest` each (their ACKs on a 1,500-byte path).
 */
export function councilBytesOut(
  wire: CouncilWire,
  load: { requests: number; connections: number; responseBytesPerRequest: number },
): number {
  const perRequest =
    wire.requestIpBytes +
    wire.tlsRecordBytesPerRequest +
    acksOnPath(load.responseBytesPerRequest) * ACK_IP_BYTES;
  return (
    load.requests * perRequest +
    load.connections * (TCP_CONNECTION_IP_BYTES + wire.tlsHandshakeBytesPerConnection)
  );
}
