/** One V1 id segment: whitespace collapsed, `\` and `/` escaped; empty headings become `untitled`. */
export function toIdSegment(heading: string): string {
  const text = heading.replace(/\s+/gu, ' ').trim();
  if (text === '') return 'untitled';
  return text.replace(/\\/gu, '\\\\').replace(/\//gu, '\\/');
}

/** Splits a V1 id into its segments, honouring `\/` and `\\` escapes. */
export function splitBlockId(id: string): string[] {
  const segments: string[] = [];
  let current = '';
  for (let index = 0; index < id.length; index++) {
    const char = id[index];
    if (char === '\\' && index + 1 < id.length) {
      current += char + id[index + 1];
      index++;
    } else if (char === '/') {
      segments.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  segments.push(current);
  return segments;
}

/**
 * Gives every sibling a unique segment: the first `X` keeps `X`, later ones become `X~2`,
 * `X~3`, … (skipping any suffix a real heading already uses). Deterministic in source order.
 */
export function disambiguateSegments(segments: readonly string[]): string[] {
  const taken = new Set(segments);
  const seen = new Set<string>();
  return segments.map((segment) => {
    if (!seen.has(segment)) {
      seen.add(segment);
      return segment;
    }
    let counter = 2;
    while (taken.has(`${segment}~${counter}`) || seen.has(`${segment}~${counter}`)) counter++;
    const unique = `${segment}~${counter}`;
    seen.add(unique);
    return unique;
  });
}
