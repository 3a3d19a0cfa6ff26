import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RpcloadError } from '../../src/errors.ts';
import { defaultProfilePath, loadPlan, loadProfile } from '../../src/profile/load-profile.ts';
import { rateLoad } from '../../src/profile/phase-load.ts';
import { ProfileError } from '../../src/profile/problems.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-load-');
const write = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const minimal = '"scenarios": [{ "steps": [{ "method": "ping" }] }], "phases": [{ "duration": "1s", "rate": 1 }]';

async function failure(promise: Promise<unknown>): Promise<RpcloadError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof RpcloadError) return err;
    throw err;
  }
  throw new Error('expected an RpcloadError');
}

describe('loadProfile: one-line errors for unreadable and malformed files', () => {
  it.each([
    // a missing file
    ['missing.json', null, ': cannot read the profile (no such file)'],
    // a directory
    ['a-directory', 'dir', ': cannot read the profile (a directory)'],
    // a syntax error: line and column of the offending character
    ['syntax.json', '{\n  "name": "x"\n  "phases": []\n}', ": line 3, column 3: expected ',' or '}'"],
    // a trailing comma
    ['comma.json', '{ "name": "x", }', ': line 1, column 16: '],
    // an empty file
    ['empty.json', '', ': line 1, column 1: expected a JSON value'],
  ])('%s', async (name, content, message) => {
    const path = join(dir, name);
    if (content === 'dir') mkdirSync(path);
    else if (content !== null) writeFileSync(path, content);
    const error = await failure(loadProfile(path, {}));
    expect(error.code).toBe('bad_profile');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(`${path}${message}`);
    expect(error.message).not.toContain('\n');
  });

  it('accepts a file with a byte-order mark', async () => {
    await expect(loadProfile(write('bom.json', `\uFEFF{ ${minimal} }`), {})).resolves.toMatchObject({
      phases: [{ rate: 1 }],
    });
  });
});

describe('loadProfile: problems, one line each, prefixed with the file', () => {
  it('reports a missing variable once (not again as an invalid value), with the other problems', async () => {
    const path = write(
      'vars.json',
      `{ "target": "\${API_URL}", "clients": { "secret": "shh" }, "checkpointEvery": "soon", ${minimal} }`,
    );
    const error = await failure(loadProfile(path, {}));
    expect(error).toBeInstanceOf(ProfileError);
    expect(error.message.split('\n')).toEqual([
      `${path}: /target: expected environment variable API_URL to be set (or a default: \${API_URL:-…}), found it unset`,
      `${path}: /checkpointEvery: expected a duration like "500ms", "10s" or "1m30s", found "soon"`,
    ]);
    expect((error as ProfileError).problems.map((p) => p.path)).toEqual(['/target', '/checkpointEvery']);
  });

  it('keeps a key holding a newline or an escape sequence on its problem’s line, written as JSON writes it', async () => {
    const path = write(
      'keys.json',
      `{ "scenarios": [{ "steps": [{ "method": "ping" }] }], "phases": [{ "durati\\n": "1s", "rate": 1, "x\\u001b[2J": 1 }] }`,
    );
    const error = await failure(loadProfile(path, {}));
    expect(error.message.split('\n')).toEqual([
      expect.stringMatching(
        /^[^\n]*: \/phases\/0\/durati\\n: expected one of the properties .*, found unknown property "durati\\n"$/,
      ),
      expect.stringMatching(
        /^[^\n]*: \/phases\/0\/x\\u001b\[2J: expected one of the properties .*, found unknown property "x\\u001b\[2J"$/,
      ),
      `${path}: /phases/0/duration: expected a string (required), found nothing`,
    ]);
    expect(error.message).not.toContain('\u001b');
  });

  it('interpolates from the given environment, defaults included', async () => {
    const path = write(
      'env.json',
      `{ "target": "\${API_URL:-http://localhost:1}", "clients": { "count": 1, "secret": "\${S}" }, ${minimal} }`,
    );
    await expect(loadProfile(path, { S: 'x' })).resolves.toMatchObject({
      target: 'http://localhost:1',
      clients: { secret: 'x' },
    });
    await expect(loadProfile(path, { S: 'x', API_URL: 'https://api.example.com' })).resolves.toMatchObject({
      target: 'https://api.example.com',
    });
  });
});

describe('loadPlan', () => {
  it('names the plan after the file and resolves the secrets file relative to the profile, not the cwd', async () => {
    const sub = join(dir, 'nested');
    mkdirSync(sub);
    writeFileSync(join(sub, 'secrets.json'), '{ "c-1": "from-file" }');
    writeFileSync(
      join(sub, 'nightly.json'),
      `{ "target": "https://api.example.com", "clients": { "pattern": "c-{n}", "count": 1, "secretsFile": "secrets.json" }, ${minimal} }`,
    );
    const plan = await loadPlan(join(sub, 'nightly.json'), { load: rateLoad(3) }, {});
    expect(plan).toMatchObject({
      name: 'nightly',
      target: 'https://api.example.com',
      clients: [{ id: 'c-1', secret: 'from-file' }],
      phases: [{ load: { fromPerS: 3 } }],
    });
  });
});

describe('defaultProfilePath', () => {
  it('points at the package’s profiles/demo.json', () => {
    const path = defaultProfilePath();
    expect(basename(path)).toBe('demo.json');
    expect(existsSync(path)).toBe(true);
  });
});
