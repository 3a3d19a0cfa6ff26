/**
 * The bench's start-up section (test/bench itself is not run by vitest): once on real processes —
 * the built CLI, autocannon's, `node -e 0`, and two short runs against its own local target, whose
 * first API call it times — and its verdict on issue 35's targets as a table.
 */
import { describe, expect, it } from 'vitest';
import { benchVerdict } from '../bench/bench-report.ts';
import { benchConfig } from '../bench/bench-config.ts';
import { runStartUpSection, type StartUpRow, type StartUpSection } from '../bench/start-up-section.ts';
import { useTempDir } from '../support/temp-dir.ts';

const workDir = useTempDir('rpcload-bench-start-up-');

describe('the start-up section', () => {
  it('times each command to its exit, and each run to its first API call, on real processes', async () => {
    const section = await runStartUpSection(
      { ...benchConfig({ BENCH_QUICK: '1' }), startUpRuns: 1 },
      workDir,
      () => undefined,
    );
    expect(section.rows.map((row) => [row.name, row.measure])).toEqual([
      ['rpcload --version', 'exit'],
      ['rpcload --help', 'exit'],
      ['rpcload profile validate', 'exit'],
      ['autocannon --version', 'exit'],
      ['node -e 0', 'exit'],
      ['rpcload run, 1 virtual user', 'first request'],
      ['rpcload run, 64 virtual users', 'first request'],
      ['autocannon -c 1', 'first request'],
    ]);
    for (const row of section.rows) {
      expect(row.wallMs).toHaveLength(1);
      expect(row.medianWallMs).toBeGreaterThan(0);
      expect(row.medianWallMs).toBeLessThan(30_000);
    }
    const cpu = (name: string): number => section.rows.find((row) => row.name === name)!.medianCpuMs;
    expect(cpu('rpcload run, 1 virtual user')).toBeGreaterThan(cpu('node -e 0'));
  }, 120_000);
});

const row = (name: string, medianWallMs: number): StartUpRow => ({
  name,
  command: name,
  measure: name.startsWith('rpcload run') ? 'first request' : 'exit',
  wallMs: [medianWallMs],
  medianWallMs,
  medianCpuMs: medianWallMs,
});

const section = (
  version: number,
  help: number,
  validate: number,
  autocannon: number,
  firstRequest: number,
): StartUpSection => ({
  runs: 1,
  loadAverage: 0,
  rows: [
    row('rpcload --version', version),
    row('rpcload --help', help),
    row('rpcload profile validate', validate),
    row('autocannon --version', autocannon),
    row('rpcload run, 1 virtual user', firstRequest),
  ],
});

describe("the verdict on issue 35's start-up targets", () => {
  it.each([
    ['all within 250 ms and autocannon', section(150, 160, 240, 260, 400), true, 'rpcload profile validate', 240, true],
    ['the slowest over 250 ms', section(150, 160, 251, 300, 400), false, 'rpcload profile validate', 251, true],
    ["within 250 ms but over autocannon's", section(150, 200, 180, 190, 400), false, 'rpcload --help', 200, true],
    [
      'run slower than 500 ms to its first request',
      section(150, 160, 170, 260, 501),
      true,
      'rpcload profile validate',
      170,
      false,
    ],
  ])('%s', (_, startUp, quickMet, command, figure, firstMet) => {
    const verdict = benchVerdict({ startUp, closed: null, closedShort: null, workers: null, open: null });
    expect(verdict.startUpMs).toMatchObject({ met: quickMet, command, figure });
    expect(verdict.firstRequestMs.met).toBe(firstMet);
  });

  it('is not measured without the section', () => {
    const verdict = benchVerdict({ startUp: null, closed: null, closedShort: null, workers: null, open: null });
    expect([verdict.startUpMs.met, verdict.firstRequestMs.met, verdict.shortCpuRatio.met]).toEqual([null, null, null]);
  });
});
