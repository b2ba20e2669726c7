import { type CollectRequest, type ContextSource, CtxloomError, createBlock } from '../core/index.ts';
import { fitBlocks } from './fit-blocks.ts';

/** One prompt fragment: instructions added to the call when `when` holds. */
export interface PromptFragment {
  id: string;
  /** Text with `{{variable}}` placeholders. */
  template: string;
  /** Default: always. */
  when?: (request: CollectRequest) => boolean;
  /** 0..1, default 1. */
  priority?: number;
}

/** Options of {@link createPromptSource}. */
export interface PromptSourceOptions {
  fragments: readonly PromptFragment[];
  /** Values for `{{name}}`; a function gets the request (e.g. the task phase). */
  variables?: Record<string, string> | ((request: CollectRequest) => Record<string, string>);
  /** Budget key; default `prompt`. */
  name?: string;
  /** Default `framework__context`. */
  layer?: string;
  /** 0..1, default 1. */
  priority?: number;
}

const PLACEHOLDER = /\{\{\s*([\w.-]+)\s*\}\}/g;

/**
 * Seed 001's `prompt` source. Reads prompt fragments (framework rules, phase-specific
 * guidance) and fills `framework__context` with the fragments whose `when` holds for this
 * request, placeholders `{{name}}` rendered from `variables`. A placeholder without a value
 * throws `invalid-config` naming the fragment (a silent empty string hides bugs). In the
 * given order, within budget (higher priority first when they do not all fit).
 */
export function createPromptSource(options: PromptSourceOptions): ContextSource {
  const name = options.name ?? 'prompt';
  const layer = options.layer ?? 'framework__context';
  return {
    name,
    layer,
    priority: options.priority ?? 1,
    async collect(request, budget) {
      const variables =
        typeof options.variables === 'function' ? options.variables(request) : (options.variables ?? {});
      const blocks = options.fragments
        .filter((fragment) => fragment.when === undefined || fragment.when(request))
        .map((fragment) => {
          const content = fragment.template.replace(PLACEHOLDER, (_match, key: string) => {
            const value = variables[key];
            if (value === undefined) {
              throw new CtxloomError({
                code: 'invalid-config',
                message: `prompt fragment "${fragment.id}" uses {{${key}}} but no value was given`,
                path: `fragments.${fragment.id}`,
              });
            }
            return value;
          });
          return createBlock(
            {
              id: `${name}:${fragment.id}`,
              layer,
              source: name,
              content,
              priority: fragment.priority ?? 1,
              metadata: { fragment: fragment.id },
            },
            request.counter,
          );
        });
      const fitted = new Set(
        fitBlocks(
          [...blocks].sort((left, right) => right.priority - left.priority),
          budget.maxTokens,
        ),
      );
      return blocks.filter((block) => fitted.has(block));
    },
  };
}
