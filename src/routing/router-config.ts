import { CtxloomError } from '../core/index.ts';

/** Thresholds of the router and commander, each in 0..1. */
export interface RouterConfig {
  /** Below it the router may not pick an agent; a clarification is asked instead. Default 0.7. */
  confidenceThreshold: number;
  /** Below it a `propose_global_delta` becomes an open question. Default `confidenceThreshold`. */
  globalDeltaThreshold: number;
}

/** Default thresholds (seed 004 §6). */
export const DEFAULT_ROUTER_CONFIG: RouterConfig = { confidenceThreshold: 0.7, globalDeltaThreshold: 0.7 };

/**
 * Reads the thresholds from a flat config (environment, `context-config.json`, a settings
 * table) whose keys carry the application's prefix: `<app>_router_confidence_threshold` and
 * `<app>_global_delta_confidence_threshold`, e.g. `etl_router_confidence_threshold=0.8`.
 * Missing keys take the defaults; a value outside 0..1 throws `invalid-config` naming the key.
 */
export function resolveRouterConfig(options: {
  app: string;
  values?: Readonly<Record<string, string | number | undefined>>;
}): RouterConfig {
  const values = options.values ?? {};
  const read = (key: string, fallback: number): number => {
    const raw = values[key];
    if (raw === undefined || raw === '') return fallback;
    const value = typeof raw === 'number' ? raw : Number(raw);
    if (!Number.isFinite(value) || value < 0 || value > 1) {
      throw new CtxloomError({
        code: 'invalid-config',
        message: `${key} must be a number in 0..1, got "${raw}"`,
        path: key,
      });
    }
    return value;
  };
  const confidenceThreshold = read(
    `${options.app}_router_confidence_threshold`,
    DEFAULT_ROUTER_CONFIG.confidenceThreshold,
  );
  return {
    confidenceThreshold,
    globalDeltaThreshold: read(`${options.app}_global_delta_confidence_threshold`, confidenceThreshold),
  };
}
