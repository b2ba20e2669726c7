import type { KeyboardEvent } from 'react';

/**
 * A row of tabs (WAI-ARIA tabs pattern): one tab stop, arrow keys, Home and End move between
 * the tabs and select them; every tab controls the panel `controls`.
 */
export function TabList<Id extends string>(props: {
  label: string;
  tabs: readonly { id: Id; label: string }[];
  selected: Id;
  onSelect: (id: Id) => void;
  /** Id of the tab panel the tabs control. */
  controls: string;
  /** Prefix of each tab's element id (`<prefix>-<id>`), for the panel's `aria-labelledby`. */
  idPrefix: string;
  className?: string;
}) {
  const move = (event: KeyboardEvent<HTMLDivElement>) => {
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
    <div
      className={`tab-list ${props.className ?? ''}`}
      role="tablist"
      aria-label={props.label}
      onKeyDown={move}
    >
      {props.tabs.map((tab) => (
        <button
          key={tab.id}
          id={`${props.idPrefix}-${tab.id}`}
          type="button"
          role="tab"
          aria-selected={tab.id === props.selected}
          aria-controls={props.controls}
          tabIndex={tab.id === props.selected ? 0 : -1}
          onClick={() => props.onSelect(tab.id)}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}
