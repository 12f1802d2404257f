/**
 * The state behind the profile form: the fields typed, their checks, the connection test and the
 * save (with the profile's tokens). The form component is its markup and moves the focus.
 */
import type { ConnectionTest, CredentialStatus, Environment, Profile } from '../../../shared/contract.ts';
import { call, errorText } from '../lib/api.ts';
import { namesFromRows, rowsFromNames, type StatusNameRow, type StatusRowProblem } from '../lib/statusNameRows.ts';
import type { AppState } from './app.svelte.ts';

/** The fields that can be invalid, in the form's order, with what the error summary calls them. */
export const PROFILE_FIELD_NAMES: Record<string, string> = {
  name: 'Name',
  baseUrl: 'Base URL',
  pageSize: 'Page size',
  historyRetentionDays: 'Keep the history',
  accessToken: 'Access token',
  refreshToken: 'Refresh token',
  statusNames: 'Order status names',
};

/** Where the form moves the focus: a field of {@link PROFILE_FIELD_NAMES}, or the "Save anyway" button. */
export type ProfileFormFocus = keyof typeof PROFILE_FIELD_NAMES | 'anyway';

/** What the connection test sends (`testConnection`'s input). */
export interface ConnectionTestInput {
  baseUrl: string;
  accountId: string | null;
  tokens: { accessToken: string; refreshToken: string | null } | null;
  profileId?: string;
}

/** The origin of a base URL, or null while it is not a URL. */
export function originOf(url: string): string | null {
  return URL.parse(url.trim())?.origin ?? null;
}

/** What is wrong with a base URL as typed, or null: https (http only for this computer), ending in /api/v1. */
export function urlProblem(text: string): string | null {
  const url = text.trim();
  if (!url) return 'Enter the service’s base URL.';
  const u = URL.parse(url);
  if (!u) return 'This is not a valid URL.';
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && loopback)) return 'Use an https:// address (http only for this computer).';
  if (!/\/api\/v1\/?$/.test(u.pathname)) return 'The base URL ends in /api/v1.';
  return null;
}

/**
 * A profile's token status (`getCredentialStatus`).
 * @throws DisplayError when it cannot be read (the keychain is locked…)
 */
export function credentialStatus(profileId: string): Promise<CredentialStatus> {
  return call('getCredentialStatus', { profileId });
}

/** One profile form's state (the form is created anew per profile, so the initial values are read once). */
export class ProfileFormState {
  readonly #app: AppState;
  readonly #profile: () => Profile | null;
  readonly #focus: (target: ProfileFormFocus) => void | Promise<void>;
  readonly #onsaved: (profile: Profile, tokenChanged: boolean) => void;
  /** The profile as the form opened it; null for a new one. */
  readonly initial: Profile | null;

  name = $state('');
  environment = $state<Environment>('production');
  baseUrl = $state('');
  accountId = $state('');
  pageSize = $state(500);
  previews = $state(true);
  /** Days the observed history is kept (the profile's `historyRetentionDays`). */
  historyRetentionDays = $state(365);
  /** The names of the order status codes, as rows of the form's small table. */
  statusRows = $state<StatusNameRow[]>([]);
  statusProblems = $state<Record<number, StatusRowProblem>>({});
  statusTableProblem = $state<string | null>(null);
  accessToken = $state('');
  refreshToken = $state('');
  sessionOnly = $state(false);
  replacing = $state(false);
  creds = $state.raw<CredentialStatus | null>(null);
  saving = $state(false);
  error = $state<string | null>(null);
  fieldErrors = $state<Record<string, string>>({});
  /** What the form says when a save is refused for invalid fields (announced). */
  errorSummary = $state('');
  /** A save was tried: fields are checked again as the person fixes them. */
  submitted = $state(false);
  testing = $state(false);
  /** The last test's answer and what it was asked with. */
  tested = $state.raw<{ key: string; result: ConnectionTest } | null>(null);
  /** A new profile's test failed: it can still be saved, for what it was tested with. */
  anywayKey = $state<string | null>(null);

