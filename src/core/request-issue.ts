import type { CompileRequest } from './compile-types.ts';
import { CtxloomError } from './errors.ts';
import { type Message, PARTS_OF_ROLE, type Part } from './message.ts';
import { shorten } from './shorten.ts';

/** What is wrong with a compile request, and where (`history.3.content.0.text`). */
export interface RequestIssue {
  path: string;
  message: string;
}

const ROLES: readonly unknown[] = ['system', 'user', 'assistant', 'tool'];
const PHASES: readonly unknown[] = ['early', 'mid', 'late'];
const OUTPUT_TYPES: readonly unknown[] = [
  'text',
  'json',
  'error-text',
  'error-json',
  'execution-denied',
  'content',
];

/**
 * The first problem of the request's own fields (system prompt, contexts, query — a user
 * message —, compression, phase, progress, and whether `history`, `steps` and `blocks` are
 * arrays): a few reads, checked before every compile.
 * The history's and the steps' messages are not walked here (a long history would pay a read
 * of every message per compile); {@link messagesIssue} walks them when a compile fails.
 */
export function requestFieldsIssue(request: CompileRequest): RequestIssue | undefined {
  const { systemPrompt, contexts, query } = request as Record<keyof CompileRequest, unknown>;
  if (systemPrompt !== undefined && typeof systemPrompt !== 'string')
    return { path: 'systemPrompt', message: `systemPrompt must be a string, got ${kindOf(systemPrompt)}` };
  if (contexts !== undefined) {
    if (!isObject(contexts))
      return { path: 'contexts', message: `contexts must be an object of strings, got ${kindOf(contexts)}` };
    for (const [key, text] of Object.entries(contexts)) {
      if (text !== undefined && typeof text !== 'string')
        return { path: `contexts.${key}`, message: `a context must be a string, got ${kindOf(text)}` };
    }
  }
  if (query !== undefined && typeof query !== 'string') {
    if (!isObject(query))
      return { path: 'query', message: `the query must be a string or a message, got ${kindOf(query)}` };
    // The query is the user's input (seed 000: `HumanMessage(query)`); a model's or a tool's
    // message belongs in the history or the steps.
    if (query.role !== 'user' && ROLES.includes(query.role))
      return {
        path: 'query.role',
        message: `the query must be a user message, got role ${kindOf(query.role)}; put it in history or steps`,
      };
    const issue = messageIssue(query, 'query');
    if (issue !== undefined) return issue;
  }
  const compression = compressionIssue(request.compression);
  if (compression !== undefined) return compression;
  const { phase, progress } = request as Record<keyof CompileRequest, unknown>;
  if (phase !== undefined && !PHASES.includes(phase))
    return { path: 'phase', message: `phase must be "early", "mid" or "late", got ${kindOf(phase)}` };
  if (progress !== undefined && !(typeof progress === 'number' && progress >= 0 && progress <= 1))
    return { path: 'progress', message: `progress must be a number within 0..1, got ${kindOf(progress)}` };
  for (const field of ['history', 'steps', 'blocks'] as const) {
    const value = request[field];
    if (value !== undefined && !Array.isArray(value))
      return { path: field, message: `${field} must be an array, got ${kindOf(value)}` };
  }
  return undefined;
}

function compressionIssue(compression: unknown): RequestIssue | undefined {
  if (compression === undefined) return undefined;
  if (!isObject(compression))
    return { path: 'compression', message: `compression must be an object, got ${kindOf(compression)}` };
  const { summary, throughMessageId, uncarried, recallTool, actions } = compression;
  if (typeof summary !== 'string')
    return { path: 'compression.summary', message: `the summary must be a string, got ${kindOf(summary)}` };
  for (const [field, value] of [
    ['throughMessageId', throughMessageId],
    ['recallTool', recallTool],
  ] as const) {
    if (value !== undefined && typeof value !== 'string')
      return { path: `compression.${field}`, message: `${field} must be a string, got ${kindOf(value)}` };
  }
  if (uncarried !== undefined && !(isObject(uncarried) && typeof uncarried.has === 'function'))
    return {
      path: 'compression.uncarried',
      message: `uncarried must be a Set of ids, got ${kindOf(uncarried)}`,
    };
  if (actions !== undefined && !Array.isArray(actions))
    return { path: 'compression.actions', message: `actions must be an array, got ${kindOf(actions)}` };
  return undefined;
}

