import type { LanguageModelV4 } from '@ai-sdk/provider';
import { CtxloomError } from '../core/index.ts';
import { createOfflineModel } from './offline-model.ts';
import { requirePeer } from './require-peer.ts';

/** A resolved model and how to describe it. */
export interface ResolvedModel {
  model: LanguageModelV4;
  /** The spec it came from, e.g. `openai:gpt-4o` or `offline`. */
  spec: string;
  /** True for the built-in offline model (no network, no key). */
  offline: boolean;
  /** Model id used to pick a tokenizer (`gpt-4o`, `claude-sonnet-4`, …). */
  modelId: string;
}

/**
 * Resolves `CTXLOOM_MODEL`-style specs:
 * - `offline` (default when nothing is set) — the labelled offline model, streamed every
 *   `CTXLOOM_OFFLINE_CHUNK_MS` (default 10) milliseconds;
 * - `openai:<model>` — `OPENAI_API_KEY` (and `OPENAI_BASE_URL`) from the environment;
 * - `anthropic:<model>` — `ANTHROPIC_API_KEY`;
 * - `openai-compatible:<baseURL>#<model>` — Ollama, vLLM, LM Studio, DeepSeek, Qwen…;
 *   `CTXLOOM_API_KEY` is sent as the bearer key when set.
 *
 * Each provider package is an optional peer dependency, loaded on first use; a missing one is
 * a `missing-dependency` error naming it (`npm install @ai-sdk/openai`).
 * @example resolveModel('openai-compatible:http://127.0.0.1:11434/v1#qwen2.5:7b')
 */
export function resolveModel(spec?: string, env: Record<string, string | undefined> = {}): ResolvedModel {
  const value = (spec ?? '').trim();
  if (value === '' || value === 'offline') {
    // Streamed a few words every 10 ms so it reads like a model; CTXLOOM_OFFLINE_CHUNK_MS=0 for load tests.
    const chunkDelayMs = Number(env.CTXLOOM_OFFLINE_CHUNK_MS ?? 10);
    return {
      model: createOfflineModel({ chunkDelayMs: Number.isFinite(chunkDelayMs) ? chunkDelayMs : 10 }),
      spec: 'offline',
      offline: true,
      modelId: 'offline',
    };
  }
  const colon = value.indexOf(':');
  const provider = colon < 0 ? value : value.slice(0, colon);
  const rest = colon < 0 ? '' : value.slice(colon + 1);
  switch (provider) {
    case 'openai': {
      need(rest, value, 'openai:<model>');
      const { createOpenAI } = requirePeer<typeof import('@ai-sdk/openai')>({
        name: '@ai-sdk/openai',
        feature: `CTXLOOM_MODEL=${value}`,
      });
      return { model: createOpenAI({})(rest), spec: value, offline: false, modelId: rest };
    }
    case 'anthropic': {
      need(rest, value, 'anthropic:<model>');
      const { createAnthropic } = requirePeer<typeof import('@ai-sdk/anthropic')>({
        name: '@ai-sdk/anthropic',
        feature: `CTXLOOM_MODEL=${value}`,
      });
      return { model: createAnthropic({})(rest), spec: value, offline: false, modelId: rest };
    }
    case 'openai-compatible': {
      const hash = rest.lastIndexOf('#');
      const baseURL = hash < 0 ? '' : rest.slice(0, hash);
      const modelId = hash < 0 ? '' : rest.slice(hash + 1);
      if (!/^https?:\/\//u.test(baseURL) || modelId === '') {
        throw invalid(
          value,
          'openai-compatible:<baseURL>#<model>, e.g. openai-compatible:http://127.0.0.1:11434/v1#qwen2.5:7b',
        );
      }
      const apiKey = env.CTXLOOM_API_KEY;
      const { createOpenAICompatible } = requirePeer<typeof import('@ai-sdk/openai-compatible')>({
        name: '@ai-sdk/openai-compatible',
        feature: `CTXLOOM_MODEL=${value}`,
      });
      const provider = createOpenAICompatible({
        name: 'openai-compatible',
        baseURL,
        ...(apiKey === undefined ? {} : { apiKey }),
      });
      return { model: provider.chatModel(modelId), spec: value, offline: false, modelId };
    }
    default:
      throw invalid(
        value,
        'offline | openai:<model> | anthropic:<model> | openai-compatible:<baseURL>#<model>',
      );
  }
}

function need(rest: string, value: string, form: string): void {
  if (rest === '') throw invalid(value, form);
}

function invalid(value: string, form: string): CtxloomError {
  return new CtxloomError({
    code: 'invalid-config',
    message: `CTXLOOM_MODEL="${value}" is not a model spec; expected ${form}`,
    path: 'CTXLOOM_MODEL',
  });
}
