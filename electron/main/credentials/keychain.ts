/**
 * The OS keychain through keytar (macOS Keychain, Windows Credential Manager, the Secret Service
 * on Linux — gnome-keyring, KDE Wallet, KeePassXC), wrapped so that nothing can crash or hang Letterdesk:
 *
 * - keytar is imported lazily: a missing or broken native module becomes KEYCHAIN_UNAVAILABLE.
 * - Every call races a timeout: with a broken D-Bus, libsecret can wait forever. After a timeout no
 *   new call is started until the stuck one returns (each stuck call holds a libuv worker thread,
 *   and four of them would stall all file I/O in the process).
 * - Failures are translated into a message that names the cause and the fix.
 */
import net from 'node:net';
import type * as KeytarModule from 'keytar';
import { LetterdeskError } from '../../../shared/errors.ts';
import { redact } from '../base/log.ts';

/** The keytar functions Letterdesk uses. */
export type KeytarApi = Pick<typeof KeytarModule, 'getPassword' | 'setPassword' | 'deletePassword' | 'findCredentials'>;

/** What the user can always do instead; appended to every keychain problem. */
const SESSION_HINT = 'Until then you can keep the tokens in memory for this session only.';

let keytarPromise: Promise<KeytarApi> | null = null;

async function loadKeytar(): Promise<KeytarApi> {
  keytarPromise ??= import('keytar').then((mod) => {
    const api = ((mod as { default?: unknown }).default ?? mod) as KeytarApi;
    if (typeof api.getPassword !== 'function') throw new Error('keytar has no getPassword function');
    return api;
  });
  try {
    return await keytarPromise;
  } catch (error) {
    keytarPromise = null;
    throw new KeychainLoadError(error);
  }
}

class KeychainLoadError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

class KeychainTimeout extends Error {}

/** The session bus accepted a connection but never answered the authentication handshake. */
class SilentBus extends Error {}

/**
 * Checks, without libdbus, that the D-Bus session bus answers at all. A keytar call against a bus
 * that accepts connections but never speaks blocks its thread forever, and Node then cannot even
 * exit (it joins its worker threads on exit), so such a bus must be caught before keytar is called.
 * @param address `DBUS_SESSION_BUS_ADDRESS` (only `unix:path=` and `unix:abstract=` are probed)
 * @returns true when the bus answered or cannot be probed here (keytar then reports any error
 *   itself, quickly); false when it stayed silent for `timeoutMs`
 */
export function sessionBusAnswers(address: string | undefined, timeoutMs: number): Promise<boolean> {
  const entry = (address ?? '').split(';').find((e) => /^unix:.*\b(path|abstract)=/.test(e));
  if (entry === undefined) return Promise.resolve(true);
  const params = new Map(
    entry
      .slice('unix:'.length)
      .split(',')
      .map((kv) => {
        const at = kv.indexOf('=');
        return [kv.slice(0, at), decodeURIComponent(kv.slice(at + 1))] as const;
      }),
  );
  const abstract = params.get('abstract');
  const socketPath = abstract !== undefined ? `\0${abstract}` : params.get('path');
  if (socketPath === undefined) return Promise.resolve(true);
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    const done = (answered: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answered);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.on('connect', () => {
      const uid = typeof process.getuid === 'function' ? String(process.getuid()) : '0';
      socket.write(`\0AUTH EXTERNAL ${Buffer.from(uid).toString('hex')}\r\n`);
    });
    socket.on('data', () => done(true)); // any reply (OK, REJECTED, ERROR) means the bus is alive
    socket.on('error', () => done(true)); // no bus at all: keytar says so at once
    socket.on('close', () => done(true));
  });
}

/** When the session bus last answered {@link sessionBusAnswers} (ms since epoch), per address. */
const busAnsweredAt = new Map<string, number>();
/** When the session bus was last found silent, per address. */
const busSilentAt = new Map<string, number>();
const BUS_CHECK_VALID_MS = 30_000;

/**
 * Turns a keytar failure into a sentence that says what is wrong and how to fix it.
 * @param error what keytar threw (or a load/timeout marker)
 * @param platform @default process.platform
 */
