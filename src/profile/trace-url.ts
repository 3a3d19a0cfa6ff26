/**
 * Trace link templates (`--trace-url`, profile `report.traceUrl`): an http(s) URL with `{traceId}`
 * (and optionally `{spanId}`) where a tracing UI (Jaeger, Tempo, Grafana) shows a trace. Checked
 * where it is given, filled in where exemplars are rendered.
 */

/** What a template must look like (JSON Schema pattern): http(s), with {traceId} somewhere. */
export const TRACE_URL_PATTERN = '^https?://[^\\s]*\\{traceId\\}[^\\s]*$';
const TRACE_URL = new RegExp(TRACE_URL_PATTERN);

/** What a template must be, worded for "expected …" messages. */
export const TRACE_URL_EXPECTED =
  'an http:// or https:// URL containing {traceId}, e.g. "https://tempo.example/trace/{traceId}"';

export function isTraceUrlTemplate(template: string): boolean {
  return TRACE_URL.test(template);
}

/** The template with the ids filled in (ids are hex: nothing to escape). */
export function traceLink(template: string, traceId: string, spanId: string): string {
  return template.replaceAll('{traceId}', traceId).replaceAll('{spanId}', spanId);
}
