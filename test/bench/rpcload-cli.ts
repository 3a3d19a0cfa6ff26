/** rpcload as its users run it: the built CLI (`node bin/rpcload.js run …`; `npm run bench` builds first). */
import { RPCLOAD_BIN } from '../support/cli.ts';

/** `rpcload run <profile> --ui none --out <result> [--workers N]`. */
export function rpcloadArgv(profilePath: string, resultPath: string, workers = 1): string[] {
  const argv = [process.execPath, RPCLOAD_BIN, 'run', profilePath, '--ui', 'none', '--out', resultPath];
  if (workers > 1) argv.push('--workers', String(workers));
  return argv;
}