export function describeKeychainFailure(error: unknown, platform: NodeJS.Platform = process.platform, timeoutMs = 0): string {
  const raw = redact(error instanceof Error ? error.message : String(error)).slice(0, 300);
  if (error instanceof KeychainLoadError) {
    return `The keychain module (keytar) could not be loaded: ${raw}. Reinstall Letterdesk (developers: run npm rebuild keytar). ${SESSION_HINT}`;
  }
  if (platform === 'darwin') {
    if (error instanceof KeychainTimeout) return `The macOS Keychain did not answer within ${Math.round(timeoutMs / 1000)} s. Check for a Keychain prompt waiting behind other windows, then try again. ${SESSION_HINT}`;
    return `The macOS Keychain refused the request (${raw}). Open Keychain Access, make sure the login keychain is unlocked and allow Letterdesk to use it, then try again. ${SESSION_HINT}`;
  }
  if (platform === 'win32') {
    if (error instanceof KeychainTimeout) return `Windows Credential Manager did not answer within ${Math.round(timeoutMs / 1000)} s. Try again; if it keeps happening, restart Windows. ${SESSION_HINT}`;
    return `Windows Credential Manager refused the request (${raw}). Check that Credential Manager works for your account, then try again. ${SESSION_HINT}`;
  }
  if (error instanceof SilentBus) {
    return (
      `The D-Bus session bus accepts connections but did not answer within ${Math.round(timeoutMs / 1000)} s, so the Secret Service keychain cannot be used. ` +
      `Check DBUS_SESSION_BUS_ADDRESS (it may point at a stale session), or log out and in again; see docs/credentials.md. ${SESSION_HINT}`
    );
  }
  if (error instanceof KeychainTimeout) {
    return (
      `The Secret Service keychain did not answer within ${Math.round(timeoutMs / 1000)} s (D-Bus or the keyring daemon is not responding, ` +
      `or an unlock prompt cannot be shown). Check that gnome-keyring (or KeePassXC with Secret Service enabled) is running and unlocked, then try again. ${SESSION_HINT}`
    );
  }
  if (/autolaunch|could not connect|failed to connect|DBUS_SESSION_BUS_ADDRESS|no such file|connection refused|session bus/i.test(raw)) {
    return (
      `No D-Bus session bus is reachable (${raw}), so the Secret Service keychain cannot be used; this is typical of SSH, headless or container sessions. ` +
      `Run Letterdesk in a desktop session, or start one with dbus-run-session and an unlocked gnome-keyring (see docs/credentials.md). ${SESSION_HINT}`
    );
  }
  if (/org\.freedesktop\.secrets|not provided by any|ServiceUnknown|secret service/i.test(raw)) {
    return `No Secret Service is running (${raw}). Install and unlock gnome-keyring (or KeePassXC with Secret Service enabled), then try again. ${SESSION_HINT}`;
  }
  if (/does not exist at path|no such object|collection\/login|default collection/i.test(raw)) {
    return (
      `The Secret Service has no login keyring, and the prompt to create one could not be shown (${raw}). ` +
      'Create it in "Passwords and Keys" (Seahorse): new Password Keyring named Login, set as default; on a machine without a desktop, ' +
      `start the daemon with a password on standard input: echo -n PASSWORD | gnome-keyring-daemon --unlock --components=secrets (see docs/credentials.md). ${SESSION_HINT}`
    );
  }
  if (/locked|prompt|dismissed|cancel/i.test(raw)) {
    return (
      `The keyring is locked (${raw}). Unlock it — log in to the desktop, or open "Passwords and Keys" (Seahorse) and unlock the Login keyring — ` +
      `then try again. ${SESSION_HINT}`
    );
  }
  return `The Secret Service keychain refused the request (${raw}). Check that gnome-keyring (or KeePassXC with Secret Service enabled) is running and unlocked. ${SESSION_HINT}`;
}

/**
 * Windows Credential Manager refuses secrets over 2,560 bytes (CRED_MAX_CREDENTIAL_BLOB_SIZE); two
 * long JWTs can exceed that, so bigger secrets are split over numbered accounts there.
 */
export const DEFAULT_MAX_SECRET_BYTES = process.platform === 'win32' ? 2400 : Number.POSITIVE_INFINITY;

/** The call that timed out and has not returned yet (per process: it holds a libuv worker thread). */
let stuck: Promise<unknown> | null = null;

/** Account holding part `n` (1-based) of a split secret; `#` never occurs in a profile id. */
const partAccount = (account: string, n: number): string => `${account}#${n}`;

function splitUtf8(text: string, maxBytes: number): string[] {
  const parts: string[] = [];
  let current = '';
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > maxBytes) {
      parts.push(current);
      current = '';
      bytes = 0;
    }
    current += char;
    bytes += size;
  }
  if (current !== '') parts.push(current);
  return parts;
}

function partsOf(head: string): number {
  try {
    const value = JSON.parse(head) as { parts?: unknown };
    return typeof value === 'object' && value !== null && Number.isInteger(value.parts) && (value.parts as number) > 0 ? (value.parts as number) : 0;
  } catch {
    return 0;
  }
}

/** One keychain service (e.g. `Letterdesk`), with timeouts and clear errors. */
export class Keychain {
  readonly service: string;
  readonly timeoutMs: number;
  readonly maxSecretBytes: number;

