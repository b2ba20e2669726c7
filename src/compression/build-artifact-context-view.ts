import { CtxloomError, type TokenCounter } from '../core/index.ts';
import type { ArtifactEntry, ArtifactIndex, ToolEvidence } from './artifact-schema.ts';
import { fitLines, type LineGroup } from './fit-lines.ts';

/** Options of {@link buildArtifactContextView}. */
export interface ArtifactContextViewOptions {
  counter: TokenCounter;
  /** Upper bound in tokens. Range ≥ 0. */
  maxTokens: number;
  /** Kinds shown as global anchors (latest active version each). Default `['analysis', 'plan']`. */
  anchorKinds?: readonly string[];
  /** Kinds shown as jobs. Default `['sql_job', 'sql_workflow', 'test']`. */
  jobKinds?: readonly string[];
  /** Most jobs in the focus section. Default 5. */
  maxFocusJobs?: number;
  /** Evidence lines per focus job, newest first. Default 2; 0 shows none. Integer ≥ 0. */
  maxEvidencePerJob?: number;
  /** Entries per agent in the recent section. Default 3. */
  recentPerAgent?: number;
  /**
   * Newest tool results that support no artifact (a chat's `read_file`, `search`…), listed in
   * their own section with handle, outcome, length, hash and preview. Default 0 (none).
   */
  toolEvidence?: number;
  /** Leaves out sections with nothing in them (a chat session has no anchors or jobs). Default false. */
  omitEmptySections?: boolean;
}

/** The rendered view and which artifact ids it shows. */
export interface ArtifactContextView {
  text: string;
  tokens: number;
  shownIds: string[];
  omittedIds: string[];
}

/**
 * The three-section artifact view of seed 004 §2.2, bounded by tokens: 1. global anchors (the
 * active analysis and plan), 2. focus jobs (focused keys first, then the newest active jobs,
 * each with key fields and latest tool evidence), 3. recent outputs per agent (including
 * superseded and invalidated versions, marked). Lower sections give way first. Reads the
 * index only, so raw SQL or JSON can never appear.
 * @example buildArtifactContextView(state.index, { counter, maxTokens: 800 }).text
 */
