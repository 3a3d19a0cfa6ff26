/**
 * rpcload's own connection contract (src/driver/connection.ts): undici's handler interface — its
 * callbacks onConnect/onHeaders/onData/onComplete/onError, which undici 7 marks deprecated — is
 * implemented by one module only, the adapter that puts undici's Client behind the contract
 * (src/driver/undici-connection.ts). Read from the source text: a module that starts implementing
 * it again, or types a request with undici's DispatchHandler, fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const ADAPTER = 'driver/undici-connection.ts';

/** A method of undici's handler interface defined in a class or object, or its handler type named. */
const HANDLER_INTERFACE =
  /^\s*(?:public\s+|private\s+)?on(?:Connect|Headers|Data|Complete|Error)\s*\(|DispatchHandler/m;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe("undici's handler interface", () => {
  const onIt = sourceFiles(SRC)
    .filter((file) => HANDLER_INTERFACE.test(readFileSync(file, 'utf8')))
    .map((file) => relative(SRC, file));

  it('is implemented by the undici adapter only', () => {
    expect(onIt).toEqual([ADAPTER]);
  });

  it('is recognised where it is (the check can fail)', () => {
    expect(HANDLER_INTERFACE.test('  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {')).toBe(true);
    expect(HANDLER_INTERFACE.test('  onResponseHead(status: number, headers: readonly string[]): void {')).toBe(false);
  });
});