  constructor(service: string, timeoutMs: number, maxSecretBytes: number = DEFAULT_MAX_SECRET_BYTES) {
    this.service = service;
    this.timeoutMs = timeoutMs;
    this.maxSecretBytes = maxSecretBytes;
  }

  /** The stored secret of `account` (reassembled when it was split), or null. @throws LetterdeskError KEYCHAIN_UNAVAILABLE */
  async get(account: string): Promise<string | null> {
    const head = await this.#call((k) => k.getPassword(this.service, account));
    const parts = head === null ? 0 : partsOf(head);
    if (parts === 0) return head;
    let text = '';
    for (let n = 1; n <= parts; n++) {
      const part = await this.#call((k) => k.getPassword(this.service, partAccount(account, n)));
      if (part === null) return null; // half-written by another process: treat as absent
      text += part;
    }
    return text;
  }

  /**
   * Stores (or replaces) the secret of `account`; secrets over {@link maxSecretBytes} are split into
   * `account#1…n` plus a head `{"parts":n}` under `account`. @throws LetterdeskError KEYCHAIN_UNAVAILABLE
   */
  async set(account: string, secret: string): Promise<void> {
    const previousParts = await this.#partsStored(account);
    if (Buffer.byteLength(secret) <= this.maxSecretBytes) {
      await this.#call((k) => k.setPassword(this.service, account, secret));
    } else {
      const parts = splitUtf8(secret, this.maxSecretBytes);
      for (const [index, part] of parts.entries()) await this.#call((k) => k.setPassword(this.service, partAccount(account, index + 1), part));
      await this.#call((k) => k.setPassword(this.service, account, JSON.stringify({ parts: parts.length })));
      for (let n = parts.length + 1; n <= previousParts; n++) await this.#call((k) => k.deletePassword(this.service, partAccount(account, n)));
      return;
    }
    for (let n = 1; n <= previousParts; n++) await this.#call((k) => k.deletePassword(this.service, partAccount(account, n)));
  }

  /** Deletes the secret of `account` (and its parts); false when there was none. @throws LetterdeskError KEYCHAIN_UNAVAILABLE */
  async delete(account: string): Promise<boolean> {
    const parts = await this.#partsStored(account);
    for (let n = 1; n <= parts; n++) await this.#call((k) => k.deletePassword(this.service, partAccount(account, n)));
    return this.#call((k) => k.deletePassword(this.service, account));
  }

  /** Every account with a secret under this service (parts of split secrets excluded). @throws LetterdeskError KEYCHAIN_UNAVAILABLE */
  async accounts(): Promise<string[]> {
    const found = await this.#call((k) => k.findCredentials(this.service));
    return found.map((c) => c.account).filter((account) => !account.includes('#'));
  }

  async #partsStored(account: string): Promise<number> {
    const head = await this.#call((k) => k.getPassword(this.service, account));
    return head === null ? 0 : partsOf(head);
  }

  async #checkBus(): Promise<void> {
    const address = process.env.DBUS_SESSION_BUS_ADDRESS ?? '';
    if (Date.now() - (busAnsweredAt.get(address) ?? 0) < BUS_CHECK_VALID_MS) return;
    // A silent bus is not asked again for a while: every call would otherwise wait the full timeout.
    if (Date.now() - (busSilentAt.get(address) ?? 0) < BUS_CHECK_VALID_MS) throw new SilentBus('the session bus did not answer');
    if (!(await sessionBusAnswers(address, this.timeoutMs))) {
      busSilentAt.set(address, Date.now());
      throw new SilentBus('the session bus did not answer');
    }
    busSilentAt.delete(address);
    busAnsweredAt.set(address, Date.now());
  }

  async #call<T>(run: (keytar: KeytarApi) => Promise<T>): Promise<T> {
    if (stuck !== null) {
      throw new LetterdeskError('KEYCHAIN_UNAVAILABLE', describeKeychainFailure(new KeychainTimeout(), process.platform, this.timeoutMs));
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      const keytar = await loadKeytar();
      if (process.platform !== 'darwin' && process.platform !== 'win32') await this.#checkBus();
      const pending = run(keytar);
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const current = pending.then(
            () => undefined,
            () => undefined,
          );
          stuck = current;
          void current.then(() => {
            if (stuck === current) stuck = null;
          });
          reject(new KeychainTimeout());
        }, this.timeoutMs);
      });
      return await Promise.race([pending, timeout]);
    } catch (error) {
      throw new LetterdeskError('KEYCHAIN_UNAVAILABLE', describeKeychainFailure(error, process.platform, this.timeoutMs));
    } finally {
      clearTimeout(timer);
    }
  }
}
