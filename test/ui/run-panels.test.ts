import { describe, expect, it } from 'vitest';
import { backoffLeftMs, clientsLines, clientsTitle, pickClients } from '../../src/ui/dashboard/clients-panel.ts';
import { headerLines } from '../../src/ui/dashboard/header-panel.ts';
import { logLines } from '../../src/ui/dashboard/log-panel.ts';
import { outcomesLines, outcomesTitle } from '../../src/ui/dashboard/outcomes-panel.ts';
import { lagIsBehind, percentilesLines, percentilesTitle } from '../../src/ui/dashboard/percentiles-panel.ts';
import { outcomeRate, RateWindow } from '../../src/ui/dashboard/run-model.ts';
import { lineText, type StyledLine } from '../../src/ui/text/styled.ts';
import { client, HEADER, model, percentiles, snapshot } from '../support/live-fixtures.ts';

const texts = (lines: readonly StyledLine[]): string[] => lines.map(lineText);
const styleOf = (line: StyledLine, text: string): string | null | undefined =>
  line.find((s) => s.text.includes(text))?.style;

describe('header', () => {
  it('shows profile, target, model, phase, progress and result path', () => {
    const [l1, l2, l3] = texts(headerLines(model(), 80));
    expect(l1).toMatch(/^rpcload run · demo · http:\/\/127\.0\.0\.1:41234 +ramp 5→60\/s · rate 60\/s$/);
    expect(l2).toMatch(/^phase 2\/2 steady \(rate 60\/s\) +█+░+ 12\.4s \/ 30s 41%$/);
    expect(l3).toMatch(/^result results\/20250101T120000Z-demo\.json +1,234 req · 60\.0\/s +\? help +q stop$/);
    for (const line of [l1, l2, l3]) expect(line!.length).toBeLessThanOrEqual(80);
  });

  it('says STOPPING once the user asked to stop, instead of the key hints', () => {
    const l3 = headerLines(model({ stopping: true }), 80)[2]!;
    expect(lineText(l3)).toMatch(/STOPPING…/);
    expect(lineText(l3)).not.toMatch(/q stop/);
  });

  it('cuts a long target, never the right-hand side', () => {
    const long = model({ header: { ...HEADER, target: `https://${'x'.repeat(120)}.example` } });
    const l1 = lineText(headerLines(long, 80)[0]!);
    expect(l1).toHaveLength(80);
    expect(l1).toMatch(/x… +ramp 5→60\/s · rate 60\/s$/);
  });

  it('stops the clock at the total once the run overruns it', () => {
    expect(lineText(headerLines(model({ snapshot: snapshot({ elapsedMs: 31_500 }) }), 80)[1]!)).toMatch(
      /30s \/ 30s 100%$/,
    );
  });
});

describe('percentiles', () => {
  it('lists latency and service time side by side, and lag p99', () => {
    expect(texts(percentilesLines(model(), 24, 7))).toEqual([
      '        latency  service',
      'p50        21.3     20.9',
      'p90        85.2     83.6',
      'p99         213      209',
      'p99.9       256      251',
      'max         320      314',
      'lag p99    1.20  ok',
    ]);
  });

  it.each([
    [1.2, false],
    [5, false],
    [5.01, true],
    [null, false],
  ])('lag p99 %s ms: behind = %s', (lag, behind) => expect(lagIsBehind(lag)).toBe(behind));

  it('warns when the generator falls behind', () => {
    const behind = model({ snapshot: snapshot({ scheduleLagMs: percentiles(1.5) }) }); // p99 = 15 ms
    const lag = percentilesLines(behind, 24, 7)[6]!;
    expect(lineText(lag)).toBe('lag p99    15.0  BEHIND');
    expect(styleOf(lag, 'BEHIND')).toBe('bad');
    expect(texts([percentilesTitle(behind)])[0]).toMatch(/lag high!/);
  });

  it('says closed model when there is no schedule', () => {
    expect(lineText(percentilesLines(model({ snapshot: snapshot({ scheduleLagMs: null }) }), 24, 7)[6]!)).toMatch(
      /lag p99 +– +closed model/,
    );
  });

  it('keeps p50, p99 and lag when short of rows', () => {
    expect(texts(percentilesLines(model(), 24, 4)).map((l) => l.split(/ +/)[0])).toEqual(['', 'p50', 'p99', 'lag']);
  });

  it('shows dashes before the first response', () => {
    expect(lineText(percentilesLines(model({ snapshot: snapshot({ requests: 0 }) }), 24, 7)[1]!)).toMatch(
      /^p50 +– +–$/,
    );
  });
});

