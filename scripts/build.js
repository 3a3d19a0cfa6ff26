/**
 * Builds dist/ with esbuild (type-checking is `npm run typecheck`, apart):
 *
 * - The CLI bundle, flat in dist/: `rpcload.js` (what bin/rpcload.js loads) and its chunks, and one
 *   file per worker thread (`worker-entry.js`, `load-worker-entry.js`, `checkpoint-writer-entry.js`,
 *   `wake-thread-entry.js`, found beside the code that starts them, as src/util/module-worker.ts
 *   expects).
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
  'wake-thread-entry': 'src/util/wake-thread-entry.ts',
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
  // What every run uses, rpcload's own client included: the connector (sockets, TLS) and the errors.
  undici: [
    "export { default as buildConnector } from 'undici/lib/core/connect.js';",
    "export { default as errors } from 'undici/lib/core/errors.js';",
  ],
  // undici's own clients, for the modules in UNDICI_CLIENT_IMPORTERS only, which a run loads when it
  // uses them (http.client "undici", token requests to an HTTP/2 target, verify): ~30 ms of CPU.
  'undici-clients': [
    "import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';",
    "import api from 'undici/lib/api/index.js';",
    'Object.assign(Dispatcher.prototype, api);',
    "export { default as Agent } from 'undici/lib/dispatcher/agent.js';",
    "export { default as Client } from 'undici/lib/dispatcher/client.js';",
    "export { default as buildConnector } from 'undici/lib/core/connect.js';",
    "export { default as errors } from 'undici/lib/core/errors.js';",
  ],
};
/**
 * The modules whose `from 'undici'` is the 'undici-clients' part; everywhere else it is the light
 * part, where an Agent or Client import fails the build ("No matching export").
 */
const UNDICI_CLIENT_IMPORTERS = ['src/api/undici-agents.ts', 'src/driver/undici-connection.ts'].map((path) =>
  join(ROOT, path),
);
/**
 * What hdr-histogram-js loads for browsers and for its WebAssembly histograms, which src/ never
 * builds (`useWebAssembly` unset): pako (its encoder on Node is zlib) and the WebAssembly module
 * with its loader, ~190 KB that every run compiled. Stand-ins keep the names the library reads
 * as it loads; a WebAssembly histogram can then not be built, which src/ does not do.
 */
const HDR_UNUSED = {
  pako: 'module.exports = undefined;',
  wasm: [
    'exports.webAssemblyAvailable = false;',
    'exports.webAssemblyReady = () => false;',
    "const unavailable = () => { throw new Error('rpcload is built without hdr-histogram-js WebAssembly'); };",
    'exports.initWebAssembly = unavailable;',
    'exports.initWebAssemblySync = unavailable;',
    'exports.WasmHistogram = class WasmHistogram { static build() { unavailable(); } static decode() { unavailable(); } };',
  ].join('\n'),
};
/**
 * commander loads node:child_process as it loads (with net and dgram, ~7 ms of every start-up) for
 * executable subcommands, which rpcload has none of: it gets the module when it first reads from it.
 */
const LAZY_CHILD_PROCESS = [
  'let loaded;',
  "const load = () => (loaded ??= process.getBuiltinModule('node:child_process'));",
  'module.exports = new Proxy({}, { get: (_, name) => load()[name] });',
].join('\n');
const packageParts = {
  name: 'package-parts',
  setup(plugin) {
    plugin.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]commander[\\/]lib[\\/]command\.js$/.test(args.importer)
        ? { path: 'child_process', namespace: 'lazy-builtin' }
        : undefined,
    );
    plugin.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, () => ({ contents: LAZY_CHILD_PROCESS, loader: 'js' }));
    plugin.onResolve({ filter: /^(pako|\.\/wasm)$/ }, (args) =>
      /[\\/]hdr-histogram-js[\\/]dist[\\/]/.test(args.importer)
        ? { path: args.path === 'pako' ? 'pako' : 'wasm', namespace: 'hdr-unused' }
        : undefined,
    );
    plugin.onLoad({ filter: /.*/, namespace: 'hdr-unused' }, (args) => ({
      contents: HDR_UNUSED[args.path],
      loader: 'js',
    }));
    plugin.onResolve({ filter: /^(hdr-histogram-js|undici)$/ }, (args) => ({
      path: args.path === 'undici' && UNDICI_CLIENT_IMPORTERS.includes(args.importer) ? 'undici-clients' : args.path,
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
