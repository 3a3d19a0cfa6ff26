export { compareRuns, type Comparison, type ComparisonRow, type ComparedRun, type CompareOptions, type LabelledResult, type MetricRow, type StatusRow } from './compare-runs.ts';
export { DEFAULT_FAIL_ON, parseFailOnRules, type FailOnRule } from './fail-on.ts';
export { loadShapeDifferences } from './load-shape.ts';
export { renderComparisonMarkdown } from './render-markdown.ts';
export { renderComparisonTable } from './render-table.ts';
export type { RowVerdict } from './verdict.ts';