export function buildArtifactContextView(
  index: ArtifactIndex,
  options: ArtifactContextViewOptions,
): ArtifactContextView {
  if (!(options.maxTokens >= 0)) {
    throw new CtxloomError({ code: 'invalid-argument', message: 'maxTokens must be ≥ 0', path: 'maxTokens' });
  }
  const maxEvidence = options.maxEvidencePerJob ?? 2;
  if (!Number.isInteger(maxEvidence) || maxEvidence < 0) {
    throw new CtxloomError({
      code: 'invalid-argument',
      message: 'maxEvidencePerJob must be an integer ≥ 0',
      path: 'maxEvidencePerJob',
    });
  }
  const anchorKinds = new Set(options.anchorKinds ?? ['analysis', 'plan']);
  const jobKinds = new Set(options.jobKinds ?? ['sql_job', 'sql_workflow', 'test']);
  const newestFirst = [...index.artifacts].reverse();
  const shown = new Set<string>();
  const groups: LineGroup[] = [];

  const anchors = newestFirst.filter((entry) => entry.status === 'active' && anchorKinds.has(entry.kind));
  const omitEmpty = options.omitEmptySections === true;
  if (!(omitEmpty && anchors.length === 0)) {
    groups.push({
      key: '#anchors',
      lines: ['### Global anchors', ...(anchors.length === 0 ? ['(none)'] : [])],
    });
  }
  for (const entry of anchors) {
    shown.add(entry.id);
    groups.push({ key: entry.id, lines: [entryLine(entry)], fallback: [shortLine(entry)] });
  }

  const focusRank = (entry: ArtifactEntry) => {
    const rank = index.focus.indexOf(entry.key);
    return rank === -1 ? Number.MAX_SAFE_INTEGER : rank;
  };
  const jobs = newestFirst
    .filter((entry) => entry.status === 'active' && jobKinds.has(entry.kind))
    .sort((a, b) => focusRank(a) - focusRank(b))
    .slice(0, options.maxFocusJobs ?? 5);
  if (!(omitEmpty && jobs.length === 0)) {
    groups.push({ key: '#jobs', lines: ['### Focus jobs', ...(jobs.length === 0 ? ['(none)'] : [])] });
  }
  for (const entry of jobs) {
    shown.add(entry.id);
    // Not slice(-maxEvidence): slice(-0) is the whole list.
    const own = index.evidence.filter((item) => item.artifactId === entry.id);
    const evidence = own
      .slice(Math.max(0, own.length - maxEvidence))
      .reverse()
      .map(evidenceLine);
    groups.push({ key: entry.id, lines: [entryLine(entry), ...evidence], fallback: [shortLine(entry)] });
  }

  const recentPerAgent = options.recentPerAgent ?? 3;
  if (recentPerAgent > 0) groups.push({ key: '#recent', lines: ['### Recent by agent'] });
  const perAgent = new Map<string, ArtifactEntry[]>();
  for (const entry of newestFirst) {
    if (shown.has(entry.id)) continue;
    const list = perAgent.get(entry.agentId) ?? [];
    if (list.length < recentPerAgent) list.push(entry);
    perAgent.set(entry.agentId, list);
  }
  for (const [agentId, entries] of [...perAgent].sort(([a], [b]) => a.localeCompare(b))) {
    if (entries.length === 0) continue;
    groups.push({ key: `#agent:${agentId}`, lines: [`- ${agentId}:`] });
    for (const entry of entries) groups.push({ key: entry.id, lines: [`  ${shortLine(entry)}`] });
  }

  const loose = index.evidence.filter((item) => item.artifactId === null);
  const toolEvidence = loose.slice(Math.max(0, loose.length - (options.toolEvidence ?? 0))).reverse();
  if (toolEvidence.length > 0) {
    groups.push({
      key: '#tool-evidence',
      lines: ['### Tool results (newest first; call the tool again to read one)'],
    });
    for (const item of toolEvidence) groups.push({ key: item.id, lines: [toolEvidenceLine(item)] });
  }

  const fitted = fitLines({
    header: [
      `## Artifacts — ${index.artifacts.filter((entry) => entry.status === 'active').length} active, ${index.evidence.length} tool results indexed`,
    ],
    groups,
    maxTokens: options.maxTokens,
    counter: options.counter,
    footer: (dropped) => {
      const ids = dropped.filter((key) => !key.startsWith('#'));
      return `… ${ids.length} more not shown${ids.length > 0 ? `: ${ids.slice(0, 20).join(', ')}` : ''}`;
    },
  });
  const isId = (key: string) => !key.startsWith('#');
  return {
    text: fitted.text,
    tokens: fitted.tokens,
    shownIds: fitted.keptKeys.filter(isId),
    omittedIds: fitted.droppedKeys.filter(isId),
  };
}

function entryLine(entry: ArtifactEntry): string {
  const fields = Object.entries(entry.keyFields)
    .map(([key, value]) => `${key}=${value}`)
    .join('; ');
  return `- ${entry.id} by ${entry.agentId} [${entry.status}] sha256:${entry.sha256.slice(0, 12)} len ${entry.length}${fields ? ` | ${fields}` : ''} | ${entry.preview}`;
}

function shortLine(entry: ArtifactEntry): string {
  const reason = entry.invalidation === undefined ? '' : ` (${entry.invalidation.reason})`;
  return `- ${entry.id} [${entry.status}${reason}] sha256:${entry.sha256.slice(0, 12)}`;
}

function toolEvidenceLine(evidence: ToolEvidence): string {
  return `- ${evidence.id} ${evidence.toolName} ${evidence.ok ? 'ok' : 'FAILED'} · ${evidence.outputLength} chars · sha256:${evidence.outputSha256.slice(0, 12)} | ${evidence.preview}`;
}

function evidenceLine(evidence: ToolEvidence): string {
  return `  evidence ${evidence.id} ${evidence.toolName} ${evidence.ok ? 'ok' : 'FAILED'}: ${evidence.preview}`;
}
