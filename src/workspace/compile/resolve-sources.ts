/** A prompt file as loaded: `text` is undefined when the file does not exist. */
export interface PromptFile {
  type: 'global' | 'session';
  file: string;
  text: string | undefined;
}

/** Result of {@link resolveSources}. */
export interface ResolvedSources {
  /** Global and session prompts joined by a blank line, in manifest order. */
  systemPrompt: string;
  /** The files that contributed, in order. */
  used: { type: 'global' | 'session'; file: string }[];
  /** One line per missing or empty prompt file. */
  warnings: string[];
}

/**
 * Stage 1 of the workspace compiler (seed 003 "Resolve Sources"): joins the global and the
 * session system prompt into one string. A missing prompt file is a warning, not an error (a
 * new session has no `session-prompt.md` yet). Pure.
 */
export function resolveSources(prompts: readonly PromptFile[]): ResolvedSources {
  const parts: string[] = [];
  const used: ResolvedSources['used'] = [];
  const warnings: string[] = [];
  for (const prompt of prompts) {
    if (prompt.text === undefined) {
      warnings.push(`${prompt.type} prompt ${prompt.file} does not exist; skipped`);
      continue;
    }
    const text = prompt.text.trim();
    if (text === '') {
      warnings.push(`${prompt.type} prompt ${prompt.file} is empty; skipped`);
      continue;
    }
    parts.push(text);
    used.push({ type: prompt.type, file: prompt.file });
  }
  return { systemPrompt: parts.join('\n\n'), used, warnings };
}
