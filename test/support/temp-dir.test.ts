/** useTempDir removes what it makes: after the test that made it, or after the suite that made it. */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useTempDir } from './temp-dir.ts';

const fileDir = useTempDir('rpcload-temp-dir-file-');
let suiteDir = '';
let testDir = '';
const eachDirs: string[] = [];

describe('made in a describe', () => {
  suiteDir = useTempDir('rpcload-temp-dir-suite-');
  beforeEach(() => {
    eachDirs.push(useTempDir('rpcload-temp-dir-each-'));
  });

  it('exists during its tests, as does a directory made in the test or in beforeEach', () => {
    testDir = useTempDir('rpcload-temp-dir-test-');
    writeFileSync(join(testDir, 'content'), 'x'); // removed with what it holds
    for (const dir of [fileDir, suiteDir, testDir, eachDirs[0]!]) expect(existsSync(dir)).toBe(true);
  });

  it('outlives a test for the whole describe; the earlier test’s own directories are gone', () => {
    expect(existsSync(suiteDir)).toBe(true);
    expect(existsSync(testDir)).toBe(false);
    expect(existsSync(eachDirs[0]!)).toBe(false);
    expect(existsSync(eachDirs[1]!)).toBe(true);
  });
});

describe('after that describe', () => {
  it('its directory is gone, the file’s is still there', () => {
    expect(suiteDir).not.toBe('');
    expect(existsSync(suiteDir)).toBe(false);
    expect(existsSync(fileDir)).toBe(true);
  });
});

describe.concurrent('in concurrent tests', () => {
  it('refuses: global hooks cannot tell which concurrent test is running', () => {
    expect(() => useTempDir('rpcload-temp-dir-concurrent-')).toThrow(
      /concurrent test .* at the file or describe level/,
    );
  });
});
