import { memo, useEffect, useState } from 'react';
import type { MarkdownRenderer as Renderer } from './markdown-renderer.tsx';

let loaded: typeof Renderer | undefined;

/**
 * Settles once the Markdown renderer's chunk has loaded (never rejects: a chunk that fails to
 * load leaves the text as written). Requested as this module loads, so it arrives while the app
 * boots, in a chunk of its own: the parser and highlighter (~half the bundle) stay out of the
 * first script. A view that shows stored messages on open waits for it with its data, so they
 * appear formatted, not as written first and formatted a moment later.
 */
export const markdownReady: Promise<void> = import('./markdown-renderer.tsx').then(
  (module) => {
    loaded = module.MarkdownRenderer;
  },
  () => undefined,
);

/**
 * Renders Markdown (CommonMark + GitHub tables, task lists and strikethrough, emphasis next
 * to CJK punctuation) as React elements: sanitised, code fences highlighted. Until the renderer
 * has loaded ({@link markdownReady}), and while `plain` is set (a message far from the
 * viewport), the text shows as is (pre-wrapped, class `plain`), never a blank.
 */
export const Markdown = memo(function Markdown(props: { text: string; className?: string; plain?: boolean }) {
  const [shown, setRenderer] = useState(() => loaded);
  // Loaded since this view was first rendered (while it was plain): no wait for an effect.
  const MarkdownRenderer = shown ?? loaded;
  useEffect(() => {
    if (MarkdownRenderer !== undefined || props.plain) return;
    let live = true;
    void markdownReady.then(() => {
      if (live && loaded !== undefined) setRenderer(() => loaded);
    });
    return () => {
      live = false;
    };
  }, [MarkdownRenderer, props.plain]);
  const className = props.className ?? '';
  if (props.plain || MarkdownRenderer === undefined)
    return <div className={`markdown plain ${className}`}>{props.text}</div>;
  return <MarkdownRenderer text={props.text} className={className} />;
});
