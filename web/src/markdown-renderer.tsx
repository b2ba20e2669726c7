import bash from 'highlight.js/lib/languages/bash';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { memo } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import rehypeSanitize from 'rehype-sanitize';
import remarkCjkFriendly from 'remark-cjk-friendly';
import remarkGfm from 'remark-gfm';

/** Languages highlighted in code fences (a small set keeps the bundle light; others stay plain). */
const LANGUAGES = { bash, diff, go, javascript, json, markdown, python, sql, typescript, xml, yaml };

const remarkPlugins = [remarkGfm, remarkCjkFriendly];
// Sanitise first (GitHub's schema: no raw HTML, no scripts, safe URLs), then highlight the
// already-safe code; nothing a model or a file says can inject markup.
const rehypePlugins = [rehypeSanitize, [rehypeHighlight, { languages: LANGUAGES, detect: false }]] as never;
const components: Components = {
  a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noreferrer noopener" />,
  table: ({ node: _node, ...props }) => (
    <div className="table-wrap">
      <table {...props} />
    </div>
  ),
};

/**
 * Renders Markdown (CommonMark + GitHub tables, task lists and strikethrough, emphasis next
 * to CJK punctuation) as React elements: sanitised, code fences highlighted. Used for chat
 * answers and the context preview's text. Loaded on demand through {@link Markdown}
 * (`markdown.tsx`): this module and its parsers and highlighter are a chunk of their own.
 */
export const MarkdownRenderer = memo(function MarkdownRenderer(props: { text: string; className?: string }) {
  return (
    <div className={`markdown ${props.className ?? ''}`}>
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
        {props.text}
      </ReactMarkdown>
    </div>
  );
});
