import { createProbeMeter, probeBodies } from '../../shared/onboarding';
import { composeCli } from '../compose';
import type { LocalRuntime } from '../local/runtime';
import { type CommandResult, progress } from '../output';

/**
 * `probe <url>… [--json]` (ONB-1): does each body's system offer an OParl API? At most 5 requests
 * per body (robots.txt, redirects and comparison included), nothing robots.txt disallows, 2 s between
 * bodies. Prints per body the requests made, the robots.txt state, the System found (version, vendor)
 * and the ID-4 comparison after a 403 on the home page.
 */
/** `urls`: at least one (the command table's arity). */
export async function probeCommand(rt: LocalRuntime, urls: string[], json: boolean): Promise<CommandResult> {
  const say = (line: string) => progress(json, line);
  const meter = createProbeMeter();
  const runtime = await composeCli(rt).fetchRuntime({
    wrapSlots: (slots) => meter.wrapSlots(slots),
    onRequest: (event) => {
      meter.observe(event);
      say(
        `  ${event.kind === 'request' ? event.purpose.padEnd(10) : 'not asked '} ${event.status ?? event.errorCode ?? ''} ${event.url}`,
      );
    },
  });
  try {
    // RATE-2: an existing source's slower pace on a host applies to the probe's requests there too.
    await runtime.hostIntervals.refresh();
    const report = await probeBodies(urls, {
      fetcher: runtime.fetcher,
      meter,
      hostIntervalMs: (host) => runtime.hostIntervals.forHost(host),
      onProgress: say,
    });
    const text: string[] = [];
    for (const b of report.bodies) {
      text.push(`${b.url}`);
      text.push(`  requests: ${b.requests} (ONB-1: at most 5)`);
      text.push(
        `  robots.txt (${b.robots.host}): ${b.robots.state}${b.robots.status !== null ? ` (HTTP ${b.robots.status})` : ''}` +
          `${b.robots.disallowed.length > 0 ? `; not requested, disallowed: ${b.robots.disallowed.join(', ')}` : ''}`,
      );
      for (const h of b.otherHosts) {
        text.push(`  robots.txt (${h.host}): ${h.state}${h.status !== null ? ` (HTTP ${h.status})` : ''}`);
      }
      text.push(
        b.oparl
          ? `  OParl ${b.oparl.version ?? '?'} at ${b.oparl.systemUrl}${b.oparl.vendor ? ` (vendor ${b.oparl.vendor}${b.oparl.product ? `, ${b.oparl.product}` : ''})` : ''}`
          : '  no OParl API found',
      );
      if (b.comparison403) {
        text.push(
          `  403 on the home page; comparison request (ID-4): ${
            b.comparison403.state === 'blocked'
              ? 'answered 2xx — our User-Agent is blocked'
              : b.comparison403.state === 'open'
                ? 'no 2xx — not conclusive'
                : `not made (${b.comparison403.reason})`
          }`,
        );
      }
      text.push(`  stopped: ${b.stoppedBy}`);
      if (b.oparl) text.push(`  add it with: ingestor sources add ${b.oparl.systemUrl}`);
    }
    return { text, json: report };
  } finally {
    await runtime.close();
  }
}
