/**
 * Files shipped in the package (profiles/, package.json), found from any build of the code: this
 * module sits one directory below the package root in src/, in the per-module build (dist/x.js)
 * and in the CLI bundle (flat in dist/), so the root is `..` from it wherever it runs.
 */
import { fileURLToPath } from 'node:url';

/** Absolute path of a file in the package, e.g. `profiles/demo.json`. */
export function packageFile(path: string): string {
  return fileURLToPath(new URL(`../${path}`, import.meta.url));
}
