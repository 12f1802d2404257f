/**
 * What the cache answers about duplicate contacts (cache/read/duplicates.ts; the Duplicates page,
 * `letterdesk duplicates`). No zod here: the page imports it.
 */
import type { DuplicateLevel } from './addressKey.ts';

export { DEFAULT_DUPLICATE_LEVEL, DUPLICATE_LEVELS, isDuplicateLevel, type DuplicateLevel } from './addressKey.ts';

/** The levels in the order people are offered them: the default first, then the narrower, then the wider. */
export const DUPLICATE_LEVELS_SHOWN: readonly DuplicateLevel[] = ['household', 'individual', 'address'];

/** Groups the Duplicates page shows at a time: one window of {@link MAX_DUPLICATE_GROUPS} or fewer. */
export const DUPLICATE_PAGE_SIZE = 20;

/** Groups a page of the Duplicates page reads at most. */
export const MAX_DUPLICATE_GROUPS = 200;

/** A contact of a group, with the fields a person compares. */
export interface DuplicateMember {
  id: string;
  firstName: string;
  lastName: string;
  companyName: string;
  email: string;
  address1: string;
  address2: string;
  city: string;
  state: string;
  zip: string;
}

/** The fields of a {@link DuplicateMember} shown side by side, in order, with their labels. */
export const DUPLICATE_FIELDS: readonly (readonly [keyof Omit<DuplicateMember, 'id'>, string])[] = [
  ['firstName', 'First name'], ['lastName', 'Last name'], ['companyName', 'Company'], ['email', 'Email'],
  ['address1', 'Address'], ['address2', 'Address 2'], ['city', 'City'], ['state', 'State'], ['zip', 'ZIP'],
];

/** A group: contacts that would receive the same letter, at one level. */
export interface DuplicateGroup {
  /** The normalised address (and name, at the name levels): the same across syncs. */
  key: string;
  level: DuplicateLevel;
  /** Members in the cached contacts. */
  size: number;
  /** The members, by id. */
  members: DuplicateMember[];
}

/** A window of the groups at one level, largest first. */
export interface DuplicateGroupsPage {
  level: DuplicateLevel;
  /** When the groups were found (ISO 8601 UTC), or null: not found yet (found after the next sync of contacts). */
  computedAt: string | null;
  /** Groups at this level. */
  groups: number;
  /** Contacts in them. */
  contacts: number;
  offset: number;
  items: DuplicateGroup[];
}

/** A group as `letterdesk duplicates --json` prints it. */
export interface DuplicateGroupIds {
  key: string;
  level: DuplicateLevel;
  contactIds: string[];
}

/**
 * The fields on which the members of a group differ, compared as people read them (case and
 * spacing folded), so the page marks them.
 * @returns the field names, in {@link DUPLICATE_FIELDS} order
 */
export function differingFields(members: readonly DuplicateMember[]): Set<keyof DuplicateMember> {
  const out = new Set<keyof DuplicateMember>();
  for (const [field] of DUPLICATE_FIELDS) {
    const values = new Set(members.map((m) => m[field].trim().replace(/\s+/g, ' ').toLowerCase()));
    if (values.size > 1) out.add(field);
  }
  return out;
}
