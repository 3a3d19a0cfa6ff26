/** The report's only stylesheet, inlined: system fonts, no external resources. */
/** The pages' Content-Security-Policy: nothing loads from anywhere; styles and images are inline. */
export const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

export const REPORT_CSS = `
:root { color-scheme: light; --fg: #1d232a; --muted: #5f6b76; --line: #d9dee3; --bg: #ffffff; --panel: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 20px 32px 12px; border-bottom: 1px solid var(--line); background: var(--panel); }
header h1 { margin: 0 0 4px; font-size: 22px; }
header p { margin: 0; color: var(--muted); }
nav { margin-top: 8px; display: flex; flex-wrap: wrap; gap: 14px; }
nav a { color: #1565c0; text-decoration: none; }
main { padding: 8px 32px 40px; max-width: 1240px; }
section { margin-top: 28px; }
h2 { font-size: 17px; margin: 0 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
.note { color: var(--muted); margin: 4px 0 10px; }
.summary { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 8px; margin: 0; }
.summary div { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; }
.summary dt { color: var(--muted); font-size: 12px; }
.summary dd { margin: 2px 0 0; font-weight: 600; overflow-wrap: anywhere; }
.base { display: block; color: var(--muted); font-weight: 400; font-size: 12px; }
.base-col, .base-inline { color: var(--muted); }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(540px, 1fr)); gap: 16px; }
figure.chart { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: 10px; }
figure.chart figcaption { font-weight: 600; margin-bottom: 4px; }
figure.chart svg { width: 100%; height: auto; display: block; }
svg text { font: 12px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; fill: var(--fg); }
svg .tick { fill: var(--muted); }
svg .axis-label { font-weight: 600; }
svg .axis { stroke: #8a949e; stroke-width: 1; }
svg .grid { stroke: #eceff2; stroke-width: 1; }
svg .series { fill: none; stroke-width: 1.8; stroke-linejoin: round; stroke-linecap: round; }
svg .empty { fill: var(--muted); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
thead th { font-size: 12px; color: var(--muted); font-weight: 600; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.over { color: #c62828; font-weight: 700; }
code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--panel); padding: 1px 4px; border-radius: 3px; overflow-wrap: anywhere; }
.bar { display: flex; width: 180px; height: 10px; background: var(--panel); border-radius: 2px; overflow: hidden; margin-top: 4px; }
.bar .admitted { background: #2e7d32; }
.bar .refused { background: #e69500; }
.badge { display: inline-block; min-width: 38px; text-align: center; padding: 0 6px; border-radius: 9px; font-size: 12px; font-weight: 700; color: #fff; background: #8a949e; }
.badge.pass { background: #2e7d32; }
.badge.fail { background: #c62828; }
.badge.skip, .badge.absent { background: #8a949e; }
.status-completed { color: #2e7d32; }
.status-failed, .status-aborted { color: #c62828; }
details.check { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; padding: 6px 10px; }
details.check summary { cursor: pointer; }
pre.evidence { background: var(--panel); padding: 8px; overflow: auto; max-height: 360px; font-size: 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
ul.warnings li { color: #8a5a00; }
footer { color: var(--muted); padding: 16px 32px; border-top: 1px solid var(--line); font-size: 12px; }
`;
