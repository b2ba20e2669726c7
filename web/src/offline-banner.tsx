import { Fragment } from 'react';
import { useI18n } from './i18n.ts';

/** Commands, not prose: the same in every language. */
const EXAMPLES = [
  'CTXLOOM_MODEL=openai:gpt-4o-mini npm start',
  'anthropic:claude-sonnet-4-5',
  'openai-compatible:http://127.0.0.1:11434/v1#qwen2.5:7b',
];

/** States plainly that the offline model answers, and how to set a real one. */
export function OfflineBanner() {
  const { t } = useI18n();
  return (
    <section className="offline-banner" aria-label={t('offlineTitle')}>
      <strong>{t('offlineTitle')}.</strong> {t('offlineBody')}
      <span className="offline-how">
        {t('offlineHow')}{' '}
        {EXAMPLES.map((example, index) => (
          <Fragment key={example}>
            {index > 0 && ', '}
            <code>{example}</code>
          </Fragment>
        ))}
      </span>
    </section>
  );
}
