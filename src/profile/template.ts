/**
 * Compile a step's `args` into a BodyTemplate. Rendering is on the hot path, so the body is
 * compiled once into literal JSON text segments and value generators: render() only
 * concatenates (no JSON.stringify of the body per request). A string that is exactly one
 * template yields the raw value (a number for int, client.index and iteration); otherwise the
 * template is interpolated into the string. `{{vars.NAME}}`, `{{data.SET.COLUMN}}` and
 * `{{setup.NAME}}` read the iteration's saved values, its data rows and the run's setup values from
 * the context (a raw value keeps its JSON type); a value it lacks is reported to `ctx.missing` and
 * the body must not be sent.
 */
import { RpcloadError } from '../errors.ts';
import type { BodyTemplate, TemplateContext } from './plan.ts';
import { childPointer, formatProblem, type Problem } from './problems.ts';
import { parseTemplateString, type TemplateExpr } from './template-syntax.ts';

/** Produces one piece of JSON text for a request. */
type Generator = (ctx: TemplateContext) => string;

// Characters JSON.stringify would escape; most strings have none, so they skip it.
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
const escapeContent = (text: string): string => (NEEDS_ESCAPE.test(text) ? JSON.stringify(text).slice(1, -1) : text);
const quote = (text: string): string => `"${escapeContent(text)}"`;
const randomInt = (ctx: TemplateContext, min: number, max: number): number =>
  min + Math.floor(ctx.random() * (max - min + 1));

const HEX = '0123456789abcdef';
/** A version-4 UUID from the seeded random, so runs with one seed send the same ids. */
function uuidV4(ctx: TemplateContext): string {
  let out = '';
  for (let i = 0; i < 32; i++) {
    const nibble = i === 12 ? 4 : i === 16 ? 8 + randomInt(ctx, 0, 3) : randomInt(ctx, 0, 15);
    out += HEX[nibble]! + (i === 7 || i === 11 || i === 15 || i === 19 ? '-' : '');
  }
  return out;
}

