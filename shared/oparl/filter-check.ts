import { type BodyRecord, type FilterFinding, isDeleted, modifiedMs, pageItems } from '../engine';
import { FILTER_RECHECK_DELAY_MS } from './constants';
import { FILTER_REJECT_STATUSES, outsideFilter } from './decisions';
import { parseOParlJson } from './json';
import { OParlFetchError } from './ports';
import type { OParlRun } from './run-context';
import { formatFilterTime, startOfBerlinDay, withModifiedFilter } from './windows';

/** SCH-10: after a full sync, one filtered request tells whether the server honours `modified_since`. */
export async function phaseFilterCheck(run: OParlRun): Promise<void> {
  run.cursor.filterCheck ??= { attempts: 0 };
  const check = run.cursor.filterCheck;
  let target: { body: BodyRecord; url: string } | undefined;
  for (const key of run.cursor.bodyKeys) {
    const body = await run.loadBody(key);
    const url = body?.lists.meeting ?? body?.lists.paper ?? body?.lists.organization ?? body?.lists.person;
    if (body && !body.deleted && url) {
      target = { body, url };
      break;
    }
  }
  if (!target) {
    run.cursor.phase = 'finish';
    await run.frame.checkpoint();
    return;
  }
  if (check.notBeforeMs !== undefined && run.nowMs() < check.notBeforeMs) {
    const waitMs = check.notBeforeMs - run.nowMs();
    if (run.options.deadlineMs !== undefined && run.nowMs() + waitMs >= run.options.deadlineMs) {
      run.log('filter-recheck-skipped', { reason: 'time budget' });
      run.cursor.phase = 'finish';
      await run.frame.checkpoint();
      return;
    }
    await (run.deps.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms))))(waitMs);
  }
  run.frame.checkStop();
  const sinceMs = startOfBerlinDay(run.runStartMs);
  const url = withModifiedFilter(target.url, sinceMs, undefined);
  const res = await run.request(url, 'filter-check');
  check.attempts += 1;
  let finding: FilterFinding | undefined;
  let evidence = '';
  if (res instanceof OParlFetchError) {
    run.checkRunFailure(res, 'filter-check');
    if (res.status !== undefined && FILTER_REJECT_STATUSES.includes(res.status)) {
      finding = 'rejected';
      evidence = `HTTP ${res.status}`;
    } else if (res.status === 404) {
      finding = 'supported';
      evidence = 'empty filtered page answered 404';
    }
  } else {
    try {
      const items = pageItems(parseOParlJson(res.text)).filter((i) => !isDeleted(i));
      const off = outsideFilter(
        items.map((i) => modifiedMs(i)),
        sinceMs,
        undefined,
      );
      finding = off === undefined ? 'supported' : 'ignored';
      evidence =
        off === undefined
          ? `${items.length} object(s), none before ${formatFilterTime(sinceMs)}`
          : `object modified ${formatFilterTime(off)} returned for modified_since=${formatFilterTime(sinceMs)}`;
    } catch {
      finding = undefined;
    }
  }
  if (finding === undefined) {
    // Inconclusive (5xx, timeout, junk): keep the previous finding; repeat once after 60 s (SCH-10).
    if (check.attempts < 2) {
      check.notBeforeMs = run.nowMs() + FILTER_RECHECK_DELAY_MS;
      await run.frame.checkpoint();
      return;
    }
    run.log('filter-check-inconclusive', { attempts: check.attempts });
  } else {
    const at = run.nowIso();
    run.system ??= await run.state.getSystem();
    if (run.system) {
      run.system = { ...run.system, filterCheck: { finding, at, evidence } };
      await run.state.putSystem(run.system);
    }
    // The check speaks for the system: every list starts from this finding; incremental syncs refine it.
    for (const key of run.cursor.bodyKeys) {
      for (const st of (await run.state.getListStates(key)).values()) {
        if (st.filter === finding) continue;
        await run.state.putListState({
          ...st,
          filter: finding,
          filterEvidence: `SCH-10 check after full sync: ${evidence}`,
          filterCheckedAt: at,
        });
      }
    }
  }
  run.cursor.phase = 'finish';
  await run.frame.checkpoint();
}
