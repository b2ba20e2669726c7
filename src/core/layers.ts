import { CtxloomError } from './errors.ts';

/** A context key: the name of an injected layer, always ending in `__context`. */
export type ContextKey = `${string}__context`;

/** How a layer is rendered: its own system message, the chat history, or the user query. */
export type LayerKind = 'system' | 'context' | 'history' | 'query';

/**
 * One layer of the compiled input.
 * - `lifecycle`: `runtime` layers exist only for this call; `persisted` ones survive a
 *   checkpoint (only `compression__context` and the history by default).
 * - `shared`: injected for every agent when `enableShareContext` is on (seed 000); the
 *   system prompt is never shared.
 * - `compactable`: the compactor may drop or trim its blocks (`system`,
 *   `framework__context` and `query` are never compacted).
 * - `stable`: its text rarely changes between calls, so a prompt-cache breakpoint may sit
 *   after it.
 */
export interface LayerDefinition {
  name: string;
  kind: LayerKind;
  lifecycle: 'runtime' | 'persisted';
  shared: boolean;
  compactable: boolean;
  stable: boolean;
  /** Heading used when several layers are merged into one system message. */
  title?: string;
}

/**
 * The default layers: seed 000's eight, in its order, with the user's profile after the
 * framework (stable: a workspace's selected profile blocks change only when the user edits
 * them — decision 071) and a long session's recall before the history.
 */
export const DEFAULT_LAYERS: readonly LayerDefinition[] = [
  { name: 'system', kind: 'system', lifecycle: 'runtime', shared: false, compactable: false, stable: true },
  {
    name: 'framework__context',
    kind: 'context',
    lifecycle: 'runtime',
    shared: true,
    compactable: false,
    stable: true,
    title: 'Framework',
  },
  {
    // The user's profile (a workspace's `profileBlocks`): stable, so the cache-friendly order
    // sends it before the history (decision 071).
    name: 'profile__context',
    kind: 'context',
    lifecycle: 'runtime',
    shared: true,
    compactable: true,
    stable: true,
    title: 'Profile',
  },
  {
    name: 'experience__context',
    kind: 'context',
    lifecycle: 'runtime',
    shared: true,
    compactable: true,
    stable: false,
    title: 'Experience',
  },
  {
    name: 'knowledge__context',
    kind: 'context',
    lifecycle: 'runtime',
    shared: true,
    compactable: true,
    stable: false,
    title: 'Knowledge',
  },
  {
    name: 'todo__context',
    kind: 'context',
    lifecycle: 'runtime',
    shared: true,
    compactable: true,
    stable: false,
    title: 'Tasks',
  },
  {
    name: 'compression__context',
    kind: 'context',
    lifecycle: 'persisted',
    shared: true,
    compactable: true,
    stable: false,
    title: 'Summary of earlier conversation',
  },
  {
    // A long session's recall (decision 040): older messages picked for this call's query.
    name: 'recall__context',
    kind: 'context',
    lifecycle: 'runtime',
    shared: false,
    compactable: true,
    stable: false,
    title: 'Earlier messages relevant to this question',
  },
  {
    name: 'history',
    kind: 'history',
    lifecycle: 'persisted',
    shared: false,
    compactable: true,
    stable: false,
  },
  { name: 'query', kind: 'query', lifecycle: 'runtime', shared: false, compactable: false, stable: false },
];

/** True when `key` is a valid context key (ends in `__context`, with a name before it). */
export function isContextKey(key: string): key is ContextKey {
  return key.length > '__context'.length && key.endsWith('__context');
}

/** Throws `invalid-context-key` unless `key` ends in `__context`. */
export function assertContextKey(key: string): asserts key is ContextKey {
  if (!isContextKey(key)) {
    throw new CtxloomError({
      code: 'invalid-context-key',
      message: `context key "${key}" must end in "__context"`,
      path: key,
    });
  }
}

/** Where {@link LayerRegistry.register} puts a new layer. Default: just before `history`. */
export type LayerPosition = { before: string } | { after: string } | { index: number };