describe('outcomes', () => {
  it('lists success first, then by count, with share and rate', () => {
    // 48 cells: the outcomes panel's content width at 80 columns
    const lines = outcomesLines(model(), 48, 7);
    expect(texts(lines).slice(0, 4)).toEqual([
      'success                     1,180  95.6%  95.2/s',
      'error:rate_limit_exceeded      40   3.2%   3.2/s',
      'error:unexpected_error         12   1.0%   1.0/s',
      'transport:UND_ERR_SOCKET        2   0.2%   0.2/s',
    ]);
    expect([styleOf(lines[0]!, 'success'), styleOf(lines[1]!, 'error:rate'), styleOf(lines[2]!, 'error:unex')]).toEqual(
      ['ok', 'warn', 'bad'],
    );
    expect(lineText(lines[4]!)).toMatch(/^tokens 24 · 0 failed · p50 99\.0 ms/);
  });

  it('uses the rate over the recent window once there is an earlier mark', () => {
    const earlier = { elapsedMs: 2400, outcomes: { success: 180 } };
    const m = model({ earlier });
    expect(lineText(outcomesLines(m, 48, 7)[0]!)).toMatch(/ 100\/s$/); // (1180 - 180) / 10 s
    expect(lineText(outcomesTitle(m))).toBe('outcomes · rate over 10s');
  });

  it('shows arrivals that were not sent, and "+N more" when out of rows', () => {
    const m = model({ snapshot: snapshot({ skipped: { 'all clients backing off': 7 } }) });
    expect(texts(outcomesLines(m, 48, 9))).toContainEqual(
      expect.stringMatching(/^not sent: all clients backing off +7$/),
    );
    expect(texts(outcomesLines(m, 48, 3))).toEqual([
      expect.stringMatching(/^success/),
      expect.stringMatching(/^error:rate/),
      '+4 more',
    ]);
  });

  it('sanitizes outcome keys that came from the server', () => {
    const m = model({ snapshot: snapshot({ outcomes: { 'error:\u001b[2Jwipe\u0007': 3 }, requests: 3 }) });
    expect(lineText(outcomesLines(m, 48, 3)[0]!)).toMatch(/^error:wipe /);
  });
});

describe('recent rates', () => {
  it('keeps the oldest mark inside the window and forgets older ones', () => {
    const window = new RateWindow(10_000);
    const mark = (s: number): { elapsedMs: number; outcomes: Record<string, number> } => ({
      elapsedMs: s * 1000,
      outcomes: { success: s * 10 },
    });
    expect(window.push(mark(0))).toBeNull();
    expect(window.push(mark(5))?.elapsedMs).toBe(0);
    expect(window.push(mark(10))?.elapsedMs).toBe(0);
    expect(window.push(mark(12))?.elapsedMs).toBe(0); // 0 s is the newest mark at or before 12 - 10 s
    expect(window.push(mark(16))?.elapsedMs).toBe(5000);
    expect(window.push(mark(30))?.elapsedMs).toBe(16_000);
  });

  it.each([
    // since an earlier mark
    [{ elapsedMs: 10_000, outcomes: { success: 500 } }, { elapsedMs: 5000, outcomes: { success: 200 } }, 60],
    // an outcome the earlier mark had not seen yet
    [{ elapsedMs: 10_000, outcomes: { success: 500 } }, { elapsedMs: 5000, outcomes: {} }, 100],
    // no earlier mark: the average since the start
    [{ elapsedMs: 4000, outcomes: { success: 100 } }, null, 25],
    [{ elapsedMs: 0, outcomes: {} }, null, 0],
  ])('outcomeRate %#', (current, earlier, rate) => expect(outcomeRate('success', current, earlier)).toBe(rate));
});

