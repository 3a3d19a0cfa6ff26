/**
 * Builds dist/ with esbuild (type-checking is `npm run typecheck`, apart):
 *
 * - The CLI bundle, flat in dist/: `rpcload.js` (what bin/rpcload.js loads) and its chunks, and one
 *   file per worker thread (`worker-entry.js`, `load-worker-entry.js`, `checkpoint-writer-entry.js`,
 *   found beside the code that starts them, as src/util/module-worker.ts expects).
 *   Each `await import()` in src/ starts a chunk of its own, so a command loads only what it runs:
 *   `--version` and `--help` read the command definitions, not the load engine. The packages that
 *   start-up or a run reads are bundled in (resolving and compiling hundreds of small files was
 *   half of the start-up), two of them in part (PACKAGE_PARTS); the others (OpenTelemetry,
 *   prom-client, jose, selfsigned, blessed) stay in node_modules, loaded by the commands that use them.
 * - Every module on its own, at its source path (dist/cli/main.js, dist/driver/engine.js, …), for
 *   what imports single built modules: the A/B benches between builds (test/bench/engine-cpu.ts)
 *   and the tests that check built code without tsx.
 *
 * The bundle is flat in dist/, one directory below the package root as src/package-files.ts is in
 * src/: packageFile() finds profiles/ and package.json from src/, the bundle and the modules alike.
 * Source maps are written beside each file (bin/rpcload.js turns them on), so stack traces name
 * src/ files and lines; the bundle's map rpcload's own code, line by line (src-only-source-maps.js).
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { keepOwnLinesOnly } from './src-only-source-maps.js';

const ROOT = join(import.meta.dirname, '..');

/** Packages compiled into the bundle: the ones every command, or every run, loads. */
const BUNDLED = ['@sinclair/typebox', 'commander', 'csv-parse', 'hdr-histogram-js', 'undici', 'yaml'];

/** The CLI's entry and the worker threads' entries, named as the bundle's files. */
const BUNDLE_ENTRIES = {
  rpcload: 'src/cli/main.ts',
  'worker-entry': 'src/server/worker-entry.ts',
  'load-worker-entry': 'src/session/workers/load-worker-entry.ts',
  'checkpoint-writer-entry': 'src/session/result/checkpoint-writer-entry.ts',
};

const common = {
  absWorkingDir: ROOT,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  sourcemap: 'linked',
  // Stack traces need the mappings only; the sources are in src/ (and in the package's git history).
  sourcesContent: false,
  logLevel: 'warning',
};

const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
const dependencies = Object.keys(manifest.dependencies ?? {});
const unknown = BUNDLED.filter((name) => !dependencies.includes(name));
if (unknown.length > 0)
  throw new Error(`scripts/build.js: BUNDLED names packages that are not dependencies: ${unknown.join(', ')}`);

/** Relative imports stay imports of the sibling module's built file (`./x.ts` → `./x.js`). */
const eachModuleOnItsOwn = {
  name: 'each-module-on-its-own',
  setup(plugin) {
    plugin.onResolve({ filter: /^\.\.?\// }, (args) =>
      args.kind === 'entry-point' ? undefined : { path: args.path.replace(/\.ts$/, '.js'), external: true },
    );
  },
};

/**
 * Packages whose index loads every part of the package at once, of which src/ uses a few: the
 * bundle takes those from their own files (a name src/ imports from elsewhere fails the build).
 * hdr-histogram-js (version pinned in package.json): its log writer builds an Intl.NumberFormat as
 * it loads (ICU's start-up, ~20 ms of every run and profile validate). undici: its index also loads
 * fetch, WebSocket, the caches, the mocks and every other dispatcher (~70 ms of CPU before a run's
 * first request); the request API is put on Dispatcher's prototype as its index does.
 */
const PACKAGE_PARTS = {
  'hdr-histogram-js': [
    "export { build } from 'hdr-histogram-js/dist/HistogramBuilder.js';",
    "export { decodeFromCompressedBase64, encodeIntoCompressedBase64 } from 'hdr-histogram-js/dist/encoding.js';",
  ],
  undici: [
    "import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';",
    "import api from 'undici/lib/api/index.js';",
    'Object.assign(Dispatcher.prototype, api);',
    "export { default as Agent } from 'undici/lib/dispatcher/agent.js';",
    "export { default as Client } from 'undici/lib/dispatcher/client.js';",
    "export { default as buildConnector } from 'undici/lib/core/connect.js';",
    "export { default as errors } from 'undici/lib/core/errors.js';",
  ],
};
const packageParts = {
  name: 'package-parts',
  setup(plugin) {
    plugin.onResolve({ filter: /^(hdr-histogram-js|undici)$/ }, (args) => ({
      path: args.path,
      namespace: 'package-parts',
    }));
    plugin.onLoad({ filter: /.*/, namespace: 'package-parts' }, (args) => ({
      contents: PACKAGE_PARTS[args.path].join('\n'),
      resolveDir: ROOT,
    }));
  },
};

/** Every TypeScript module under src/, as paths relative to the package root. */
async function sourceModules() {
  const entries = await readdir(join(ROOT, 'src'), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

await rm(join(ROOT, 'dist'), { recursive: true, force: true });
/** The bundle's options; its worker entries are built apart, see below. */
const bundle = {
  ...common,
  outdir: 'dist',
  bundle: true,
  external: dependencies.filter((name) => !BUNDLED.includes(name)),
  plugins: [packageParts],
  metafile: true,
  // Bundled CommonJS packages call require() for Node's built-in modules.
  banner: {
    js: "import { createRequire as __rpcloadRequire } from 'node:module'; const require = __rpcloadRequire(import.meta.url);",
  },
};
const { rpcload, ...workerEntries } = BUNDLE_ENTRIES;
const builds = await Promise.all([
  build({ ...bundle, entryPoints: { rpcload }, splitting: true, chunkNames: 'chunk-[hash]' }),
  // A worker thread is a realm of its own that shares no module with the main thread: each worker
  // entry is one file, and the CLI's chunks are split between its commands only (fewer, bigger).
  ...Object.entries(workerEntries).map(([name, entry]) => build({ ...bundle, entryPoints: { [name]: entry } })),
  build({
    ...common,
    entryPoints: await sourceModules(),
    outbase: 'src',
    outdir: 'dist',
    bundle: true,
    packages: 'external',
    plugins: [eachModuleOnItsOwn],
  }),
]);
await Promise.all(
  builds
    .flatMap((result) => Object.keys(result.metafile?.outputs ?? {}))
    .filter((file) => file.endsWith('.map'))
    .map((file) => keepOwnLinesOnly(join(ROOT, file))),
);
