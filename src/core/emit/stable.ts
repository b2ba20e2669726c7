import { createLayerRegistry, type LayerRegistry } from '../layers.ts';
import type { Message } from '../message.ts';

/**
 * Splits messages into the leading system messages (the instructions) and the rest, and
 * finds the last leading system message whose layer is stable (where a prompt-cache
 * breakpoint pays off). System messages after the first non-system message are context
 * layers placed late by the cache-friendly policy.
 */
export function splitInstructions(
  messages: readonly Message[],
  layers: LayerRegistry = createLayerRegistry(),
): { instructions: Message[]; rest: Message[]; lastStable: number } {
  let cut = 0;
  while (cut < messages.length && messages[cut]?.role === 'system') cut++;
  const instructions = messages.slice(0, cut);
  let lastStable = -1;
  instructions.forEach((message, index) => {
    const names = layerNames(message);
    if (names.every((name) => layers.has(name) && layers.get(name).stable)) lastStable = index;
  });
  return { instructions, rest: messages.slice(cut), lastStable };
}

/** The layers a message renders (merged system messages render several). */
export function layerNames(message: Message): string[] {
  const merged = message.metadata?.layers;
  if (Array.isArray(merged)) return merged.filter((name): name is string => typeof name === 'string');
  const layer = message.metadata?.layer;
  return typeof layer === 'string' ? [layer] : [];
}

/** A late system message rendered as user text, so providers that only accept a leading system prompt can take it. */
export function contextAsUserText(message: Message): string {
  const text = typeof message.content === 'string' ? message.content : '';
  const layer = layerNames(message).join('+') || 'context';
  // The same layer text as last time (a layer rendered from the same texts) gets the same
  // string back: a long layer is not copied again, nor flattened again when searched.
  const last = lastWrapped.get(layer);
  if (last !== undefined && last.text === text) return last.wrapped;
  const wrapped = `<context layer="${layer}">\n${text}\n</context>`;
  lastWrapped.set(layer, { text, wrapped });
  return wrapped;
}

/** The last text {@link contextAsUserText} wrapped, per layer name. */
const lastWrapped = new Map<string, { text: string; wrapped: string }>();
