import { readFileSync } from 'node:fs';
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

const successCount = (screen: string): number => Number(/│ success +([\d,]+)/.exec(screen)?.[1]?.replace(/,/g, '') ?? Number.NaN);
const requestCount = (screen: string): number => Number(/([\d,]+) req · /.exec(screen)?.[1]?.replace(/,/g, '') ?? Number.NaN);

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
      (screen) => completeFrame(screen, 80) && successCount(screen) > successCount(first) && requestCount(screen) > requestCount(first),
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
