import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpora';
import { sourceFiles } from '../support/source-files';

/**
 * Issue 29 item 2: `shared/` is acyclic at folder level and layered (docs/architecture.md, "Layers").
 * The folder graph is computed from every import of every file of shared/ — static imports, re-exports,
 * dynamic imports and type-only imports alike (a type-only edge is still a dependency a reader has to
 * follow) — by TypeScript's own import scanner, so comments and strings do not count. A file directly
 * in shared/ (`errors.ts`) is a node of its own (`errors`).
 */
const SHARED = path.join(repoRoot, 'shared');
const ARCHITECTURE = path.join(repoRoot, 'docs', 'architecture.md');

interface SourceText {
  file: string;
  text: string;
}

/** folder → imported folder → the importing files (relative to shared/) with their specifiers. */
type FolderGraph = Map<string, Map<string, string[]>>;

/** The node a path in shared/ belongs to: its top folder, or the file's name for a file in shared/. */
function nodeOf(target: string, shared: string): string | undefined {
  const rel = path.relative(shared, target);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  const [first, ...rest] = rel.split(path.sep);
  if (first === undefined) return undefined;
  return rest.length === 0 ? first.replace(/\.[cm]?[jt]sx?$/, '') : first;
}

/** The folder graph of `files` (all of them inside `shared`); imports within a folder are no edge. */
function folderGraph(files: readonly SourceText[], shared: string): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const { file, text } of files) {
    const from = nodeOf(file, shared);
    if (from === undefined) continue;
    if (!graph.has(from)) graph.set(from, new Map());
    for (const { fileName: spec } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!spec.startsWith('.')) continue;
      const to = nodeOf(path.resolve(path.dirname(file), spec), shared);
      if (to === undefined || to === from) continue;
      const edges = graph.get(from) as Map<string, string[]>;
      edges.set(to, [...(edges.get(to) ?? []), `${path.relative(shared, file)} → ${spec}`]);
    }
  }
  return graph;
}

/**
 * Every cycle as one readable path per strongly connected component (Tarjan), e.g.
 * `a → b (a/x.ts → ../b) → a (b/y.ts → ../a)`: the folders and, per step, one import that makes it.
 */
function folderCycles(graph: FolderGraph): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) as number);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return components.map((component) => cyclePath(graph, component));
}

/** One cycle through the component's first folder, by breadth-first search inside the component. */
function cyclePath(graph: FolderGraph, component: readonly string[]): string {
  const members = new Set(component);
  const start = component[0] as string;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift() as string;
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!members.has(w) || previous.has(w)) continue;
      previous.set(w, v);
      if (w === start) queue.length = 0;
      else queue.push(w);
    }
  }
  const steps: string[] = [];
  let at = start;
  do {
    const from = previous.get(at) as string;
    steps.unshift(`${at} (${graph.get(from)?.get(at)?.[0]})`);
    at = from;
  } while (at !== start);
  return `${component.join(', ')}: ${start} → ${steps.join(' → ')}`;
}

