/**
 * Temporary directories for tests, always removed. `useTempDir(prefix)` makes one at once and
 * registers its removal where it was called: at the top of a file or in a describe, after that
 * suite's last test (shared by its tests); inside a test or a beforeEach, when that test finishes.
 * Concurrent tests make theirs inside one made at the file or describe level: global test hooks
 * cannot tell which of them is running, so useTempDir refuses to be called from one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished, TestRunner } from 'vitest';

/** A fresh directory in the OS temp directory, named `<prefix>XXXXXX`, removed with everything in it. */
export function useTempDir(prefix = 'rpcload-test-'): string {
  const test = TestRunner.getCurrentTest();
  if (test?.concurrent === true)
    throw new Error(
      `useTempDir in the concurrent test "${test.name}": make the directory at the file or describe level`,
    );
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = (): void => rmSync(dir, { recursive: true, force: true });
  if (test === undefined) afterAll(remove);
  else onTestFinished(remove);
  return dir;
}
