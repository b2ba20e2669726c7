import { createContext, useContext } from 'react';
import { en } from './messages-en.ts';
import { zh } from './messages-zh.ts';

/** UI languages. */
export type Locale = 'en' | 'zh';

/** Message keys. */
export type MessageKey = keyof typeof en;

/** The dictionaries (`messages-en.ts`, `messages-zh.ts`). */
export const MESSAGES: Record<Locale, typeof en> = { en, zh };

/** Translation function for one locale; `{name}` placeholders are filled from `values`. */
export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

/** Builds {@link Translate} for a locale. */
export function translator(locale: Locale): Translate {
  return (key, values = {}) =>
    MESSAGES[locale][key].replace(/\{(\w+)\}/gu, (_, name: string) => String(values[name] ?? `{${name}}`));
}

/** The current translation function. */
export const I18nContext = createContext<{ t: Translate; locale: Locale }>({
  t: translator('en'),
  locale: 'en',
});

/** Hook: `const { t } = useI18n()`. */
export function useI18n() {
  return useContext(I18nContext);
}

/** Locale from `?lang=`, storage or the browser. */
export function initialLocale(): Locale {
  const param = new URLSearchParams(location.search).get('lang');
  if (param === 'zh' || param === 'en') return param;
  const stored = localStorage.getItem('ctxloom-locale');
  if (stored === 'zh' || stored === 'en') return stored;
  return navigator.language.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}
