/**
 * The tables' virtual window and key map, table-tested: which rows are laid out for a scroll
 * position (with the scaled scroll range of a million rows), where a row is scrolled to, and what
 * each key and click does.
 */
import { describe, expect, it } from 'vitest';
import { cursorMode, rowClickAction, tableKeyAction, type KeyInput, type TableKeyContext } from '../../renderer/src/lib/tableKeys.ts';
import { BASE_STEP, MAX_SCROLL, OVERSCAN, pageRows, scrollTarget, virtualWindow } from '../../renderer/src/lib/virtualWindow.ts';

const ROW = 28;
const VIEWPORT = 560; // 20 rows

describe('virtual window', () => {
  it('lays out the rows in view and the overscan on each side, clipped to the result', () => {
    expect(virtualWindow({ total: 1000, rowHeight: ROW, scrollTop: 0, viewportHeight: VIEWPORT })).toEqual({
      contentHeight: 28_000,
      scrollHeight: 28_000,
      ratio: 1,
      top: 0,
      first: 0,
      last: 20 + OVERSCAN,
      base: 0,
    });
    // Row 100 at the top, half of row 99 above it.
    const mid = virtualWindow({ total: 1000, rowHeight: ROW, scrollTop: 100 * ROW - 14, viewportHeight: VIEWPORT });
    expect([mid.top, mid.first, mid.last]).toEqual([2786, 99 - OVERSCAN, 120 + OVERSCAN]);
    const few = virtualWindow({ total: 3, rowHeight: ROW, scrollTop: 0, viewportHeight: VIEWPORT });
    expect([few.first, few.last, few.scrollHeight]).toEqual([0, 2, 84]);
    const none = virtualWindow({ total: 0, rowHeight: ROW, scrollTop: 0, viewportHeight: VIEWPORT });
    expect([none.first, none.last, none.contentHeight]).toEqual([0, -1, 0]);
  });

  it('never scrolls past the last screenful, even when scrollTop is stale from a longer result', () => {
    const w = virtualWindow({ total: 100, rowHeight: ROW, scrollTop: 50_000, viewportHeight: VIEWPORT });
    expect(w.top).toBe(100 * ROW - VIEWPORT);
    expect(w.last).toBe(99);
    expect(w.first).toBe(80 - OVERSCAN);
  });

  it('moves the base in steps, so rows on screen keep their offsets while the table scrolls', () => {
    const a = virtualWindow({ total: 10_000, rowHeight: ROW, scrollTop: 1500 * ROW, viewportHeight: VIEWPORT });
    const b = virtualWindow({ total: 10_000, rowHeight: ROW, scrollTop: 1700 * ROW, viewportHeight: VIEWPORT });
    expect([a.base, b.base]).toEqual([BASE_STEP, BASE_STEP]);
    expect(virtualWindow({ total: 10_000, rowHeight: ROW, scrollTop: 2100 * ROW, viewportHeight: VIEWPORT }).base).toBe(2 * BASE_STEP);
  });

  it('scales the scroll range of a million rows so that the scrollbar reaches the last row', () => {
    const total = 1_000_000;
    const top = virtualWindow({ total, rowHeight: ROW, scrollTop: 0, viewportHeight: VIEWPORT });
    expect(top.scrollHeight).toBe(MAX_SCROLL);
    expect(top.ratio).toBeCloseTo((total * ROW - VIEWPORT) / (MAX_SCROLL - VIEWPORT), 12);
    // The scroller's own maximum scrollTop is the range less its viewport.
    const end = virtualWindow({ total, rowHeight: ROW, scrollTop: MAX_SCROLL - VIEWPORT, viewportHeight: VIEWPORT });
    expect(end.last).toBe(total - 1);
    expect(end.top).toBeCloseTo(total * ROW - VIEWPORT, 3);
    const half = virtualWindow({ total, rowHeight: ROW, scrollTop: (MAX_SCROLL - VIEWPORT) / 2, viewportHeight: VIEWPORT });
    expect(Math.abs(half.first + OVERSCAN - total / 2)).toBeLessThan(20);
  });

  it('finds the scroll that brings a row to the top, the nearest edge or the middle', () => {
    const view = virtualWindow({ total: 1000, rowHeight: ROW, scrollTop: 100 * ROW, viewportHeight: VIEWPORT });
    expect(scrollTarget(110, 'nearest', view, ROW, VIEWPORT)).toBeNull();
    expect(scrollTarget(50, 'nearest', view, ROW, VIEWPORT)).toEqual({ scrollTop: 50 * ROW, wantedScrollTop: 50 * ROW, reachable: true });
    expect(scrollTarget(130, 'nearest', view, ROW, VIEWPORT)).toEqual({ scrollTop: 111 * ROW, wantedScrollTop: 111 * ROW, reachable: true });
    expect(scrollTarget(110, 'top', view, ROW, VIEWPORT)?.scrollTop).toBe(110 * ROW);
    expect(scrollTarget(300, 'center', view, ROW, VIEWPORT)?.scrollTop).toBe(300 * ROW - (VIEWPORT - ROW) / 2);
    expect(scrollTarget(2, 'center', view, ROW, VIEWPORT)?.scrollTop).toBe(0);
  });

  it('goes as far as the rows counted so far reach, and says the row is not reachable yet', () => {
    const view = virtualWindow({ total: 100, rowHeight: ROW, scrollTop: 0, viewportHeight: VIEWPORT });
    expect(scrollTarget(500, 'top', view, ROW, VIEWPORT)).toEqual({ scrollTop: 100 * ROW - VIEWPORT, wantedScrollTop: 500 * ROW, reachable: false });
  });

  it('scrolls in the scaled range for a million rows', () => {
    const view = virtualWindow({ total: 1_000_000, rowHeight: ROW, scrollTop: 0, viewportHeight: VIEWPORT });
    const to = scrollTarget(999_999, 'nearest', view, ROW, VIEWPORT);
    expect(to).toEqual({ scrollTop: MAX_SCROLL - VIEWPORT, wantedScrollTop: MAX_SCROLL - VIEWPORT, reachable: true });
    const there = virtualWindow({ total: 1_000_000, rowHeight: ROW, scrollTop: to!.scrollTop, viewportHeight: VIEWPORT });
    expect(there.last).toBe(999_999);
  });

  it('pages by a screenful less one row, at least one', () => {
    expect(pageRows(VIEWPORT, ROW)).toBe(19);
    expect(pageRows(10, ROW)).toBe(1);
  });
});

