import { createRequire } from 'node:module';
import { CtxloomError } from '../core/index.ts';

const require = createRequire(import.meta.url);

/**
 * Loads an optional peer dependency synchronously (CommonJS or, on Node ≥ 22.12, ESM), or
 * throws a `missing-dependency` {@link CtxloomError} that names the package to install.
 * Integrations (model providers, …) are optional peers so `npm install ctxloom` stays small.
 * @example const { createOpenAI } = requirePeer<typeof import('@ai-sdk/openai')>({ name: '@ai-sdk/openai', feature: 'openai: models' });
 */
export function requirePeer<T>({ name, feature }: { name: string; feature: string }): T {
  try {
    return require(name) as T;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const missing =
      (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') &&
      String((error as Error).message).includes(`'${name}'`);
    if (!missing) throw error;
    throw new CtxloomError({
      code: 'missing-dependency',
      message: `${feature} needs the package "${name}", which is not installed: npm install ${name}`,
      path: name,
    });
  }
}