  keychainProblem = $derived(this.creds?.keychainProblem ?? null);
  mustSessionOnly = $derived(this.keychainProblem !== null);
  /**
   * The edit points the profile at another service (address or account): its stored tokens are
   * never sent there, and saving removes them; the form asks for the new service's tokens.
   */
  addressChanged = $derived.by(() => {
    const initial = this.initial;
    return initial !== null && (originOf(this.baseUrl) !== originOf(initial.baseUrl) || (this.accountId.trim() || null) !== initial.accountId);
  });
  /** The stored tokens were saved for another service than the profile's (edited elsewhere). */
  boundElsewhere = $derived.by(() => {
    const initial = this.initial;
    const bound = this.creds?.boundTo;
    return initial !== null && bound != null && (bound.origin !== originOf(initial.baseUrl) || bound.accountId !== initial.accountId);
  });
  showTokenInputs = $derived(!this.creds?.stored || this.replacing || this.creds.rejected || this.addressChanged || this.boundElsewhere);
  testKey = $derived(JSON.stringify(this.testInput()));
  offerAnyway = $derived(this.anywayKey !== null && this.anywayKey === this.testKey && this.tested?.result.ok === false);

  /**
   * @param options.profile the profile edited (its current value; null to create one)
   * @param options.focus moves the focus to a field or the "Save anyway" button (after the page shows what changed)
   * @param options.onsaved called once a save succeeded; `tokenChanged`: new tokens were stored with it
   */
  constructor(options: {
    app: AppState;
    profile: () => Profile | null;
    focus: (target: ProfileFormFocus) => void | Promise<void>;
    onsaved: (profile: Profile, tokenChanged: boolean) => void;
  }) {
    const { app, profile, focus, onsaved } = options;
    this.#app = app;
    this.#profile = profile;
    this.#focus = focus;
    this.#onsaved = onsaved;
    const initial = profile();
    this.initial = initial;
    this.name = initial?.name ?? '';
    this.environment = initial?.environment ?? 'production';
    this.baseUrl = initial?.baseUrl ?? '';
    this.accountId = initial?.accountId ?? '';
    this.pageSize = initial?.pageSize ?? 500;
    this.previews = initial?.previews ?? true;
    this.historyRetentionDays = initial?.historyRetentionDays ?? 365;
    this.statusRows = rowsFromNames(initial?.statusNames);
  }

  /** Checks every field; `announce` says which need attention (a refused save). */
  validate(announce = false): boolean {
    const errs: Record<string, string> = {};
    if (!this.name.trim()) errs.name = 'Give the profile a name.';
    const badUrl = urlProblem(this.baseUrl);
    if (badUrl) errs.baseUrl = badUrl;
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1 || this.pageSize > 1000) errs.pageSize = 'Between 1 and 1000 rows.';
    if (!Number.isInteger(this.historyRetentionDays) || this.historyRetentionDays < 1 || this.historyRetentionDays > 3650) errs.historyRetentionDays = 'Between 1 and 3650 days.';
    if (!this.#profile() && !this.accessToken.trim()) errs.accessToken = 'Paste the access token (JWT) from your account.';
    // §5: the contact list carries the refresh token in a header of its own; without it the service
    // turns the contacts down, which would read as a rejected access token.
    if (this.accessToken.trim() && !this.refreshToken.trim()) errs.refreshToken = 'Paste the refresh token too: the service asks for it with the contact list.';
    const named = namesFromRows(this.statusRows);
    this.statusProblems = named.ok ? {} : named.problems;
    this.statusTableProblem = named.ok ? null : named.tableProblem;
    if (!named.ok) errs.statusNames = 'Check the status names.';
    this.fieldErrors = errs;
    const bad = Object.keys(PROFILE_FIELD_NAMES).filter((k) => errs[k]);
    if (announce || bad.length === 0)
      this.errorSummary = bad.length === 0 ? '' : `${bad.length === 1 ? 'One field needs' : `${bad.length} fields need`} attention: ${bad.map((k) => PROFILE_FIELD_NAMES[k]).join(', ')}.`;
    return bad.length === 0;
  }

