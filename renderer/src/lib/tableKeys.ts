/*
 * The key map of the tables (DataTable): which key, with which modifiers, does what. Selection
 * works as in a file manager: Shift extends, Ctrl (⌘ on a Mac) moves the current row without
 * selecting or adds one row. Pure, so that the component only carries the actions out.
 */

/** The modifier and key fields of a KeyboardEvent or MouseEvent that the map reads. */
export interface KeyInput {
  key?: string;
  shiftKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey?: boolean;
}

/** How a move of the current row treats the selection: replace it, extend it from the anchor, or leave it. */
export type CursorMode = 'select' | 'extend' | 'move';

/** What a key asks the table to do. */
export type TableKeyAction =
  /** Move the current row by `delta` rows (arrows, Page Up and Down). */
  | { kind: 'move'; delta: number; mode: CursorMode }
  /** Make the first (Home) or the last row (End) current. */
  | { kind: 'first' | 'last'; mode: CursorMode }
  /** Space: toggle the current row, or extend to it with Shift (the first row when none is current). */
  | { kind: 'toggle'; extend: boolean }
  /** Ctrl/⌘+A: select every row of the result. */
  | { kind: 'selectAll' }
  /** Ctrl/⌘+C: copy the selected rows (unless the person selected text). */
  | { kind: 'copy' }
  /** Escape with several rows selected and no detail open: keep only the current row. */
  | { kind: 'collapse' }
  /** Enter: open the current row. */
  | { kind: 'open' }
  /** Shift+F10 or the Menu key: the current row's context menu. */
  | { kind: 'menu' };

/** What the key map needs to know about the table. */
export interface TableKeyContext {
  /** The platform's command key is ⌘ (metaKey) rather than Ctrl. */
  isMac: boolean;
  /** Rows a Page Up or Page Down moves (`pageRows`). */
  pageRows: number;
  /** Rows selected now. */
  selectedCount: number;
  /** A record's detail is open (its Escape closes it first). */
  detailOpen: boolean;
}

/** The platform's command modifier is held: ⌘ on a Mac, Ctrl elsewhere. */
export function commandKey(event: KeyInput, isMac: boolean): boolean {
  return isMac ? event.metaKey : event.ctrlKey;
}

/** The selection mode of a key or click: Shift extends, the command key moves, else it selects. */
export function cursorMode(event: KeyInput, isMac: boolean): CursorMode {
  if (event.shiftKey) return 'extend';
  return commandKey(event, isMac) ? 'move' : 'select';
}

/** The action of a key pressed on the grid, or null for a key the table leaves alone. */
export function tableKeyAction(event: KeyInput & { key: string }, context: TableKeyContext): TableKeyAction | null {
  const { key } = event;
  const mod = commandKey(event, context.isMac);
  const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: context.pageRows, PageUp: -context.pageRows };
  if (Object.hasOwn(moves, key)) return { kind: 'move', delta: moves[key] as number, mode: cursorMode(event, context.isMac) };
  if (key === 'Home') return { kind: 'first', mode: cursorMode(event, context.isMac) };
  if (key === 'End') return { kind: 'last', mode: cursorMode(event, context.isMac) };
  if (key === ' ') return { kind: 'toggle', extend: event.shiftKey };
  if (mod && !event.altKey && key.toLowerCase() === 'a') return { kind: 'selectAll' };
  if (mod && !event.altKey && key.toLowerCase() === 'c') return { kind: 'copy' };
  if (key === 'Escape' && context.selectedCount > 1 && !context.detailOpen) return { kind: 'collapse' };
  if (key === 'Enter') return { kind: 'open' };
  if ((key === 'F10' && event.shiftKey) || key === 'ContextMenu') return { kind: 'menu' };
  return null;
}

/** What a click on a row does to the selection. */
export type RowClickAction =
  /** Shift+Ctrl/⌘: add the rows from the anchor to this one. */
  | 'addSpan'
  /** Shift: select from the anchor to this row. */
  | 'extend'
  /** Ctrl/⌘: add or remove this row. */
  | 'toggle'
  /** A plain click: select this row alone and open it. */
  | 'select';

/** The action of a click on a row, by its modifiers. */
export function rowClickAction(event: KeyInput, isMac: boolean): RowClickAction {
  const mod = commandKey(event, isMac);
  if (event.shiftKey && mod) return 'addSpan';
  if (event.shiftKey) return 'extend';
  return mod ? 'toggle' : 'select';
}
