/**
 * Nesting depth of parsed JSON, measured without recursion. JSON.parse itself is iterative in V8
 * (200,000 levels parse fine), but every walk after it — validation, interpolation, redaction,
 * JSON.stringify — recurses and would end in "Maximum call stack size exceeded". Files from
 * outside are checked with this before any such walk.
 */

/** Deeper than any profile or result file needs; far below what a recursive walk survives. */
export const MAX_JSON_DEPTH = 64;

/**
 * The JSON pointer of the first container nested deeper than `maxDepth` (the root object is level
 * 1), shortened to its first segments; null when the value is shallow enough.
 */
export function tooDeepAt(value: unknown, maxDepth = MAX_JSON_DEPTH): string | null {
  const stack: { node: unknown; depth: number; path: string }[] = [{ node: value, depth: 1, path: '' }];
  while (stack.length > 0) {
    const { node, depth, path } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > maxDepth) return shorten(path);
    const entries = Array.isArray(node) ? node.map((item, i) => [String(i), item] as const) : Object.entries(node);
    for (const [key, child] of entries) {
      if (child !== null && typeof child === 'object')
        stack.push({ node: child, depth: depth + 1, path: `${path}/${escapePointer(key)}` });
    }
  }
  return null;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** `/a/0/0/0/…` — enough of the path to find the spot, short enough for one line. */
function shorten(path: string): string {
  const segments = path.split('/').slice(1);
  return segments.length <= 8 ? path : `/${segments.slice(0, 8).join('/')}/…`;
}
