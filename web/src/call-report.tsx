import { useEffect, useRef, useState } from 'react';
import { ApiError, api, type CallDiffResponse, type CallResponse } from './api.ts';
import { CallDiffView } from './call-diff.tsx';
import { describeDecision } from './decision-format.ts';
import { errorText } from './error-text.ts';
import { useI18n } from './i18n.ts';
import { ReportView } from './report-view.tsx';
import { TabList } from './tab-list.tsx';

type View = 'report' | 'diff';

/**
 * An earlier call, opened from an answer's report chip: every logged step of its turn (tabs
 * when there are several), each step's report as the preview shows reports, and its diff with
 * the call before it in the log. Escape or the back button returns to the preview.
 */
export function CallReport(props: {
  sessionId: string;
  callId: string;
  onClose: () => void;
  /** Called instead of saying "no longer in the log" when the call is not found (a link's call). */
  onMissing?: (() => void) | undefined;
}) {
  const { t, locale } = useI18n();
  const { sessionId, callId } = props;
  const [opened, setOpened] = useState<CallResponse | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [stepId, setStepId] = useState(callId);
  const [view, setView] = useState<View>('report');
  const [diffs, setDiffs] = useState<Record<string, CallDiffResponse | string>>({});
  const heading = useRef<HTMLHeadingElement>(null);
  const failure = (cause: unknown) =>
    cause instanceof ApiError && cause.status === 404 ? t('callGone') : errorText(cause, t);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `failure` only translates; `onMissing` is read when the call fails
  useEffect(() => {
    let live = true;
    setOpened(undefined);
    setError(undefined);
    setStepId(callId);
    setView('report');
    setDiffs({});
    heading.current?.focus();
    api.call(sessionId, callId).then(
      (result) => live && setOpened(result),
      (cause) => {
        if (!live) return;
        if (cause instanceof ApiError && cause.status === 404 && props.onMissing !== undefined)
          props.onMissing();
        else setError(failure(cause));
      },
    );
    return () => {
      live = false;
    };
  }, [sessionId, callId]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: fetched once per step, kept in `diffs`
  useEffect(() => {
    if (view !== 'diff' || diffs[stepId] !== undefined) return;
    let live = true;
    api.callDiff(sessionId, stepId).then(
      (result) => live && setDiffs((state) => ({ ...state, [stepId]: result })),
      (cause) => live && setDiffs((state) => ({ ...state, [stepId]: failure(cause) })),
    );
    return () => {
      live = false;
    };
  }, [sessionId, stepId, view]);

  const formatTime = (at: string) => new Date(at).toLocaleString(locale === 'zh' ? 'zh-CN' : 'en-US');
  const turn = opened?.turn ?? [];
  const call = turn.find((candidate) => candidate.id === stepId) ?? opened?.call;
  const diff = diffs[stepId];
  const panelId = 'call-view-panel';
  return (
    <section
      className="panel preview call-report"
      aria-labelledby="call-title"
      data-testid="call-report"
      data-call-id={call?.id}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.preventDefault();
          props.onClose();
        }
      }}
    >
      <div className="panel-head">
        <h2 id="call-title" ref={heading} tabIndex={-1}>
          {t('callReport')}
        </h2>
        <button type="button" className="small" onClick={props.onClose}>
          {t('backToPreview')}
        </button>
      </div>
      {error !== undefined && (
        <p className="chat-error" role="alert">
          {error}
        </p>
      )}
      {error === undefined && (opened === undefined || call === undefined) && (
        <p className="hint">{t('loading')}</p>
      )}
      {opened !== undefined && call !== undefined && (
        <>
          <p className="call-meta">
            {t('callMeta', { at: formatTime(call.at), model: call.model })} ·{' '}
            {call.agentId !== undefined && `${call.agentId} · `}
            {t('callStep', {
              n:
                Math.max(
                  0,
                  turn.findIndex((step) => step.id === call.id),
                ) + 1,
              of: turn.length,
            })}
          </p>
          {turn.length > 1 && (
            <TabList
              className="tab-list step-tabs"
              label={t('stepsLabel')}
              idPrefix="call-step"
              controls={panelId}
              tabs={turn.map((step) => ({
                id: step.id,
                // A process's turn has several callers (router, agents): name them.
                label:
                  step.agentId === undefined
                    ? t('stepTab', { n: step.step + 1 })
                    : `${step.agentId}${step.step > 0 ? ` ${step.step + 1}` : ''}`,
              }))}
              selected={call.id}
              onSelect={setStepId}
            />
          )}
          <TabList
            className="tab-list view-tabs"
            label={t('viewsLabel')}
            idPrefix="call-view"
            controls={panelId}
            tabs={[
              { id: 'report', label: t('viewReport') },
              { id: 'diff', label: t('viewDiff') },
            ]}
            selected={view}
            onSelect={setView}
          />
          <div id={panelId} role="tabpanel" aria-labelledby={`call-view-${view}`} className="call-view">
            {view === 'report' ? (
              <ReportView key={call.id} report={call.report} idPrefix="call">
                {call.decision !== undefined && <DecisionView decision={call.decision} />}
              </ReportView>
            ) : diff === undefined ? (
              <p className="hint">{t('loading')}</p>
            ) : typeof diff === 'string' ? (
              <p className="chat-error" role="alert">
                {diff}
              </p>
            ) : (
              <CallDiffView response={diff} formatTime={formatTime} />
            )}
          </div>
        </>
      )}
    </section>
  );
}

/** What the commander decided with a router call's output (rework, gate, next agent, refusals). */
function DecisionView(props: { decision: NonNullable<CallResponse['call']['decision']> }) {
  const { t } = useI18n();
  const { summary, actions } = describeDecision(props.decision, t);
  return (
    <section className="call-decision" data-testid="call-decision" aria-label={t('decisionTitle')}>
      <h3>{t('decisionTitle')}</h3>
      <p data-next={props.decision.next}>{summary}</p>
      {actions.length > 0 && (
        <ul>
          {actions.map((line, index) => (
            <li
              // biome-ignore lint/suspicious/noArrayIndexKey: actions are a fixed list, in order
              key={index}
              className={props.decision.actions[index]?.status === 'rejected' ? 'rejected' : undefined}
            >
              {line}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
