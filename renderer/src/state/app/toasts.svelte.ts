/** The short messages shown in the corner for a few seconds (errors a little longer). */

/** A short message shown in the corner for a few seconds. */
export interface Toast {
  id: number;
  kind: 'info' | 'success' | 'error';
  text: string;
  action?: { label: string; run: () => void };
}

/** The toasts on screen. */
export class Toasts {
  list = $state<Toast[]>([]);
  #id = 0;

  /** Shows a transient message: 9 s for an error, 5 s otherwise, or until dismissed. */
  show(kind: Toast['kind'], text: string, action?: Toast['action']): void {
    const id = ++this.#id;
    this.list = [...this.list, { id, kind, text, action }];
    setTimeout(() => this.dismiss(id), kind === 'error' ? 9000 : 5000);
  }

  /** Takes a toast away. */
  dismiss(id: number): void {
    this.list = this.list.filter((t) => t.id !== id);
  }
}
