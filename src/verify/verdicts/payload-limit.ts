/**
 * `payload.limit`: a body at the limit is accepted, one byte over it gets HTTP 400 with
 * `payload_limit_exceeded`; the boundary found is 100,000 or 102,400 bytes (both readings of
 * 100 KB) unless a limit was pinned.
 */
import { fail, pass, skip, type Verdict } from '../verdict.ts';

export interface PayloadProbe {
  readonly bytes: number;
  readonly atMs: number;
  readonly status: number;
  readonly outcome: string;
  /** accepted = the server took the body (any answer but a payload refusal); failed = no response. */
  readonly result: 'accepted' | 'refused' | 'failed';
  readonly contentType: string | null;
  readonly bodyExcerpt: string;
}

export interface PayloadObservation {
  /** Boundaries that pass: the pinned limit, or both readings of 100 KB. */
  readonly expectedBytes: readonly number[];
  readonly probes: readonly PayloadProbe[];
}

/** Classify a reply to a body of some size. */
export function payloadResult(status: number, outcome: string): PayloadProbe['result'] {
  if (status === 0) return 'failed';
  return status === 413 || outcome === 'error:payload_limit_exceeded' ? 'refused' : 'accepted';
}

/** The bracket the probes establish: largest accepted, smallest refused-or-unanswered size. */
export function payloadBracket(probes: readonly PayloadProbe[]): {
  readonly maxAccepted: number | null;
  readonly minRefused: number | null;
} {
  const accepted = probes.filter((p) => p.result === 'accepted').map((p) => p.bytes);
  const refused = probes.filter((p) => p.result !== 'accepted').map((p) => p.bytes);
  return {
    maxAccepted: accepted.length ? Math.max(...accepted) : null,
    minRefused: refused.length ? Math.min(...refused) : null,
  };
}

function refusalProblem(probe: PayloadProbe): string | null {
  if (probe.result === 'failed')
    return `a ${probe.bytes}-byte body got no response (${probe.outcome}); expected HTTP 400 with payload_limit_exceeded`;
  if (probe.status === 400 && probe.outcome === 'error:payload_limit_exceeded') return null;
  return `a ${probe.bytes}-byte body got HTTP ${probe.status} ${probe.outcome} (${probe.contentType ?? 'no content-type'}: ${JSON.stringify(probe.bodyExcerpt)}); expected HTTP 400 with {"status":"error","error":"payload_limit_exceeded"}`;
}

const fmt = (n: number): string => n.toLocaleString('en-US');

export function judgePayloadLimit(obs: PayloadObservation): Verdict {
  const { maxAccepted, minRefused } = payloadBracket(obs.probes);
  const expected = obs.expectedBytes.map(fmt).join(' or ');
  const evidence = {
    expectedBytes: obs.expectedBytes,
    boundary: { largestAccepted: maxAccepted, smallestRefused: minRefused },
    probes: obs.probes.map((p) => ({
      bytes: p.bytes,
      atMs: p.atMs,
      status: p.status,
      outcome: p.outcome,
      result: p.result,
    })),
  };
  const baseline = obs.probes[0];
  if (baseline === undefined || baseline.result !== 'accepted')
    return skip(
      'target_broken',
      `even a small body was not accepted (${baseline?.outcome ?? 'not sent'}): cannot search the limit`,
      evidence,
    );
  const badRefusals = [
    ...new Set(
      obs.probes
        .filter((p) => p.result !== 'accepted')
        .map(refusalProblem)
        .filter((p) => p !== null),
    ),
  ];
  const problems: string[] = [];
  if (minRefused === null)
    problems.push(`a ${fmt(maxAccepted!)}-byte body was accepted; the limit is ${expected} bytes`);
  else if (minRefused - maxAccepted! > 1)
    problems.push(`the limit lies between ${fmt(maxAccepted!)} and ${fmt(minRefused)} bytes; expected ${expected}`);
  else if (!obs.expectedBytes.includes(maxAccepted!))
    problems.push(
      `bodies up to ${fmt(maxAccepted!)} bytes are accepted, ${fmt(minRefused)} refused; expected a limit of ${expected} bytes`,
    );
  problems.push(...badRefusals);
  if (problems.length > 0) return fail(problems.join('; '), evidence);
  return pass(
    `${fmt(maxAccepted!)} bytes accepted, ${fmt(minRefused!)} refused with HTTP 400 payload_limit_exceeded`,
    evidence,
  );
}
