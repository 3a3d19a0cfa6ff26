import { describe, expect, it } from 'vitest';
import { nextStep, type SearchPoint, type SearchSettings } from '../../src/session/capacity/search.ts';

const SETTINGS: SearchSettings = { start: 20, factor: 2, tolerance: 0.05, maxSteps: 30, integer: false };

/** Run the search against a pass/fail oracle; returns the loads tried and the end. */
function search(
  passes: (load: number) => boolean,
  settings = SETTINGS,
  ceiling: Parameters<typeof nextStep>[2] = null,
) {
  const points: SearchPoint[] = [];
  for (;;) {
    const next = nextStep(settings, points, ceiling);
    if (next.kind === 'done') return { points, next };
    points.push({ load: next.load, pass: passes(next.load) });
  }
}

describe('the capacity search', () => {
  it('grows by the factor, then bisects to a bracket within the tolerance that holds the knee', () => {
    const { points, next } = search((load) => load <= 300);
    expect(points.slice(0, 6).map((p) => p.load)).toEqual([20, 40, 80, 160, 320, 240]);
    expect(next).toMatchObject({ kind: 'done', reason: 'bracketed' });
    if (next.kind !== 'done') return;
    expect(next.lastPass).toBeLessThanOrEqual(300);
    expect(next.firstFail).toBeGreaterThan(300);
    expect((next.firstFail! - next.lastPass!) / next.lastPass!).toBeLessThanOrEqual(0.05);
  });

  it('steps down from a failing start', () => {
    const { points, next } = search((load) => load <= 7);
    expect(points.slice(0, 3).map((p) => p.load)).toEqual([20, 10, 5]);
    expect(next).toMatchObject({ kind: 'done', reason: 'bracketed' });
  });

  it('stops at a ceiling that passes, and never steps above it', () => {
    const { points, next } = search(() => true, SETTINGS, { value: 216, reason: 'client quota' });
    expect(Math.max(...points.map((p) => p.load))).toBe(216);
    expect(next).toMatchObject({ kind: 'done', reason: 'ceiling', lastPass: 216, firstFail: null });
  });

  it('searches whole virtual users in the closed model', () => {
    const { points, next } = search((load) => load <= 13, { ...SETTINGS, start: 1, integer: true });
    expect(points.every((p) => Number.isInteger(p.load))).toBe(true);
    expect(next).toMatchObject({ kind: 'done', lastPass: 13, firstFail: 14 });
  });

  it('gives up after maxSteps, and when nothing passes', () => {
    expect(search(() => true, { ...SETTINGS, maxSteps: 4 }).next).toMatchObject({ reason: 'max steps', lastPass: 160 });
    expect(search(() => false).next).toMatchObject({ reason: 'nothing passed', lastPass: null });
  });
});
