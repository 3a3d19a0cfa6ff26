// The bench's reference row: a bare undici dispatch loop with no rpcload code around it — one
// undici Client per connection, each sending the bench request again as soon as the last one
// ended, with a handler that does nothing. Its CPU per request is the floor of any client built on
// undici (issue 24). Plain JavaScript on purpose: run by plain `node`, like autocannon's CLI, so no
// TypeScript loader's start-up is charged to it when the bench measures it from outside.
//
// node test/bench/bare-undici-loop.js URL DURATION_S CONNECTIONS HEADERS_JSON BODY
// prints one JSON line: {"requests": N, "durationS": D, "errors": E}
/* global process, Buffer, URL, performance, setTimeout */
import { Client } from 'undici';

const [url, durationText, connectionsText, headersJson, body] = process.argv.slice(2);
if (url === undefined || body === undefined) {
  process.stderr.write('usage: node bare-undici-loop.js URL DURATION_S CONNECTIONS HEADERS_JSON BODY\n');
  process.exit(2);
}
const durationMs = Number(durationText) * 1000;
const { origin, pathname } = new URL(url);
const headers = Object.entries(JSON.parse(headersJson)).flat();
const bodyBytes = Buffer.from(body);
let requests = 0;
let errors = 0;
let stopped = false;

function loop(client) {
  if (stopped) return;
  client.dispatch(
    { origin, path: pathname, method: 'POST', headers, body: bodyBytes },
    {
      onConnect() {},
      onHeaders() {
        return true;
      },
      onData() {
        return true;
      },
      onComplete() {
        if (!stopped) requests++;
        loop(client);
      },
      onError() {
        if (!stopped) errors++;
        loop(client);
      },
    },
  );
}

const clients = Array.from({ length: Number(connectionsText) }, () => new Client(origin, { pipelining: 1 }));
const startedMs = performance.now();
for (const client of clients) loop(client);
await new Promise((resolve) => setTimeout(resolve, durationMs));
stopped = true;
const durationS = (performance.now() - startedMs) / 1000;
process.stdout.write(`${JSON.stringify({ requests, durationS, errors })}\n`);
await Promise.all(clients.map((client) => client.destroy().catch(() => undefined)));
