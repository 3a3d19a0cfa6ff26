/** Axis arithmetic for the report's charts, pure. */

export interface Tick {
  readonly value: number;
  readonly label: string;
}

/** A "nice" step (1, 2 or 5 × 10^k) that cuts `span` into about `count` pieces. */
export function niceStep(span: number, count: number): number {
  if (!(span > 0)) return 1;
  const raw = span / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw);
  return step ?? 10 * magnitude;
}

/** Ticks from 0 to at least `max`, about `count` of them; the last tick is the axis end. */
export function ticksFromZero(max: number, count: number, format: (value: number) => string = String): Tick[] {
  const step = niceStep(max > 0 ? max : 1, count);
  const ticks: Tick[] = [];
  // Decimal steps accumulate float error; derive each tick from its index and round to the step's precision.
  const decimals = Math.max(0, -Math.floor(Math.log10(step)));
  for (let i = 0; i === 0 || ticks[ticks.length - 1]!.value < max; i++) {
    const value = Number((i * step).toFixed(decimals));
    ticks.push({ value, label: format(value) });
  }
  if (ticks.length === 1) ticks.push({ value: step, label: format(step) });
  return ticks;
}

/** A linear map from a domain onto a pixel range. */
export function linearScale(domain: readonly [number, number], range: readonly [number, number]): (value: number) => number {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  const span = d1 - d0 || 1;
  return (value) => r0 + ((value - d0) / span) * (r1 - r0);
}
