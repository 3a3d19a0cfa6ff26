import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sampleResult } from '../support/recorder-fixtures.ts';
import { makeResult } from '../support/result-fixtures.ts';
import { runRpcload } from '../support/cli.ts';
import { useTempDir } from '../support/temp-dir.ts';

/** `rpcload report` over files. */
describe('rpcload report', () => {
  const dir = useTempDir('rpcload-report-cli-');
  const report = (...args: string[]) => runRpcload(['report', ...args], { cwd: dir });

  beforeAll(async () => {
    await writeFile(join(dir, 'run.json'), JSON.stringify(makeResult({ seed: 1, durationS: 20 })));
    await writeFile(join(dir, 'base.json'), JSON.stringify(makeResult({ seed: 2, durationS: 20 })));
  });

  it('writes the report beside the result file by default', async () => {
    const result = await report('run.json');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('report → run.html\n');
    const html = await readFile(join(dir, 'run.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html.match(/<svg /g)).toHaveLength(4); // throughput, p50, latency percentiles, spectrum
  });

  it('writes where --out says, with a baseline overlaid', async () => {
    const result = await report('run.json', '--baseline', 'base.json', '--out', 'both.html');
    expect(result.code).toBe(0);
    const html = await readFile(join(dir, 'both.html'), 'utf8');
    expect(html).toContain('against the baseline base.json');
    expect(html).toContain('success (baseline)');
  });

  it('links exemplar trace ids with --trace-url', async () => {
    await writeFile(join(dir, 'traced.json'), JSON.stringify(sampleResult()));
    const result = await report('traced.json', '--trace-url', 'https://jaeger.example/trace/{traceId}');
    expect(result.code).toBe(0);
    const html = await readFile(join(dir, 'traced.html'), 'utf8');
    expect(html).toMatch(/<a href="https:\/\/jaeger\.example\/trace\/[0-9a-f]{32}" rel="noreferrer">/);
  });

  it.each([
    // an unreadable baseline
    [['run.json', '--baseline', 'nope.json'], /^rpcload: nope\.json: cannot read the result file: no such file\n$/],
    // nowhere to write
    [['run.json', '--out', 'no/such/dir/r.html'], /^rpcload: no\/such\/dir\/r\.html: cannot write the report \(ENOENT/],
    // a trace link template without {traceId}
    [
      ['run.json', '--trace-url', 'https://tempo.example/trace/'],
      /^rpcload: --trace-url: expected an http:\/\/ or https:\/\/ URL containing \{traceId\}/,
    ],
  ])('exits 2 for %j', async (args, message) => {
    const result = await report(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(existsSync(join(dir, 'no'))).toBe(false);
  });
});
