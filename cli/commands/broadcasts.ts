import { addBroadcast, type BroadcastStatusRow, broadcastStatus } from '../../shared/broadcasts';
import { BROADCAST_ITEM_KIND } from '../../shared/config';
import { redactUrl, redactUrlsIn } from '../../shared/observability';
import { setOtherItemActive } from '../../shared/store';
import { composeCli } from '../compose';
import type { LocalRuntime } from '../local/runtime';
import type { CommandResult } from '../output';
import type { BroadcastsAddInput, BroadcastsPollInput } from '.';

/**
 * `broadcasts add --body <slug> --url URL [--live-pointer P] [--stream-pointer P] [--activate]` adds a
 * broadcast source (OTH-5); `broadcasts status` shows per source last success, counts and last error;
 * `broadcasts poll` runs one pass now — it asks the provider only while a meeting window is open;
 * `broadcasts activate|deactivate <id>` switches one on or off (OTH-3).
 */
const tablesOf = (rt: LocalRuntime) => ({ sources: rt.env.SOURCES_TABLE, state: rt.env.STATE_TABLE });

/** `broadcasts activate|deactivate <id>` (OTH-3). */
export async function broadcastsSetActive(
  rt: LocalRuntime,
  change: { id: string; active: boolean },
  now: Date,
): Promise<CommandResult> {
  const { id, active } = change;
  await setOtherItemActive(
    { doc: rt.clients.doc, table: rt.env.SOURCES_TABLE },
    { sourceId: id, itemKind: BROADCAST_ITEM_KIND },
    active,
    { by: `ingestor broadcasts ${active ? 'activate' : 'deactivate'}`, now },
  );
  return { text: [`${id} is now ${active ? 'active' : 'inactive'}`], json: { id, active } };
}

/** `broadcasts add` (OTH-5): `--body` and `--url` are required by the table. */
export async function broadcastsAdd(
  rt: LocalRuntime,
  values: BroadcastsAddInput,
  now: Date,
): Promise<CommandResult> {
  const added = await addBroadcast(rt.clients, tablesOf(rt), {
    body: values.body,
    streamUrl: values.url,
    ...(values.livePointer === undefined ? {} : { livePointer: values.livePointer }),
    ...(values.streamPointer === undefined ? {} : { streamPointer: values.streamPointer }),
    ...(values.source === undefined ? {} : { councilSourceId: values.source }),
    ...(values.id === undefined ? {} : { broadcastId: values.id }),
    activate: values.activate,
    by: 'cli',
    now,
  });
  return {
    text: [
      `${added.id}: broadcast of ${added.body} (${added.councilSourceId}), ${added.format === 'json' ? 'JSON status' : 'HLS playlist'}, ` +
        (added.active ? 'active' : `inactive (ingestor broadcasts activate ${added.id})`),
    ],
    json: added,
  };
}

/**
 * A status row as the CLI shows it: the stream URL (an other fetch's, possibly with `?apikey=…`) and
 * every text that may quote one (a config problem, an error) through the one redaction.
 */
export function shownStatusRow(r: BroadcastStatusRow): BroadcastStatusRow {
  return {
    ...r,
    ...(r.streamUrl === undefined ? {} : { streamUrl: redactUrl(r.streamUrl) }),
    ...(r.problems === undefined
      ? {}
      : { problems: r.problems.map((p) => ({ ...p, message: redactUrlsIn(p.message) })) }),
    ...(r.lastError === undefined
      ? {}
      : { lastError: { ...r.lastError, text: redactUrlsIn(r.lastError.text) } }),
  };
}

function statusLine(r: BroadcastStatusRow): string {
  if (!r.valid)
    return `${r.broadcastId}  INVALID: ${(r.problems ?? []).map((p) => `${p.field} ${p.message}`).join('; ')}`;
  const state = r.active ? (r.liveNow ? 'LIVE' : 'active') : 'inactive';
  return [
    r.broadcastId.padEnd(28),
    state.padEnd(8),
    `body ${r.body}`,
    `last success ${r.lastSuccessAt ?? 'never'}`,
    `polls ${r.polls}, live ${r.liveSeen}, errors ${r.errors}, meetings ${r.meetings}`,
    ...(r.lastError ? [`last error "${r.lastError.text}" at ${r.lastError.at}`] : []),
  ].join('  ');
}

/** `broadcasts status`: per source last success, counts and last error. */
export async function broadcastsStatus(rt: LocalRuntime, now: Date): Promise<CommandResult> {
  const rows = (await broadcastStatus(rt.clients, tablesOf(rt), now)).map(shownStatusRow);
  return {
    text:
      rows.length === 0
        ? ['no broadcast sources (ingestor broadcasts add --body <slug> --url URL)']
        : rows.map(statusLine),
    json: { broadcasts: rows },
  };
}

/** `broadcasts poll [--id ID]`: one pass now — the provider is asked only while a meeting window is open. */
export async function broadcastsPoll(
  rt: LocalRuntime,
  values: BroadcastsPollInput,
  now: Date,
): Promise<CommandResult> {
  const { runBroadcastPass } = await import('../../shared/broadcasts');
  const runtime = await composeCli(rt).broadcasts();
  try {
    const report = await runBroadcastPass(
      runtime.deps,
      now,
      values.id === undefined ? {} : { broadcastId: values.id },
    );
    return {
      text: [
        `broadcasts: ${report.broadcasts} (${report.invalid} invalid), requests ${report.requests}, live ${report.live}, errors ${report.errors}`,
        ...report.outcomes.map(
          (o) =>
            `  ${o.broadcastId}: ${o.action} — ${o.reason}${o.live === undefined ? '' : o.live ? ' → live' : ' → not live'}${o.error ? ` → ${redactUrlsIn(o.error)}` : ''}`,
        ),
      ],
      json: report,
    };
  } finally {
    await runtime.close();
  }
}
