import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Arrival times stamped by the kernel: tcpdump on the loopback interface, keeping only packets whose
 * TCP payload starts with "GET " (the slot store's Upstash traffic is POST). The council's server sees
 * a request when its packet arrives — not when a busy event loop gets round to it — so the bench
 * judges the spacing on these times when tcpdump is there (root; `apt-get install tcpdump`).
 */

export interface WireArrival {
  /** Epoch ms (the kernel's capture time stamp, µs resolution). */
  atMs: number;
  /** Destination port (which RIS server). */
  port: number;
  /** The request line's path and the x-bench-id header (`port:<client port>` when absent). */
  path: string;
  id: string;
}

export interface WireCapture {
  stop(): Promise<WireArrival[]>;
}

// BPF: TCP on loopback whose payload begins with "GET " (0x47455420).
const GET_FILTER = 'tcp and tcp[((tcp[12:1] & 0xf0) >> 2):4] = 0x47455420';

/** Starts a capture, or returns undefined when tcpdump is missing or may not capture here. */
export async function startWireCapture(): Promise<WireCapture | undefined> {
  const pcap = await startTcpdump({
    prefix: 'politeness-pcap-',
    snapBytes: 1024,
    immediate: false,
    settleMs: 0,
    filter: GET_FILTER,
  });
  return pcap && { stop: async () => parsePcap(await pcap.stop()) };
}

interface TcpdumpOptions {
  /** The temporary folder's name prefix (the pcap file lives there until stop). */
  prefix: string;
  /** Bytes kept of each packet (`-s`). */
  snapBytes: number;
  /**
   * Immediate mode: without it a short capture's packets wait in the kernel's ring block and are lost
   * at SIGINT ("N received by filter, 0 captured"). The politeness capture runs minutes and keeps
   * tcpdump's default.
   */
  immediate: boolean;
  /** A wait before SIGINT for the last packets (tcpdump writes each as it comes, -U). */
  settleMs: number;
  /** BPF filter. */
  filter: string;
}

/** tcpdump on the loopback writing a classic pcap file; stop() returns its bytes. */
async function startTcpdump(o: TcpdumpOptions): Promise<{ stop(): Promise<Buffer> } | undefined> {
  if (spawnSync('tcpdump', ['--version']).status !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), o.prefix));
  const file = join(dir, 'capture.pcap');
  const child: ChildProcess = spawn(
    'tcpdump',
    [
      ...['-i', 'lo', '-n', '-U'],
      ...(o.immediate ? ['--immediate-mode'] : []),
      ...['-s', String(o.snapBytes), '--time-stamp-precision=micro', '-w', file, o.filter],
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const listening = await new Promise<boolean>((resolve) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('listening on')) resolve(true);
    });
    child.once('exit', () => resolve(false));
    child.once('error', () => resolve(false));
    setTimeout(() => resolve(false), 5_000);
  });
  if (!listening) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  return {
    async stop() {
      if (o.settleMs > 0) await new Promise((resolve) => setTimeout(resolve, o.settleMs));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
      try {
        return readFileSync(file);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Each record of a classic pcap file: its capture time and its IPv4 packet (link header removed). */
function* pcapRecords(data: Buffer): Generator<{ atMs: number; ip: Buffer }> {
  if (data.length < 24) return;
  const magic = data.readUInt32LE(0);
  const little = magic === 0xa1b2c3d4 || magic === 0xa1b23c4d;
  const nanos = magic === 0xa1b23c4d || magic === 0x4d3cb2a1;
  const u32 = (offset: number) => (little ? data.readUInt32LE(offset) : data.readUInt32BE(offset));
  const linkType = u32(20);
  const linkHeader = linkType === 1 ? 14 : linkType === 113 ? 16 : linkType === 0 ? 4 : -1;
  if (linkHeader < 0) throw new Error(`pcap link type ${linkType} not supported`);
  for (let offset = 24; offset + 16 <= data.length; ) {
    const seconds = u32(offset);
    const fraction = u32(offset + 4);
    const captured = u32(offset + 8);
    const packet = data.subarray(offset + 16, offset + 16 + captured);
    offset += 16 + captured;
    const ip = packet.subarray(linkHeader);
    if (ip.length < 20 || ip[0]! >> 4 !== 4) continue;
    yield { atMs: seconds * 1_000 + (nanos ? fraction / 1e6 : fraction / 1e3), ip };
  }
}

/** The GET packets of a classic pcap file (linktype Ethernet, as tcpdump writes for `lo`). */
export function parsePcap(data: Buffer): WireArrival[] {
  const arrivals: WireArrival[] = [];
  for (const { atMs, ip } of pcapRecords(data)) {
    const tcp = ip.subarray((ip[0]! & 0x0f) * 4);
    if (tcp.length < 20) continue;
    const payload = tcp.subarray((tcp[12]! >> 4) * 4).toString('latin1');
    if (!payload.startsWith('GET ')) continue;
    const path = payload.slice(4, payload.indexOf(' ', 4));
    // Without an x-bench-id (robots.txt), the connection's client port, as the sender records it.
    const id = /\r\nx-bench-id: ([^\r]+)\r\n/i.exec(payload)?.[1] ?? `port:${tcp.readUInt16BE(0)}`;
    arrivals.push({ atMs, port: tcp.readUInt16BE(2), path, id });
  }
  return arrivals;
}

/**
 * Issue 28 (bytes out per council request): every TCP packet of a capture, its IP-level size (what AWS
 * meters as transfer) and what it carries, for `npm run bench -- wire-bytes`.
 */
export interface WirePacket {
  atMs: number;
  srcPort: number;
  dstPort: number;
  /** The IP packet's total length (IP and TCP headers included). */
  ipBytes: number;
  /** TCP payload bytes (from the IP length, not the captured part). */
  payloadBytes: number;
  syn: boolean;
  fin: boolean;
  /** The payload's first bytes as latin1 (up to what was captured). */
  head: string;
}

export interface PacketCapture {
  stop(): Promise<WirePacket[]>;
}

/** Starts a capture of the loopback's TCP packets that match `filter` (BPF), or undefined without tcpdump. */
export async function startPacketCapture(filter: string): Promise<PacketCapture | undefined> {
  const pcap = await startTcpdump({
    prefix: 'wire-bytes-pcap-',
    snapBytes: 128,
    immediate: true,
    settleMs: 200,
    filter,
  });
  return pcap && { stop: async () => parsePcapPackets(await pcap.stop()) };
}

/** Every IPv4 TCP packet of a classic pcap file. */
export function parsePcapPackets(data: Buffer): WirePacket[] {
  const packets: WirePacket[] = [];
  for (const { atMs, ip } of pcapRecords(data)) {
    if (ip[9] !== 6) continue;
    const ipHeader = (ip[0]! & 0x0f) * 4;
    const ipBytes = ip.readUInt16BE(2);
    const tcp = ip.subarray(ipHeader);
    if (tcp.length < 20) continue;
    const tcpHeader = (tcp[12]! >> 4) * 4;
    const flags = tcp[13]!;
    packets.push({
      atMs,
      srcPort: tcp.readUInt16BE(0),
      dstPort: tcp.readUInt16BE(2),
      ipBytes,
      payloadBytes: ipBytes - ipHeader - tcpHeader,
      syn: (flags & 0x02) !== 0,
      fin: (flags & 0x01) !== 0,
      head: tcp.subarray(tcpHeader).toString('latin1'),
    });
  }
  return packets;
}