/** The first message of `history` or `steps` that is not a `Message`, and what is wrong with it. */
export function messagesIssue(request: CompileRequest): RequestIssue | undefined {
  for (const field of ['history', 'steps'] as const) {
    const messages = request[field] ?? [];
    for (let index = 0; index < messages.length; index++) {
      const issue = messageIssue(messages[index], `${field}.${index}`);
      if (issue !== undefined) return issue;
    }
  }
  return undefined;
}

/**
 * The `invalid-argument` error of a message that is not a `Message` (see {@link
 * assertMessageShape}). Its path is the message's own (`message.role`): `compileContext`
 * replaces it with the error naming where the message is (`history.3.role`).
 */
export class MessageShapeError extends CtxloomError {}

/**
 * Throws {@link MessageShapeError} when a message has no non-empty string id, a role other
 * than system, user, assistant or tool, is a user or tool message carrying a part its role does
 * not send (`PARTS_OF_ROLE`: a tool call or result in a user message, anything but a tool
 * result in a tool message), carries a file part without string data and media type, or is a
 * tool message whose content is text (a tool message carries tool-result parts:
 * providers refuse one without a result). The measuring pass calls it with the `id`, `role` and `parts`
 * (`undefined` for a string content) it has just read, for each message it makes a measure
 * for — once per message and counter — so a long history pays no walk and no read of its own
 * for it.
 */
export function assertMessageShape(
  message: Message,
  id: unknown,
  role: unknown,
  parts: readonly Part[] | undefined,
): void {
  if (typeof id === 'string' && id !== '') {
    if (role === 'system') return;
    if ((role === 'user' || role === 'assistant') && (parts === undefined || partsSuit(role, parts))) return;
    if (role === 'tool' && parts !== undefined && partsSuit(role, parts)) return;
  }
  const issue = messageIssue(message, 'message');
  throw new MessageShapeError({
    code: 'invalid-argument',
    message: issue?.message ?? 'the message is not a Message',
    path: issue?.path ?? 'message',
  });
}

/**
 * Whether every part is one a `role` message may carry (`PARTS_OF_ROLE`; an assistant's any) and
 * every file part has its data and media type: a file is sent, not read, so nothing else would
 * notice one without them before the provider does.
 */
function partsSuit(role: 'user' | 'assistant' | 'tool', parts: readonly Part[]): boolean {
  const allowed = role === 'assistant' ? undefined : PARTS_OF_ROLE[role];
  for (let at = 0; at < parts.length; at++) {
    const part = parts[at] as Part;
    if (allowed !== undefined && !allowed.includes(part.type)) return false;
    if (part.type === 'file' && (typeof part.data !== 'string' || typeof part.mediaType !== 'string'))
      return false;
  }
  return true;
}

/** The error for an issue: `invalid-argument`, its path, and what the compile failed on. */
export function requestError(issue: RequestIssue, cause?: unknown): CtxloomError {
  return new CtxloomError({
    code: 'invalid-argument',
    message: issue.message,
    path: issue.path,
    ...(cause === undefined ? {} : { cause }),
  });
}