/** Options for a custom layer; only `name` is required (a `__context` key). */
export type CustomLayerOptions = Pick<LayerDefinition, 'name'> &
  Partial<Omit<LayerDefinition, 'name' | 'kind'>>;

/** The ordered set of layers a compile uses. */
export interface LayerRegistry {
  /** Layers in composition order. */
  list(): readonly LayerDefinition[];
  /** The layer called `name`; throws `unknown-layer` when there is none. */
  get(name: string): LayerDefinition;
  has(name: string): boolean;
  /** Position of `name` in the order; throws `unknown-layer`. */
  indexOf(name: string): number;
  /** Adds a custom context layer (its name must end in `__context`). */
  register(layer: CustomLayerOptions, position?: LayerPosition): LayerDefinition;
}

/** Options of {@link createLayerRegistry}. */
export interface LayerRegistryOptions {
  /**
   * Default layers marked `stable` in this registry: placed before the history by the
   * cache-friendly order. For a caller that knows a layer's text changes only when the
   * history's first message does (a session's summary, decision 063). Unknown names throw
   * `unknown-layer`.
   */
  stable?: readonly string[];
}

/** A registry holding {@link DEFAULT_LAYERS}; `register` adds custom `__context` layers. */
export function createLayerRegistry(
  extra: readonly CustomLayerOptions[] = [],
  options: LayerRegistryOptions = {},
): LayerRegistry {
  const layers: LayerDefinition[] = DEFAULT_LAYERS.map((layer) => ({ ...layer }));

  const indexOf = (name: string): number => {
    const index = layers.findIndex((layer) => layer.name === name);
    if (index < 0) {
      throw new CtxloomError({
        code: 'unknown-layer',
        message: `unknown layer "${name}"; known: ${layers.map((layer) => layer.name).join(', ')}`,
        path: name,
      });
    }
    return index;
  };

  const registry: LayerRegistry = {
    list: () => layers,
    get: (name) => layers[indexOf(name)] as LayerDefinition,
    has: (name) => layers.some((layer) => layer.name === name),
    indexOf,
    register(options, position = { before: 'history' }) {
      assertContextKey(options.name);
      if (registry.has(options.name)) {
        throw new CtxloomError({
          code: 'duplicate-layer',
          message: `layer "${options.name}" is already registered`,
          path: options.name,
        });
      }
      const layer: LayerDefinition = {
        name: options.name,
        kind: 'context',
        lifecycle: options.lifecycle ?? 'runtime',
        shared: options.shared ?? true,
        compactable: options.compactable ?? true,
        stable: options.stable ?? false,
        ...(options.title === undefined ? {} : { title: options.title }),
      };
      let at: number;
      if ('index' in position) {
        if (!Number.isInteger(position.index) || position.index < 1 || position.index > indexOf('history')) {
          throw new CtxloomError({
            code: 'invalid-argument',
            message: `a context layer must sit after "system" and before "history" (index 1..${indexOf('history')})`,
            path: 'position.index',
          });
        }
        at = position.index;
      } else if ('before' in position) {
        at = indexOf(position.before);
      } else {
        at = indexOf(position.after) + 1;
      }
      if (at < 1 || at > indexOf('history')) {
        throw new CtxloomError({
          code: 'invalid-argument',
          message: 'a context layer must sit after "system" and before "history"',
          path: 'position',
        });
      }
      layers.splice(at, 0, layer);
      return layer;
    },
  };
  for (const name of options.stable ?? []) (layers[indexOf(name)] as LayerDefinition).stable = true;
  for (const layer of extra) registry.register(layer);
  return registry;
}

/**
 * Adds a custom `__context` layer to `registry` at `position` (default: just before the
 * history) and returns its definition. Same as `registry.register(layer, position)`.
 * @example registerLayer(layers, { name: 'glossary__context', title: 'Glossary' }, { after: 'framework__context' });
 */
export function registerLayer(
  registry: LayerRegistry,
  layer: CustomLayerOptions,
  position?: LayerPosition,
): LayerDefinition {
  return registry.register(layer, position);
}
