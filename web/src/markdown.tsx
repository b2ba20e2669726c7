import { lazy, memo, Suspense } from 'react';

// Requested as this module loads, so it arrives while the app boots, in a chunk of its own:
// the Markdown parser and highlighter (~half the bundle) stay out of the first script.
const renderer = import('./markdown-renderer.tsx');
const MarkdownRenderer = lazy(async () => ({ default: (await renderer).MarkdownRenderer }));

/**
 * Renders Markdown (CommonMark + GitHub tables, task lists and strikethrough, emphasis next
 * to CJK punctuation) as React elements: sanitised, code fences highlighted. The renderer
 * loads on demand; until it has, and while `plain` is set (a message far from the viewport),
 * the text shows as is (pre-wrapped, class `plain`), never a blank.
 */
export const Markdown = memo(function Markdown(props: { text: string; className?: string; plain?: boolean }) {
  const className = props.className ?? '';
  const plain = <div className={`markdown plain ${className}`}>{props.text}</div>;
  if (props.plain) return plain;
  return (
    <Suspense fallback={plain}>
      <MarkdownRenderer text={props.text} className={className} />
    </Suspense>
  );
});