const keys = (key: string, mods: Partial<KeyInput> = {}): KeyInput & { key: string } => ({ key, shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, ...mods });
const context: TableKeyContext = { isMac: false, pageRows: 19, selectedCount: 1, detailOpen: false };

describe('table keys', () => {
  it('moves the current row with the arrows, pages and ends, Shift extending and Ctrl moving alone', () => {
    const table: [KeyInput & { key: string }, unknown][] = [
      [keys('ArrowDown'), { kind: 'move', delta: 1, mode: 'select' }],
      [keys('ArrowUp', { shiftKey: true }), { kind: 'move', delta: -1, mode: 'extend' }],
      [keys('PageDown', { ctrlKey: true }), { kind: 'move', delta: 19, mode: 'move' }],
      [keys('PageUp'), { kind: 'move', delta: -19, mode: 'select' }],
      [keys('Home', { shiftKey: true }), { kind: 'first', mode: 'extend' }],
      [keys('End'), { kind: 'last', mode: 'select' }],
      [keys(' '), { kind: 'toggle', extend: false }],
      [keys(' ', { shiftKey: true }), { kind: 'toggle', extend: true }],
      [keys('a', { ctrlKey: true }), { kind: 'selectAll' }],
      [keys('A', { ctrlKey: true, shiftKey: true }), { kind: 'selectAll' }],
      [keys('c', { ctrlKey: true }), { kind: 'copy' }],
      [keys('Enter'), { kind: 'open' }],
      [keys('F10', { shiftKey: true }), { kind: 'menu' }],
      [keys('ContextMenu'), { kind: 'menu' }],
    ];
    for (const [event, action] of table) expect([event, tableKeyAction(event, context)]).toEqual([event, action]);
  });

  it('leaves other keys, Alt chords, Escape with one row or an open detail, and plain letters alone', () => {
    for (const event of [keys('a'), keys('c'), keys('a', { ctrlKey: true, altKey: true }), keys('F10'), keys('Tab'), keys('x', { ctrlKey: true }), keys('Escape'), keys('toString')]) {
      expect([event, tableKeyAction(event, context)]).toEqual([event, null]);
    }
    expect(tableKeyAction(keys('Escape'), { ...context, selectedCount: 5 })).toEqual({ kind: 'collapse' });
    expect(tableKeyAction(keys('Escape'), { ...context, selectedCount: 5, detailOpen: true })).toBeNull();
  });

  it('reads ⌘ on a Mac and Ctrl elsewhere', () => {
    const mac = { ...context, isMac: true };
    expect(tableKeyAction(keys('a', { metaKey: true }), mac)).toEqual({ kind: 'selectAll' });
    expect(tableKeyAction(keys('a', { ctrlKey: true }), mac)).toBeNull();
    expect(tableKeyAction(keys('a', { metaKey: true }), context)).toBeNull();
    expect(tableKeyAction(keys('ArrowDown', { metaKey: true }), mac)).toEqual({ kind: 'move', delta: 1, mode: 'move' });
    expect(cursorMode(keys('ArrowDown', { ctrlKey: true }), true)).toBe('select');
  });

  it('maps a click on a row by its modifiers', () => {
    expect(rowClickAction(keys(''), false)).toBe('select');
    expect(rowClickAction(keys('', { shiftKey: true }), false)).toBe('extend');
    expect(rowClickAction(keys('', { ctrlKey: true }), false)).toBe('toggle');
    expect(rowClickAction(keys('', { ctrlKey: true, shiftKey: true }), false)).toBe('addSpan');
    expect(rowClickAction(keys('', { metaKey: true }), true)).toBe('toggle');
    expect(rowClickAction(keys('', { metaKey: true }), false)).toBe('select');
  });
});
