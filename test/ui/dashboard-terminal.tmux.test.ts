import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { completeFrame, shellQuote, TmuxSession } from '../support/tmux.ts';
import { requireProgram } from '../support/system-program.ts';

/**
 * The terminal guard and the verify view, on a real pseudo-terminal, through small driver
 * programs run with tsx: however the process ends (uncaught exception, unhandled rejection,
 * process.exit without stop, or q), the alternate screen is left, the cursor shown and the tty
 * mode restored; server text full of escape sequences changes neither the screen nor the title.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const DRIVER = 'test/support/dashboard-driver.ts';
const VERIFY_DRIVER = 'test/support/verify-dashboard-driver.ts';
const tmux = requireProgram('tmux', { package: 'tmux' });
let session: TmuxSession | null = null;

afterEach(() => {
  session?.kill();
  session = null;
});

function start(script: string, args: string, width = 80, height = 24): TmuxSession {
  session = TmuxSession.start({
    width,
    height,
    command: `npx tsx ${shellQuote(script)} ${args}`,
    cwd: ROOT,
    env: { NO_COLOR: undefined, CI: undefined },
  });
  return session;
}

function expectRestored(s: TmuxSession): string {
  const screen = s.captureHistory();
  expect(screen).toContain('TTY=restored');
  expect(s.display('#{alternate_on} #{cursor_flag}')).toBe('0 1');
  expect(screen).not.toContain('? help');
  return screen;
}

const dashboardUp = (screen: string): boolean => screen.startsWith('rpcload run · ') && screen.includes('? help');

describe.skipIf(tmux.path === null)(`the terminal is always restored${tmux.skipNote}`, { timeout: 60_000 }, () => {
  it.each([
    // [mode, exit code, what Node printed on the normal screen]
    ['throw', 1, /Error: boom from the driver/],
    ['reject', 1, /Error: rejected in the driver/],
    ['exit', 3, null],
  ] as const)('%s → exit %i', async (mode, code, printed) => {
    const s = start(DRIVER, mode);
    await s.waitFor('the dashboard', dashboardUp);
    expect(await s.exitCode()).toBe(code);
    const screen = expectRestored(s);
    if (printed !== null) expect(screen).toMatch(printed);
  });
});

describe.skipIf(tmux.path === null)(`hostile server text${tmux.skipNote}`, { timeout: 60_000 }, () => {
  it('is drawn as inert text: no title change, no cleared screen, no injected markup', async () => {
    const s = start(DRIVER, 'hostile');
    const title = s.display('#{pane_title}');
    const screen = await s.waitFor(
      'the dashboard with the hostile strings',
      (text) =>
        dashboardUp(text) &&
        completeFrame(text, 80) &&
        text.includes('rpcload run · evil{red-fg}injected{/red-fg} profile'),
    );
    expect(s.display('#{pane_title}')).toBe(title);
    expect(screen).not.toContain('pwned');
    expect(screen).toContain('{red-fg}injected{/red-fg}'); // braces shown, not obeyed
    // the layout survived: the frame is whole, nothing cleared it or moved the cursor into it
    expect(screen.split('\n').filter((l) => /^[┌└]/.test(l))).toHaveLength(6); // three bands of boxes
    s.sendKeys('q');
    expect(await s.exitCode()).toBe(130);
    expect(expectRestored(s)).toContain('driver: view stopped');
  });
});

describe.skipIf(tmux.path === null)(`verify view${tmux.skipNote}`, { timeout: 60_000 }, () => {
  it('shows each check as its state lands, and restores the terminal on q', async () => {
    const s = start(VERIFY_DRIVER, '');
    const waiting = await s.waitFor(
      'the checks, all waiting',
      (text) => text.includes('rpcload verify · http://127.0.0.1:9999') && /· 8 waiting/.test(text),
    );
    expect(waiting).toMatch(/· wait envelope/);
    expect(waiting).toContain('result results/verify-driver.json');
    // The driver holds here, two checks running, until '>' is typed.
    const running = await s.waitFor('two running checks', (text) => /▸ 2 running/.test(text));
    expect(running).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] RUN +envelope +\d+\.\ds {2}on client-1/);
    expect(running).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] RUN +auth\.missing_token +\d+\.\ds {2}on client-2/);
    s.sendKeys('>');
    const done = await s.waitFor('every verdict', (text) => /✓ 3 pass {2}✗ 1 fail {2}– 1 skip/.test(text));
    expect(done).toMatch(/✓ PASS envelope +\d+\.\ds {2}14 responses, all valid envelopes/);
    expect(done).toMatch(/– SKIP tls +plain http target: nothing to negotiate/);
    expect(done).toMatch(/✗ FAIL payload\.limit +\d+\.\ds {2}a body of 100,001 bytes was accepted/);
    expect(done).toMatch(/\[ *\d+\.\ds\] ratelimit\.threshold ✓ PASS {2}exactly 100 admitted/); // the log pane
    expect(done).not.toContain('pwned');
    expect(done).toMatch(/· 3 waiting/);
    s.sendKeys('q');
    expect(await s.exitCode()).toBe(130);
    expect(expectRestored(s)).toContain('driver: verify view stopped');
  });
});
