import { load as cheerioLoad } from 'cheerio';
import { load as slimLoad } from 'cheerio/slim';
import { type AnyNode, hasChildren, isTag } from 'domhandler';
import { describe, expect, it } from 'vitest';
import { decodeHtml } from '../../shared/scraper/decode';
import { linesOf, loadHtml } from '../../shared/scraper/html';
import { allrisCalendarPage, sessionNetMeetingPage } from '../support/fake-ris-html/pages';

/**
 * Issue 28 (sync memory): `loadHtml` parses a page with parse5 into htmlparser2's DOM and wraps it with
 * cheerio's slim entry, instead of importing cheerio's main entry (its URL, buffer and stream loaders
 * weigh ≈ 7 MB of the sync's import). The tree must be the one cheerio's own `load(html)` builds — the
 * slim entry's default parser (htmlparser2) builds another for the pages below, which is what this
 * test would catch.
 */
interface Tree {
  type: string;
  name?: string;
  attribs?: Record<string, string>;
  data?: string;
  children?: Tree[];
}

function treeOf(node: AnyNode): Tree {
  const tree: Tree = { type: node.type };
  if (isTag(node)) {
    tree.name = node.name;
    tree.attribs = { ...node.attribs };
  }
  if ('data' in node) tree.data = node.data;
  if (hasChildren(node)) tree.children = node.children.map(treeOf);
  return tree;
}

const rootTree = ($: { root: () => { toArray: () => AnyNode[] } }) =>
  treeOf($.root().toArray()[0] as AnyNode);

/** Markup where the HTML standard's tree building (parse5) and htmlparser2 disagree. */
const TRICKY =
  '<!DOCTYPE html><html><head><title>Sitzung &amp Termine</title></head><body>' +
  '<table><tr><td>TOP 1<td>Haushalt</table>' +
  '<p>Vorlage<div>Beschluss</div>' +
  '<ul><li>eins<li>zwei</ul>' +
  '<noscript><a href="x">ohne Skript</a></noscript>' +
  '<p>Gr&ouml;&szlig;e&nbsp;&auml &copy 2025</p>' +
  '<select><option>a<option>b</select><br></br><template><b>t</b></template>' +
  '</body></html>';

const PAGES: [string, string][] = [
  ['tricky markup', TRICKY],
  [
    'ALLRIS calendar (generated)',
    decodeHtml(
      allrisCalendarPage({
        year: 2025,
        month: 11,
        headline: 'Bezirksversammlung Musterstadt',
        entries: [
          { key: '7', date: '2025-11-03', time: '18:00', name: 'Sitzung', room: 'Saal', agenda: true },
        ],
      }),
    ).text,
  ],
  [
    'SessionNet meeting (generated)',
    decodeHtml(sessionNetMeetingPage({ ksinr: '6810', item: '5001', paper: '4001', file: '3001' })).text,
  ],
];

describe('loadHtml parses as cheerio does', () => {
  for (const [name, html] of PAGES)
    it(`${name}: the same tree as cheerio's load(html)`, () => {
      expect(rootTree(loadHtml(html))).toEqual(rootTree(cheerioLoad(html)));
    });

  it("the tricky markup tells the parsers apart: the slim entry's own parser builds another tree", () => {
    expect(rootTree(slimLoad(TRICKY))).not.toEqual(rootTree(cheerioLoad(TRICKY)));
  });

  it('line breaks inserted by the readers read as with cheerio', () => {
    const html = '<html><body><div>Antrag<br>der Fraktion<p>Begründung</p><li>Punkt</li></div></body></html>';
    const ours = loadHtml(html);
    const theirs = cheerioLoad(html);
    expect(linesOf(ours, ours('div').first())).toEqual(linesOf(theirs, theirs('div').first()));
    // The inserted breaks took effect (the `<br>` split its line).
    expect(linesOf(ours, ours('div').first()).slice(0, 2)).toEqual(['Antrag', 'der FraktionBegründung']);
  });
});
