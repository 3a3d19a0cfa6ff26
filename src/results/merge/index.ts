export { mergeRuns, type MergeOptions } from './merge-runs.ts';
export { mergeTimelines, type TimelinePart } from './merge-timeline.ts';
