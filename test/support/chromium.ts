/**
 * The headless Chromium the report test drives: the system's when there is one (Debian's
 * /usr/bin/chromium, as CI installs it), else the build that ships inside the @sparticuz/chromium
 * npm package (unpacked to the temp directory on first use), so `npm ci && npm test` passes on a
 * machine with only Node.js and npm.
 */
import { existsSync } from 'node:fs';

const SYSTEM_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** Flags for a headless run with no network of its own. */
const HEADLESS_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface ChromiumLaunch {
  readonly executablePath: string;
  readonly args: readonly string[];
  /** Where it came from, for messages. */
  readonly source: 'system' | 'npm';
}

/** RPCLOAD_CHROMIUM=/path overrides; then the system's; then the npm package's. */
export async function chromiumLaunch(env: NodeJS.ProcessEnv = process.env): Promise<ChromiumLaunch> {
  const system = env.RPCLOAD_CHROMIUM ?? SYSTEM_CHROMIUM.find((path) => existsSync(path));
  if (system !== undefined) return { executablePath: system, args: HEADLESS_ARGS, source: 'system' };
  const { default: packaged } = await import('@sparticuz/chromium');
  // Not the package's own flag set: it is meant for serverless sandboxes (--single-process, which
  // ends the browser with its first closed page; --disable-web-security, which a test of the
  // report's Content-Security-Policy must not have). Its build runs with the plain headless flags.
  return { executablePath: await packaged.executablePath(), args: [...HEADLESS_ARGS, '--no-zygote'], source: 'npm' };
}
