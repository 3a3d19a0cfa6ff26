// Throughput of the reference server's `ping` with a valid bearer token. The server runs in a
// child process (so its CPU time can be measured on its own); autocannon drives it from this
// process with 64 connections. Besides requests/s (bounded by whichever side saturates first: on
// a 2-core machine autocannon needs a core of its own), it prints what the server spent per
// request, i.e. what one fully busy server core would sustain.
// Run: npx tsx test/bench/server-ping.ts [durationS=10]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, cpus } from 'node:os';
import { createInterface } from 'node:readline';
import { request } from 'undici';

/** The parts of autocannon's programmatic API used here (it ships no types). */
interface AutocannonResult {
  readonly requests: { readonly average: number; readonly total: number };
  readonly latency: { readonly p50: number; readonly p99: number };
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
}
type Autocannon = (options: {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  connections: number;
  duration: number;
}) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const durationS = Number(process.argv[2] ?? 10);
const CONNECTIONS = 64;
const CLIENT_ID = 'client-bench';

/** CPU seconds (user + system) a process has used so far; undefined where /proc is missing. */
function cpuSeconds(pid: number): number | undefined {
  try {
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th of them.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks, USER_HZ = 100 on Linux
  } catch {
    return undefined;
  }
}

// A limit no run can reach: the benchmark measures the request path, not 429s.
const serverScript = `
  import { startServer } from ${JSON.stringify(new URL('../../src/server/start-server.ts', import.meta.url).href)};
  const server = await startServer({ limit: 1_000_000_000 });
  console.log(server.url);
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
`;
const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', serverScript], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise<string>((resolve, reject) => {
  createInterface({ input: child.stdout }).once('line', resolve);
  child.once('exit', () => reject(new Error('the server process exited before printing its URL')));
});
try {
  const tokenResponse = await request(`${url}/api/auth.token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `grant_type=client_credentials&client_id=${CLIENT_ID}&client_secret=demo-secret`,
  });
  const token = ((await tokenResponse.body.json()) as { data: { access_token: string } }).data.access_token;

  const cpuBefore = cpuSeconds(child.pid!);
  const result = await autocannon({
    url: `${url}/api/ping`,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: '{}',
    connections: CONNECTIONS,
    duration: durationS,
  });
  const cpuAfter = cpuSeconds(child.pid!);

  console.log(
    `machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), node ${process.version}`,
  );
  console.log(
    `ping, ${CONNECTIONS} connections, ${durationS} s: ${Math.round(result.requests.average)} requests/s (total ${result.requests.total})`,
  );
  console.log(
    `latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms; non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}`,
  );
  if (cpuBefore !== undefined && cpuAfter !== undefined && cpuAfter > cpuBefore) {
    const serverCpuS = cpuAfter - cpuBefore;
    console.log(
      `server CPU: ${serverCpuS.toFixed(2)} s (${Math.round((serverCpuS / durationS) * 100)}% of one core), ${Math.round((serverCpuS / result.requests.total) * 1e6)} µs per request → ~${Math.round(result.requests.total / serverCpuS)} requests/s per fully busy core`,
    );
  }
} finally {
  child.kill('SIGTERM');
}
