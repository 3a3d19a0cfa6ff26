/**
 * A start instant already past (issue 28 §21): a few seconds late — a slow pod — the run warns and
 * starts at once; hours late — last night's RPCLOAD_START_AT — it is refused before anything is
 * sent, in one line, exit 2.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readResultFile } from '../../src/result-file/read-result.ts';
import { resolveShardOptions } from '../../src/session/distributed/shard-spec.ts';
import { runRpcload } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'rpcload-start-at-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const plan = { name: 'nightly' };
const iso = (ms: number): string => new Date(ms).toISOString();

describe('--start-at in the past', () => {
  it.each([
    [
      'an hour ago, as a flag',
      { startAt: iso(Date.now() - 3_600_000) },
      {},
      /^--start-at: .* passed 60 min ago; expected a start at most 5 min in the past/,
    ],
    [
      'a day ago, from RPCLOAD_START_AT',
      {},
      { RPCLOAD_START_AT: String(Math.floor(Date.now() / 1000) - 86_400) },
      /^RPCLOAD_START_AT: .* passed 1440 min ago/,
    ],
  ])('%s: refused', (_name, flags, env, message) => {
    expect(() => resolveShardOptions(flags, env, plan)).toThrow(message);
  });

  it('a minute ago: accepted (a shard a little late still runs)', () => {
    const startAt = Date.now() - 60_000;
    expect(resolveShardOptions({ startAt: iso(startAt) }, {}, plan).startAtEpochMs).toBe(startAt);
  });

  it('run: refused in one line before anything runs; a few seconds late, a warning line and a result warning', async () => {
    // Against the embedded server, with nothing to fail: the exit code is the start instant's doing.
    const profile = join(dir, 'profile.json');
    writeFileSync(
      profile,
      JSON.stringify({ scenarios: [{ steps: [{ method: 'ping' }] }], phases: [{ duration: '1s', rate: 5 }] }),
    );
    const base = ['run', profile, '--ui', 'none'];
    const stale = await runRpcload([...base, '--start-at', iso(Date.now() - 3_600_000)]);
    expect(stale.code).toBe(2);
    expect(stale.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^rpcload: --start-at: .* passed 60 min ago/),
    ]);

    const out = join(dir, 'late.json');
    const late = await runRpcload([...base, '--start-at', iso(Date.now() - 3000), '--out', out]);
    expect(late.code, late.stderr).toBe(0);
    const warning =
      /the start instant \S+ \(--start-at, RPCLOAD_START_AT\) passed \d+ s ago: the run starts at once, \d+ s late/;
    expect(late.stderr).toMatch(new RegExp(`^warning: ${warning.source}`, 'm'));
    expect((await readResultFile(out)).warnings).toContainEqual(expect.stringMatching(warning));
  }, 90_000);
});
