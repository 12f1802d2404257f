/**
 * The profiles store: `<dataDir>/profiles.json`, holding profiles and the active profile id —
 * never tokens (those live in the OS keychain, see ../credentials/).
 *
 * - Every change is written atomically (temporary file + fsync + rename).
 * - The file is read and validated with zod on every operation, so the app and the CLI sharing a
 *   data directory see each other's changes. Stored base URLs are re-checked on load: a hand-edited
 *   `http://` address to a remote host must not receive tokens.
 * - A file that is not valid JSON or fails validation is moved aside to
 *   `profiles.json.damaged-<timestamp>` and reported through {@link ProfileStore.loadProblem};
 *   it is never silently replaced or deleted.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { queryEncodingSchema } from '../../../shared/serviceQuery.ts';
import { MAX_STATUS_NAMES, STATUS_CODE_KEY, STATUS_COLOURS, type StatusNames } from '../../../shared/statusNames.ts';
import { ENVIRONMENTS, MAX_HISTORY_RETENTION_DAYS, profileInputSchema, type Profile, type ProfileInput, type ProfileList } from '../../../shared/contract.ts';
import { LetterdeskError } from '../../../shared/errors.ts';
import { logger } from '../base/log.ts';
import { cacheFilePath, cacheFileSet, historyFileOf, historyFileSet, profilesFilePath } from '../base/paths.ts';
import { tryLock } from '../base/lockFiles.ts';
import { moveAsideSync, writeFileAtomicSync } from '../base/atomicFile.ts';
import { normalizeBaseUrl } from './baseUrl.ts';

/** Version of the profiles file format. */
export const PROFILES_FILE_VERSION = 1;

const PROFILE_ID = /^[a-z0-9-]{1,64}$/;

const storedProfileSchema = z.object({
  id: z.string().regex(PROFILE_ID, 'not a profile id'),
  name: z.string().trim().min(1).max(80),
  environment: z.enum(ENVIRONMENTS),
  baseUrl: z.string().refine((value) => {
    try {
      return normalizeBaseUrl(value) === value;
    } catch {
      return false;
    }
  }, 'not an allowed base URL (https, or http to this computer, ending in /api/v1)'),
  accountId: z.string().trim().min(1).max(128).nullable(),
  pageSize: z.number().int().min(1).max(1000),
  sampleData: z.boolean(),
  createdAt: z.iso.datetime(),
  // Optional: files written before the setting existed have none (on).
  previews: z.boolean().optional(),
  // Optional for the same reason (absent: on).
  keptFilters: z.boolean().optional(),
  // Optional for the same reason (absent: DEFAULT_HISTORY_RETENTION_DAYS); a value out of range reads as absent.
  historyRetentionDays: z.number().int().min(1).max(MAX_HISTORY_RETENTION_DAYS).optional().catch(undefined),
  // Optional for the same reason (absent: DEFAULT_QUERY_ENCODING). A value this version does not
  // know (written by a newer one) reads as absent rather than making the whole file damaged.
  queryEncoding: queryEncodingSchema.strip().optional().catch(undefined),
  // Optional for the same reason (absent: no names). Read leniently, so that a newer version's
  // entries never make the whole file damaged: an unknown colour reads as grey, an entry that is
  // not a name at all is dropped.
  statusNames: z
    .record(z.string(), z.unknown())
    .transform(storedStatusNames)
    .optional()
    .catch(undefined),
});

/** The status names a stored profile holds: valid entries kept (unknown colours as grey), the rest dropped. */
function storedStatusNames(entries: Record<string, unknown>): StatusNames {
  const names: StatusNames = {};
  const entry = z.object({ name: z.string().trim().min(1).max(60), colour: z.enum(STATUS_COLOURS).catch('grey') });
  for (const [code, value] of Object.entries(entries).slice(0, MAX_STATUS_NAMES)) {
    const parsed = entry.safeParse(value);
    if (STATUS_CODE_KEY.test(code) && parsed.success) Object.defineProperty(names, code, { value: parsed.data, enumerable: true, configurable: true, writable: true });
  }
  return names;
}

