import type { SourceConfig } from '../config';
import type { DocumentItem } from '../documents';
import type { PreviewDecision } from './types';

/** What the decision needs to know of the source beyond its config (read by the handler). */
export interface PreviewFacts {
  /** ERR-6 / PRV-4: the source is spared (paused) or its documents rest (3rd failed sync in a row). */
  spared: boolean;
  /** DOC-7 / PRV-3: the document's body is listed now (its documents are stored). */
  listed: boolean;
  /** OPT-2: the File object is tombstoned in the mirror (by the source or an operator). */
  tombstoned: boolean;
}

/**
 * The preview's pure decision (PRV-1 … PRV-4, DOC-6, OPT-2): no I/O, the same answer for the same
 * inputs. Order matters:
 * 1. unknown → 404; tombstoned, taken down, gone or purged → 410 (OPT-2: gone from every output);
 * 2. our stored copy is served whatever the source's switches — serving it asks the source nothing;
 * 3. recorded blocks (robots.txt, bot wall, too large) → an error page, never a fetch (DOC-6, ROB-8);
 * 4. file fetching off, spared or resting → the original URL, we ask nothing (PRV-4, DOC-1, ERR-6);
 * 5. otherwise one polite fetch, stored only for listed bodies (PRV-1, PRV-3, DOC-7).
 * The source being inactive does not matter (PRV-4, DEL-5).
 */
export function previewDecision(
  document: DocumentItem | undefined,
  source: Pick<SourceConfig, 'fileFetching'> | undefined,
  facts: PreviewFacts,
): PreviewDecision {
  if (document === undefined) return { kind: 'not-found', ruleIds: [] };
  if (document.takedownAt !== undefined || facts.tombstoned) {
    return { kind: 'gone', reason: 'removed from publication', ruleIds: ['OPT-2'] };
  }
  if (document.state === 'gone' || document.copyDeletedAt !== undefined) {
    return { kind: 'gone', reason: 'no longer published by the source', ruleIds: ['DOC-5', 'DEL-3'] };
  }
  if (document.state === 'stored' && document.storedKey !== undefined) {
    return { kind: 'stored', key: document.storedKey, ruleIds: ['DOC-3'] };
  }
  if (document.state === 'blocked-robots')
    return { kind: 'error-page', page: 'robots', ruleIds: ['ROB-8', 'DOC-6'] };
  if (document.state === 'blocked-html') {
    return { kind: 'error-page', page: 'bot-protection', ruleIds: ['DOC-6'] };
  }
  if (document.state === 'too-large') return { kind: 'error-page', page: 'too-large', ruleIds: ['DOC-5'] };
  if (!isHttpUrl(document.url)) return { kind: 'not-found', ruleIds: [] };
  if (source === undefined) {
    // The source is no longer configured: its rules are unknown, so we ask it nothing ourselves.
    return { kind: 'original', url: document.url, reason: 'source not configured', ruleIds: ['PRV-4'] };
  }
  if (!source.fileFetching) {
    return {
      kind: 'original',
      url: document.url,
      reason: 'file fetching is off',
      ruleIds: ['PRV-4', 'DOC-1'],
    };
  }
  if (facts.spared) {
    return { kind: 'original', url: document.url, reason: 'source spared', ruleIds: ['PRV-4', 'ERR-6'] };
  }
  return {
    kind: 'fetch',
    store: facts.listed,
    ruleIds: facts.listed ? ['PRV-1', 'PRV-3'] : ['PRV-1', 'DOC-7'],
  };
}

/** Only http(s) URLs are ever fetched or redirected to (no `javascript:` or `data:` from a source). */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === ''
    );
  } catch {
    return false;
  }
}
