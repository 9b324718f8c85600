import {
  type AnyNode,
  type CheerioAPI,
  cleanText,
  linesOf,
  loadHtml,
  parseGermanDate,
  textOf,
} from '../html';
import type { ParsedAgendaItemDetail } from '../types';
import { heading, keyInScope, labelledValues, pageKey, requireContainer, resultOf } from './common';
import { allrisBase, allrisKeyOf, allrisRef, allrisUrl } from './urls';

/**
 * ALLRIS 3 agenda item, `to020.asp?TOLFDNR=`: meeting, TOP number, committee, "Beschlussart" (result),
 * the paper, and the texts ALLRIS embeds as converted RTF fragments after `<a name="allrisWP">`
 * (Protokoll), `allrisBS` (Beschluss) and `allrisAE` (Abstimmungsergebnis). Each fragment runs until
 * the next `<!-- ### XX123.rtf -->` marker comment; the DOM is walked sibling by sibling.
 */

function sectionText($: CheerioAPI, anchor: string): string | undefined {
  const start = $(`a[name="${anchor}"]`).first()[0];
  if (!start) return undefined;
  const parts: string[] = [];
  for (let node: AnyNode | null = start.nextSibling; node; node = node.nextSibling) {
    if (node.type === 'comment' && /^\s*###/.test((node as { data: string }).data)) break;
    if (node.type === 'tag') {
      const name = (node as { name: string }).name;
      if (name === 'a' && $(node).attr('name')?.startsWith('allris')) break;
      if (name === 'title' || name === 'meta' || name === 'script' || name === 'style') continue;
      const clone = $(node).clone();
      clone.find('script, style, title').remove();
      clone.find('br').replaceWith('\n');
      clone.find('p, div, li, tr').each((_, el) => {
        $(el).append('\n');
      });
      parts.push(clone.text());
    } else if (node.type === 'text') {
      parts.push((node as { data: string }).data);
    }
  }
  const text = parts
    .join('')
    .split('\n')
    .map((l) => cleanText(l))
    .filter((l) => l !== '')
    .join('\n');
  return text === '' ? undefined : text;
}

export function parseAllrisAgendaItem(html: string, pageUrl: string): ParsedAgendaItemDetail {
  const $ = loadHtml(html);
  requireContainer($, pageUrl, 'to020', 'to020');
  const key = pageKey($, pageUrl, 'agendaItem', 'to020');
  const base = allrisBase(pageUrl);
  const values = labelledValues($);
  const item: ParsedAgendaItemDetail = {
    id: allrisUrl(base, 'agendaItem', key),
    key,
    name: heading($, 'Auszug'),
  };
  const number = values.get('top')?.text;
  if (number) item.number = number;
  const result = resultOf(values.get('beschlussart')?.text);
  if (result) item.result = result;
  const date = parseGermanDate(values.get('datum')?.text);
  if (date) item.date = date;

  const infoTable = $('td.ko1').first();
  const meetingKey = keyInScope($, infoTable, 'meeting');
  if (meetingKey) {
    const link = infoTable.find('a[href*="to010" i]').first();
    item.meeting = allrisRef(base, 'meeting', meetingKey, textOf(link) || undefined);
  }
  const committee = values.get('gremium');
  const committeeLink = committee?.cell.find('a[href]').first();
  const committeeKey = allrisKeyOf(committeeLink?.attr('href'), 'committee');
  if (committee && committeeKey)
    item.organization = allrisRef(base, 'committee', committeeKey, committee.text);

  const paperLink = infoTable
    .find('a[href]')
    .toArray()
    .find((a) => allrisKeyOf($(a).attr('href'), 'paper') !== undefined);
  if (paperLink) {
    const paperKey = allrisKeyOf($(paperLink).attr('href'), 'paper') as string;
    const text = linesOf($, $(paperLink)).join(' ');
    const reference = /^\S*\d+[-/.]\d[\w./-]*/.exec(text)?.[0];
    item.paper = { ...allrisRef(base, 'paper', paperKey, text), ...(reference ? { reference } : {}) };
  }
  const minutes = sectionText($, 'allrisWP');
  if (minutes) item.minutesText = minutes;
  const resolution = sectionText($, 'allrisBS');
  if (resolution) item.resolutionText = resolution;
  const vote = sectionText($, 'allrisAE');
  if (vote) item.voteText = vote;
  return item;
}
