/**
 * Reading what `--metrics-listen` serves: scrape it, parse the Prometheus text format into
 * samples and TYPE lines, and sum series — so tests compare figures, not text.
 */
import { createServer } from 'node:net';

export interface PromSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Scrape {
  /** Metric family → type, from the `# TYPE` lines. */
  readonly types: ReadonlyMap<string, string>;
  readonly samples: readonly PromSample[];
}

/** Parse the text exposition format (the subset prom-client writes: no timestamps, escaped label values). */
export function parsePrometheusText(text: string): Scrape {
  const types = new Map<string, string>();
  const samples: PromSample[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('# TYPE ')) {
      const [, , name, type] = line.split(' ');
      types.set(name!, type!);
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const m of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[m[1]!] = m[2]!.replace(/\\n/g, '\n').replace(/\\(.)/g, '$1');
    const raw = match[3]!;
    samples.push({
      name: match[1]!,
      labels,
      value: raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw),
    });
  }
  return { types, samples };
}

/** GET the endpoint and parse it; throws on a non-200 answer. */
export async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
  if (response.status !== 200) throw new Error(`${url}: HTTP ${response.status}`);
  return parsePrometheusText(await response.text());
}

/** Sum of the samples named `name` whose labels include `where`, grouped by the label `by` (or one total under ''). */
export function sumBy(
  s: Scrape,
  name: string,
  by: string | null = null,
  where: Record<string, string> = {},
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const sample of s.samples) {
    if (sample.name !== name || Object.entries(where).some(([k, v]) => sample.labels[k] !== v)) continue;
    const key = by === null ? '' : (sample.labels[by] ?? '');
    out[key] = (out[key] ?? 0) + sample.value;
  }
  return out;
}

/** A TCP port free on 127.0.0.1 a moment ago (for servers that must be told their port up front). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

/** Counter series (and histogram buckets, sums and counts) whose value fell from one scrape to the next: none, ever, in a run. */
export function counterDecreases(scrapes: readonly Scrape[]): string[] {
  const seen = new Map<string, number>();
  const fell: string[] = [];
  for (const s of scrapes) {
    for (const sample of s.samples) {
      const type = s.types.get(sample.name.replace(/_(bucket|sum|count)$/, '')) ?? s.types.get(sample.name);
      if (type !== 'counter' && type !== 'histogram') continue;
      const key = `${sample.name}${JSON.stringify(sample.labels)}`;
      const before = seen.get(key) ?? 0;
      if (sample.value < before) fell.push(`${key}: ${before} → ${sample.value}`);
      seen.set(key, sample.value);
    }
  }
  return fell;
}
