/**
 * A load worker thread of `rpcload run --workers N`: runs its share of the plan with its own
 * pool, engine and recorder on the run's shared clock origin, pushes live snapshots, and reports
 * its recorded data when done — also when stopped early.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { LiveSnapshot } from '../../contract/live-snapshot.ts';
import { RunClock } from '../../driver/run-clock.ts';
import { runLoad } from '../../driver/run-load.ts';
import { describeError, RpcloadError } from '../../errors.ts';
import { Recorder } from '../../metrics/recorder.ts';
import { registerPlanSecrets } from '../../profile/plan-secrets.ts';
import { newLoadGaugesProbe, readLiveGauges, readLoadMetrics } from '../../prometheus/load-metrics.ts';
import { dimensionsOf } from '../recorder-dimensions.ts';
import type { FromWorker, LoadWorkerData, ToWorker } from './load-worker-protocol.ts';

const SNAPSHOT_EVERY_MS = 500;
/** With `--metrics-listen`, every other snapshot also carries the metrics: read at most once a second. */
const METRICS_EVERY_SNAPSHOTS = 2;

const port = parentPort!;
const { plan, metrics: metricsOptions, setupValues } = workerData as LoadWorkerData;
const post = (message: FromWorker): void => port.postMessage(message);

async function main(): Promise<void> {
  // This thread's redactor: the secrets are known before any reply could echo them.
  registerPlanSecrets(plan);
  const recorder = new Recorder(dimensionsOf(plan), { rateLimit: plan.rateLimit });
  const clock = new RunClock();
  const abort = new AbortController();
  let startOrigin: ((originMs: number | null) => void) | null = null;
  const origin = new Promise<number | null>((resolve) => (startOrigin = resolve));
  port.on('message', (message: ToWorker) => {
    if (message.type === 'start') startOrigin?.(message.originMs);
    else if (message.type === 'stop') {
      abort.abort();
      startOrigin?.(null);
    } else if (message.type === 'serialize') {
      if (message.scope === 'selections')
        return post({ type: 'serialized', id: message.id, data: recorder.selectionsOnly() });
      // A checkpoint while the load runs: encoded in slices, not one long stop of this thread's sending loop.
      void recorder.serializeGradually().then((data) => post({ type: 'serialized', id: message.id, data }));
    }
  });
  const probe = newLoadGaugesProbe();
  const postMetrics = (live?: LiveSnapshot): void => {
    const metrics = metricsOptions === null ? null : readLoadMetrics(recorder, clock, probe, metricsOptions, live);
    if (metrics !== null) post({ type: 'metrics', metrics });
  };
  let ticks = 0;
  const snapshots = setInterval(() => {
    if (!clock.started) return;
    const nowMs = clock.now();
    const snapshot = recorder.snapshot(nowMs);
    post({ type: 'snapshot', snapshot, gauges: readLiveGauges(probe, nowMs) });
    if (++ticks % METRICS_EVERY_SNAPSHOTS === 0) postMetrics(snapshot);
  }, SNAPSHOT_EVERY_MS);
  try {
    const outcome = await runLoad({
      plan,
      baseUrl: plan.target!,
      recorder,
      clock,
      signal: abort.signal,
      setupValues,
      onStart: (gauges) => (probe.gauges = gauges),
      startClock: async () => {
        post({ type: 'ready' });
        const originMs = await origin;
        if (originMs === null)
          clock.start(); // stopped before the start: end at once, data empty
        else clock.startAt(originMs);
      },
    });
    // The final figures before 'done' (same port, same order): the endpoint's end counts are the result's.
    postMetrics();
    post({ type: 'done', outcome, data: recorder.serialize() });
  } finally {
    clearInterval(snapshots);
  }
}

main().catch((err: unknown) =>
  post({ type: 'failed', message: describeError(err), code: err instanceof RpcloadError ? err.code : null }),
);
