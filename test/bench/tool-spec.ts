/** What the bench asks a tool process (tool-process.ts) to run. */
export type ToolSpec =
  | {
      readonly tool: 'autocannon';
      readonly reportPath: string;
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly body: string;
      readonly connections: number;
      readonly durationS: number;
    }
  | {
      readonly tool: 'rpcload';
      readonly reportPath: string;
      readonly profilePath: string;
      readonly resultPath: string;
      /** Extra `rpcload run` flags, e.g. --workers 2. */
      readonly args: readonly string[];
    };

/** A ToolSpec before the bench picks its report path. */
export type ToolRequest = ToolSpec extends infer S ? (S extends ToolSpec ? Omit<S, 'reportPath'> : never) : never;

/** What a tool process reports back. */
export interface ToolRun {
  readonly tool:
    | {
        readonly kind: 'autocannon';
        readonly requests: number;
        readonly durationS: number;
        readonly p50Ms: number;
        readonly p99Ms: number;
        readonly failures: number;
      }
    | { readonly kind: 'rpcload'; readonly exitCode: number; readonly resultPath: string };
  /** Wall time of the tool call (s). */
  readonly wallS: number;
  /** CPU (user + system) of the whole process during the tool call, threads included (s). */
  readonly cpuS: number;
  readonly peakRssMb: number;
}