const profilesFileSchema = z
  .object({
    version: z.literal(PROFILES_FILE_VERSION),
    activeProfileId: z.string().nullable(),
    profiles: z.array(storedProfileSchema).max(1000),
  })
  .superRefine((file, ctx) => {
    // Ids are what caches, tokens and the active profile refer to: two profiles with one id are
    // damage. Names that read the same are not: saving refuses them (nameKey), but a file written
    // before the comparison grew stricter (fullwidth or invisible characters) may hold such a pair,
    // and moving the whole file aside for it would lose every profile at the first start.
    const ids = new Set<string>();
    for (const [index, profile] of file.profiles.entries()) {
      if (ids.has(profile.id)) ctx.addIssue({ code: 'custom', path: ['profiles', index, 'id'], message: 'duplicate profile id' });
      ids.add(profile.id);
    }
  });

type ProfilesFile = z.infer<typeof profilesFileSchema>;

/** Options of {@link ProfileStore.save}. */
export interface SaveProfileOptions {
  /** Marks the profile as talking to the embedded sample API. @default false on create, unchanged on edit */
  sampleData?: boolean;
}

/** Options of {@link ProfileStore.remove}. */
export interface RemoveProfileOptions {
  /** Also delete the profile's cache file (and its `-wal`, `-shm`, `-journal`, `.open`) and its observed history. @default false */
  purgeCache?: boolean;
}

/**
 * What two profile names are compared by: compatibility forms folded (fullwidth "Ａｃｍｅ" is "Acme"),
 * invisible characters dropped (zero-width spaces and joiners, soft hyphens, …), surrounding blanks
 * and case ignored, so two entries that read the same in the list cannot both exist.
 */
function nameKey(name: string): string {
  return name.normalize('NFKC').replace(/\p{Default_Ignorable_Code_Point}/gu, '').trim().toLowerCase();
}

