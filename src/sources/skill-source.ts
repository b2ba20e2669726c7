import { type ContextBlock, type ContextSource, createBlock } from '../core/index.ts';
import { createBm25Index } from '../retrieval/bm25-index.ts';
import { fitBlocks } from './fit-blocks.ts';

/** One skill: a named capability with instructions (e.g. the body of a `SKILL.md`). */
export interface Skill {
  name: string;
  /** One line: when to use it. */
  description: string;
  /** The full how-to, loaded only when the skill is relevant. */
  instructions: string;
}

/** Options of {@link createSkillSource}. */
export interface SkillSourceOptions {
  /** The skills, or a function read on every collect (skills may change at run time). */
  skills: readonly Skill[] | (() => readonly Skill[] | Promise<readonly Skill[]>);
  /** Budget key; default `skill`. */
  name?: string;
  /**
   * Default `knowledge__context`: the loaded instructions follow the query, so the source
   * fills a per-call layer (after the cached prefix), never the cached `framework__context`.
   */
  layer?: string;
  /** 0..1, default 0.8. */
  priority?: number;
  /** Most skills whose full instructions are loaded; default 2. */
  maxActive?: number;
}

/**
 * Seed 001's `skill` source. Reads a list of skills and fills `knowledge__context` (a per-call
 * layer: the loaded instructions change with the query, so they must not sit in a cached
 * layer) with (1) a catalog block listing every skill as `name — description` (priority 0.9),
 * and (2) the full instructions of the `maxActive` skills that best match the query (BM25 over
 * name, description and instructions; priority 0.8 → lower by rank). Progressive disclosure: the
 * model always knows what exists, and pays for the details only when they are relevant.
 */
export function createSkillSource(options: SkillSourceOptions): ContextSource {
  const name = options.name ?? 'skill';
  const layer = options.layer ?? 'knowledge__context';
  return {
    name,
    layer,
    priority: options.priority ?? 0.8,
    async collect(request, budget) {
      const skills = typeof options.skills === 'function' ? await options.skills() : options.skills;
      if (skills.length === 0) return [];
      const catalog = createBlock(
        {
          id: `${name}:catalog`,
          layer,
          source: name,
          content: `Available skills:\n${skills.map((skill) => `- ${skill.name} — ${skill.description}`).join('\n')}`,
          priority: 0.9,
          metadata: { kind: 'catalog', skills: skills.map((skill) => skill.name) },
        },
        request.counter,
      );
      const index = createBm25Index();
      for (const skill of skills)
        index.add(skill.name, `${skill.name}\n${skill.description}\n${skill.instructions}`);
      const active: ContextBlock[] = index
        .search(request.query, { limit: options.maxActive ?? 2 })
        .flatMap((hit, rank) => {
          const skill = skills.find((candidate) => candidate.name === hit.id);
          if (skill === undefined) return [];
          return [
            createBlock(
              {
                id: `${name}:${skill.name}`,
                layer,
                source: name,
                content: `Skill "${skill.name}":\n${skill.instructions}`,
                priority: Math.max(0, 0.8 - rank * 0.1),
                metadata: { kind: 'instructions', skill: skill.name, score: hit.score },
              },
              request.counter,
            ),
          ];
        });
      return fitBlocks([catalog, ...active], budget.maxTokens);
    },
  };
}
