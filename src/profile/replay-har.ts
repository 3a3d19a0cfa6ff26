/**
 * A HAR capture's calls (replay-recording.ts reads the file): every `POST …/api/{method}` entry to
 * the API's host, in the order the entries started, with its JSON args; its caller is the client ID
 * of the recorded token request that issued its bearer token. The API's host is the one asked for
 * (`--replay-host`), else the one most such entries go to: a capture also holds third-party
 * endpoints under `/api/` paths. Token requests, other URLs, other hosts and bodies that are not
 * JSON args are skipped and counted by reason, never a reason to refuse the capture.
 */
import type { decodeJwt as DecodeJwt } from 'jose';
import { basename } from 'node:path';
import { CLIENT_ASSERTION_TYPE } from '../api/client-assertion.ts';
import { isMethodName } from '../api/http-call.ts';
import { RpcloadError } from '../errors.ts';
import {
  badRecord,
  isObject,
  UNKNOWN_CALLER,
  type OffsetClock,
  type RecordedCall,
  type SkipReason,
} from './replay-record.ts';

/** Why calls of a HAR capture have no known caller: the refusal that names `(unknown caller)` says it. */
export interface UnknownCallers {
  /** Calls sent without a bearer token. */
  noBearer: number;
  /** Calls whose bearer token no recorded token request issued to a named client. */
  unissued: number;
  /** Token requests that named no client (no client_id, Basic credentials or client assertion). */
  anonymousTokenRequests: number;
  /** Token requests whose recorded reply holds no access token. */
  tokenlessReplies: number;
}

export interface HarOptions {
  /** The token request method: such entries teach whose tokens are whose, and are skipped. */
  readonly tokenMethod: string;
  /** The API's host; null = the host most API calls go to. */
  readonly host: string | null;
  readonly onSkip?: (reason: SkipReason) => void;
}

/** What a capture holds: its calls, the API's host, the other hosts' API-like calls, why calls have no caller. */
export interface HarCalls {
  readonly calls: RecordedCall[];
  readonly apiHost: string | null;
  readonly otherHosts: ReadonlyMap<string, number>;
  readonly unknownCallers: UnknownCallers;
}

/** The calls of a HAR capture's text. A document that is not HAR throws an RpcloadError naming the field. */
export async function harCalls(file: string, text: string, options: HarOptions, clock: OffsetClock): Promise<HarCalls> {
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    throw badRecord(file, '1', '', 'a HAR file (one JSON document with log.entries)', text.slice(0, 40));
  }
  const entries = isObject(doc) && isObject(doc.log) ? doc.log.entries : undefined;
  if (!Array.isArray(entries)) throw badRecord(file, '1', '/log/entries', 'an array of HAR entries', entries);
  // Entries in the order they started (captures are usually, not always, in that order).
  const started = entries.map((entry: unknown, index) => {
    const at = isObject(entry) ? entry.startedDateTime : undefined;
    const epochMs = typeof at === 'string' ? Date.parse(at) : Number.NaN;
    if (Number.isNaN(epochMs))
      throw badRecord(file, 'entry', `/log/entries/${index}/startedDateTime`, 'an ISO 8601 instant', at);
    const request = isObject(entry) && isObject(entry.request) ? entry.request : {};
    return { entry: entry as Record<string, unknown>, index, epochMs, api: apiCallOf(request) };
  });
  started.sort((a, b) => a.epochMs - b.epochMs || a.index - b.index);
  const { apiHost, otherHosts } = chooseApiHost(
    file,
    started.map((s) => s.api),
    options.host,
  );
  const unknownCallers: UnknownCallers = { noBearer: 0, unissued: 0, anonymousTokenRequests: 0, tokenlessReplies: 0 };
  const callers = new Map<string, string>(); // access token → the client ID that obtained it
  // jose is loaded with the first HAR, not at every CLI start (its token requests may carry private_key_jwt assertions).
  const { decodeJwt } = await import('jose');
  const calls: RecordedCall[] = [];
  for (const { entry, index, epochMs, api } of started) {
    if (api === null) {
      options.onSkip?.('not an API call');
      continue;
    }
    if (api.url.host !== apiHost) {
      options.onSkip?.('another host');
      continue;
    }
    if (api.method === options.tokenMethod) {
      // Learnt first: `onSkip?.(…)` would not evaluate its argument without a listener.
      const reason = learnToken(entry, api.request, callers, decodeJwt, unknownCallers);
      options.onSkip?.(reason);
      continue;
    }
    const args = argsOf(api.request);
    if (args === undefined) {
      options.onSkip?.('args not JSON');
      continue;
    }
    const bearer = /^Bearer\s+(\S+)/i.exec(headerOf(api.request, 'authorization') ?? '')?.[1];
    let caller = bearer === undefined ? undefined : callers.get(bearer);
    if (caller === undefined) {
      caller = UNKNOWN_CALLER;
      if (bearer === undefined) unknownCallers.noBearer++;
      else unknownCallers.unissued++;
    }
    const offsetMs = clock.offsetOf(new Date(epochMs).toISOString(), 'entry', `/log/entries/${index}/startedDateTime`);
    calls.push({ offsetMs, caller, method: api.method, bodyText: JSON.stringify(args) });
  }
  return { calls, apiHost, otherHosts, unknownCallers };
}