describe('clients', () => {
  const clients = [
    client('quiet', { sent: 10 }),
    client('busy', { sent: 90 }),
    client('refused', { sent: 50, refused: 5 }),
    client('backing-off', { sent: 20, refused: 1, lastRetryAfterS: 5, lastRetryAfterAtMs: 8000 }),
    client('was-backing-off', { sent: 30, refused: 9, lastRetryAfterS: 1, lastRetryAfterAtMs: 1000 }),
  ];

  it.each([
    // the Retry-After countdown runs from the 429's completion
    [5, 8000, 9000, 4000],
    [5, 8000, 13_000, 0],
    [5, 8000, 20_000, 0],
    [null, null, 9000, 0],
  ])('Retry-After %s s at %s ms, now %s ms: %s ms left', (seconds, atMs, nowMs, left) => {
    expect(backoffLeftMs(client('c', { lastRetryAfterS: seconds, lastRetryAfterAtMs: atMs }), nowMs)).toBe(left);
  });

  it('orders backing off first, then most refused, then busiest', () => {
    expect(pickClients(clients, 10_000, 5).map((c) => c.id)).toEqual([
      'backing-off',
      'was-backing-off',
      'refused',
      'busy',
      'quiet',
    ]);
    expect(pickClients(clients, 10_000, 2).map((c) => c.id)).toEqual(['backing-off', 'was-backing-off']);
  });

  it('shows sent, admitted, refused, window quota and the countdown', () => {
    const lines = clientsLines(model(), 44, 4);
    expect(texts(lines)).toEqual([
      'client         sent   adm  429 win/100  wait',
      'client-1        240   200   40     100  4.2s', // Retry-After 6 s, 1.8 s ago
      'client-2         52    52    0      85      ',
      'client-3         47    47    0      12      ',
    ]);
    expect(styleOf(lines[1]!, '    100')).toBe('bad'); // the whole quota used
    expect(styleOf(lines[2]!, '     85')).toBe('warn'); // over 80 %
    expect(lineText(clientsTitle(model(), 4))).toBe('clients · 3 of 5, most throttled first');
  });

  it('shows the window count alone without a contract, and sanitizes client ids', () => {
    const m = model({
      header: { ...HEADER, rateLimit: null },
      snapshot: snapshot({ clients: [client('evil\u001b]0;title\u0007id')] }),
    });
    expect(texts(clientsLines(m, 44, 3))).toEqual([
      'client         sent   adm  429  window  wait',
      'evilid           40    40    0      12      ',
    ]);
  });
});

describe('log', () => {
  it('lists distinct errors, latest first, with counts and age; two lines each when narrow', () => {
    expect(texts(logLines(model(), 30, 4))).toEqual([
      '  12× error:unexpected_error',
      '      0.4s ago  flaky method failed on purpose',
      '   2× transport:UND_ERR_SOCKET',
      '      7.2s ago  other side closed',
    ]);
    // wide, but not enough rows for two lines each: one line per error
    expect(texts(logLines(model(), 80, 3))).toEqual([
      '  12× error:unexpected_error 0.4s ago  flaky method failed on purpose',
      '   2× transport:UND_ERR_SOCKET 7.2s ago  other side closed',
    ]);
  });

  it('puts stderr notices first, newest first', () => {
    expect(texts(logLines(model({ notices: ['first', 'rpcload: stopping'] }), 80, 3))).toEqual([
      'rpcload: stopping',
      'first',
      expect.stringMatching(/12× error:unexpected_error/),
    ]);
  });

  it('marks token failures and says when there are no errors', () => {
    const token = {
      source: 'token' as const,
      outcome: 'http:401',
      detail: 'invalid_client',
      count: 1,
      firstAtMs: 0,
      lastAtMs: 0,
    };
    expect(texts(logLines(model({ snapshot: snapshot({ recentErrors: [token], elapsedMs: 1000 }) }), 80, 2))).toEqual([
      '   1× token http:401',
      '      1.0s ago  invalid_client',
    ]);
    expect(texts(logLines(model({ snapshot: snapshot({ recentErrors: [] }) }), 80, 2))).toEqual(['no errors so far']);
  });
});
