import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { cellAttribute } from '../../src/ui/terminal/frame-screen.ts';
import { captureStderr } from '../../src/ui/terminal/stderr-capture.ts';
import { guardTerminal } from '../../src/ui/terminal/dashboard-loop.ts';
import { dashboardPossible } from '../../src/ui/create-view.ts';
import { resolveUiMode } from '../../src/ui/ui-mode.ts';
import { colourAllowed } from '../../src/util/terminal-style.ts';

describe('ui mode', () => {
  it.each([
    // [requested, isTTY, CI, resolved]
    ['auto', true, undefined, 'tui'],
    ['auto', false, undefined, 'plain'],
    ['auto', true, 'true', 'plain'], // CI logs are read later: never the dashboard
    ['auto', true, '1', 'plain'],
    ['auto', true, 'false', 'tui'],
    ['auto', true, '', 'tui'],
    ['tui', false, 'true', 'tui'], // forced (the view itself falls back without a terminal)
    ['plain', true, undefined, 'plain'],
    ['none', true, undefined, 'none'],
  ] as const)('%s on a TTY=%s with CI=%s → %s', (requested, isTTY, ci, resolved) => {
    expect(resolveUiMode(requested, { isTTY, ci })).toBe(resolved);
  });

  it.each([
    [true, 'xterm-256color', true],
    [true, undefined, true],
    [true, 'dumb', false], // cannot move the cursor: plain lines instead
    [false, 'xterm-256color', false], // a pipe or a file
    [undefined, 'xterm', false],
  ])('stdout TTY %s with TERM=%s: dashboard %s', (isTTY, term, possible) => {
    expect(dashboardPossible(isTTY === undefined ? {} : { isTTY }, { TERM: term })).toBe(possible);
  });

  it.each([
    [undefined, true],
    ['', true], // no-color.org: present *and not empty*
    ['1', false],
    ['0', false], // any non-empty value, even "0"
  ])('NO_COLOR=%j → colour %s', (value, allowed) => expect(colourAllowed({ NO_COLOR: value })).toBe(allowed));
});

describe('cell attributes', () => {
  const fg = (attr: number): number => (attr >> 9) & 0x1ff;
  const flags = (attr: number): number => attr >> 18;
  it.each([
    // [style, colour, terminal colours, foreground, flags]
    [null, true, 256, 0x1ff, 0],
    ['ok', true, 256, 2, 0],
    ['bad', true, 8, 1, 0],
    ['dim', true, 256, 8, 0], // grey
    ['dim', true, 8, 0x1ff, 0], // not black on an 8-colour terminal: the default colour
    ['ok', false, 256, 0x1ff, 0], // NO_COLOR
    ['strong', false, 256, 0x1ff, 1], // bold is not a colour
    ['inverse', false, 8, 0x1ff, 8],
  ] as const)('%s, colour %s, %d colours', (style, colour, colours, foreground, flagBits) => {
    const attr = cellAttribute(style, colour, colours);
    expect([fg(attr), flags(attr), attr & 0x1ff]).toEqual([foreground, flagBits, 0x1ff]);
  });
});

/** A stand-in for process.stderr: records what reaches the "terminal". */
function fakeStream(): { stream: NodeJS.WriteStream; written: string[] } {
  const written: string[] = [];
  const stream = Object.assign(new EventEmitter(), {
    write(chunk: string | Uint8Array): boolean {
      written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    },
  });
  return { stream: stream as unknown as NodeJS.WriteStream, written };
}

describe('stderr capture', () => {
  it('holds writes, shows their lines, and replays them in order on release', async () => {
    const { stream, written } = fakeStream();
    const capture = captureStderr(stream, 2);
    stream.write('rpcload: stopping — press Ctrl-C again\n');
    stream.write(Buffer.from('warn'));
    let calledBack = false;
    stream.write('ing: one\nthree\n', () => (calledBack = true));
    expect(written).toEqual([]);
    expect(capture.lines()).toEqual(['warning: one', 'three']); // the last 2 lines
    await new Promise((resolve) => setImmediate(resolve));
    expect(calledBack).toBe(true); // callers waiting for a flush are not left hanging
    capture.release();
    capture.release();
    expect(written).toEqual(['rpcload: stopping — press Ctrl-C again\nwarning: one\nthree\n']);
    stream.write('after\n');
    expect(written[1]).toBe('after\n'); // the real write is back
  });

  it('shows an unfinished line too, and caps what it holds', () => {
    const { stream, written } = fakeStream();
    const capture = captureStderr(stream);
    stream.write('no newline yet');
    expect(capture.lines()).toEqual(['no newline yet']);
    for (let i = 0; i < 2000; i++) stream.write(`${'x'.repeat(99)}\n`);
    capture.release();
    expect(written.join('').length).toBeLessThanOrEqual(64 * 1024 + 100);
  });
});

describe('terminal guard', () => {
  it('restores once, and stops watching the process after', () => {
    const before = [process.listenerCount('exit'), process.listenerCount('uncaughtExceptionMonitor')];
    let restores = 0;
    const guard = guardTerminal(() => restores++);
    expect([process.listenerCount('exit'), process.listenerCount('uncaughtExceptionMonitor')]).toEqual([
      before[0]! + 1,
      before[1]! + 1,
    ]);
    guard.restore();
    guard.restore();
    expect(restores).toBe(1);
    expect([process.listenerCount('exit'), process.listenerCount('uncaughtExceptionMonitor')]).toEqual(before);
  });
});
