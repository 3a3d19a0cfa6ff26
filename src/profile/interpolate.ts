/**
 * `${VAR}` interpolation inside every string value of a JSON document (keys are left alone):
 * - `${NAME}`            the variable's value (set but empty gives ""); unset is a problem
 * - `${NAME:-default}`   the default when the variable is unset or empty (the default may be "")
 * - `$${`                a literal `${`
 * Values always stay strings. Problems name the JSON pointer and the variable, never a value.
 */
import { childPointer, type Problem } from './problems.ts';

export interface Interpolated {
  readonly value: unknown;
  readonly problems: readonly Problem[];
}

// `$${` escape | `${…}` reference, closed or not.
const REFERENCE = /\$\$\{|\$\{([^}]*)(\})?/g;
const NAME_AND_DEFAULT = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

export function interpolateEnv(document: unknown, env: NodeJS.ProcessEnv): Interpolated {
  const problems: Problem[] = [];
  const interpolateString = (text: string, pointer: string): string =>
    text.replace(REFERENCE, (match: string, inner: string | undefined, closed: string | undefined) => {
      if (match === '$${') return '${';
      const reference = NAME_AND_DEFAULT.exec(inner ?? '');
      if (!closed || !reference) {
        problems.push({
          path: pointer,
          message: `expected \${NAME} or \${NAME:-default}, found ${JSON.stringify(match)}`,
        });
        return match;
      }
      const [, name, fallback] = reference as unknown as [string, string, string | undefined];
      const set = env[name];
      if (fallback !== undefined) return set ? set : fallback;
      if (set !== undefined) return set;
      problems.push({
        path: pointer,
        message: `expected environment variable ${name} to be set (or a default: \${${name}:-…}), found it unset`,
      });
      return match;
    });
  const walk = (node: unknown, pointer: string): unknown => {
    if (typeof node === 'string') return node.includes('${') ? interpolateString(node, pointer) : node;
    if (Array.isArray(node)) return node.map((item, index) => walk(item, childPointer(pointer, index)));
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(
        Object.entries(node).map(([key, child]) => [key, walk(child, childPointer(pointer, key))]),
      );
    }
    return node;
  };
  const value = walk(document, '');
  return { value, problems };
}
