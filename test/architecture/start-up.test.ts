/**
 * What the CLI loads before it knows its command — what `--version`, `--help`, every shard and every
 * CLI spawn of the tests pay: src/cli/main.ts and its static imports declare the commands and their
 * flags, and of the packages only commander. A command's work comes with `await import()` of its
 * action module when it runs. Read from the source text (as layers.test.ts reads it), then checked
 * on the bundle the CLI runs (dist/, `npm run build`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FAIL_ON_DEFAULT } from '../../src/cli/compare.ts';
import { DEFAULT_FAIL_ON } from '../../src/results/compare/fail-on.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = join(ROOT, 'dist');

/** Layers (src/ directories) whose modules only a command's work needs. */
const WORK_LAYERS = ['metrics', 'driver', 'verify', 'result-file', 'session', 'deploy', 'results', 'ui'];
/** The one package start-up may load. */
const START_UP_PACKAGES = ['commander'];

/** Value imports and re-exports (not `import type`, not `await import()`), as written. */
const STATIC_IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?from\s+)?['"]([^'"]+)['"]/g;

/** The source files main.ts loads, and the packages they import. */
function startUpSources(): { files: string[]; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      if (specifier!.startsWith('.')) visit(normalize(join(dirname(file), specifier!)));
      else if (!specifier!.startsWith('node:')) packages.add(packageName(specifier!));
    }
  };
  visit(join(ROOT, 'src/cli/main.ts'));
  return { files: [...files].map((file) => relative(ROOT, file)), packages };
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const isWork = (file: string): boolean =>
  WORK_LAYERS.some((layer) => file.startsWith(`src/${layer}/`)) || file.endsWith('-action.ts');

describe('start-up', () => {
  it('loads the command declarations only: no action module, nothing of the layers that do the work', () => {
    const { files } = startUpSources();
    expect(files).toContain('src/cli/run.ts');
    expect(files.filter(isWork)).toEqual([]);
  });

  it('loads commander and no other package', () => {
    expect([...startUpSources().packages]).toEqual(START_UP_PACKAGES);
  });

  it('and the bundle keeps to it: dist/rpcload.js and the chunks it imports hold nothing else', () => {
    expect(existsSync(join(DIST, 'rpcload.js')), 'run npm run build first').toBe(true);
    const inputs = new Set<string>();
    const visit = (file: string): void => {
      const text = readFileSync(join(DIST, file), 'utf8');
      // esbuild heads each input file's code with a `// <path>` comment, and writes a chunk's
      // static imports as `import … from "./chunk-….js"` (dynamic ones as import("…")).
      for (const [, input] of text.matchAll(/^\/\/ ((?:src|node_modules)\/\S+)$/gm)) inputs.add(input!);
      for (const [, chunk] of text.matchAll(/^import\s[^;]*?["']\.\/([^"']+)["'];/gm)) visit(chunk!);
    };
    visit('rpcload.js');
    const loaded = [...inputs];
    expect(loaded).toContain('src/cli/program.ts');
    expect(loaded.filter(isWork)).toEqual([]);
    const packages = new Set(
      loaded.filter((s) => s.startsWith('node_modules/')).map((s) => packageName(s.slice('node_modules/'.length))),
    );
    expect([...packages]).toEqual(START_UP_PACKAGES);
  });

  it("and a run's work loads undici's connector and errors, not its Client and Agent (loaded when a run uses them)", () => {
    const inputsOf = (file: string): string[] =>
      [...readFileSync(join(DIST, file), 'utf8').matchAll(/^\/\/ ((?:src|node_modules)\/\S+)$/gm)].map(
        ([, input]) => input!,
      );
    const chunks = readdirSync(DIST).filter((file) => file.endsWith('.js'));
    const runAction = chunks.find((file) => inputsOf(file).includes('src/cli/run-action.ts'));
    expect(runAction, 'run npm run build first').toBeDefined();
    const loaded = new Set<string>();
    const visit = (file: string): void => {
      if (loaded.has(file)) return;
      loaded.add(file);
      const text = readFileSync(join(DIST, file), 'utf8');
      for (const [, chunk] of text.matchAll(/^import\s[^;]*?["']\.\/([^"']+)["'];/gm)) visit(chunk!);
    };
    visit(runAction!);
    const inputs = [...loaded].flatMap(inputsOf);
    expect(inputs).toContain('node_modules/undici/lib/core/connect.js');
    expect(inputs).toContain('src/driver/http1/http1-connection.ts');
    expect(
      inputs.filter((input) =>
        /undici\/lib\/dispatcher\/(client|agent)\.js$|undici-(agents|connection)\.ts$/.test(input),
      ),
    ).toEqual([]);
  });

  it("shows compare's --fail-on default as the rules compare applies", () => {
    // Written out in src/cli/compare.ts: importing it would bring the histograms to start-up.
    expect(FAIL_ON_DEFAULT).toBe(DEFAULT_FAIL_ON);
  });
});
