import { lazy, memo, Suspense } from 'react';

// Requested as this module loads, so it arrives while the app boots, in a chunk of its own:
// the Markdown parser and highlighter (~half the bundle) stay out of the first script.
const renderer = import('./markdown-renderer.tsx');
const MarkdownRenderer = lazy(async () => ({ default: (await renderer).MarkdownRenderer }));

/**
 * Renders Markdown (CommonMark + GitHub tables, task lists and strikethrough, emphasis next
 * to CJK punctuation) as React elements: sanitised, code fences highlighted. The renderer
 * loads on demand; until it has, the text shows as is (pre-wrapped), never a blank.
 */
export const Markdown = memo(function Markdown(props: { text: string; className?: string }) {
  return (
    <Suspense
      fallback={
        <div className={`markdown ${props.className ?? ''}`} style={{ whiteSpace: 'pre-wrap' }}>
          {props.text}
        </div>
      }
    >
      <MarkdownRenderer {...props} />
    </Suspense>
  );
});
