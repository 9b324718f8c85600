import { runDeletionCheck } from '../../shared/documents';
import { composeCli } from '../compose';
import type { LocalRuntime } from '../local/runtime';
import type { CommandResult } from '../output';
import { createProgress } from '../progress';
import { countsLine, passProgress } from './files';

/** `deletion-check [--once]`: one pass of the deletion check (DEL-1 … DEL-5, RATE-6) in this process. */
export async function deletionCheckCommand(
  rt: LocalRuntime,
  now: Date,
  json = false,
): Promise<CommandResult> {
  const progress = createProgress({ json });
  const docs = await composeCli(rt).documents({ onRequest: progress.request });
  try {
    const report = await runDeletionCheck(docs.deps, { now, onProgress: passProgress(progress) });
    progress.end();
    return {
      text: [
        `deletion check: ${countsLine(report.checks)} (${report.requests} requests)`,
        ...report.restingSources.map((s) => `  ${s.sourceId} rested: ${s.newGone} newly gone (DEL-4)`),
        ...report.stoppedServers.map((s) => `  ${s.host} not asked further: ${s.reason}`),
        ...report.busyHosts.map((b) => `  ${b.host} skipped: ${b.reason}`),
      ],
      json: {
        checks: report.checks,
        requests: report.requests,
        routed: report.routed,
        restingSources: report.restingSources,
        stoppedServers: report.stoppedServers,
        invalidSources: report.invalidSources,
        busyHosts: report.busyHosts,
      },
    };
  } finally {
    await docs.close();
  }
}
