/**
 * Joins a negative number to the option before it (`--show -1` → `--show=-1`): Node's
 * `parseArgs` reads `-1` as a short option and refuses the line, though the help and the
 * README write it that way. Only the given options, only values that are numbers.
 */
export function joinNegativeValues(args: readonly string[], options: readonly string[]): string[] {
  const joined: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    const next = args[index + 1];
    if (options.includes(arg) && next !== undefined && /^-\d+$/u.test(next)) {
      joined.push(`${arg}=${next}`);
      index++;
    } else {
      joined.push(arg);
    }
  }
  return joined;
}
