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
  // Free counters only get used up, so each segment's search resumes where it last stopped:
  // linear overall (restarting at 2 made 21,000 equal headings cost ~45 s).
  const nextCounter = new Map<string, number>();
  return segments.map((segment) => {
    if (!seen.has(segment)) {
      seen.add(segment);
      return segment;
    }
    let counter = nextCounter.get(segment) ?? 2;
    while (taken.has(`${segment}~${counter}`) || seen.has(`${segment}~${counter}`)) counter++;
    nextCounter.set(segment, counter + 1);
    const unique = `${segment}~${counter}`;
    seen.add(unique);
    return unique;
  });
}
