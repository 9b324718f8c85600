import { runPhotosPass } from '../../shared/documents';
import { composeCli } from '../compose';
import type { LocalRuntime } from '../local/runtime';
import type { CommandResult } from '../output';
import { createProgress } from '../progress';
import { countsLine, passProgress } from './files';

/** `photos [--once]`: one pass of the person photos (PHO-1 … PHO-3) in this process, now. */
export async function photosCommand(rt: LocalRuntime, now: Date, json = false): Promise<CommandResult> {
  const progress = createProgress({ json });
  const docs = await composeCli(rt).documents({ onRequest: progress.request });
  try {
    const report = await runPhotosPass(docs.deps, { now, onProgress: passProgress(progress) });
    progress.end();
    return {
      text: [
        `photos: ${countsLine(report.photos)}`,
        ...report.bodies.map(
          (b) => `  ${b.sourceId} ${b.bodyId}: ${b.checked} of ${b.due} due (${b.persons} persons)`,
        ),
        ...report.skippedSources.map((s) => `  ${s.sourceId} skipped: ${s.reason}`),
        ...report.busyHosts.map((b) => `  ${b.host} skipped: ${b.reason}`),
      ],
      json: {
        photos: report.photos,
        bodies: report.bodies,
        skippedSources: report.skippedSources,
        invalidSources: report.invalidSources,
        busyHosts: report.busyHosts,
      },
    };
  } finally {
    await docs.close();
  }
}
