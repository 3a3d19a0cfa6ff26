/**
 * Which client sends the next arrival: smooth weighted round-robin (nginx's algorithm) over the
 * clients that are available now. Even spreading keeps every client under its quota unless the
 * profile's rate or weights say otherwise; a client backing off for its Retry-After, or without a
 * token yet, is passed over and the arrival goes to the next one.
 */
export interface PickerState {
  readonly weights: readonly number[];
  /** Running scores, one per client (mutated by pickClient). */
  readonly current: Float64Array;
  readonly totalWeight: number;
}

export function createPickerState(weights: readonly number[]): PickerState {
  return { weights, current: new Float64Array(weights.length), totalWeight: weights.reduce((a, b) => a + b, 0) };
}

/**
 * Pick the next client index, or -1 when no client is available. Only available clients take
 * part in the round, so a paused client does not bank credit and then burst when it returns.
 */
export function pickClient(state: PickerState, isAvailable: (index: number) => boolean): number {
  let best = -1;
  let availableWeight = 0;
  const { weights, current } = state;
  for (let i = 0; i < weights.length; i++) {
    if (!isAvailable(i)) continue;
    current[i] = current[i]! + weights[i]!;
    availableWeight += weights[i]!;
    if (best === -1 || current[i]! > current[best]!) best = i;
  }
  if (best !== -1) current[best] = current[best]! - availableWeight;
  return best;
}
