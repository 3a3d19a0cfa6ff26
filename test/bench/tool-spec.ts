/**
 * What the bench asks its measuring wrapper (tool-process.ts) to run — one tool's command line,
 * as its users type it — and what the wrapper reports back about that command's process.
 */
export interface ToolSpec {
  /** The command: argv[0] is the executable (e.g. process.execPath or /usr/bin/wrk). */
  readonly argv: readonly string[];
  /** Where the wrapper writes the command's stdout (autocannon's JSON, wrk's text, rpcload's summary). */
  readonly stdoutPath: string;
  /** Where the wrapper writes its ToolRun. */
  readonly reportPath: string;
  /** Also record the command's RSS once a second (the memory section's time series). */
  readonly sampleRss: boolean;
  /** The wrapper kills the command (SIGKILL) when it has not exited this long after its spawn. */
  readonly deadlineS: number;
}

/** A ToolSpec before the bench picks the wrapper's file paths. */
export type ToolRequest = Pick<ToolSpec, 'argv' | 'deadlineS'> & { readonly sampleRss?: boolean };

/** One RSS sample of a running tool process. */
export interface RssSample {
  /** Seconds since the process was spawned. */
  readonly atS: number;
  readonly rssMb: number;
}

/** What the wrapper measured of the command's process, from outside it. */
export interface ToolRun {
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** Spawn to exit (s): the tool's own start-up is included, as a user waits for it. */
  readonly wallS: number;
  /** CPU (user + system) of the command's process, its threads and waited-for children (s). */
  readonly cpuS: number;
  /** The process's peak RSS (VmHWM), as last read before it exited (MB). */
  readonly peakRssMb: number;
  /** With sampleRss: VmRSS once a second; otherwise empty. */
  readonly rss: readonly RssSample[];
}

/** What a tool counted itself in one closed-model run, read from its output. */
export interface ToolCount {
  readonly requests: number;
  /** The duration the tool measured its requests over (s). */
  readonly durationS: number;
  readonly requestsPerS: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Responses that were not successes, plus errors and timeouts. */
  readonly failures: number;
}
