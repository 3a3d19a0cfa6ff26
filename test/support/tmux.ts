/**
 * Drive a program on a real pseudo-terminal: a detached tmux session of a given size, on a private
 * tmux server (its own socket, no user config), so tests neither see nor disturb anyone's tmux.
 * The command runs inside a small shell wrapper that records the terminal mode before and after
 * and prints the exit code, then keeps the pane open for the final captures.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

let counter = 0;

export interface TmuxStartOptions {
  readonly width: number;
  readonly height: number;
  /** A shell command line (quote arguments yourself). */
  readonly command: string;
  readonly cwd: string;
  /** Environment variables to set or (undefined) remove. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** What the wrapper prints once the command has ended. */
export const EXIT_PATTERN = /EXIT=(\d+)/;

export class TmuxSession {
  private socketPath: string | null = null;

  private constructor(private readonly socket: string) {}

  static start(options: TmuxStartOptions): TmuxSession {
    const socket = `rpcload-ui-${process.pid}-${++counter}`;
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.TMUX; // never attach to (or nest in) the tmux the tests may run under
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    const wrapper = `before=$(stty -g); ${options.command}; code=$?; if [ "$(stty -g)" = "$before" ]; then echo TTY=restored; else echo TTY=changed; fi; echo EXIT=$code; exec sleep 600`;
    const session = new TmuxSession(socket);
    session.tmux(
      [
        '-f',
        '/dev/null',
        'new-session',
        '-d',
        '-s',
        'main',
        '-x',
        String(options.width),
        '-y',
        String(options.height),
        '-c',
        options.cwd,
        wrapper,
      ],
      env,
    );
    session.socketPath = session.display('#{socket_path}');
    return session;
  }

  private tmux(args: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
    const result = spawnSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', env });
    if (result.status !== 0)
      throw new Error(
        `tmux ${args[0] ?? ''} failed: ${result.stderr || result.error?.message || `exit ${result.status}`}`,
      );
    return result.stdout;
  }

  /** The visible screen as text; with `escapes`, including colour and attribute sequences. */
  capture(escapes = false): string {
    return this.tmux(['capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', 'main']);
  }

  /** The normal screen with its scrollback (what scrolled off the top too). */
  captureHistory(): string {
    return this.tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', 'main']);
  }

  /** A tmux format about the pane, e.g. '#{alternate_on}'. */
  display(format: string): string {
    return this.tmux(['display-message', '-p', '-t', 'main', format]).trim();
  }

  sendKeys(...keys: string[]): void {
    this.tmux(['send-keys', '-t', 'main', ...keys]);
  }

  resize(width: number, height: number): void {
    this.tmux(['resize-window', '-t', 'main', '-x', String(width), '-y', String(height)]);
  }

  /** Poll captures until `accept` returns true; fail with the last capture after `timeoutMs`. */
  async waitFor(what: string, accept: (screen: string) => boolean, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let screen = '';
    for (;;) {
      screen = this.capture();
      if (accept(screen)) return screen;
      if (Date.now() > deadline)
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; the screen was:\n${screen}`);
      await sleep(100);
    }
  }

  /** Wait for the wrapper's exit line and return the exit code. */
  async exitCode(timeoutMs = 20_000): Promise<number> {
    const screen = await this.waitFor('the command to exit', (s) => EXIT_PATTERN.test(s), timeoutMs);
    return Number(EXIT_PATTERN.exec(screen)![1]);
  }

  /** End the private server and remove its socket file (tmux leaves it behind). */
  kill(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server'], { encoding: 'utf8' });
    if (this.socketPath !== null) rmSync(this.socketPath, { force: true });
  }
}

/**
 * A capture can land while a frame is still being written: a frame is complete when its last line
 * is a bottom border and every border line spans the whole width.
 */
export function completeFrame(screen: string, width: number): boolean {
  const lines = screen.split('\n').filter((line) => line.trim() !== '');
  const borders = lines.filter((line) => /^[┌└]/.test(line));
  return (
    borders.length > 0 && lines[lines.length - 1]!.startsWith('└') && borders.every((line) => line.length === width)
  );
}

/** Quote a string for the POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Colour SGR sequences (foreground colours), as opposed to bold/inverse/reset. */
// eslint-disable-next-line no-control-regex
export const COLOUR_SGR = /\u001b\[(?:[0-9;]*;)?(?:3[0-7]|9[0-7]|38;[25];[0-9;]+)m/;
