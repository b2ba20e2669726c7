import type { KeyboardEvent } from 'react';

/**
 * A row of tabs (WAI-ARIA tabs pattern): one tab stop (the selected tab; the others are
 * `tabIndex -1`), and Left/Right (wrapping), Home and End move focus to another tab and select
 * it. Every tab controls the panel `controls`, or its own panel when `controls` maps each tab.
 */
export function TabList<Id extends string>(props: {
  label: string;
  tabs: readonly { id: Id; label: string }[];
  selected: Id;
  onSelect: (id: Id) => void;
  /** Id of the tab panel the tabs control, or of each tab's own panel. */
  controls: string | Readonly<Record<Id, string>>;
  /** Prefix of each tab's element id (`<prefix>-<id>`), for the panel's `aria-labelledby`. */
  idPrefix: string;
  /** Class of the row, which styles it. Default `tab-list` (small pills). */
  className?: string;
}) {
  const move = (event: KeyboardEvent<HTMLDivElement>) => {
    // A key with a modifier is the browser's or the system's (Alt+Left is Back).
    if (hasModifier(event)) return;
    const at = props.tabs.findIndex((tab) => tab.id === props.selected);
    const last = props.tabs.length - 1;
    const to =
      event.key === 'ArrowRight' || event.key === 'ArrowDown'
        ? at >= last
          ? 0
          : at + 1
        : event.key === 'ArrowLeft' || event.key === 'ArrowUp'
          ? at <= 0
            ? last
            : at - 1
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? last
              : undefined;
    const tab = to === undefined ? undefined : props.tabs[to];
    if (tab === undefined) return;
    event.preventDefault();
    props.onSelect(tab.id);
    event.currentTarget
      .querySelector<HTMLButtonElement>(`#${CSS.escape(`${props.idPrefix}-${tab.id}`)}`)
      ?.focus();
  };
  return (
    <div className={props.className ?? 'tab-list'} role="tablist" aria-label={props.label} onKeyDown={move}>
      {props.tabs.map((tab) => (
        <button
          key={tab.id}
          id={`${props.idPrefix}-${tab.id}`}
          type="button"
          role="tab"
          aria-selected={tab.id === props.selected}
          aria-controls={typeof props.controls === 'string' ? props.controls : props.controls[tab.id]}
          tabIndex={tab.id === props.selected ? 0 : -1}
          onClick={() => props.onSelect(tab.id)}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}

/** Whether Alt, Ctrl or Meta is held: such a key is the browser's (Alt+Left is Back), not a list's move. */
export function hasModifier(event: KeyboardEvent): boolean {
  return event.altKey || event.ctrlKey || event.metaKey;
}
