/**
 * Giving the focus back to where it was when a dialog, menu or panel closes, so that the keyboard
 * user continues where they left off instead of at the top of the page.
 */

/**
 * Remembers the focused element now.
 * @param fallback where the focus goes when that element is gone by then (the current table)
 * @returns puts the focus back
 */
export function rememberFocus(fallback?: () => HTMLElement | null): () => void {
  const before = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
  return () => {
    const target = before?.isConnected ? before : (fallback?.() ?? null);
    // After the closing element has let go of the focus (a dialog moves it on close).
    requestAnimationFrame(() => target?.focus());
  };
}

/** The table of the view on screen, if it shows one. */
export function currentGrid(): HTMLElement | null {
  return document.querySelector<HTMLElement>('[role="grid"]');
}