/** Own property `key` of `record` (never one inherited from Object.prototype), or undefined. */
function ownValue(record: Readonly<Record<string, unknown>> | null | undefined, key: string): unknown {
  return record != null && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** JSON text of a saved value or data column; a missing one is reported and rendered as null (the body is then dropped). */
function flowText(value: unknown, what: string, ctx: TemplateContext, raw: boolean): string {
  if (value === undefined) {
    ctx.missing?.(what);
    return 'null';
  }
  if (raw) return JSON.stringify(value);
  return escapeContent(typeof value === 'string' ? value : JSON.stringify(value));
}

/**
 * JSON text of an expression's value: raw (the whole string is this one template) or as string
 * content (escaped, without quotes). Fixed values come back as a string, not a generator.
 */
function exprPiece(expr: TemplateExpr, raw: boolean): Generator | string {
  const text = raw ? quote : escapeContent;
  switch (expr.kind) {
    case 'client.id':
      return (ctx) => text(ctx.clientId);
    case 'client.index':
      return (ctx) => String(ctx.clientIndex);
    case 'iteration':
      return (ctx) => String(ctx.iteration);
    case 'uuid':
      return raw ? (ctx) => `"${uuidV4(ctx)}"` : uuidV4;
    case 'int': {
      const { min, max } = expr;
      return (ctx) => String(randomInt(ctx, min, max));
    }
    case 'pick': {
      const options = expr.options.map(text);
      return (ctx) => options[randomInt(ctx, 0, options.length - 1)]!;
    }
    case 'pad':
      return text('x'.repeat(expr.length));
    case 'var': {
      const { name } = expr;
      const what = `vars.${name}`;
      return (ctx) => flowText(ownValue(ctx.vars, name), what, ctx, raw);
    }
    case 'setup': {
      const { name } = expr;
      const what = `setup.${name}`;
      return (ctx) => flowText(ownValue(ctx.setup, name), what, ctx, raw);
    }
    case 'data': {
      const { set, column } = expr;
      const what = `data.${set}.${column}`;
      return (ctx) =>
        flowText(ownValue(ownValue(ctx.data, set) as Record<string, unknown> | undefined, column), what, ctx, raw);
    }
  }
}

/** A body template ready to render: what its text depends on, and the renderer. */
export interface RenderableTemplate {
  readonly variability: BodyTemplate['variability'];
  /** Render the body as JSON object text. Pure apart from ctx.random. */
  render(ctx: TemplateContext): string;
}

/** A `{{vars.NAME}}`, `{{setup.NAME}}` or `{{data.SET.COLUMN}}` the template names, and where (a JSON pointer). */
export type TemplateReference =
  | { readonly kind: 'var'; readonly name: string; readonly pointer: string; readonly source: string }
  | { readonly kind: 'setup'; readonly name: string; readonly pointer: string; readonly source: string }
  | {
      readonly kind: 'data';
      readonly set: string;
      readonly column: string;
      readonly pointer: string;
      readonly source: string;
    };

export interface CompiledTemplate {
  readonly template?: RenderableTemplate;
  /** The saved values and data columns it reads, in document order (checked against the profile by the plan builder). */
  readonly references: readonly TemplateReference[];
  /** Template syntax problems, with JSON pointers under `basePointer`. */
  readonly problems: readonly Problem[];
}

/** Compile, collecting every syntax problem instead of stopping at the first. */
export function tryCompileBodyTemplate(source: Readonly<Record<string, unknown>>, basePointer = ''): CompiledTemplate {
  const problems: Problem[] = [];
  const references: TemplateReference[] = [];
  const literals: string[] = [''];
  const generators: Generator[] = [];
  let usesClient = false;
  let usesRandom = false;
  const emit = (piece: Generator | string): void => {
    if (typeof piece === 'string') literals[literals.length - 1] += piece;
    else {
      generators.push(piece);
      literals.push('');
    }
  };
  const emitExpr = (expr: TemplateExpr, raw: boolean, pointer: string, source: string): void => {
    if (expr.kind === 'var') references.push({ kind: 'var', name: expr.name, pointer, source });
    else if (expr.kind === 'setup') references.push({ kind: 'setup', name: expr.name, pointer, source });
    else if (expr.kind === 'data')
      references.push({ kind: 'data', set: expr.set, column: expr.column, pointer, source });
    if (expr.kind === 'client.id' || expr.kind === 'client.index') usesClient = true;
    // iteration, saved values and data rows vary per iteration like a random value; pad and the
    // run's setup values are the same for every request
    else if (expr.kind !== 'pad' && expr.kind !== 'setup') usesRandom = true;
    emit(exprPiece(expr, raw));
  };
  const walk = (node: unknown, pointer: string): void => {
    if (typeof node === 'string') {
      const parsed = parseTemplateString(node);
      if (!parsed.ok) return void problems.push({ path: pointer, message: parsed.message });
      const [only] = parsed.parts;
      if (parsed.parts.length === 1 && typeof only === 'object') return emitExpr(only, true, pointer, node);
      emit('"');
      for (const part of parsed.parts) {
        if (typeof part === 'string') emit(escapeContent(part));
        else emitExpr(part, false, pointer, node);
      }
      return emit('"');
    }
    if (Array.isArray(node)) {
      emit('[');
      node.forEach((item, index) => {
        if (index > 0) emit(',');
        walk(item, childPointer(pointer, index));
      });
      return emit(']');
    }
    if (node !== null && typeof node === 'object') {
      emit('{');
      Object.entries(node).forEach(([key, value], index) => {
        emit(`${index > 0 ? ',' : ''}${JSON.stringify(key)}:`);
        walk(value, childPointer(pointer, key));
      });
      return emit('}');
    }
    emit(JSON.stringify(node));
  };
  walk(source, basePointer);
  if (problems.length > 0) return { problems, references };
  const variability = usesRandom ? 'dynamic' : usesClient ? 'client' : 'static';
  return { template: makeTemplate(variability, literals, generators), problems, references };
}

function makeTemplate(
  variability: BodyTemplate['variability'],
  literals: readonly string[],
  generators: readonly Generator[],
): RenderableTemplate {
  const [first = ''] = literals;
  if (generators.length === 0) return { variability, render: () => first };
  return {
    variability,
    render(ctx: TemplateContext): string {
      let out = first;
      for (let i = 0; i < generators.length; i++) out += generators[i]!(ctx) + literals[i + 1]!;
      return out;
    },
  };
}

/** Compile a body template; syntax problems throw one RpcloadError listing each with its path. */
export function compileBodyTemplate(source: Readonly<Record<string, unknown>>): RenderableTemplate {
  const { template, problems } = tryCompileBodyTemplate(source);
  if (!template) throw new RpcloadError('bad_template', problems.map((p) => formatProblem('args', p)).join('\n'));
  return template;
}
