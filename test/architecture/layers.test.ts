/**
 * The layering of src/ (docs/architecture.md): a module imports only from its own layer or the
 * layers below it, no import cycle exists between files, and there are no index.ts barrels.
 * Read from the source text, so the test fails the moment an import runs back up.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Bottom to top. `.` is the files directly in src/ (errors.ts, version.ts). */
const LAYERS = [
  '.',
  'util',
  'contract',
  'api',
  'metrics',
  'server',
  'profile',
  'driver',
  'verify',
  'result-file',
  'prometheus',
  'session',
  'deploy',
  'results',
  'ui',
  'cli',
] as const;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Static imports and re-exports (with or without bindings) and dynamic imports of relative paths. */
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s(?:[^'";]*?from\s+)?['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => normalize(join(dirname(file), (m[1] ?? m[2])!)));
}

const layerOf = (file: string): string => {
  const parts = relative(SRC, file).split('/');
  return parts.length === 1 ? '.' : parts[0]!;
};

const files = sourceFiles(SRC);
const graph = new Map(files.map((file) => [file, importsOf(file)]));

describe('src/ layering', () => {
  it('puts every file in a known layer', () => {
    const unknown = files
      .filter((file) => !(LAYERS as readonly string[]).includes(layerOf(file)))
      .map((f) => relative(SRC, f));
    expect(unknown).toEqual([]);
  });

  it('never imports from a layer above', () => {
    const upward: string[] = [];
    for (const [file, imports] of graph) {
      const own = LAYERS.indexOf(layerOf(file) as (typeof LAYERS)[number]);
      for (const target of imports) {
        const theirs = LAYERS.indexOf(layerOf(target) as (typeof LAYERS)[number]);
        if (theirs > own) upward.push(`${relative(SRC, file)} → ${relative(SRC, target)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('has no import cycle', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string): void => {
      state.set(file, 'open');
      stack.push(file);
      for (const target of graph.get(file) ?? []) {
        if (state.get(target) === 'open')
          cycles.push(
            stack
              .slice(stack.indexOf(target))
              .concat(target)
              .map((f) => relative(SRC, f))
              .join(' → '),
          );
        else if (!state.has(target) && graph.has(target)) visit(target);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  it('has no index.ts barrels: imports name the module that defines what they use', () => {
    expect(files.filter((file) => file.endsWith('/index.ts')).map((f) => relative(SRC, f))).toEqual([]);
  });
});
