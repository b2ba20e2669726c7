import { useEffect, useRef, useState } from 'react';
import { api, type BlockNode } from './api.ts';
import { errorText } from './error-text.ts';
import { useI18n } from './i18n.ts';
import { profileBlocksOf, setProfileBlocks } from './set-profile-blocks.ts';

const CONFIG_FILE = 'context-config.json';

/** Checkbox tree of the profile's blocks (by heading); ticking writes `profileBlocks`. */
export function BlockPicker(props: {
  sessionId: string;
  version: number;
  onChanged: () => void;
  onError: (message: string) => void;
}) {
  const { t } = useI18n();
  const [file, setFile] = useState('profile.md');
  const [blocks, setBlocks] = useState<BlockNode[]>([]);
  const [selected, setSelected] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  // Bumped by every local write: a reload that started before it must not undo its ticks.
  const writes = useRef(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` bumps mean "config or files changed"
  useEffect(() => {
    let live = true;
    const started = writes.current;
    Promise.all([api.blocks(props.sessionId), api.readFile(props.sessionId, CONFIG_FILE)]).then(
      ([tree, config]) => {
        if (!live || writes.current !== started) return;
        setFile(tree.file);
        setBlocks(tree.blocks);
        setSelected(profileBlocksOf(config.text));
      },
      (cause) => live && props.onError(errorText(cause, t)),
    );
    return () => {
      live = false;
    };
  }, [props.sessionId, props.version, props.onError]);

  const isSelected = (block: BlockNode) =>
    selected.includes(block.id) || (block.shortId !== undefined && selected.includes(block.shortId));

  const toggle = async (block: BlockNode) => {
    const wasSelected = isSelected(block);
    const previous = selected;
    const drop = (ids: string[]) => ids.filter((id) => id !== block.id && id !== block.shortId);
    setSelected(wasSelected ? drop(selected) : [...drop(selected), block.id]); // optimistic
    setBusy(true);
    writes.current++;
    try {
      const { text, etag } = await api.readFile(props.sessionId, CONFIG_FILE);
      const current = profileBlocksOf(text);
      const next = wasSelected ? drop(current) : [...drop(current), block.id];
      await api.writeFile(props.sessionId, CONFIG_FILE, setProfileBlocks(text, next), etag);
      writes.current++; // reloads that started during the write read the old file
      setSelected(next);
      props.onChanged();
    } catch (cause) {
      writes.current++;
      setSelected(previous);
      props.onError(errorText(cause, t));
    } finally {
      setBusy(false);
    }
  };

  const render = (nodes: BlockNode[]) => (
    <ul className="block-tree">
      {nodes.map((block) => (
        <li key={block.id}>
          <label className="block-row">
            <input
              type="checkbox"
              checked={isSelected(block)}
              disabled={busy}
              onChange={() => void toggle(block)}
              data-block={block.id}
            />
            <span className="block-heading">{block.heading}</span>
            <span className="block-lines">
              {t('lines', { from: block.source.startLine, to: block.source.sectionEndLine })}
            </span>
          </label>
          {block.children.length > 0 && render(block.children)}
        </li>
      ))}
    </ul>
  );

  return (
    <section className="panel picker" aria-labelledby="blocks-title">
      <div className="panel-head">
        <h2 id="blocks-title">{t('blocks')}</h2>
      </div>
      <p className="hint">{t('blocksHelp', { file })}</p>
      {render(blocks)}
    </section>
  );
}
