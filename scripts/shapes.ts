import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * Issue 29 item 4, "names and shapes": lists the production functions of 100 lines or more and those with
 * five or more positional parameters (a context object counts as one), so a review sees them grow or
 * shrink. `npx tsx scripts/shapes.ts [--json]`; it reads the sources only and prints, never fails.
 */
export const LONG_FUNCTION_LINES = 100;
export const MANY_POSITIONAL_PARAMETERS = 5;
const ROOTS = ['shared', 'functions', 'cli', 'infra'];

export interface FunctionShape {
  file: string;
  line: number;
  name: string;
  lines: number;
  parameters: number;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return entry === 'node_modules' ? [] : tsFiles(full);
    return entry.endsWith('.ts') && !entry.endsWith('.d.ts') ? [full] : [];
  });
}

function nameOf(node: ts.Node, source: ts.SourceFile): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) {
    return node.name.getText(source);
  }
  if (ts.isConstructorDeclaration(node)) return `${nameOf(node.parent, source)}.constructor`;
  if (ts.isClassDeclaration(node)) return node.name?.getText(source) ?? '(class)';
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(source);
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  return '(anonymous)';
}

/** Every function-like node with a body in the production folders, with its length and arity. */
export function functionShapes(root: string): FunctionShape[] {
  const shapes: FunctionShape[] = [];
  for (const folder of ROOTS) {
    const dir = path.join(root, folder);
    for (const file of tsFiles(dir)) {
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isFunctionLike(node) && 'body' in node && node.body) {
          const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
          const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
          const parameters = node.parameters.filter((p) => p.name.getText(source) !== 'this').length;
          shapes.push({
            file: path.relative(root, file),
            line: start + 1,
            name: nameOf(node, source),
            lines: end - start + 1,
            parameters,
          });
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
  }
  return shapes;
}

function main(): void {
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
  const shapes = functionShapes(root);
  const long = shapes.filter((s) => s.lines >= LONG_FUNCTION_LINES).sort((a, b) => b.lines - a.lines);
  const wide = shapes
    .filter((s) => s.parameters >= MANY_POSITIONAL_PARAMETERS)
    .sort((a, b) => b.parameters - a.parameters);
  if (process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ long, wide })}\n`);
    return;
  }
  const line = (s: FunctionShape, what: string) => `  ${what.padStart(4)}  ${s.name}  ${s.file}:${s.line}`;
  process.stdout.write(`functions of ${LONG_FUNCTION_LINES}+ lines: ${long.length}\n`);
  for (const s of long) process.stdout.write(`${line(s, String(s.lines))}\n`);
  process.stdout.write(
    `functions with ${MANY_POSITIONAL_PARAMETERS}+ positional parameters: ${wide.length}\n`,
  );
  for (const s of wide) process.stdout.write(`${line(s, String(s.parameters))}\n`);
}

if (process.argv[1]?.endsWith('shapes.ts')) main();
