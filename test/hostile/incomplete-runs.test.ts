/**
 * compare and trend judge finished runs only. A crashed run's checkpoint (`"status": "running"`,
 * part of the load), an interrupted or a failed run is refused with one line and exit 2 — it used
 * to pass for "within noise" — unless `--allow-incomplete` says to use it anyway.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult, RunStatus } from '../../src/contract/result-schema.ts';
import { runRpcload, type CliResult } from '../support/cli.ts';
import { makeResult } from '../support/result-fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'rpcload-incomplete-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const setup = { rps: 40, durationS: 30 } as const;
const base = makeResult({ ...setup, seed: 1, startedAt: '2026-01-01T10:00:00.000Z' });

/** A run of the same load that ended with `status` after a third of it (a checkpoint has no end). */
function endedAs(name: string, status: RunStatus): string {
  const partial = makeResult({ ...setup, durationS: 10, seed: 2, startedAt: '2026-01-02T10:00:00.000Z' });
  const result: RunResult = {
    ...partial,
    run: { ...partial.run, status, endedAt: status === 'running' ? null : partial.run.endedAt },
  };
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(result));
  return path;
}
const basePath = join(dir, 'base.json');
writeFileSync(basePath, JSON.stringify(base));

function expectRefusal(cli: CliResult, file: string, status: string): void {
  expect(cli.code, cli.stderr).toBe(2);
  const lines = cli.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toBe(
    `rpcload: ${file}: /run/status: expected "completed", found "${status}" (${
      {
        running: 'a checkpoint: the run was still going, or died without finishing',
        aborted: 'the run was interrupted',
        failed: 'the run failed',
      }[status]
    }); --allow-incomplete uses it anyway`,
  );
}

describe('compare', () => {
  it.each(['running', 'aborted', 'failed'] as const)(
    'refuses a %s run as HEAD or BASE (exit 2)',
    async (status) => {
      const partial = endedAs(`${status}.json`, status);
      expectRefusal(await runRpcload(['compare', basePath, partial]), partial, status);
      expectRefusal(await runRpcload(['compare', partial, basePath]), partial, status);
    },
    60_000,
  );

  it('--allow-incomplete compares it, and the output says what it is', async () => {
    const partial = endedAs('running-allowed.json', 'running');
    const cli = await runRpcload(['compare', basePath, partial, '--allow-incomplete', '--force']);
    expect([0, 1]).toContain(cli.code);
    expect(cli.stdout).toMatch(/^head .*· running ·/m);
  }, 60_000);
});

describe('trend', () => {
  it('refuses a directory whose latest run is a crashed run’s checkpoint; --allow-incomplete includes it', async () => {
    const runs = join(dir, 'nightly');
    const older = makeResult({ ...setup, seed: 3, startedAt: '2025-12-31T10:00:00.000Z' });
    mkdirSync(runs);
    writeFileSync(join(runs, 'a.json'), JSON.stringify(older));
    writeFileSync(join(runs, 'b.json'), JSON.stringify(base));
    const crashed = makeResult({ ...setup, durationS: 10, seed: 4, startedAt: '2026-01-03T10:00:00.000Z' });
    writeFileSync(
      join(runs, 'c.json'),
      JSON.stringify({ ...crashed, run: { ...crashed.run, status: 'running', endedAt: null } }),
    );
    expectRefusal(await runRpcload(['trend', runs]), join(runs, 'c.json'), 'running');
    const allowed = await runRpcload(['trend', runs, '--allow-incomplete']);
    expect([0, 1]).toContain(allowed.code);
    expect(allowed.stdout.trim().split('\n').length).toBeGreaterThanOrEqual(4); // a header and three runs
  }, 60_000);
});
