const VOWEL = /[aeiouy]/;

/**
 * A light English stemmer (in the spirit of Lucene's minimal/light stemmers, deliberately
 * weaker than Porter): folds plurals (`-ies`, `-es`, `-s`), `-ing`, `-ed` and `-ly`, undoubles
 * a final consonant left behind (`running` → `run`) and drops a silent final `e`
 * (`make`/`making`/`makes` → `mak`). Words of 3 characters or fewer, and words without a
 * vowel in the stem, are returned unchanged. Input is expected lowercase.
 */
export function stemEnglish(word: string): string {
  if (word.length <= 3) return word;
  let stem = word;
  if (stem.endsWith("'s")) stem = stem.slice(0, -2);
  if (stem.endsWith('ies') && stem.length > 4) stem = `${stem.slice(0, -3)}y`;
  else if (stem.endsWith('ied') && stem.length > 4) stem = `${stem.slice(0, -3)}y`;
  else if (/(?:ss|sh|ch|x|z)es$/.test(stem)) stem = stem.slice(0, -2);
  else if (stem.endsWith('s') && !/(?:ss|us|is)$/.test(stem)) stem = stem.slice(0, -1);
  else if (stem.endsWith('ing') && stem.length > 5 && VOWEL.test(stem.slice(0, -3)))
    stem = undouble(stem.slice(0, -3));
  else if (stem.endsWith('ed') && stem.length > 4 && VOWEL.test(stem.slice(0, -2)))
    stem = undouble(stem.slice(0, -2));
  else if (stem.endsWith('ly') && stem.length > 5) stem = stem.slice(0, -2);
  if (stem.length > 3 && stem.endsWith('e') && !stem.endsWith('ee')) stem = stem.slice(0, -1);
  return stem;
}

function undouble(stem: string): string {
  const last = stem.at(-1);
  if (stem.length > 3 && last !== undefined && last === stem.at(-2) && !/[lsz]/.test(last))
    return stem.slice(0, -1);
  return stem;
}
