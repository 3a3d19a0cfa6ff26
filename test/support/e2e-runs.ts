/**
 * Real CLI runs of a small profile (ping and echo scenarios) into a temporary directory, read back
 * and validated: what the end-to-end compare and merge tests build their result files from.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { validateRunResult } from '../../src/result-file/validate-result.ts';
import { runRpcload } from './cli.ts';
import { useTempDir } from './temp-dir.ts';

export function e2eRuns(prefix: string) {
  const dir = useTempDir(prefix);
  mkdirSync(join(dir, 'profiles'), { recursive: true });

  /** A profile file named `name` with both scenarios and `body`'s settings. */
  function profile(name: string, body: Record<string, unknown>): string {
    const path = join(dir, 'profiles', `${name}.json`);
    const scenarios = [
      { name: 'ping', steps: [{ method: 'ping' }] },
      { name: 'echo', steps: [{ method: 'echo', args: { n: '{{int 1 9}}' } }] },
    ];
    writeFileSync(path, JSON.stringify({ name: 'nightly', scenarios, ...body }));
    return path;
  }

  function read(path: string): RunResult {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    expect(validateRunResult(value)).toEqual([]);
    return value as RunResult;
  }

  /** `rpcload run` of a profile: exit 0 expected; its result file read back. */
  async function run(
    profilePath: string,
    out: string,
    args: string[] = [],
    env: NodeJS.ProcessEnv = {},
  ): Promise<RunResult> {
    const result = await runRpcload(['run', profilePath, '--out', out, '--ui', 'none', ...args], { env });
    expect(result.code, result.stderr).toBe(0);
    return read(out);
  }

  return { dir, profile, read, run };
}
