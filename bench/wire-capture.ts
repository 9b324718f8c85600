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
  /** The request line's path and the x-bench-id header ('' when absent). */
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
  if (spawnSync('tcpdump', ['--version']).status !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'politeness-pcap-'));
  const file = join(dir, 'get.pcap');
  const child: ChildProcess = spawn(
    'tcpdump',
    ['-i', 'lo', '-n', '-U', '-s', '1024', '--time-stamp-precision=micro', '-w', file, GET_FILTER],
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
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
      try {
        return parsePcap(readFileSync(file));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** The GET packets of a classic pcap file (linktype Ethernet, as tcpdump writes for `lo`). */
export function parsePcap(data: Buffer): WireArrival[] {
  if (data.length < 24) return [];
  const magic = data.readUInt32LE(0);
  const little = magic === 0xa1b2c3d4 || magic === 0xa1b23c4d;
  const nanos = magic === 0xa1b23c4d || magic === 0x4d3cb2a1;
  const u32 = (offset: number) => (little ? data.readUInt32LE(offset) : data.readUInt32BE(offset));
  const linkType = u32(20);
  const linkHeader = linkType === 1 ? 14 : linkType === 113 ? 16 : linkType === 0 ? 4 : -1;
  if (linkHeader < 0) throw new Error(`pcap link type ${linkType} not supported`);
  const arrivals: WireArrival[] = [];
  for (let offset = 24; offset + 16 <= data.length; ) {
    const seconds = u32(offset);
    const fraction = u32(offset + 4);
    const captured = u32(offset + 8);
    const packet = data.subarray(offset + 16, offset + 16 + captured);
    offset += 16 + captured;
    const ip = packet.subarray(linkHeader);
    if (ip.length < 20 || ip[0]! >> 4 !== 4) continue;
    const tcp = ip.subarray((ip[0]! & 0x0f) * 4);
    if (tcp.length < 20) continue;
    const payload = tcp.subarray((tcp[12]! >> 4) * 4).toString('latin1');
    if (!payload.startsWith('GET ')) continue;
    const path = payload.slice(4, payload.indexOf(' ', 4));
    const id = /\r\nx-bench-id: ([^\r]+)\r\n/i.exec(payload)?.[1] ?? '';
    arrivals.push({
      atMs: seconds * 1_000 + (nanos ? fraction / 1e6 : fraction / 1e3),
      port: tcp.readUInt16BE(2),
      path,
      id,
    });
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
  if (spawnSync('tcpdump', ['--version']).status !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'wire-bytes-pcap-'));
  const file = join(dir, 'tcp.pcap');
  const child: ChildProcess = spawn(
    'tcpdump',
    // Immediate mode: without it a short capture's packets wait in the kernel's ring block and are
    // lost at SIGINT ("N received by filter, 0 captured").
    [
      '-i',
      'lo',
      '-n',
      '-U',
      '--immediate-mode',
      '-s',
      '128',
      '--time-stamp-precision=micro',
      '-w',
      file,
      filter,
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
      // tcpdump writes each packet as it comes (-U); a moment for the last ones before it stops.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
      try {
        return parsePcapPackets(readFileSync(file));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Every IPv4 TCP packet of a classic pcap file. */
export function parsePcapPackets(data: Buffer): WirePacket[] {
  if (data.length < 24) return [];
  const magic = data.readUInt32LE(0);
  const little = magic === 0xa1b2c3d4 || magic === 0xa1b23c4d;
  const nanos = magic === 0xa1b23c4d || magic === 0x4d3cb2a1;
  const u32 = (offset: number) => (little ? data.readUInt32LE(offset) : data.readUInt32BE(offset));
  const linkType = u32(20);
  const linkHeader = linkType === 1 ? 14 : linkType === 113 ? 16 : linkType === 0 ? 4 : -1;
  if (linkHeader < 0) throw new Error(`pcap link type ${linkType} not supported`);
  const packets: WirePacket[] = [];
  for (let offset = 24; offset + 16 <= data.length; ) {
    const seconds = u32(offset);
    const fraction = u32(offset + 4);
    const captured = u32(offset + 8);
    const packet = data.subarray(offset + 16, offset + 16 + captured);
    offset += 16 + captured;
    const ip = packet.subarray(linkHeader);
    if (ip.length < 20 || ip[0]! >> 4 !== 4 || ip[9] !== 6) continue;
    const ipHeader = (ip[0]! & 0x0f) * 4;
    const ipBytes = ip.readUInt16BE(2);
    const tcp = ip.subarray(ipHeader);
    if (tcp.length < 20) continue;
    const tcpHeader = (tcp[12]! >> 4) * 4;
    const flags = tcp[13]!;
    packets.push({
      atMs: seconds * 1_000 + (nanos ? fraction / 1e6 : fraction / 1e3),
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
