/**
 * Enough XML checking for a JUnit file without a parser dependency: every tag is well formed,
 * every element closes in order, attribute values carry no raw markup. Returns the problems.
 */
export function xmlProblems(xml: string): string[] {
  const problems: string[] = [];
  const stack: string[] = [];
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  for (const [tag] of body.matchAll(/<[^>]*>/g)) {
    const close = /^<\/([\w-]+)>$/.exec(tag);
    const open = /^<([\w-]+)((?:\s+[\w-]+="[^"<>]*")*)\s*(\/?)>$/.exec(tag);
    if (close) {
      if (stack.pop() !== close[1]) problems.push(`unexpected ${tag}`);
    } else if (open) {
      if (open[3] !== '/') stack.push(open[1]!);
    } else problems.push(`malformed tag ${tag.slice(0, 60)}`);
  }
  if (stack.length > 0) problems.push(`unclosed: ${stack.join(', ')}`);
  if (/<(?![/\w?])/.test(body.replace(/<[^>]*>/g, ''))) problems.push('raw < in text');
  return problems;
}

/** `<testcase name="…">` → the element's inner text, by check id. */
export function testcases(xml: string): Map<string, string> {
  return new Map(
    [...xml.matchAll(/<testcase [^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/testcase>/g)].map((m) => [m[1]!, m[2]!]),
  );
}
