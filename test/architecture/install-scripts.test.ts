/**
 * A new user's first `npm ci` is quiet: npm 11 warns about every dependency whose install script
 * `package.json`'s `allowScripts` has no entry for (and skips the script). Every package the lock
 * file marks with an install script must have one — approved or denied, with a reason in
 * docs/development.md.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (file: string): unknown => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));
const manifest = read('package.json') as { allowScripts?: Record<string, boolean> };
const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };

/** The names of the installed packages that have an install script. */
const withInstallScripts = Object.entries(lock.packages)
  .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true)
  .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));

describe('install scripts', () => {
  it('lists some (else this test checks nothing)', () => {
    expect(withInstallScripts.length).toBeGreaterThan(0);
  });

  it.each(withInstallScripts)('%s has an allowScripts entry', (name) => {
    const entries = Object.keys(manifest.allowScripts ?? {}).map((key) => key.replace(/(.)@.*$/, '$1'));
    expect(entries).toContain(name);
  });
});