/**
 * The host whose API calls are replayed: the one asked for, else the one most of them go to (a
 * capture also holds third-party endpoints under `/api/` paths, which are no part of the API).
 */
function chooseApiHost(
  file: string,
  calls: readonly (ApiCall | null)[],
  wanted: string | null,
): { apiHost: string | null; otherHosts: Map<string, number> } {
  const byHost = new Map<string, number>();
  for (const call of calls) if (call !== null) byHost.set(call.url.host, (byHost.get(call.url.host) ?? 0) + 1);
  let chosen: string | null = null;
  if (wanted !== null) {
    chosen =
      [...byHost.keys()].find((host) => host === wanted || new URL(`http://${host}`).hostname === wanted) ?? null;
    if (chosen === null) {
      const where = byHost.size === 0 ? 'it has no API call' : `its API calls go to ${countsText(byHost)}`;
      throw new RpcloadError(
        'bad_replay',
        `${basename(file)}: no API call goes to the host ${wanted} (--replay-host); ${where}`,
      );
    }
  } else for (const [host, n] of byHost) if (chosen === null || n > byHost.get(chosen)!) chosen = host;
  byHost.delete(chosen ?? '');
  return { apiHost: chosen, otherHosts: byHost };
}

/** An entry's JSON args: its body as an object, `{}` when it has none; undefined when its body is not JSON args. */
function argsOf(request: Record<string, unknown>): Record<string, unknown> | undefined {
  const postData = isObject(request.postData) ? request.postData : {};
  const bodyText = typeof postData.text === 'string' ? postData.text : '';
  // A body of form parameters only (postData.params, no text) is no more JSON args than a text that does not parse.
  if (bodyText.trim() === '') return Array.isArray(postData.params) ? undefined : {};
  try {
    const args: unknown = JSON.parse(bodyText);
    return isObject(args) ? args : undefined;
  } catch {
    return undefined;
  }
}

/** A HAR entry that is an API call: a `POST …/api/{method}` with a method name. */
interface ApiCall {
  readonly request: Record<string, unknown>;
  readonly url: URL;
  readonly method: string;
}

function apiCallOf(request: Record<string, unknown>): ApiCall | null {
  if (request.method !== 'POST' || typeof request.url !== 'string' || !URL.canParse(request.url)) return null;
  const url = new URL(request.url);
  const method = /\/api\/([^/]+)$/.exec(url.pathname)?.[1];
  return method === undefined || !isMethodName(method) ? null : { request, url, method };
}

/**
 * An entry's form: its `postData.text`, else its `postData.params` (HAR 1.2 allows either). Captures
 * differ on whether params' values are URL-encoded (Chrome's are, Firefox's are not): one that
 * decodes is read decoded.
 */
function formOf(postData: Record<string, unknown>): URLSearchParams {
  if (typeof postData.text === 'string' && postData.text.trim() !== '') return new URLSearchParams(postData.text);
  const form = new URLSearchParams();
  if (!Array.isArray(postData.params)) return form;
  for (const param of postData.params as unknown[])
    if (isObject(param) && typeof param.name === 'string')
      form.append(decodedParam(param.name), decodedParam(param.value));
  return form;
}

