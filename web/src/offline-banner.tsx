import { useI18n } from './i18n.ts';

/** States plainly that the offline model answers, and how to set a real one. */
export function OfflineBanner() {
  const { t } = useI18n();
  return (
    <section className="offline-banner" aria-label={t('offlineTitle')}>
      <strong>{t('offlineTitle')}.</strong> {t('offlineBody')}
      {t('offlineHow')} <code>CTXLOOM_MODEL=openai:gpt-4o-mini npm start</code>,{' '}
      <code>anthropic:claude-sonnet-4-5</code>,{' '}
      <code>openai-compatible:http://127.0.0.1:11434/v1#qwen2.5:7b</code>
    </section>
  );
}
