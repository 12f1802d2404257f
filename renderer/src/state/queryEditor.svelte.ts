/**
 * The state behind the service-query editor: the form's values (lib/serviceQueryForm.ts), which
 * inputs show their errors, the values the cache has seen to offer (labels by title, product types,
 * status codes), and the preview the service answered — its exact request and both counts.
 */
import type { ServiceQueryPreview } from '../../../shared/contract.ts';
import type { FacetOption } from '../../../shared/query.ts';
import type { Resource } from '../../../shared/serviceRecords.ts';
import type { ViewServiceQuery } from '../../../shared/views.ts';
import { call, toDisplayError, type DisplayError } from '../lib/api.ts';
import { formFromQuery, readForm, type QueryForm } from '../lib/serviceQueryForm.ts';

/** Values the cache has seen, offered beside a parameter's own known values. */
export interface QuerySuggestions {
  /** The cached labels: id (what `tags` sends) and title (what the person reads). */
  labels: FacetOption<string>[];
  /** Values by parameter name (orders' `productTypes` and `orderStatus`). */
  values: Record<string, string[]>;
}

/** A preview as the service answered it, for the query it was asked for. */
export interface PreviewAnswer {
  /** The query's JSON when it was asked (a different form makes it stale). */
  key: string;
  result: ServiceQueryPreview;
}

/** One editor's state, for one resource. */
export class QueryEditor {
  readonly resource: Resource;
  form = $state<QueryForm>({ text: {}, lists: {}, dates: {}, flags: {}, meta: [] });
  /** Inputs the person has left (their errors show from then on), by input key. */
  touched = $state<Record<string, boolean>>({});
  /** A preview or save was tried: every error shows. */
  attempted = $state(false);
  suggestions = $state.raw<QuerySuggestions>({ labels: [], values: {} });

  preview = $state.raw<PreviewAnswer | null>(null);
  previewError = $state.raw<DisplayError | null>(null);
  previewing = $state(false);

  /** The query the form sends, and what is wrong with it. */
  reading = $derived.by(() => readForm(this.resource, this.form));
  /** The errors to show now. */
  errors = $derived.by(() => {
    const all = this.reading.errors;
    if (this.attempted) return all;
    return Object.fromEntries(Object.entries(all).filter(([key]) => this.touched[key]));
  });
  /** The form's query as JSON (what a preview is compared with). */
  queryKey = $derived(JSON.stringify(this.reading.query));
  /** The preview on screen was asked for another query. */
  previewStale = $derived(this.preview !== null && this.preview.key !== this.queryKey);

  /**
   * @param resource the listing the query runs against
   * @param query the query to start from (a view's), or null for an empty form
   */
  constructor(resource: Resource, query: ViewServiceQuery | null) {
    this.resource = resource;
    this.form = formFromQuery(resource, query);
  }

  /** The person left an input: its error shows from now on. */
  touch(key: string): void {
    if (!this.touched[key]) this.touched[key] = true;
  }

  /** True when nothing is wrong; otherwise every error shows. */
  check(): boolean {
    this.attempted = true;
    return Object.keys(this.reading.errors).length === 0;
  }

  /** Reads what the cache has seen (all records, no view): labels, product types, status codes. */
  async loadSuggestions(): Promise<void> {
    try {
      if (this.resource === 'contacts') {
        const facets = await call('contactFacets', { query: {} });
        this.suggestions = { labels: facets.labels, values: {} };
      } else {
        const facets = await call('orderFacets', { query: {} });
        this.suggestions = {
          labels: [],
          values: { productTypes: facets.productTypes.map((o) => o.value), orderStatus: facets.statuses.map((o) => String(o.value)) },
        };
      }
    } catch {
      // Suggestions help; any value can still be typed.
    }
  }

  /** Asks the service for page 0 of the form's query and of the unfiltered resource. */
  async runPreview(): Promise<void> {
    if (!this.check()) return;
    const key = this.queryKey;
    // The reading is a plain object (a derived value, not a proxy): it crosses IPC as it is.
    const params = this.reading.query;
    this.previewing = true;
    this.previewError = null;
    try {
      const result = await call('previewServiceQuery', { resource: this.resource, params });
      this.preview = { key, result };
    } catch (error) {
      this.preview = null;
      this.previewError = toDisplayError(error);
    } finally {
      this.previewing = false;
    }
  }
}
