import { describe, expect, it } from 'vitest';
import { renderRunFrame } from '../../src/ui/dashboard/run-frame.ts';
import { frameToTags, frameToText, lineText } from '../../src/ui/text/styled.ts';
import { client, HEADER, model, snapshot } from '../support/live-fixtures.ts';

describe('run dashboard frame', () => {
  it('renders the whole screen at 80×24', () => {
    expect(`\n${frameToText(renderRunFrame(model(), { width: 80, height: 24 }))}\n`).toMatchInlineSnapshot(`
      "
      rpcload run · demo · http://127.0.0.1:41234              ramp 5→60/s · rate 60/s
      phase 2/2 steady (rate 60/s)  ██████████████░░░░░░░░░░░░░░░░░░░░ 12.4s / 30s 41%
      result results/20250101T120000Z-demo.json     1,234 req · 60.0/s  ? help  q stop
      ┌─ latency ms · overall ───┐┌─ outcomes · rate since start ────────────────────┐
      │         latency  service ││ success                     1,180  95.6%  95.2/s │
      │ p50        21.3     20.9 ││ error:rate_limit_exceeded      40   3.2%   3.2/s │
      │ p90        85.2     83.6 ││ error:unexpected_error         12   1.0%   1.0/s │
      │ p99         213      209 ││ transport:UND_ERR_SOCKET        2   0.2%   0.2/s │
      │ p99.9       256      251 ││ tokens 24 · 0 failed · p50 99.0 ms               │
      │ max         320      314 ││                                                  │
      │ lag p99    1.20  ok      ││                                                  │
      └──────────────────────────┘└──────────────────────────────────────────────────┘
      ┌─ throughput req/s · last 12s ────────┐┌─ latency ms p50 / p99 · last 12s ────┐
      │ ok   58.3                        ▅██ ││   250┤                         ⣄⡰⣤⢳⣄ │
      │     ↑60.0                       ▄███ ││      │                        ⠜⠘⠁⠋⠈⠸ │
      │ 429   1.3                        █ █ ││      │                               │
      │ err   0.3                       ▃▃ ▃ ││     0┤                        ⠤⠤⠤⠤⠤⠤ │
      └──────────────────────────────────────┘└──────────────────────────────────────┘
      ┌─ clients · 3 of 5, most throttled first ─────┐┌─ errors · 2 distinct ────────┐
      │ client         sent   adm  429 win/100  wait ││   12× error:unexpected_error │
      │ client-1        240   200   40     100  4.2s ││       0.4s ago  flaky method │
      │ client-2         52    52    0      85       ││    2× transport:UND_ERR_SOCK │
      │ client-3         47    47    0      12       ││       7.2s ago  other side c │
      └──────────────────────────────────────────────┘└──────────────────────────────┘
      "
    `);
  });

  it.each([
    [80, 24],
    [120, 40],
    [200, 60],
    [60, 30],
    [40, 12],
    [20, 5],
  ])('%d×%d: exactly the screen, every line exactly its width', (width, height) => {
    const lines = renderRunFrame(model(), { width, height });
    expect(lines).toHaveLength(height);
    for (const line of lines) expect(lineText(line)).toHaveLength(width);
  });

  it('shows more at 120×40: the whole outcome names, more history, every client', () => {
    const text = frameToText(
      renderRunFrame(model({ snapshot: snapshot({ elapsedMs: 95_000 }) }), { width: 120, height: 40 }),
    );
    // 46 chart columns of 2 s each; the latency chart's 50 cells hold 100 one-second points
    expect(text).toMatch(/throughput req\/s · last 92s/);
    expect(text).toMatch(/latency ms p50 \/ p99 · last 95s/);
    for (const id of ['client-1', 'client-2', 'client-3', 'client-4', 'client-5']) expect(text).toContain(id);
    expect(text).toMatch(/12× error:unexpected_error *│.*\n.*0\.4s ago {2}flaky method failed on purpose/);
  });

  it('draws the help overlay over the panels', () => {
    const text = frameToText(renderRunFrame(model({ help: true }), { width: 80, height: 24 }));
    expect(text).toMatch(/rpcload run · help/);
    expect(text).toMatch(/q, Ctrl-C {3}stop gracefully/);
    expect(text).toMatch(/lag p99 {5}how late requests left their schedule/);
  });

  it('never lets server text reach the terminal raw', () => {
    const hostile = '\u001b]0;pwned\u0007\u001b[2J{red-fg}x{/red-fg}\u009b1m\r\n日本😀';
    const m = model({
      header: { ...HEADER, target: `http://evil/${hostile}`, profile: hostile },
      snapshot: snapshot({
        outcomes: { [`error:${hostile}`]: 5 },
        clients: [client(hostile, { refused: 3 })],
        recentErrors: [
          { source: 'api', outcome: `error:${hostile}`, detail: hostile, count: 5, firstAtMs: 0, lastAtMs: 0 },
        ],
        skipped: { [hostile]: 1 },
      }),
      notices: [hostile],
    });
    for (const size of [
      { width: 80, height: 24 },
      { width: 160, height: 48 },
    ]) {
      const lines = renderRunFrame(m, size);
      const tags = frameToTags(lines, true);
      // eslint-disable-next-line no-control-regex
      expect(tags).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      // braces from the server are escaped, so blessed draws them instead of obeying them
      expect(tags).not.toContain('{red-fg}x');
      for (const line of lines) expect(lineText(line)).toHaveLength(size.width);
    }
  });

  it('renders without colour tags under NO_COLOR, keeping the same text', () => {
    const lines = renderRunFrame(model(), { width: 80, height: 24 });
    const plain = frameToTags(lines, false);
    expect(plain).not.toMatch(/\{(green|yellow|red|cyan|gray)-fg\}/);
    expect(frameToTags(lines, true)).toMatch(/\{green-fg\}success/);
    expect(plain.replace(/\{\/?(bold|inverse)\}/g, '')).toBe(frameToText(lines));
  });
});