function decodedParam(value: unknown): string {
  const text = typeof value === 'string' ? value : '';
  if (!/%[0-9a-f]{2}|\+/i.test(text)) return text;
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** `a.example (3), b.example (1)`: hosts by count, most first. */
function countsText(counts: ReadonlyMap<string, number>): string {
  return [...counts]
    .sort(([, a], [, b]) => b - a)
    .map(([host, n]) => `${host} (${n})`)
    .join(', ');
}

/** In words, why calls have no known caller (for the refusal that names `(unknown caller)`). */
export function unknownCallersText(why: UnknownCallers, malformedAssertions: number): string {
  const calls = (n: number) => `${n} call${n === 1 ? '' : 's'}`;
  const what = [
    ...(why.unissued > 0
      ? [`${calls(why.unissued)} whose bearer token no token request of the capture issued to a named client`]
      : []),
    ...(why.noBearer > 0 ? [`${calls(why.noBearer)} without a bearer token`] : []),
  ];
  // (Not "Basic credentials": the output's redaction takes the word after "Basic" for a secret.)
  const causes = [
    ...(why.anonymousTokenRequests > 0
      ? [
          `${why.anonymousTokenRequests} named no client ` +
            '(no client_id in the form, no client assertion, no user in an Authorization header)',
        ]
      : []),
    ...(why.tokenlessReplies > 0 ? [`${why.tokenlessReplies} had no access token in the recorded reply`] : []),
    ...(malformedAssertions > 0 ? [`${malformedAssertions} had a malformed client assertion`] : []),
  ];
  return `${what.join(' and ')}${causes.length > 0 ? `; of the capture's token requests, ${causes.join(', ')}` : ''}`;
}

/**
 * A token request entry: remember which client ID its access token belongs to — the client its
 * private_key_jwt assertion names, else its form's `client_id`, else its Basic credentials' user —
 * and say how it is counted as skipped. The assertion is a credential: only the client ID is kept.
 */
function learnToken(
  entry: Record<string, unknown>,
  request: Record<string, unknown>,
  callers: Map<string, string>,
  decodeJwt: typeof DecodeJwt,
  unknown: UnknownCallers,
): SkipReason {
  const form = formOf(isObject(request.postData) ? request.postData : {});
  const asserted = form.get('client_assertion_type') === CLIENT_ASSERTION_TYPE;
  const clientId = asserted ? assertedClient(form, decodeJwt) : (form.get('client_id') ?? basicUser(request));
  if (asserted && clientId === undefined) return 'malformed client assertion';
  if (!clientId) unknown.anonymousTokenRequests++;
  const response = isObject(entry.response) ? entry.response : {};
  const content = isObject(response.content) ? response.content : {};
  let text = typeof content.text === 'string' ? content.text : '';
  if (content.encoding === 'base64') text = Buffer.from(text, 'base64').toString('utf8');
  let reply: unknown;
  try {
    reply = JSON.parse(text);
  } catch {
    reply = undefined;
  }
  // The conventions' envelope wraps the token reply in `data`; a bare OAuth reply has it at the top.
  const data = isObject(reply) && isObject(reply.data) ? reply.data : reply;
  const token = isObject(data) ? data.access_token : undefined;
  if (typeof token !== 'string') unknown.tokenlessReplies++;
  else if (clientId) callers.set(token, clientId);
  return 'token request';
}

/**
 * The client a private_key_jwt token request (RFC 7523) authenticates as: its assertion's `sub`,
 * which names the client as `iss` does; when they differ, the form's `client_id` if sent, else
 * `sub`. The JWT is decoded, not verified (the recording's server did that). Undefined when the
 * assertion is missing or not a JWT with a `sub`.
 */
function assertedClient(form: URLSearchParams, decodeJwt: typeof DecodeJwt): string | undefined {
  let claims: ReturnType<typeof DecodeJwt>;
  try {
    claims = decodeJwt(form.get('client_assertion') ?? '');
  } catch {
    return undefined;
  }
  const { iss, sub } = claims;
  if (typeof sub !== 'string' || sub === '') return undefined;
  return iss === sub ? sub : (form.get('client_id') ?? sub);
}

/** The user of the request's HTTP Basic credentials (the client ID, URL-encoded); undefined when there are none or it is undecodable. */
function basicUser(request: Record<string, unknown>): string | undefined {
  const credentials = /^Basic\s+(\S+)/i.exec(headerOf(request, 'authorization') ?? '')?.[1];
  if (credentials === undefined) return undefined;
  try {
    return decodeURIComponent(Buffer.from(credentials, 'base64').toString('utf8').split(':')[0] ?? '');
  } catch {
    return undefined;
  }
}

function headerOf(request: Record<string, unknown>, name: string): string | undefined {
  if (!Array.isArray(request.headers)) return undefined;
  for (const header of request.headers as unknown[])
    if (
      isObject(header) &&
      typeof header.name === 'string' &&
      header.name.toLowerCase() === name &&
      typeof header.value === 'string'
    )
      return header.value;
  return undefined;
}
