/**
 * The wide inputs of issue #27 item 5, as generators shared by the bench suite and the tests.
 * Sizes default to the measured cases.
 */

/** A GFM table of `rows` rows (header and delimiter included) × `cells` one-letter cells (200 × 2,000 ≈ 0.8 MB). */
export function wideTable(rows = 200, cells = 2000): string {
  const row = (cell: string) => `|${Array.from({ length: cells }, () => cell).join('|')}|`;
  const lines = [row('a'), row('-')];
  for (let index = 2; index < rows; index++) lines.push(row('b'));
  return lines.join('\n');
}

/** `count` sections, headings cycling through levels 1–6, each with a body line. */
export function manyHeadings(count = 20_000): string {
  return Array.from(
    { length: count },
    (_, index) => `${'#'.repeat((index % 6) + 1)} Heading ${index}\nbody ${index}\n`,
  ).join('\n');
}

/** `items` list items whose indent cycles through `depth` levels (2 columns a level). */
export function deepLists(items = 4000, depth = 31): string {
  return Array.from({ length: items }, (_, index) => `${'  '.repeat(index % depth)}- item ${index}`).join(
    '\n',
  );
}

/** A JSON object of `count` keys, one per line. */
export function wideJsonObject(count = 100_000): string {
  return `{\n${Array.from({ length: count }, (_, index) => `  "key${index}": ${index}`).join(',\n')}\n}\n`;
}

/** A message of `count` block references to `file`, none of which names an existing block. */
export function manyMissingReferences(file: string, count = 300): string {
  return Array.from({ length: count }, (_, index) => `[${file}#Section about thing ${index}]`).join(' ');
}
