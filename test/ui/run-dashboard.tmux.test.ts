import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { RPCLOAD_BIN } from '../support/cli.ts';
import { COLOUR_SGR, completeFrame, shellQuote, TmuxSession } from '../support/tmux.ts';
import { requireProgram } from '../support/system-program.ts';
import { useTempDir } from '../support/temp-dir.ts';

/**
 * The run dashboard on a real pseudo-terminal: `rpcload run --ui tui` (the built CLI, against the
 * embedded reference server) in a tmux session; captures must show the header, percentiles and
 * outcome counts, and those must move; a resize must re-lay the screen; `q` / Ctrl-C must stop the
 * run gracefully (aborted result file, exit 130) and leave the terminal as it was found, with the
 * usual summary printed on the normal screen.
 */
const dir = useTempDir('rpcload-ui-run-');
const ROOT = join(import.meta.dirname, '..', '..');
const tmux = requireProgram('tmux', { package: 'tmux' });
let session: TmuxSession | null = null;

afterEach(() => {
  session?.kill();
  session = null;
});

function startRun(out: string, width: number, height: number, env: Record<string, string | undefined>): TmuxSession {
  // 60 s is only an upper bound: every test stops the run itself.
  const command = `node ${shellQuote(RPCLOAD_BIN)} run --rate 40 --duration 60s --ui tui --out ${shellQuote(out)}`;
  session = TmuxSession.start({
    width,
    height,
    command,
    cwd: ROOT,
    env: { CI: undefined, NO_COLOR: undefined, FORCE_COLOR: undefined, ...env },
  });
  return session;
}

const successCount = (screen: string): number =>
  Number(/│ success +([\d,]+)/.exec(screen)?.[1]?.replace(/,/g, '') ?? Number.NaN);
const requestCount = (screen: string): number =>
  Number(/([\d,]+) req · /.exec(screen)?.[1]?.replace(/,/g, '') ?? Number.NaN);

function readResult(path: string): RunResult {
  return JSON.parse(readFileSync(path, 'utf8')) as RunResult;
}

/** After the command ended: the terminal is back to normal and the summary is on the normal screen. */
function expectRestored(s: TmuxSession, out: string): string {
  const screen = s.captureHistory();
  expect(screen).toContain('TTY=restored'); // stty settings as before (raw mode off)
  expect(s.display('#{alternate_on} #{cursor_flag} #{mouse_any_flag}')).toBe('0 1 0'); // normal screen, cursor shown, no mouse
  expect(screen).toMatch(/rpcload run {2}demo {2}aborted/); // the summary table, as in plain mode
  expect(screen).toContain(`result file: ${out}`);
  expect(screen).not.toContain('? help'); // the dashboard's frame is gone with the alternate screen
  expect(readResult(out).run.status).toBe('aborted');
  return screen;
}

