/**
 * requireProgram, on real PATHs: a program in a directory on the PATH is found; one that is not
 * is skipped with a reason naming its Debian package, or fails the file under CI=true; a shell
 * builtin is no program.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { findOnPath, requireProgram, underCi } from './system-program.ts';
import { useTempDir } from './temp-dir.ts';

const bin = useTempDir('rpcload-system-program-');
const program = join(bin, 'rpcload-fake-daemon');
writeFileSync(program, '#!/bin/sh\nexit 0\n');
chmodSync(program, 0o755);
const withBin = { PATH: `${bin}:/usr/bin:/bin` };
const withoutBin = { PATH: '/usr/bin:/bin' };

describe('requireProgram', () => {
  it('finds a program on the PATH, also under CI', () => {
    expect(requireProgram('rpcload-fake-daemon', { package: 'fake-daemon' }, withBin)).toEqual({
      name: 'rpcload-fake-daemon',
      path: program,
      skipNote: '',
    });
    expect(requireProgram('rpcload-fake-daemon', { package: 'fake-daemon' }, { ...withBin, CI: 'true' }).path).toBe(
      program,
    );
  });

  it('skips a program that is not on the PATH, naming its Debian package, and says so on stderr', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const found = requireProgram('rpcload-fake-daemon', { package: 'fake-daemon' }, withoutBin);
      expect(found.path).toBeNull();
      expect(found.skipNote).toBe(
        ' — skipped: rpcload-fake-daemon is not on PATH; install the Debian package with `apt-get install fake-daemon`',
      );
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toContain('apt-get install fake-daemon');
    } finally {
      warn.mockRestore();
    }
  });

  it.each([
    ['true', true],
    ['1', true],
    ['false', false],
    ['', false],
    [undefined, false],
  ])('CI=%s fails (not skips) when the program is absent: %s', (ci, fails) => {
    const env = ci === undefined ? withoutBin : { ...withoutBin, CI: ci };
    expect(underCi(env)).toBe(fails);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const attempt = (): unknown => requireProgram('rpcload-fake-daemon', { package: 'fake-daemon' }, env);
      if (fails)
        expect(attempt).toThrow(
          /^CI=true, and rpcload-fake-daemon is not on PATH; install the Debian package with `apt-get install fake-daemon`/,
        );
      else expect(attempt).not.toThrow();
    } finally {
      warn.mockRestore();
    }
  });

  it('does not take a shell builtin for a program', () => {
    expect(findOnPath('cd', withoutBin)).toBeNull();
    expect(findOnPath('sh', withoutBin)).toMatch(/^\/.*\/sh$/);
  });
});
