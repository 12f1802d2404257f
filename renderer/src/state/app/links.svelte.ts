/**
 * Moving between views: opening a table (all records or a saved view), following a link to a
 * record or to the orders of a contact, template or campaign, and where Back returns to. Each move
 * records the place left first, so Back returns to it.
 */
import type { Resource } from '../../../../shared/serviceRecords.ts';
import type { ContactSortColumn, OrderSortColumn } from '../../../../shared/query.ts';
import type { ListSnapshot } from '../listModel.svelte.ts';
import type { ContactFilters, ContactsModel, OrderFilters, OrdersModel } from '../models.ts';
import type { Place } from '../navigation.svelte.ts';
import type { SavedViews } from '../savedViews.svelte.ts';

export const VIEWS = ['overview', 'contacts', 'orders', 'templates', 'campaigns', 'duplicates', 'sync', 'profiles'] as const;
export type ViewName = (typeof VIEWS)[number];

/** Where Back returns to. */
export type AppPlace = Place<ViewName, ListSnapshot<ContactFilters, ContactSortColumn>, ListSnapshot<OrderFilters, OrderSortColumn>>;

/** What a followed link to a contact knows of it, to find it when it is not in the table as it stands. */
export interface ContactHint {
  fullName: string;
  email: string;
}

/** An orders view limited to one template's or campaign's orders. */
export type SummaryScope = { templateId: string } | { campaignId: string };

/** The key of a scope's name in {@link Links.summaryNames}. */
export function summaryKey(scope: SummaryScope): string {
  return 'templateId' in scope ? `template:${scope.templateId}` : `campaign:${scope.campaignId}`;
}

/** What the links need of the app. */
export interface LinksHost {
  readonly view: ViewName;
  readonly contacts: ContactsModel;
  readonly orders: OrdersModel;
  readonly views: SavedViews;
  readonly history: { record(): void };
  /** Switches the main view; `record` false: Back does not return to the view left. */
  setView(view: ViewName, record?: boolean): void;
}

/** Cross-view navigation, and the names of what an orders view is scoped to. */
export class Links {
  readonly #app: LinksHost;
  /** Names of contacts the orders view was scoped to ("orders that include Jane Doe"), by id. */
  contactNames = $state<Record<string, string>>({});
  /** Names of the templates and campaigns an orders view was scoped to, by `template:<id>` / `campaign:<id>`. */
  summaryNames = $state<Record<string, string>>({});

  constructor(app: LinksHost) {
    this.#app = app;
  }

  /**
   * Shows a resource's table: every record (`viewId` null), or the members of a saved view with
   * its settings applied. Back returns to where the person was.
   */
  async openList(resource: Resource, viewId: string | null): Promise<void> {
    const app = this.#app;
    const model = resource === 'contacts' ? app.contacts : app.orders;
    if (app.view === resource && model.viewId === viewId) return;
    const view = app.views.byId(viewId);
    if (viewId !== null && !view) return;
    app.history.record();
    app.setView(resource, false);
    if (!view) {
      await model.leaveView();
      return;
    }
    void app.views.loadNewer(view.id);
    await model.openView(view.id, view.settings);
  }

  /** Where the person is: the view, and both tables' search, filters, selection and scroll position. */
  capture(): AppPlace {
    const app = this.#app;
    return { view: app.view, contacts: app.contacts.snapshot(), orders: app.orders.snapshot() };
  }

  /** Puts the person back where they were (Back, Forward). */
  async restore(place: AppPlace): Promise<void> {
    const app = this.#app;
    app.setView(place.view, false);
    // A place in a view deleted since is the full table's.
    const live = <S extends { viewId: string | null; savedSettings: string | null }>(snap: S): S =>
      snap.viewId !== null && !app.views.byId(snap.viewId) ? { ...snap, viewId: null, savedSettings: null } : snap;
    await Promise.all([app.contacts.restore(live(place.contacts)), app.orders.restore(live(place.orders))]);
  }

  /**
   * Follows a link to an order: the orders view with the order selected, scrolled to and open. When
   * the orders view as it stands does not show it, it is scoped to the orders of `via` (the contact
   * whose detail the link was in).
   */
  async openOrder(orderId: string, via?: { id: string; name: string }): Promise<void> {
    const app = this.#app;
    app.history.record();
    app.setView('orders', false);
    if (await app.orders.reveal(orderId)) return;
    if (via) {
      this.contactNames = { ...this.contactNames, [via.id]: via.name };
      await app.orders.setScope({ contactId: via.id });
      if (await app.orders.reveal(orderId)) return;
    }
    app.orders.openDetail(orderId);
  }

  /**
   * Follows a link to a contact: the contacts view with the contact selected, scrolled to and open.
   * When the view as it stands does not show it, it searches for the contact's email (or name).
   */
  async openContact(contactId: string, hint?: ContactHint): Promise<void> {
    const app = this.#app;
    app.history.record();
    app.setView('contacts', false);
    if (await app.contacts.reveal(contactId)) return;
    const search = hint?.email || hint?.fullName;
    if (search) {
      await app.contacts.setScope({}, search);
      if (await app.contacts.reveal(contactId)) return;
    }
    app.contacts.openDetail(contactId);
  }

  /** The orders view scoped to the orders that include a contact (named in its strip). */
  async showOrdersOf(contactId: string, name: string): Promise<void> {
    const app = this.#app;
    app.history.record();
    this.contactNames = { ...this.contactNames, [contactId]: name };
    app.setView('orders', false);
    app.orders.closeDetail();
    await app.orders.setScope({ contactId });
  }

  /**
   * The orders view limited to one template's or campaign's orders (named in its strip).
   * @param name what the strip calls it (the template's title, the campaign's name)
   */
  async showOrdersOfSummary(scope: SummaryScope, name: string): Promise<void> {
    const app = this.#app;
    app.history.record();
    this.summaryNames = { ...this.summaryNames, [summaryKey(scope)]: name };
    app.setView('orders', false);
    app.orders.closeDetail();
    await app.orders.setScope({ ...scope });
  }

  /**
   * The rows behind a mark of the Overview: a table of every record (no saved view, no search)
   * under `filters`, the detail closed. Back returns to the Overview.
   */
  async showContactsWhere(filters: ContactFilters): Promise<void> {
    const app = this.#app;
    app.history.record();
    app.setView('contacts', false);
    app.contacts.closeDetail();
    await app.contacts.leaveView();
    await app.contacts.setScope(filters);
  }

  /** The orders behind a mark of the Overview (see {@link showContactsWhere}). */
  async showOrdersWhere(filters: OrderFilters): Promise<void> {
    const app = this.#app;
    app.history.record();
    app.setView('orders', false);
    app.orders.closeDetail();
    await app.orders.leaveView();
    await app.orders.setScope(filters);
  }

  /**
   * Follows a link to an order from a template's or campaign's detail: the orders view with the
   * order open, scoped to that template's or campaign's orders when the view as it stands does not
   * show it.
   */
  async openOrderOf(orderId: string, scope: SummaryScope, name: string): Promise<void> {
    const app = this.#app;
    app.history.record();
    app.setView('orders', false);
    if (await app.orders.reveal(orderId)) return;
    this.summaryNames = { ...this.summaryNames, [summaryKey(scope)]: name };
    await app.orders.setScope({ ...scope });
    if (await app.orders.reveal(orderId)) return;
    app.orders.openDetail(orderId);
  }
}
