/**
 * Whether the service can be used: main's connectivity state, the active profile's token status,
 * and the status line they make with the age of the data.
 */
import type { Connectivity, CredentialStatus, Profile } from '../../../../shared/contract.ts';
import { formatWhen } from '../../lib/format.ts';

/** The status line: what the user should know about reachability and data age. */
export interface StatusLine {
  tone: 'ok' | 'muted' | 'warn' | 'error';
  text: string;
  action: 'profiles' | 'sync' | null;
}

/** What the status line needs of the app. */
export interface ConnectivityHost {
  /** The active profile, or null. */
  profile(): Profile | null;
  /** The older of the resources' last successful syncs (ISO time), or null. */
  dataAsOf(): string | null;
}

/** Reachability and credentials of the active profile. */
export class ConnectivityState {
  readonly #host: ConnectivityHost;
  connectivity = $state.raw<Connectivity | null>(null);
  credentials = $state.raw<CredentialStatus | null>(null);

  /**
   * What the status bar, the banner and an empty view call a service the app cannot use: "Offline"
   * (no answer at all), "Service unavailable" (it answers, but with server errors, rate limits or
   * something that is not its API; the Sync view shows the exact error), or null.
   */
  outage = $derived(this.connectivity?.state === 'offline' ? 'Offline' : this.connectivity?.state === 'unreachable' ? 'Service unavailable' : null);

  statusLine = $derived.by((): StatusLine => {
    const c = this.connectivity;
    const asOf = this.#host.dataAsOf();
    const when = asOf ? formatWhen(asOf) : null;
    if (!this.#host.profile()) return { tone: 'muted', text: 'No profile', action: 'profiles' };
    if (c?.state === 'auth-needed' || this.credentials?.rejected)
      return { tone: 'error', text: 'Token rejected — open Profiles to enter a new one', action: 'profiles' };
    if (this.outage) return { tone: 'warn', text: when ? `${this.outage} — showing data from ${when}` : `${this.outage} — nothing cached yet`, action: 'sync' };
    if (c?.state === 'online') return { tone: 'ok', text: when ? `Online · synced ${when}` : 'Online · not synced yet', action: null };
    return { tone: 'muted', text: when ? `Synced ${when}` : 'Not synced yet', action: null };
  });

  constructor(host: ConnectivityHost) {
    this.#host = host;
  }
}
