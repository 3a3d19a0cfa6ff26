/** The tool's own name and version, read once from package.json (works from src/ and dist/). */
import { readFileSync } from 'node:fs';

function readPackageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

export const TOOL = { name: 'rpcload', version: readPackageVersion() } as const;