/** The layer table of docs/architecture.md: folder → layer number (higher imports lower). */
function layersOf(markdown: string): Map<string, number> {
  const block = /<!-- layers:start -->([\s\S]*?)<!-- layers:end -->/.exec(markdown)?.[1] ?? '';
  const layers = new Map<string, number>();
  for (const row of block.split('\n')) {
    const cells = row.split('|').map((c) => c.trim());
    const layer = Number(cells[1]);
    if (!Number.isInteger(layer)) continue;
    for (const [, folder] of (cells[2] ?? '').matchAll(/`([^`]+)`/g)) {
      if (layers.has(folder as string)) throw new Error(`${folder} is in two layers`);
      layers.set(folder as string, layer);
    }
  }
  return layers;
}

/** Imports into the same or a higher layer, and folders the table does not place. */
function layerViolations(graph: FolderGraph, layers: Map<string, number>): string[] {
  const out: string[] = [];
  for (const [from, edges] of [...graph].sort(([a], [b]) => a.localeCompare(b))) {
    const own = layers.get(from);
    if (own === undefined) {
      out.push(`${from}: no layer in docs/architecture.md`);
      continue;
    }
    for (const [to, via] of edges) {
      const theirs = layers.get(to);
      if (theirs === undefined) out.push(`${to}: no layer in docs/architecture.md`);
      else if (theirs >= own) out.push(`${from} (layer ${own}) → ${to} (layer ${theirs}): ${via[0]}`);
    }
  }
  return [...new Set(out)];
}

function sharedSources(): SourceText[] {
  return sourceFiles(SHARED).map((file) => ({ file, text: readFileSync(file, 'utf8') }));
}

/** Synthetic files under a fake shared/ folder (nothing is written to disk). */
function synthetic(files: Record<string, string>): SourceText[] {
  return Object.entries(files).map(([rel, text]) => ({ file: path.join('/fake/shared', rel), text }));
}

describe('the folder graph of shared/', () => {
  const graph = folderGraph(sharedSources(), SHARED);

  it('has no cycle of folders (static, re-export, dynamic and type-only imports)', () => {
    expect(graph.size).toBeGreaterThan(20);
    expect(graph.get('sync')?.has('engine')).toBe(true);
    expect(folderCycles(graph)).toEqual([]);
  });

  it('every folder has a layer in docs/architecture.md and imports only lower layers', () => {
    const layers = layersOf(readFileSync(ARCHITECTURE, 'utf8'));
    expect(layers.get('errors')).toBe(1);
    expect(layers.size).toBeGreaterThan(20);
    expect(layerViolations(graph, layers)).toEqual([]);
    // No stale rows: every folder the table names exists in shared/.
    expect([...layers.keys()].filter((folder) => !graph.has(folder))).toEqual([]);
  });

  it('the check catches a deliberate cycle and prints it, whatever kind of import closes it', () => {
    const files = synthetic({
      'alpha/a.ts': "import { b } from '../beta';\n// import { z } from '../zeta';",
      'beta/index.ts': "export * from './b';",
      'beta/b.ts': "import type { C } from '../gamma/c';\nexport const b = 1;",
      'gamma/c.ts': "export interface C { x: number }\nconst later = () => import('../alpha');",
      'delta/d.ts': "import { b } from '../beta';\nimport { fail } from '../errors';",
      'errors.ts': 'export const fail = 1;',
    });
    const g = folderGraph(files, '/fake/shared');
    expect([...(g.get('delta')?.keys() ?? [])].sort()).toEqual(['beta', 'errors']);
    // The commented import is no edge; the own-folder re-export neither.
    expect([...(g.get('alpha')?.keys() ?? [])]).toEqual(['beta']);
    expect(folderCycles(g)).toEqual([
      'alpha, beta, gamma: alpha → beta (alpha/a.ts → ../beta) → gamma (beta/b.ts → ../gamma/c) → alpha (gamma/c.ts → ../alpha)',
    ]);
    // Without the dynamic import the same files are acyclic.
    const acyclic = files.map((f) => ({ ...f, text: f.text.replace("import('../alpha')", 'null') }));
    expect(folderCycles(folderGraph(acyclic, '/fake/shared'))).toEqual([]);
  });

  it('the layer check catches an upward or sideways import and an unplaced folder', () => {
    const g = folderGraph(
      synthetic({
        'low/l.ts': "import { h } from '../high';",
        'side/s.ts': "import { l } from '../low';\nimport { t } from '../twin';",
        'twin/t.ts': 'export const t = 1;',
        'high/h.ts': "import { l } from '../low';\nimport { n } from '../newcomer';",
        'newcomer/n.ts': 'export const n = 1;',
      }),
      '/fake/shared',
    );
    const table = [
      '<!-- layers:start -->',
      '| Layer | Folders | What |',
      '| --- | --- | --- |',
      '| 3 | `high` | top |',
      '| 2 | `side` `twin` | middle |',
      '| 1 | `low` | bottom |',
      '<!-- layers:end -->',
    ].join('\n');
    expect(layerViolations(g, layersOf(table))).toEqual([
      'newcomer: no layer in docs/architecture.md',
      'low (layer 1) → high (layer 3): low/l.ts → ../high',
      'side (layer 2) → twin (layer 2): side/s.ts → ../twin',
    ]);
  });
});
