import type { Extension } from '@codemirror/state';

/**
 * The editor's language for `path` — JSON for `.json`, Markdown for everything else — loaded
 * the first time a file of that kind opens, each in a chunk of its own: the Markdown mode
 * brings HTML, CSS and JavaScript modes with it (for HTML inside Markdown), which the first
 * page load does not need. The browser caches each chunk, so a second file of a kind opens
 * without a request.
 */
export async function loadEditorLanguage(path: string): Promise<Extension> {
  if (path.endsWith('.json')) return (await import('@codemirror/lang-json')).json();
  return (await import('@codemirror/lang-markdown')).markdown();
}