function summarise(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'file'}: ${issue.message}`)
    .join('; ');
}

/**
 * A new profile id: the lowercase ASCII slug of the name plus a short random suffix,
 * e.g. "Acme Demo" → `acme-demo-k3x9q2`. Always matches the contract's profile id pattern.
 */
export function newProfileId(name: string, taken: ReadonlySet<string> = new Set()): string {
  const slug =
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40)
      .replace(/-+$/, '') || 'profile';
  for (;;) {
    const suffix = randomBytes(6)
      .toString('base64')
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '')
      .slice(0, 6);
    if (suffix.length < 4) continue;
    const id = `${slug}-${suffix}`;
    if (!taken.has(id)) return id;
  }
}

function copyStatusNames(names: StatusNames): StatusNames {
  return Object.fromEntries(Object.entries(names).map(([code, named]) => [code, { ...named }]));
}

function copyProfile(profile: Profile): Profile {
  const copy: Profile = profile.queryEncoding === undefined ? { ...profile } : { ...profile, queryEncoding: { ...profile.queryEncoding } };
  if (profile.statusNames !== undefined) copy.statusNames = copyStatusNames(profile.statusNames);
  return copy;
}

/** The profiles of one data directory. Synchronous: the file is small and written rarely. */
export class ProfileStore {
  readonly dataDir: string;
  readonly file: string;
  #loadProblem: string | null = null;

  private constructor(dataDir: string) {
    this.dataDir = dataDir;
    this.file = profilesFilePath(dataDir);
  }

  /**
   * Opens (and validates) the profiles of a data directory. A missing file means "no profiles yet";
   * nothing is written until the first change. A damaged file is moved aside (see {@link loadProblem}).
   */
  static open(dataDir: string): ProfileStore {
    const store = new ProfileStore(dataDir);
    store.#read();
    return store;
  }

  /**
   * What went wrong loading the profiles file, or null: names the problem and where the damaged file
   * was moved. Stays set for the life of this store so the UI and CLI can show it.
   */
  loadProblem(): string | null {
    return this.#loadProblem;
  }

  /** All profiles (in creation order) and the active profile id. */
  list(): ProfileList {
    const file = this.#read();
    return { profiles: file.profiles.map(copyProfile), activeProfileId: file.activeProfileId };
  }

  /** The profile with this id, or null. */
  get(id: string): Profile | null {
    const found = this.#read().profiles.find((p) => p.id === id);
    return found ? copyProfile(found) : null;
  }

  /**
   * The profile with this name, or null: the one named exactly so, else the first whose name reads
   * the same (case, surrounding blanks, compatibility forms and invisible characters ignored).
   */
  getByName(name: string): Profile | null {
    const key = nameKey(name);
    const { profiles } = this.#read();
    const found = profiles.find((p) => p.name === name) ?? profiles.find((p) => nameKey(p.name) === key);
    return found ? copyProfile(found) : null;
  }

  /** The active profile, or null when none is selected. */
  active(): Profile | null {
    const file = this.#read();
    const found = file.profiles.find((p) => p.id === file.activeProfileId);
    return found ? copyProfile(found) : null;
  }

  /**
   * Creates a profile (input without `id`) or edits one (input with `id`). The first profile created
   * becomes the active one.
   * @returns the stored profile (base URL normalised: no trailing slash)
   * @throws LetterdeskError VALIDATION (bad field, base URL rule, name already used — case-insensitive),
   *   NOT_FOUND (editing an id that does not exist), DISK_FULL
   */
  save(input: ProfileInput, options: SaveProfileOptions = {}): Profile {
    return this.#changing(() => this.#save(input, options));
  }

  #save(input: ProfileInput, options: SaveProfileOptions): Profile {
    const parsed = profileInputSchema.safeParse(input);
    if (!parsed.success) throw new LetterdeskError('VALIDATION', `The profile is not valid: ${summarise(parsed.error)}.`);
    const fields = parsed.data;
    const baseUrl = normalizeBaseUrl(fields.baseUrl);
    const accountId = fields.accountId === null || fields.accountId.trim() === '' ? null : fields.accountId.trim();

    const file = this.#read();
    if (fields.id !== undefined && !file.profiles.some((p) => p.id === fields.id)) {
      throw new LetterdeskError('NOT_FOUND', `There is no profile with id "${fields.id}" (it may have been removed). Reload the profile list.`);
    }
    const clash = file.profiles.find((p) => nameKey(p.name) === nameKey(fields.name) && p.id !== fields.id);
    if (clash) {
      throw new LetterdeskError('VALIDATION', `A profile named "${clash.name}" already exists. Choose another name (names are compared ignoring case).`);
    }

    let saved: Profile;
    if (fields.id !== undefined) {
      const index = file.profiles.findIndex((p) => p.id === fields.id);
      const existing = file.profiles[index];
      if (index < 0 || existing === undefined) {
        throw new LetterdeskError('NOT_FOUND', `There is no profile with id "${fields.id}" (it may have been removed). Reload the profile list.`);
      }
      saved = {
        ...existing,
        name: fields.name,
        environment: fields.environment,
        baseUrl,
        accountId,
        pageSize: fields.pageSize,
        sampleData: options.sampleData ?? existing.sampleData,
        ...(fields.previews === undefined ? {} : { previews: fields.previews }),
        ...(fields.keptFilters === undefined ? {} : { keptFilters: fields.keptFilters }),
        ...(fields.historyRetentionDays === undefined ? {} : { historyRetentionDays: fields.historyRetentionDays }),
        ...(fields.queryEncoding === undefined ? {} : { queryEncoding: { ...fields.queryEncoding } }),
        ...(fields.statusNames === undefined ? {} : { statusNames: copyStatusNames(fields.statusNames) }),
      };
      file.profiles[index] = saved;
    } else {
      saved = {
        id: newProfileId(fields.name, new Set(file.profiles.map((p) => p.id))),
        name: fields.name,
        environment: fields.environment,
        baseUrl,
        accountId,
        pageSize: fields.pageSize,
        sampleData: options.sampleData ?? false,
        createdAt: new Date().toISOString(),
        ...(fields.previews === undefined ? {} : { previews: fields.previews }),
        ...(fields.keptFilters === undefined ? {} : { keptFilters: fields.keptFilters }),
        ...(fields.historyRetentionDays === undefined ? {} : { historyRetentionDays: fields.historyRetentionDays }),
        ...(fields.queryEncoding === undefined ? {} : { queryEncoding: { ...fields.queryEncoding } }),
        ...(fields.statusNames === undefined ? {} : { statusNames: copyStatusNames(fields.statusNames) }),
      };
      file.profiles.push(saved);
      if (file.activeProfileId === null) file.activeProfileId = saved.id;
    }
    this.#write(file);
    return copyProfile(saved);
  }

  /**
   * Makes a profile the active one.
   * @throws LetterdeskError NOT_FOUND
   */
  use(id: string): ProfileList {
    return this.#changing(() => this.#use(id));
  }

  #use(id: string): ProfileList {
    const file = this.#read();
    if (!file.profiles.some((p) => p.id === id)) {
      throw new LetterdeskError('NOT_FOUND', `There is no profile with id "${id}". Pick one from the profile list.`);
    }
    file.activeProfileId = id;
    this.#write(file);
    return this.list();
  }

  /**
   * Removes a profile (and, with `purgeCache`, its cache file first, so a failure leaves the profile in
   * place to retry). Tokens are NOT touched here: call `CredentialStore.clear`, or use
   * `removeProfileAndCredentials` which does both. Close the profile's cache before purging it.
   * When the active profile is removed, the first remaining profile (or none) becomes active.
   * @throws LetterdeskError NOT_FOUND; fs errors when the cache file cannot be deleted
   */
  remove(id: string, options: RemoveProfileOptions = {}): ProfileList {
    return this.#changing(() => this.#remove(id, options));
  }

  #remove(id: string, options: RemoveProfileOptions): ProfileList {
    const file = this.#read();
    if (!file.profiles.some((p) => p.id === id)) {
      throw new LetterdeskError('NOT_FOUND', `There is no profile with id "${id}". Reload the profile list.`);
    }
    if (options.purgeCache) {
      const cache = cacheFilePath(this.dataDir, id);
      for (const part of [...cacheFileSet(cache), ...historyFileSet(historyFileOf(cache))]) fs.rmSync(part, { force: true });
    }
    file.profiles = file.profiles.filter((p) => p.id !== id);
    if (file.activeProfileId === id) file.activeProfileId = file.profiles[0]?.id ?? null;
    this.#write(file);
    return this.list();
  }

  #read(): ProfilesFile {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: PROFILES_FILE_VERSION, activeProfileId: null, profiles: [] };
      throw error;
    }
    let reason: string;
    try {
      const result = profilesFileSchema.safeParse(JSON.parse(text));
      if (result.success) {
        const file = result.data;
        if (file.activeProfileId !== null && !file.profiles.some((p) => p.id === file.activeProfileId)) file.activeProfileId = null;
        return file;
      }
      reason = summarise(result.error);
    } catch (error) {
      reason = `not valid JSON (${error instanceof Error ? error.message : String(error)})`;
    }
    const aside = moveAsideSync(this.file);
    this.#loadProblem =
      `The profiles file was damaged (${reason}). It was moved aside to ${aside} and Letterdesk started with no profiles. ` +
      'Create your profiles again, or repair that file and move it back to profiles.json while Letterdesk is closed. Tokens in the keychain were kept.';
    logger.warn(`profiles: ${this.#loadProblem}`);
    return { version: PROFILES_FILE_VERSION, activeProfileId: null, profiles: [] };
  }

  /**
   * Runs one read-change-write of the profiles file while holding `profiles.json.lock` (pids.ts
   * `tryLock`; one whose process is gone is taken over), so the app and the CLI changing profiles at
   * the same instant do not overwrite each other's change (the file is rewritten whole).
   * @throws LetterdeskError BUSY when another process holds the lock for more than 5 s
   */
  #changing<T>(change: () => T): T {
    const file = `${this.file}.lock`;
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const deadline = Date.now() + 5000;
    for (;;) {
      const lock = tryLock(file);
      if ('release' in lock) {
        try {
          return change();
        } finally {
          lock.release();
        }
      }
      if (Date.now() > deadline) {
        throw new LetterdeskError('BUSY', `Another Letterdesk (process ${lock.holder?.pid ?? 'unknown'}) is changing the profiles. Try again in a moment; if no Letterdesk is running, delete ${file}.`);
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }

  #write(file: ProfilesFile): void {
    writeFileAtomicSync(this.file, `${JSON.stringify(file, null, 2)}\n`);
  }
}