describe.skipIf(tmux.path === null)(`rpcload run --ui tui${tmux.skipNote}`, { timeout: 60_000 }, () => {
  it('shows a live dashboard at 80×24, adapts to a resize to 120×40, and stops gracefully on q', async () => {
    const out = join(dir, 'q.json');
    const s = startRun(out, 80, 24, {});
    const first = await s.waitFor(
      'the header, percentiles and outcomes',
      (screen) =>
        completeFrame(screen, 80) &&
        /rpcload run · demo · http:\/\/127\.0\.0\.1:\d+/.test(screen) &&
        successCount(screen) > 0 &&
        /│ p99 +[\d.]+ +[\d.]+/.test(screen),
    );
    expect(first).toMatch(/phase 1\/1 \S+ \(rate 40\/s\) +[█░▏▎▍▌▋▊▉]+ [\d.]+m?s \/ 1m00s \d+%/);
    expect(first).toContain(`result ${out}`);
    for (const label of ['p50', 'p90', 'p99.9', 'max', 'lag p99', 'latency', 'service']) expect(first).toContain(label);
    expect(first).toMatch(/throughput req\/s/);
    expect(first).toMatch(/clients · \d+ of 24, most throttled first/);
    for (const line of first.split('\n').filter((l) => l.length > 0)) expect(line.length).toBeLessThanOrEqual(80);
    // colour is on (no NO_COLOR): the success row is green
    expect(s.capture(true)).toMatch(COLOUR_SGR);

    // the figures move between captures
    const later = await s.waitFor(
      'the counts to grow',
      (screen) =>
        completeFrame(screen, 80) &&
        successCount(screen) > successCount(first) &&
        requestCount(screen) > requestCount(first),
    );
    expect(later).not.toBe(first);

    // a resize re-lays the screen at the new size: wider panels, whole client list
    s.resize(120, 40);
    const large = await s.waitFor(
      'the 120×40 layout',
      (screen) => completeFrame(screen, 120) && /clients · \d+ of 24/.test(screen) && screen.split('\n').length >= 40,
    );
    expect(large.split('\n').filter((line) => /^│ client-\d+ /.test(line)).length).toBeGreaterThan(
      first.split('\n').filter((line) => /^│ client-\d+ /.test(line)).length,
    );
    expect(large).toMatch(/latency ms p50 \/ p99 · last \d+s/);

    // the help overlay opens and closes
    s.sendKeys('?');
    await s.waitFor('the help overlay', (screen) => screen.includes('rpcload run · help'));
    s.sendKeys('Escape');
    await s.waitFor('the help overlay to close', (screen) => !screen.includes('rpcload run · help'));

    s.sendKeys('q');
    expect(await s.exitCode()).toBe(130);
    const after = expectRestored(s, out);
    // the CLI's "stopping…" notice, held while the dashboard had the screen, is printed afterwards
    expect(after).toMatch(/rpcload: stopping/);
  });

  it('shows a row per workload and the replay’s progress, and says which abortOnFail threshold stopped the run', async () => {
    const recording = join(dir, 'rec.jsonl');
    const calls = Array.from({ length: 200 }, (_, i) => ({ t: i * 100, client: 'client-1', method: 'ping', args: {} }));
    writeFileSync(recording, calls.map((c) => JSON.stringify(c)).join('\n') + '\n');
    const profile = join(dir, 'shop.json');
    writeFileSync(
      profile,
      JSON.stringify({
        name: 'shop',
        clients: { pattern: 'client-{n}', count: 4, secret: 'demo-secret' },
        scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
        workloads: [
          {
            name: 'browse',
            clients: ['client-1', 'client-2'],
            scenarios: ['ping'],
            phases: [{ duration: '20s', rate: 10 }],
          },
          {
            name: 'orders',
            clients: ['client-3', 'client-4'],
            scenarios: ['ping'],
            phases: [{ duration: '20s', concurrency: 1 }],
          },
          { name: 'recorded', replay: { file: recording, speed: 2 } },
        ],
        thresholds: [{ threshold: 'requests{workload:browse} < 25', abortOnFail: true, delayAbortEval: '1s' }],
      }),
    );
    const out = join(dir, 'workloads.json');
    session = TmuxSession.start({
      width: 100,
      height: 30,
      command: `node ${shellQuote(RPCLOAD_BIN)} run ${shellQuote(profile)} --ui tui --out ${shellQuote(out)}`,
      cwd: ROOT,
      env: { CI: undefined, NO_COLOR: undefined, FORCE_COLOR: undefined },
    });
    const rows = await session.waitFor(
      'a row per workload with figures, and the replay’s progress',
      (screen) =>
        completeFrame(screen, 100) &&
        /│ browse rate 10\/s +10\.0 +[\d.]+ +[\d.]+ /.test(screen) &&
        /│ orders concurrency 1 +– +[\d.]+ /.test(screen) &&
        /│ recorded replay ×2 +20\.0 +[\d.]+ /.test(screen) &&
        /↳ rec\.jsonl ×2: sent [1-9]\d* of [1-9]\d* due · \d+% of 200 calls/.test(screen),
    );
    expect(rows).toMatch(/workloads · 3 of 3 playing · offered vs achieved/);
    expect(await session.exitCode()).toBe(1);
    const after = session.captureHistory();
    expect(after).toContain('TTY=restored');
    expect(after).toMatch(/threshold requests\{workload:browse\} < 25 failed [\d.]+ s into the run/);
    expect(readResult(out).run).toMatchObject({ status: 'aborted', stop: { reason: 'threshold' } });
  });

  it('honours NO_COLOR and stops gracefully on Ctrl-C', async () => {
    const out = join(dir, 'ctrl-c.json');
    const s = startRun(out, 80, 24, { NO_COLOR: '1' });
    await s.waitFor('the first figures', (screen) => successCount(screen) > 0);
    expect(s.capture(true)).not.toMatch(COLOUR_SGR);
    s.sendKeys('C-c');
    expect(await s.exitCode()).toBe(130);
    expectRestored(s, out);
  });
});