function messageIssue(value: unknown, path: string): RequestIssue | undefined {
  if (!isObject(value)) return { path, message: `a message must be an object, got ${kindOf(value)}` };
  const { id, role, content, name } = value;
  if (typeof id !== 'string' || id === '')
    return { path: `${path}.id`, message: `a message needs a non-empty string id, got ${kindOf(id)}` };
  const which = `message "${shorten(id, 60)}"`;
  if (!ROLES.includes(role))
    return {
      path: `${path}.role`,
      message: `${which}: role must be system, user, assistant or tool, got ${kindOf(role)}`,
    };
  if (name !== undefined && typeof name !== 'string')
    return { path: `${path}.name`, message: `${which}: name must be a string, got ${kindOf(name)}` };
  if (typeof content === 'string') {
    if (role !== 'tool') return undefined;
    // As the stored messages' rule (`checkMessages`): every emitter sends a tool message's
    // results as tool-result parts, and a provider refuses a tool message without one.
    return {
      path: `${path}.content`,
      message: `${which}: a tool message cannot have text content; tool messages hold only ${PARTS_OF_ROLE.tool.join(', ')} parts`,
    };
  }
  if (!Array.isArray(content))
    return {
      path: `${path}.content`,
      message: `${which}: content must be a string or an array of parts, got ${kindOf(content)}`,
    };
  for (let at = 0; at < content.length; at++) {
    const problem = partProblem(content[at]);
    if (problem !== undefined)
      return { path: `${path}.content.${at}${problem.field}`, message: `${which}: ${problem.message}` };
    // A user or tool message carries only its role's parts (`PARTS_OF_ROLE`: a tool call is the
    // model's, a tool result the tool's), as every provider takes them. An assistant message is
    // not checked: the AI SDK's carries the results and files of tools the provider ran.
    const type = (content[at] as Part).type;
    if ((role === 'user' || role === 'tool') && !PARTS_OF_ROLE[role].includes(type))
      return {
        path: `${path}.content.${at}.type`,
        message: `${which}: a ${role} message cannot carry a ${type} part; ${role} messages hold only ${PARTS_OF_ROLE[role].join(', ')} parts`,
      };
  }
  return undefined;
}

function partProblem(part: unknown): { field: string; message: string } | undefined {
  if (!isObject(part)) return { field: '', message: `a part must be an object, got ${kindOf(part)}` };
  const needs = (field: string, value: unknown) =>
    typeof value === 'string'
      ? undefined
      : {
          field: `.${field}`,
          message: `a ${String(part.type)} part needs a string ${field}, got ${kindOf(value)}`,
        };
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return needs('text', part.text);
    case 'tool-call':
      return needs('toolCallId', part.toolCallId) ?? needs('toolName', part.toolName);
    case 'tool-result':
      return (
        needs('toolCallId', part.toolCallId) ?? needs('toolName', part.toolName) ?? outputProblem(part.output)
      );
    case 'file':
      return needs('data', part.data) ?? needs('mediaType', part.mediaType);
    default:
      return {
        field: '.type',
        message: `a part's type is text, reasoning, tool-call, tool-result or file, got ${kindOf(part.type)}`,
      };
  }
}

function outputProblem(output: unknown): { field: string; message: string } | undefined {
  if (!isObject(output) || !OUTPUT_TYPES.includes(output.type))
    return {
      field: '.output',
      message: `a tool-result part needs an output of type ${OUTPUT_TYPES.join(', ')}, got ${kindOf(isObject(output) ? output.type : output)}`,
    };
  if ((output.type === 'text' || output.type === 'error-text') && typeof output.value !== 'string')
    return {
      field: '.output.value',
      message: `a ${output.type} output's value must be a string, got ${kindOf(output.value)}`,
    };
  if (output.type === 'content') {
    if (!Array.isArray(output.value))
      return {
        field: '.output.value',
        message: `a content output's value must be an array, got ${kindOf(output.value)}`,
      };
    for (let at = 0; at < output.value.length; at++) {
      const item: unknown = output.value[at];
      if (!isObject(item) || typeof item.type !== 'string')
        return {
          field: `.output.value.${at}`,
          message: `a content output's part needs a string type, got ${kindOf(item)}`,
        };
      if (item.type === 'text' && typeof item.text !== 'string')
        return {
          field: `.output.value.${at}.text`,
          message: `a text part needs a string text, got ${kindOf(item.text)}`,
        };
    }
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `null`, `an array`, `a number (42)`, `"bot"`: what a value is, for a message. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(shorten(value, 40));
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value} (${String(value)})`;
}
