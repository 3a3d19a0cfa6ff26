// A reference for the open model's schedule lag: a bare undici open loop with no rpcload code —
// arrivals at a fixed rate over a set of connections (a free one taken from a stack, the most
// recently freed first, as rpcload does), paced by setImmediate, each arrival's lag (its send −
// its due moment) recorded after a warm-up. An arrival that finds every connection busy waits for
// the next free one, as in rpcload, and its wait counts as lag. Run beside rpcload's open-model
// runs on the same machine, it tells the lag every client on undici meets there from rpcload's own.
// Plain JavaScript, run by plain `node` (see bare-undici-loop.js).
//
// node test/bench/bare-undici-open-loop.js URL RATE_PER_S DURATION_S CONNECTIONS WARM_UP_S HEADERS_JSON BODY
// prints one JSON line: {"rate", "sent", "waitedForAConnection", "lagP50Ms", "lagP99Ms", "lagMaxMs", "lagOver1Ms"}
/* global process, Buffer, URL, performance, setImmediate, setTimeout */
import { Client } from 'undici';

const [url, rateText, durationText, connectionsText, warmUpText, headersJson, body] = process.argv.slice(2);
if (url === undefined || body === undefined) {
  process.stderr.write(
    'usage: node bare-undici-open-loop.js URL RATE_PER_S DURATION_S CONNECTIONS WARM_UP_S HEADERS_JSON BODY\n',
  );
  process.exit(2);
}
const periodMs = 1000 / Number(rateText);
const durationMs = Number(durationText) * 1000;
const warmUpMs = Number(warmUpText) * 1000;
const { origin, pathname } = new URL(url);
const headers = Object.entries(JSON.parse(headersJson)).flat();
const bodyBytes = Buffer.from(body);
const request = { origin, path: pathname, method: 'POST', headers, body: bodyBytes };

const clients = Array.from({ length: Number(connectionsText) }, () => new Client(origin, { pipelining: 1 }));
/** Free connections, the next to take on top. */
const free = clients.map((_, index) => index).reverse();
/** Due moments of arrivals waiting for a connection, oldest first. */
const waiting = [];
const lags = [];
let startMs = 0;
let sent = 0;
let waited = 0;

function send(index, dueMs) {
  if (dueMs - startMs >= warmUpMs) lags.push(performance.now() - dueMs);
  sent++;
  const release = () => {
    const next = waiting.shift();
    if (next === undefined) free.push(index);
    else send(index, next);
  };
  clients[index].dispatch(request, {
    onConnect() {},
    onHeaders: () => true,
    onData: () => true,
    onComplete: release,
    onError: release,
  });
}

// Every connection open and used once before the clock starts, as rpcload's are.
await Promise.all(clients.map((client) => client.request(request).then((answer) => answer.body.dump())));
startMs = performance.now();
let arrivals = 0;
await new Promise((resolve) => {
  const tick = () => {
    const elapsedMs = performance.now() - startMs;
    while (arrivals * periodMs <= elapsedMs && arrivals * periodMs < durationMs) {
      const dueMs = startMs + arrivals * periodMs;
      arrivals++;
      const index = free.pop();
      if (index !== undefined) send(index, dueMs);
      else {
        waited++;
        waiting.push(dueMs);
      }
    }
    if (arrivals * periodMs >= durationMs) resolve();
    else setImmediate(tick);
  };
  tick();
});
// The arrivals still waiting for a connection go out first (their lag counts), for 5 s at most.
const drainUntilMs = performance.now() + 5000;
while (waiting.length > 0 && performance.now() < drainUntilMs) await new Promise((resolve) => setTimeout(resolve, 10));
lags.sort((a, b) => a - b);
const at = (q) => Number(lags[Math.min(lags.length - 1, Math.floor(lags.length * q))].toFixed(3));
process.stdout.write(
  `${JSON.stringify({
    rate: Number(rateText),
    sent,
    waitedForAConnection: waited,
    lagP50Ms: at(0.5),
    lagP99Ms: at(0.99),
    lagMaxMs: Number(lags.at(-1).toFixed(3)),
    lagOver1Ms: lags.filter((lag) => lag > 1).length,
  })}\n`,
);
await Promise.all(clients.map((client) => client.destroy().catch(() => undefined)));
