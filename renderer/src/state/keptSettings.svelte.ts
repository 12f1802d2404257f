/**
 * The Profiles page's setting of the kept service filters: which values of each filter a profile
 * keeps offline, edited as a draft with its cost per sync, then saved filter by filter.
 */
import { keptValueProblem, type KeptParamCost, type KeptParamSpec, type KeptSettings } from '../../../shared/keptFilters.ts';
import type { Profile } from '../../../shared/contract.ts';
import { call } from '../lib/api.ts';
import { errorText } from '../lib/errors.ts';
import { KEPT_SPECS, draftChanged, draftCost, draftKey, draftOf, keptOf, totalCost } from '../lib/keptCost.ts';
import type { AppState } from './app.svelte.ts';

/** The setting of one profile (created anew per profile). */
export class KeptSettingsState {
  readonly #app: AppState;
  readonly #profile: () => Profile;
  settings = $state.raw<KeptSettings | null>(null);
  /** The values each parameter will keep, by `resource.param`. */
  draft = $state<Record<string, string[]>>({});
  /** What is typed in each open parameter's "add a value" box, by `resource.param`. */
  typed = $state<Record<string, string>>({});
  /** Why a typed value cannot be added, by `resource.param`. */
  problems = $state<Record<string, string>>({});
  loading = $state(true);
  saving = $state(false);
  error = $state<string | null>(null);

  constructor(options: { app: AppState; profile: () => Profile }) {
    this.#app = options.app;
    this.#profile = options.profile;
  }

  /** Reads the profile's kept filters; the draft starts as what is kept. */
  async load(): Promise<void> {
    this.loading = true;
    try {
      this.#apply(await call('keptSettings', { profileId: this.#profile().id }));
      this.error = null;
    } catch (e) {
      this.error = errorText(e);
    } finally {
      this.loading = false;
    }
  }

  #apply(settings: KeptSettings): void {
    this.settings = settings;
    this.draft = draftOf(settings);
    this.problems = {};
  }

  /** The values `spec` will keep, in the draft's order. */
  values(spec: KeptParamSpec): string[] {
    return this.draft[draftKey(spec.resource, spec.param)] ?? [];
  }

  /** The values to offer as boxes: the known ones, then any other kept or drafted. */
  choices(spec: KeptParamSpec): string[] {
    const kept = this.settings ? keptOf(this.settings, spec).map((k) => k.value) : [];
    const all = [...spec.known, ...kept, ...this.values(spec)];
    return all.filter((v, i) => all.indexOf(v) === i);
  }

  /** Ticks or unticks one value. */
  toggle(spec: KeptParamSpec, value: string): void {
    const key = draftKey(spec.resource, spec.param);
    const values = this.draft[key] ?? [];
    this.draft[key] = values.includes(value) ? values.filter((v) => v !== value) : [...values, value];
  }

  /** Adds the value typed for an open parameter; a value it cannot keep is a problem shown beside the box. */
  addTyped(spec: KeptParamSpec): void {
    const key = draftKey(spec.resource, spec.param);
    const value = (this.typed[key] ?? '').trim();
    const problem = value === '' ? 'Type a value first.' : keptValueProblem(spec.resource, spec.param, value);
    if (problem) {
      this.problems[key] = problem;
      return;
    }
    delete this.problems[key];
    if (!this.values(spec).includes(value)) this.draft[key] = [...this.values(spec), value];
    this.typed[key] = '';
  }

  /** The cost per sync of what `spec` will keep. */
  cost(spec: KeptParamSpec): KeptParamCost | null {
    return this.settings ? draftCost(this.settings, spec, this.values(spec)) : null;
  }

  /** The cost per sync of everything the draft keeps. */
  readonly total: KeptParamCost | null = $derived.by(() => (this.settings ? totalCost(KEPT_SPECS.map((s) => draftCost(this.settings!, s, this.values(s)))) : null));

  /** The parameters whose draft differs from what is kept. */
  readonly changed: KeptParamSpec[] = $derived.by(() => (this.settings ? KEPT_SPECS.filter((s) => draftChanged(this.settings!, s, this.values(s))) : []));

  /** The draft back to what is kept. */
  revert(): void {
    if (this.settings) this.#apply(this.settings);
  }

  /** Saves every changed parameter; on a refusal the draft stays and says why. */
  async save(): Promise<void> {
    if (this.saving || this.changed.length === 0) return;
    this.saving = true;
    this.error = null;
    const draft = $state.snapshot(this.draft);
    try {
      let settings = this.settings!;
      for (const spec of this.changed) {
        settings = await call('setKeptValues', { profileId: this.#profile().id, resource: spec.resource, param: spec.param, values: draft[draftKey(spec.resource, spec.param)] ?? [] });
      }
      this.#apply(settings);
      this.#app.toast('success', 'Kept filters saved: the new values are read from the service after the next sync');
    } catch (e) {
      this.error = errorText(e);
    } finally {
      this.saving = false;
    }
  }

  /** Turns the reads after each sync on or off (the profile's `keptFilters`). */
  async setEnabled(enabled: boolean): Promise<void> {
    const { id, name, environment, baseUrl, accountId, pageSize } = this.#profile();
    try {
      await this.#app.saveProfile({ id, name, environment, baseUrl, accountId, pageSize, keptFilters: enabled });
      if (this.settings) this.settings = { ...this.settings, enabled };
      this.error = null;
    } catch (e) {
      this.error = errorText(e);
    }
  }
}
