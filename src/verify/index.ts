export * from './types.ts';
export type { CheckDefinition, CheckOutcome, CheckPlan } from './check.ts';
export { resolveVerifyConfig, parseClientFlag, parsePaginatedFlag, parseOnlyFlag, type VerifyFlags } from './config.ts';
export { runVerify, type VerifyOptions, type VerifyReport } from './runner.ts';
export { renderVerifyTable, verifyJson, countVerdicts, type VerdictCounts } from './render.ts';
export { selectChecks } from './registry.ts';
