import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeResult } from '../support/result-fixtures.ts';
import { runRpcload } from '../support/cli.ts';
import { useTempDir } from '../support/temp-dir.ts';

/** `rpcload compare` over files, as users and CI run it (the built CLI in a child process). */
describe('rpcload compare', () => {
  const dir = useTempDir('rpcload-compare-');
  const path = (name: string) => join(dir, name);
  const compare = (...args: string[]) => runRpcload(['compare', ...args], { cwd: dir });

  beforeAll(async () => {
    const files: Record<string, unknown> = {
      'base.json': makeResult({ seed: 1 }),
      'same.json': makeResult({ seed: 2 }),
      'slow.json': makeResult({ seed: 3, latencyMs: { median: 40, spread: 0.5 } }),
      'faster-rate.json': makeResult({ seed: 4, rps: 200 }),
      'v2.json': { ...makeResult({ seed: 5 }), schema: 'rpcload/result@2' },
    };
    for (const [name, content] of Object.entries(files)) await writeFile(path(name), JSON.stringify(content));
    await writeFile(path('broken.json'), '{"schema": "rpcload/result@1",');
  });

  it('exits 0 for two runs of the same setup, with a plain table on a pipe', async () => {
    const result = await compare('base.json', 'same.json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^base {2}base\.json {2}\(fixture · run fixture-1 /);
    expect(result.stdout).toMatch(/\nOK: no regression\n/);
    expect(result.stdout).not.toContain('\u001b');
  });

  it('exits 1 on a regression and says which rule broke', async () => {
    const result = await compare('base.json', 'slow.json');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/\nREGRESSION\n(?: {2}.*\n)* {2}overall p99: .* breaks p99:\+10%\+1ms\n/);
  });

  it('writes every row and the verdict as JSON', async () => {
    const result = await compare('base.json', 'slow.json', '--format', 'json');
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as {
      schema: string;
      regression: boolean;
      rows: { verdict: string }[];
      counts: Record<string, number>;
    };
    expect(json.schema).toBe('rpcload/compare@1');
    expect(json.regression).toBe(true);
    expect(json.rows.filter((r) => r.verdict === 'regression')).toHaveLength(json.counts.regression!);
  });

  it('writes markdown for a CI summary', async () => {
    const result = await compare('base.json', 'slow.json', '--format', 'markdown');
    expect(result.stdout).toMatch(/^### rpcload compare: 🔴 2 regressions\n/); // p50 and p99
  });

  it('uses the rules it is given, and "none" never fails', async () => {
    expect((await compare('base.json', 'slow.json', '--fail-on', 'errors:+5pp')).code).toBe(0);
    expect((await compare('base.json', 'slow.json', '--fail-on', 'p50:+20%')).code).toBe(1);
    expect((await compare('base.json', 'slow.json', '--fail-on', 'none')).code).toBe(0);
  });

  it.each([
    // a bad rule is named before any file is read
    [
      ['base.json', 'missing.json', '--fail-on', 'q95:+10%'],
      /^rpcload: --fail-on: rule "q95:\+10%": unknown metric "q95"/,
    ],
    // unreadable
    [['base.json', 'missing.json'], /^rpcload: missing\.json: cannot read the result file: no such file\n$/],
    // not JSON
    [['broken.json', 'base.json'], /^rpcload: broken\.json: not valid JSON/],
    // another schema
    [['base.json', 'v2.json'], /^rpcload: v2\.json: \/schema: expected "rpcload\/result@1", found "rpcload\/result@2"/],
    // another load shape
    [
      ['base.json', 'faster-rate.json'],
      /^rpcload: cannot compare base\.json and faster-rate\.json: their load shapes differ \(config\.phases\[0\]\.load\.fromPerS: 100 vs 200.*use --force to compare anyway\n$/,
    ],
    // a format that does not exist
    [['base.json', 'same.json', '--format', 'xml'], /expected one of table, markdown, json, found "xml"/],
  ])('exits 2 for %j, with one clear line and no stack trace', async (args, message) => {
    const result = await compare(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).toBe('');
  });

  it('compares different load shapes with --force, and says they differ', async () => {
    const result = await compare('base.json', 'faster-rate.json', '--force');
    expect([0, 1]).toContain(result.code);
    expect(result.stdout).toMatch(/\nforced: load shapes differ: config\.phases\[0\]\.load\.fromPerS: 100 vs 200/);
  });
});
