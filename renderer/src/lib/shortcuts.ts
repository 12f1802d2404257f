/**
 * Every keyboard shortcut of the page, in one list: the shortcuts sheet shows it and the sidebar's
 * tooltips read their keys from it, so the two never disagree. `Mod` is Ctrl (⌘ on macOS).
 */

/** One shortcut: its key combinations (alternatives) and what it does. */
export interface Shortcut {
  keys: string[];
  what: string;
}

/** Shortcuts grouped by where they work. */
export interface ShortcutGroup {
  title: string;
  items: Shortcut[];
}

/**
 * The view shortcuts, by view, in the sidebar's order. Duplicates came after Sync and Profiles had
 * their numbers, so it takes the next one rather than moving theirs.
 */
export const VIEW_KEYS = { overview: 'Mod+1', contacts: 'Mod+2', orders: 'Mod+3', templates: 'Mod+4', campaigns: 'Mod+5', duplicates: 'Mod+8', sync: 'Mod+6', profiles: 'Mod+7' } as const;

/** Sync now. */
export const SYNC_KEY = 'Mod+R';

/** Every shortcut, for the sheet (Mod+/ and Help › Keyboard Shortcuts). */
export function shortcutGroups(mac: boolean): ShortcutGroup[] {
  return [
    {
      title: 'Anywhere',
      items: [
        { keys: [VIEW_KEYS.overview], what: 'Overview' },
        { keys: [VIEW_KEYS.contacts], what: 'Contacts' },
        { keys: [VIEW_KEYS.orders], what: 'Orders' },
        { keys: [VIEW_KEYS.templates], what: 'Templates' },
        { keys: [VIEW_KEYS.campaigns], what: 'Campaigns' },
        { keys: [VIEW_KEYS.duplicates], what: 'Duplicates' },
        { keys: [VIEW_KEYS.sync], what: 'Sync' },
        { keys: [VIEW_KEYS.profiles], what: 'Profiles' },
        { keys: ['Mod+F'], what: 'Search the table, the templates or the campaigns' },
        { keys: [SYNC_KEY], what: 'Sync now' },
        { keys: ['Mod+E'], what: 'Export as CSV' },
        { keys: mac ? ['Mod+[', 'Alt+Left'] : ['Alt+Left'], what: 'Back (also the mouse’s back button)' },
        { keys: mac ? ['Mod+]', 'Alt+Right'] : ['Alt+Right'], what: 'Forward (also the mouse’s forward button)' },
        { keys: ['F6', 'Shift+F6'], what: 'Next or previous pane: sidebar, filters, table, detail' },
        { keys: ['Mod+B'], what: 'Collapse or expand the sidebar' },
        { keys: ['Mod+/'], what: 'This list of shortcuts' },
        { keys: ['Escape'], what: 'Close the detail, a menu or a dialog' },
      ],
    },
    {
      title: 'In a table',
      items: [
        { keys: ['Up', 'Down'], what: 'Previous or next row' },
        { keys: ['PageUp', 'PageDown'], what: 'One screen up or down' },
        { keys: ['Home', 'End'], what: 'First or last row' },
        { keys: ['Shift+Up', 'Shift+Down'], what: 'Extend the selection (also with Page Up/Down, Home, End)' },
        { keys: ['Mod+Up', 'Mod+Down'], what: 'Move without changing the selection' },
        { keys: ['Space'], what: 'Select or unselect the current row' },
        { keys: ['Shift+Space'], what: 'Select from the last selected row to the current one' },
        { keys: ['Mod+A'], what: 'Select every row of the result' },
        { keys: ['Mod+C'], what: 'Copy the selected rows (tab-separated, with a header row)' },
        { keys: ['Enter'], what: 'Open the current row’s detail' },
        { keys: ['Shift+F10', 'Menu'], what: 'Row actions: open, copy, filter, export…' },
        { keys: ['Escape'], what: 'Keep only the current row selected' },
        { keys: ['Shift+Click'], what: 'Select a range of rows' },
        { keys: ['Mod+Click'], what: 'Add a row to the selection or take it out' },
      ],
    },
    {
      title: 'Columns and panes',
      items: [
        { keys: ['Click a header'], what: 'Sort by that column (again: reversed; a third time: newest first)' },
        { keys: ['Shift+Click a header'], what: 'Sort by that column next, among equal values (up to three columns)' },
        { keys: ['Right-click a header'], what: 'Show, hide and order the columns' },
        { keys: ['Drag a header'], what: 'Move a column' },
        { keys: ['Left', 'Right'], what: 'On a column’s or pane’s edge: narrower or wider (Shift: faster)' },
        { keys: ['Enter'], what: 'On a column’s edge: fit the column to its content' },
      ],
    },
    {
      title: 'In the search box',
      items: [
        { keys: ['Enter'], what: 'Search now' },
        { keys: ['Escape'], what: 'Clear the search; again: back to the table' },
        { keys: ['Down'], what: 'To the table' },
      ],
    },
  ];
}

const KEY_NAMES: Record<string, string> = { Up: '↑', Down: '↓', Left: '←', Right: '→', Escape: 'Esc', PageUp: 'Page Up', PageDown: 'Page Down' };
const MAC_NAMES: Record<string, string> = { Mod: '⌘', Shift: '⇧', Alt: '⌥' };

/** A key combination as people read it: "Ctrl+Shift+↑" elsewhere, "⌘⇧↑" on macOS. */
export function keyLabel(keys: string, mac: boolean): string {
  const parts = keys.split('+').map((k) => KEY_NAMES[k] ?? k);
  if (mac) return parts.map((k) => MAC_NAMES[k] ?? k).join('');
  return parts.map((k) => (k === 'Mod' ? 'Ctrl' : k)).join('+');
}
