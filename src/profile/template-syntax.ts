/**
 * The `{{…}}` template language of step args, parsed from one string value. Expressions:
 * - `{{client.id}}`, `{{client.index}}`  the client making the request (index: 0-based position
 *                                       in the plan's client list)
 * - `{{iteration}}`                     the scenario iteration counter
 * - `{{pick a|b|c}}`                    one of the options, uniformly
 * - `{{int MIN MAX}}`                   a uniform integer, both ends included
 * - `{{uuid}}`                          a random (seeded) UUID v4
 * - `{{pad N}}`                         N "x" characters (fixed; for payload-size tests)
 * - `{{vars.NAME}}`                     a value an earlier step of the iteration saved from its reply
 * - `{{data.SET.COLUMN}}`               a column of the iteration's row of data set SET
 * - `{{setup.NAME}}`                    a value the run's setup steps saved (the same for every request)
 */
export type TemplateExpr =
  | { readonly kind: 'client.id' | 'client.index' | 'iteration' | 'uuid' }
  | { readonly kind: 'pick'; readonly options: readonly string[] }
  | { readonly kind: 'int'; readonly min: number; readonly max: number }
  | { readonly kind: 'pad'; readonly length: number }
  | { readonly kind: 'var'; readonly name: string }
  | { readonly kind: 'setup'; readonly name: string }
  | { readonly kind: 'data'; readonly set: string; readonly column: string };

/** Literal text and expressions in order; literals may be empty. */
export type TemplatePart = string | TemplateExpr;

export type ParsedTemplate =
  { readonly ok: true; readonly parts: readonly TemplatePart[] } | { readonly ok: false; readonly message: string };

/** Cap of `{{pad N}}`: well past the API's 100 KB payload limit, well short of hurting memory. */
export const MAX_PAD_LENGTH = 16 * 1024 * 1024;

const KNOWN =
  '{{client.id}}, {{client.index}}, {{iteration}}, {{uuid}}, {{pick a|b}}, {{int MIN MAX}}, {{pad N}}, {{vars.NAME}}, {{data.SET.COLUMN}} or {{setup.NAME}}';

/** A variable or data set name: a JavaScript-like identifier. */
export const FLOW_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const VAR_EXPR = /^vars\.(.*)$/s;
const SETUP_EXPR = /^setup\.(.*)$/s;
const DATA_EXPR = /^data\.([^.]*)\.(.*)$/s;

export function parseTemplateString(text: string): ParsedTemplate {
  const parts: TemplatePart[] = [];
  let rest = text;
  for (let open = rest.indexOf('{{'); open >= 0; open = rest.indexOf('{{')) {
    const close = rest.indexOf('}}', open + 2);
    if (close < 0)
      return { ok: false, message: `expected "}}" to close the template, found ${JSON.stringify(rest.slice(open))}` };
    const source = rest.slice(open, close + 2);
    const expr = parseExpression(rest.slice(open + 2, close).trim());
    if (typeof expr === 'string') return { ok: false, message: `expected ${expr}, found ${JSON.stringify(source)}` };
    if (open > 0) parts.push(rest.slice(0, open));
    parts.push(expr);
    rest = rest.slice(close + 2);
  }
  if (rest !== '' || parts.length === 0) parts.push(rest);
  return { ok: true, parts };
}

/** The expression, or what was expected instead. */
function parseExpression(body: string): TemplateExpr | string {
  const variable = VAR_EXPR.exec(body);
  if (variable)
    return FLOW_NAME.test(variable[1]!)
      ? { kind: 'var', name: variable[1]! }
      : '{{vars.NAME}} with a name of letters, digits and _';
  const setup = SETUP_EXPR.exec(body);
  if (setup)
    return FLOW_NAME.test(setup[1]!)
      ? { kind: 'setup', name: setup[1]! }
      : '{{setup.NAME}} with a name of letters, digits and _';
  const data = DATA_EXPR.exec(body);
  if (data)
    return FLOW_NAME.test(data[1]!) && data[2]!.trim() !== '' && !/\s/.test(data[2]!)
      ? { kind: 'data', set: data[1]!, column: data[2]! }
      : '{{data.SET.COLUMN}} with a data set name of letters, digits and _ and a column without spaces';
  const [word = '', ...args] = body.split(/\s+/);
  const argText = body.slice(word.length).trim();
  switch (word) {
    case 'client.id':
    case 'client.index':
    case 'iteration':
    case 'uuid':
      return args.length === 0 ? { kind: word } : `{{${word}}} without arguments`;
    case 'pick': {
      const options = argText.split('|').map((option) => option.trim());
      return argText !== '' && options.every((option) => option !== '')
        ? { kind: 'pick', options }
        : '{{pick a|b|c}} with non-empty options';
    }
    case 'int': {
      const [min, max] = args.map(Number);
      const valid = args.length === 2 && Number.isSafeInteger(min) && Number.isSafeInteger(max) && min! <= max!;
      return valid ? { kind: 'int', min: min!, max: max! } : '{{int MIN MAX}} with integers MIN ≤ MAX';
    }
    case 'pad': {
      const length = Number(argText);
      const valid = args.length === 1 && Number.isInteger(length) && length >= 0 && length <= MAX_PAD_LENGTH;
      return valid ? { kind: 'pad', length } : `{{pad N}} with an integer N from 0 to ${MAX_PAD_LENGTH}`;
    }
    default:
      return `a template ${KNOWN}`;
  }
}
