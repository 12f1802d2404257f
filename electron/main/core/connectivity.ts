/**
 * Whether the service answers (DESIGN.md "Connectivity"): a small state machine fed by every
 * request outcome of syncs and by its own probe, which it repeats while the service is unreachable.
 * The page shows "offline — data from <time>" from it; nothing else depends on it.
 */
import type { Connectivity, ConnectivityState } from '../../../shared/contract.ts';
import type { Emit } from './options.ts';

/** Options of {@link ConnectivityMonitor}. */
export interface ConnectivityOptions {
  emit: Emit;
  /** One cheap request to the active profile's service; reports through `record`. */
  probe: () => Promise<void>;
  /** How often to probe while the service is unreachable, in ms. @default 15000 */
  probeIntervalMs?: number;
}

/** The connectivity state an error code implies, or null when the code says nothing about the service. */
export function connectivityFor(code: string): ConnectivityState | null {
  if (code === 'AUTH_REJECTED' || code === 'AUTH_MISSING') return 'auth-needed';
  if (code === 'NETWORK_UNREACHABLE' || code === 'TIMEOUT') return 'offline';
  if (code === 'SERVER_ERROR' || code === 'RATE_LIMITED' || code === 'BAD_RESPONSE') return 'unreachable';
  return null;
}

/** The connectivity of the active profile's service. */
export class ConnectivityMonitor {
  readonly #options: ConnectivityOptions;
  #state: Connectivity = { profileId: null, state: 'unknown', lastSuccessAt: null, message: null };
  #timer: NodeJS.Timeout | null = null;
  #probing = false;

  constructor(options: ConnectivityOptions) {
    this.#options = options;
  }

  /** The state of `activeProfileId`'s service ('unknown' when nothing is known of it yet). */
  current(activeProfileId: string | null): Connectivity {
    return this.#state.profileId === activeProfileId ? this.#state : { profileId: activeProfileId, state: 'unknown', lastSuccessAt: null, message: null };
  }

  /** A request of `profileId` succeeded. */
  succeeded(profileId: string): void {
    this.#set(profileId, 'online', null, true);
  }

  /**
   * A request of `profileId` failed with `code`; a code that says nothing about the service (a
   * cancel, a full disk) keeps the current state.
   */
  failed(profileId: string, code: string, message: string | null): void {
    this.#set(profileId, connectivityFor(code) ?? this.#state.state, message, false);
  }

  /** Sets the state directly (the sample API stopped on purpose is "offline"). */
  set(profileId: string, state: ConnectivityState, message: string | null): void {
    this.#set(profileId, state, message, false);
  }

  /** Starts probing while the service is unreachable. */
  startProbing(): void {
    this.#probing = true;
    this.#schedule();
  }

  /** Stops probing (the core is closing). */
  stopProbing(): void {
    this.#probing = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #set(profileId: string, next: ConnectivityState, message: string | null, success: boolean): void {
    const state = this.#state;
    const lastSuccessAt = success ? new Date().toISOString() : state.profileId === profileId ? state.lastSuccessAt : null;
    const changed = state.state !== next || state.profileId !== profileId || state.message !== message;
    this.#state = { profileId, state: next, lastSuccessAt, message };
    if (changed) this.#options.emit('connectivityChanged', this.#state);
    this.#schedule();
  }

  #schedule(): void {
    if (!this.#probing) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const s = this.#state.state;
    if (s === 'offline' || s === 'unreachable' || s === 'unknown') {
      this.#timer = setTimeout(() => void this.#options.probe(), this.#options.probeIntervalMs ?? 15_000);
      this.#timer.unref?.();
    }
  }
}
