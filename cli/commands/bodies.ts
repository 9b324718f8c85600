import { type ListingOutcome, listBodies, setBodyListed } from '../../shared/onboarding';
import { mirrorTablePlacement } from '../../shared/store';
import { TakedownRegistry } from '../../shared/takedown';
import type { LocalRuntime } from '../local/runtime';
import type { CommandResult } from '../output';

const LISTING_OUTCOME_WORDS: Record<ListingOutcome, string> = {
  'now-listed': 'is now listed',
  'now-unlisted': 'is now unlisted',
  'already-listed': 'was already listed',
  'already-unlisted': 'was already unlisted',
};

/**
 * `bodies [--source ID]` shows every body with its slug, listing state and source; `bodies list <slug>`
 * and `bodies unlist <slug>` change the listing (ONB-4). Slugs are unique per source: `--source` picks
 * one when two sources use the same.
 */
/** `bodies` (all) or `bodies list|unlist <slug>`: the command table checked which, and the slug's presence. */
export type BodiesArgs = [] | ['list' | 'unlist', string];

export async function bodiesCommand(
  rt: LocalRuntime,
  positionals: BodiesArgs,
  values: { source?: string; force?: boolean },
): Promise<CommandResult> {
  const doc = rt.clients.doc;
  const tables = {
    sources: rt.env.SOURCES_TABLE,
    state: rt.env.STATE_TABLE,
    documents: rt.env.DOCUMENTS_TABLE,
    mirror: mirrorTablePlacement(rt.env),
  };
  if (positionals.length === 0) {
    const rows = await listBodies(doc, tables, values.source);
    const text =
      rows.length === 0
        ? ['no bodies (a body appears after `sources add` or the first sync)']
        : rows.map(
            (r) =>
              `${r.slug.padEnd(30)} ${(r.takedown ? 'TAKEN DOWN' : r.listed ? 'listed' : 'unlisted').padEnd(10)} ${r.sourceId.padEnd(24)} ${r.name}${r.deleted ? '  (deleted at the source)' : ''}`,
          );
    return { text, json: { bodies: rows } };
  }
  const [sub, slug] = positionals;
  const change = await setBodyListed(doc, tables, slug, {
    listed: sub === 'list',
    ...(values.source !== undefined ? { sourceId: values.source } : {}),
    by: 'cli',
    allowTakedown: values.force === true,
    // OPT-5: the registry item comes first and the record's mark last — refuse on either.
    takenDownAt: async (sourceId, bodyId) =>
      (await new TakedownRegistry(doc, tables.state).find(sourceId, [{ scope: 'body', id: bodyId }]))[0]?.mark
        .at,
  });
  return {
    text: [
      `${change.slug} (${change.sourceId}) ${LISTING_OUTCOME_WORDS[change.outcome]}` +
        `; ${change.documents} document(s) flagged for the document cache (DOC-7)`,
    ],
    json: change,
  };
}
