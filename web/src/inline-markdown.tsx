import type { ReactNode } from 'react';

/**
 * Renders the inline Markdown of chat text — `**bold**` and `` `code` `` — as React elements
 * (never as HTML, so nothing in a message can inject markup). Everything else stays text;
 * line breaks are kept by `white-space: pre-wrap`.
 */
export function InlineMarkdown(props: { text: string }) {
  const nodes: ReactNode[] = [];
  const pattern = /\*\*([^*\n]+)\*\*|`([^`\n]+)`/gu;
  let last = 0;
  for (const match of props.text.matchAll(pattern)) {
    const index = match.index ?? 0;
    if (index > last) nodes.push(props.text.slice(last, index));
    nodes.push(
      match[1] !== undefined ? <strong key={index}>{match[1]}</strong> : <code key={index}>{match[2]}</code>,
    );
    last = index + match[0].length;
  }
  if (last < props.text.length) nodes.push(props.text.slice(last));
  return <>{nodes}</>;
}
