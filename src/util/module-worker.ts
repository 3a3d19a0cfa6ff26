/**
 * Start a worker thread on a module that sits beside the caller: the built `.js` (from dist/: the
 * CLI bundle's entries sit beside its chunks, the per-module build's beside their modules), or
 * — when the caller itself runs from source under vitest or tsx — the `.ts` loaded through tsx.
 * A worker does not inherit the parent's module hooks and Node 20 ignores `--import` in a
 * worker's execArgv, so a tiny bootstrap registers tsx inside the worker before the import.
 */
import type { Worker } from 'node:worker_threads';

/**
 * @param callerUrl the caller's `import.meta.url`
 * @param entryName the entry's file name without extension, e.g. `worker-entry`
 */
export function startModuleWorker(callerUrl: string, entryName: string, workerData: unknown): Worker {
  // Workers inherit the parent's execArgv: `--input-type` (as in `node --input-type=module -e …`)
  // would make Node refuse the entry, and `--cpu-prof` would profile every thread into one file.
  // node:worker_threads loaded here: most runs start no thread, and need not load it.
  const { Worker } = process.getBuiltinModule('node:worker_threads');
  const execArgv = process.execArgv.filter((arg) => !arg.startsWith('--input-type') && !arg.startsWith('--cpu-prof'));
  // Source maps turned on at run time (bin/rpcload.js) are the main thread's only: a worker's stack
  // traces name src/ files too.
  if (process.sourceMapsEnabled && !execArgv.includes('--enable-source-maps')) execArgv.push('--enable-source-maps');
  const start = (flags: string[]): Worker => {
    if (!callerUrl.endsWith('.ts'))
      return new Worker(new URL(`./${entryName}.js`, callerUrl), { workerData, execArgv: flags });
    const tsxApi = import.meta.resolve('tsx/esm/api');
    const entry = new URL(`./${entryName}.ts`, callerUrl).href;
    const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => tsx.register()).then(() => import(${JSON.stringify(entry)}))`;
    return new Worker(bootstrap, { eval: true, workerData, execArgv: flags });
  };
  try {
    return start(execArgv);
  } catch (err) {
    // V8's flags and per-process options (`node --max-old-space-size=4096 …`, `--stack-trace-limit=50`)
    // belong to the process: a worker given them refuses to start, and the run lost its checkpoints
    // (and `--workers` its threads). V8's flags hold in every thread anyway; they are only not repeated.
    const refused = refusedFlags(err);
    if (refused === null) throw err;
    return start(execArgv.filter((flag) => !refused.has(flag)));
  }
}

/** The flags a worker refused (Node names them in ERR_WORKER_INVALID_EXEC_ARGV's message), or null for any other error. */
function refusedFlags(err: unknown): Set<string> | null {
  if ((err as NodeJS.ErrnoException | null)?.code !== 'ERR_WORKER_INVALID_EXEC_ARGV') return null;
  const listed = /flags: (.*)$/.exec((err as Error).message)?.[1];
  return listed === undefined ? null : new Set(listed.split(', '));
}
