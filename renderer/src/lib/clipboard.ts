/**
 * Writing text to the system clipboard from the page.
 */

/**
 * Puts text on the clipboard: through the asynchronous clipboard API, else through a copy command
 * that sets the text in its `copy` event (which needs a recent key press or click).
 * @returns false when neither was allowed (the caller offers a button, whose click allows it)
 */
export async function writeClipboard(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return copyCommand(text);
  }
}

/**
 * Puts text made of many pieces on the clipboard as one blob (the pieces are never joined into
 * one string on the page, whose main thread would then copy it over in one go); falls back to
 * {@link writeClipboard}.
 * @returns false when the page may not write the clipboard now
 */
export async function writeClipboardParts(parts: readonly string[]): Promise<boolean> {
  try {
    await navigator.clipboard.write([new ClipboardItem({ 'text/plain': new Blob(parts as string[], { type: 'text/plain' }) })]);
    return true;
  } catch {
    return writeClipboard(parts.join(''));
  }
}

/** The copy command with `text` as what it copies; false when the page may not run it now. */
export function copyCommand(text: string): boolean {
  let written = false;
  const onCopy = (event: ClipboardEvent): void => {
    if (!event.clipboardData) return;
    event.clipboardData.setData('text/plain', text);
    event.preventDefault();
    written = true;
  };
  document.addEventListener('copy', onCopy, true);
  try {
    // The deprecated command is the one way to write the clipboard without the clipboard
    // permission (which the app's window refuses to every page).
    document.execCommand('copy');
  } finally {
    document.removeEventListener('copy', onCopy, true);
  }
  return written;
}
