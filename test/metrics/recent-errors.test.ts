import { describe, expect, it } from 'vitest';
import { MAX_RECENT_ERRORS, mergeRecentErrors, RecentErrors } from '../../src/metrics/recent-errors.ts';

describe('RecentErrors', () => {
  it('counts repeats of one error with its first and latest time', () => {
    const errors = new RecentErrors();
    const times = [5, 9, 14];
    for (const t of times) errors.record('api', 'http:502', 'Bad Gateway', t);
    expect(errors.list()).toEqual([
      {
        source: 'api',
        outcome: 'http:502',
        detail: 'Bad Gateway',
        count: times.length,
        firstAtMs: times[0],
        lastAtMs: times.at(-1),
      },
    ]);
  });

  it('keeps api and token failures with the same text apart', () => {
    const errors = new RecentErrors();
    errors.record('api', 'error:x', 'd', 1);
    errors.record('token', 'error:x', 'd', 2);
    expect(errors.list().map((e) => e.source)).toEqual(['token', 'api']);
  });

  it('stays bounded, dropping the least recently seen distinct error first', () => {
    const errors = new RecentErrors();
    const distinct = MAX_RECENT_ERRORS * 4;
    errors.record('api', 'error:keep', 'seen again and again', 0);
    for (let i = 0; i < distinct; i++) {
      errors.record('api', 'transport:UND_ERR_SOCKET', `request ${i}`, i + 1);
      errors.record('api', 'error:keep', 'seen again and again', i + 1); // refreshed: never evicted
    }
    const list = errors.list();
    expect(errors.size).toBe(MAX_RECENT_ERRORS);
    expect(list.find((e) => e.outcome === 'error:keep')?.count).toBe(distinct + 1);
    // The survivors are the most recent distinct details.
    expect(list.filter((e) => e.outcome !== 'error:keep').map((e) => e.detail)).toEqual(
      Array.from({ length: MAX_RECENT_ERRORS - 1 }, (_, k) => `request ${distinct - 1 - k}`),
    );
  });

  it('sanitizes server text (no escape sequences reach a terminal)', () => {
    const errors = new RecentErrors();
    errors.record('api', 'error:\u001b]0;pwned\u0007x', 'body \u001b[31mred\u001b[0m\nline', 1);
    const [e] = errors.list();
    // eslint-disable-next-line no-control-regex
    expect(e!.outcome + e!.detail).not.toMatch(/[\u0000-\u001f]/);
    expect(e!.detail).toBe('body red line');
  });

  it('merges lists: same error summed, time span widened, most recent kept', () => {
    const a = [{ source: 'api' as const, outcome: 'http:502', detail: 'x', count: 2, firstAtMs: 10, lastAtMs: 20 }];
    const b = [
      { source: 'api' as const, outcome: 'http:502', detail: 'x', count: 3, firstAtMs: 5, lastAtMs: 15 },
      { source: 'token' as const, outcome: 'error:invalid_client', detail: 'y', count: 1, firstAtMs: 30, lastAtMs: 30 },
    ];
    expect(mergeRecentErrors([a, b])).toEqual([
      { ...b[1] },
      { source: 'api', outcome: 'http:502', detail: 'x', count: 5, firstAtMs: 5, lastAtMs: 20 },
    ]);
    const many = Array.from({ length: MAX_RECENT_ERRORS + 10 }, (_, i) => ({ ...a[0]!, detail: `d${i}`, lastAtMs: i }));
    expect(mergeRecentErrors([many])).toHaveLength(MAX_RECENT_ERRORS);
  });
});
