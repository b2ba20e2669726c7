import { readFile } from 'node:fs/promises';

/** Options of {@link loadLocomoMessages}. */
export interface LocomoMessagesOptions {
  /** Path of `locomo-dev.json`. Default `../shared/data/locomo/locomo-dev.json` from the repo root. */
  path?: string;
  /** Number of messages to produce. */
  count: number;
  /** Characters per message (exact). */
  charsPerMessage: number;
  /**
   * When LoCoMo is shorter than `count` messages (it has ~514 000 characters: ~1 000
   * messages of 500), start over from its beginning. The repeat lies ~500 KB back, beyond
   * DEFLATE's 32 KiB window and the savers' 24 KiB chain dictionary, so it compresses as
   * new text. Default false (an error).
   */
  cycle?: boolean;
}

interface LocomoTurn {
  text?: string;
}

/**
 * Real conversational text for the checkpoint benchmark: LoCoMo dialogue turns
 * (Maharana et al., ACL 2024; CC BY-NC 4.0), concatenated in order and cut into messages
 * of exactly `charsPerMessage` characters, so stored bytes compress like real chat does.
 */
export async function loadLocomoMessages(options: LocomoMessagesOptions): Promise<string[]> {
  const path = options.path ?? new URL('../../../shared/data/locomo/locomo-dev.json', import.meta.url);
  const samples = JSON.parse(await readFile(path, 'utf8')) as { conversation: Record<string, unknown> }[];
  let text = '';
  for (const sample of samples) {
    for (const [key, value] of Object.entries(sample.conversation)) {
      if (!/^session_\d+$/.test(key) || !Array.isArray(value)) continue;
      for (const turn of value as LocomoTurn[]) if (turn.text) text += `${turn.text} `;
    }
  }
  const needed = options.count * options.charsPerMessage;
  if (text.length < needed && !options.cycle) {
    throw new Error(`LoCoMo has ${text.length} characters; ${needed} needed`);
  }
  if (text.length < needed) text = text.repeat(Math.ceil(needed / text.length));
  const messages: string[] = [];
  for (let index = 0; index < options.count; index += 1) {
    messages.push(text.slice(index * options.charsPerMessage, (index + 1) * options.charsPerMessage));
  }
  return messages;
}