  /** What the test sends: the address and account typed, and the tokens typed or (unchanged address) the stored ones. */
  testInput(): ConnectionTestInput {
    const typed = this.accessToken.trim();
    const profile = this.#profile();
    return {
      baseUrl: this.baseUrl.trim().replace(/\/$/, ''),
      accountId: this.accountId.trim() || null,
      tokens: typed ? { accessToken: typed, refreshToken: this.refreshToken.trim() || null } : null,
      ...(profile && !typed && this.creds?.stored && !this.addressChanged ? { profileId: profile.id } : {}),
    };
  }

  /**
   * Tests the address and tokens: one small request to each resource.
   * @returns the answer, or null when the test could not run (the form says why)
   */
  async runTest(): Promise<ConnectionTest | null> {
    const badUrl = urlProblem(this.baseUrl);
    if (badUrl) {
      this.fieldErrors = { ...this.fieldErrors, baseUrl: badUrl };
      void this.#focus('baseUrl');
      return null;
    }
    this.error = null;
    this.testing = true;
    const key = this.testKey;
    try {
      const result = await call('testConnection', this.testInput());
      this.tested = { key, result };
      return result;
    } catch (e) {
      this.tested = null;
      this.error = errorText(e);
      return null;
    } finally {
      this.testing = false;
    }
  }

  /** The form was submitted: checks it, tests a new profile first, then saves. */
  async submit(): Promise<void> {
    this.error = null;
    this.submitted = true;
    if (!this.validate(true)) {
      const first = Object.keys(PROFILE_FIELD_NAMES).find((k) => this.fieldErrors[k]);
      if (first) await this.#focus(first);
      return;
    }
    // A new profile is tested first (unless it just passed with these very settings); when the
    // test fails the person decides: fix it, or save anyway.
    if (!this.#profile() && !(this.tested?.key === this.testKey && this.tested.result.ok)) {
      const result = await this.runTest();
      if (!result) return;
      if (!result.ok) {
        this.anywayKey = this.testKey;
        await this.#focus('anyway');
        return;
      }
    }
    await this.save();
  }

  /** Saves the profile (and its tokens) as the form has it; a failure is shown in {@link error}. */
  async save(): Promise<void> {
    this.error = null;
    this.saving = true;
    try {
      const profile = this.#profile();
      const tokenChanged = this.accessToken.trim() !== '';
      // Only what was sent is cleared afterwards: tokens typed while the save runs stay in the form.
      const sent = { accessToken: this.accessToken, refreshToken: this.refreshToken };
      const named = namesFromRows(this.statusRows);
      // The tokens go with the profile in one call: a new profile is only created (and, as the
      // first one, made active, which replaces the welcome screen and this form) once its tokens
      // are stored, so an error here is shown in this form, not lost with it.
      const saved = await this.#app.saveProfile({
        ...(profile ? { id: profile.id } : {}),
        name: this.name.trim(),
        environment: this.environment,
        baseUrl: this.baseUrl.trim().replace(/\/$/, ''),
        accountId: this.accountId.trim() || null,
        pageSize: this.pageSize,
        previews: this.previews,
        historyRetentionDays: this.historyRetentionDays,
        // An edit always sends the table (an empty one removes every name); a new profile only when it names some.
        ...(named.ok && (profile || Object.keys(named.names).length > 0) ? { statusNames: named.names } : {}),
        ...(tokenChanged
          ? { credentials: { accessToken: this.accessToken.trim(), refreshToken: this.refreshToken.trim() || null, sessionOnly: this.sessionOnly || this.mustSessionOnly } }
          : {}),
      });
      if (tokenChanged || this.addressChanged) this.creds = await credentialStatus(saved.id);
      if (this.accessToken === sent.accessToken) this.accessToken = '';
      if (this.refreshToken === sent.refreshToken) this.refreshToken = '';
      this.replacing = false;
      this.tested = null;
      this.anywayKey = null;
      if (tokenChanged) await this.#app.refreshStatus();
      this.#onsaved(saved, tokenChanged);
    } catch (e) {
      this.error = errorText(e);
    } finally {
      this.saving = false;
    }
  }

  /** Removes the profile's stored tokens. */
  async removeToken(): Promise<void> {
    const profile = this.#profile();
    if (!profile) return;
    try {
      this.creds = await call('clearCredentials', { profileId: profile.id });
      void this.#app.refreshStatus();
    } catch (e) {
      this.error = errorText(e);
    }
  }
}
