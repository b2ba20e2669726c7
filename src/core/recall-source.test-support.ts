import { createBlock } from './block.ts';
import type { DroppedSummary } from './report.ts';
import type { ContextSource } from './source.ts';

/**
 * A source that recalls `ids` of the history into `recall__context`, as a long session's recall
 * does: one block per message naming it (`metadata.messageId`), so the report marks it recalled.
 */
export function recallOf(ids: readonly string[]): ContextSource {
  return {
    name: 'recall',
    layer: 'recall__context',
    priority: 0.8,
    async collect(collect) {
      return ids.map((id) =>
        createBlock(
          {
            id: `recall:${id}`,
            layer: 'recall__context',
            source: 'recall',
            content: `Recalled ${id}.`,
            metadata: { messageId: id },
          },
          collect.counter,
        ),
      );
    },
  };
}

/**
 * The block ids a layer's drops name as recalled, sorted: the entries listed one by one with
 * reason `recalled`, and those a run of covered history names in `run.others`.
 */
export function recalledIn(dropped: readonly DroppedSummary[]): string[] {
  return dropped
    .flatMap((entry) =>
      entry.reason.type === 'recalled'
        ? [entry.id]
        : (entry.run?.others
            ?.filter((group) => group.reason.type === 'recalled')
            .flatMap((group) => group.ids) ?? []),
    )
    .sort();
}
