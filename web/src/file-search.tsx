import { useState } from 'react';
import { api, type SearchResponse } from './api.ts';
import { errorText } from './error-text.ts';
import { useI18n } from './i18n.ts';

/** Search across the session's files (literal, case-insensitive); a hit opens the file at its line. */
export function FileSearch(props: {
  sessionId: string;
  onOpen: (path: string, line: number) => void;
  onError: (message: string) => void;
}) {
  const { t } = useI18n();
  const [query, setQuery] = useState('');
  const [result, setResult] = useState<SearchResponse | undefined>();
  const search = async () => {
    if (query.trim() === '') {
      setResult(undefined);
      return;
    }
    try {
      setResult(await api.search(props.sessionId, query.trim()));
    } catch (cause) {
      props.onError(errorText(cause, t));
    }
  };
  return (
    <section className="panel search" aria-labelledby="search-title">
      <div className="panel-head">
        <h2 id="search-title">{t('search')}</h2>
      </div>
      <form
        className="search-form"
        onSubmit={(event) => {
          event.preventDefault();
          void search();
        }}
      >
        <input
          type="search"
          value={query}
          placeholder={t('searchPlaceholder')}
          aria-label={t('searchPlaceholder')}
          onChange={(event) => setQuery(event.target.value)}
        />
        <button type="submit" className="small">
          {t('searchGo')}
        </button>
      </form>
      {result && (
        <div className="search-results" role="status">
          <p className="hint">
            {result.total === 0
              ? t('searchNone', { q: result.query })
              : result.truncated
                ? t('searchTruncated', { n: result.total, shown: result.hits.length })
                : t('searchCount', { n: result.total })}
          </p>
          <ul>
            {result.hits.map((hit) => (
              <li key={`${hit.path}:${hit.line}`}>
                <button type="button" className="hit" onClick={() => props.onOpen(hit.path, hit.line)}>
                  <span className="hit-where">
                    {hit.path}:{hit.line}
                  </span>
                  <span className="hit-text">{hit.text}</span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
