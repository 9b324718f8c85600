import { type Dirent, readdirSync } from 'node:fs';
import path from 'node:path';

/** Script and TypeScript sources (the repository tests over the import graph read these). */
const SOURCE = /\.(?:[cm]?[jt]s|tsx)$/;

/** Every source file under `dir`, node_modules left out; a missing folder has none. */
export function sourceFiles(dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(full);
    return SOURCE.test(e.name) ? [full] : [];
  });
}
