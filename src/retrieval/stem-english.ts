import { stemmer } from 'stemmer';

/**
 * The analyzer's English stemmer: Porter's algorithm from the maintained `stemmer` package
 * (`making`/`makes` → `make`, `stories`/`story` → `stori`, `running` → `run`). Input is
 * expected lowercase. It replaced a hand-written light stemmer at equal LoCoMo quality
 * (decision 024).
 */
export const stemEnglish: (word: string) => string = stemmer;
