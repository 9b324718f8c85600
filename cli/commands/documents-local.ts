import { DateTime } from 'luxon';
import { type DocumentsRuntime, runDeletionCheck, runFilesPass, runPhotosPass } from '../../shared/documents';
import type { FetchEvent } from '../../shared/fetch';
import { composeCli } from '../compose';
import type { LocalRuntime } from '../local/runtime';
import type { Progress } from '../progress';
import { countsLine, passProgress } from './files';

/** DOC-3 / DEL: the files function and the deletion check run hourly; locally as in AWS. */
export const LOCAL_DOCUMENTS_INTERVAL_MS = 60 * 60_000;

/** PHO-1: the latest Monday 03:00 Europe/Berlin at or before `now`. */
export function latestPhotosSlot(now: Date): DateTime {
  const berlin = DateTime.fromJSDate(now, { zone: 'Europe/Berlin' });
  let slot = berlin.startOf('week').set({ hour: 3, minute: 0, second: 0, millisecond: 0 });
  if (slot > berlin) slot = slot.minus({ weeks: 1 });
  return slot;
}

/**
 * `npm start`'s share of the document functions: after a planner tick, the files pass and the
 * deletion check when an hour has passed since their last run (the first tick runs them), photos
 * when a Monday 03:00 (Berlin) passed while the process runs.
 */
export function createLocalDocumentPasses(
  rt: LocalRuntime,
  opts: { allowLoopback: boolean; startedAt?: Date; onRequest?: (event: FetchEvent) => void },
) {
  let runtime: Promise<DocumentsRuntime> | undefined;
  let lastHourly = Number.NEGATIVE_INFINITY;
  let photosSlot = latestPhotosSlot(opts.startedAt ?? new Date()).toMillis();
  return {
    async afterTick(say: (line: string) => void, now: Date = new Date(), progress?: Progress): Promise<void> {
      const onProgress = progress ? passProgress(progress) : undefined;
      const pass = (at: Date) => ({ now: at, ...(onProgress ? { onProgress } : {}) });
      // The demo council lives on loopback: the passes get the same switch as the sync handlers.
      runtime ??= composeCli(rt, { allowLoopback: opts.allowLoopback }).documents(
        opts.onRequest ? { onRequest: opts.onRequest } : {},
      );
      const { deps } = await runtime;
      if (now.getTime() - lastHourly >= LOCAL_DOCUMENTS_INTERVAL_MS) {
        lastHourly = now.getTime();
        const files = await runFilesPass(deps, pass(now));
        say(`files: ${countsLine(files.files)}; text: ${countsLine(files.text)}`);
        for (const b of files.busyHosts) say(`files: ${b.host} skipped: ${b.reason}`);
        const deletion = await runDeletionCheck(deps, pass(new Date()));
        say(`deletion check: ${countsLine(deletion.checks)} (${deletion.requests} requests)`);
        for (const b of deletion.busyHosts) say(`deletion check: ${b.host} skipped: ${b.reason}`);
      }
      const slot = latestPhotosSlot(now).toMillis();
      if (slot > photosSlot) {
        photosSlot = slot;
        const photos = await runPhotosPass(deps, pass(now));
        say(`photos: ${countsLine(photos.photos)}`);
      }
    },
    async close(): Promise<void> {
      if (runtime) await (await runtime).close();
    },
  };
}
