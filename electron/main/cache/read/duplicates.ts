/**
 * The duplicate groups the sync found (build/duplicates.ts; docs/cache-schema.md "Duplicates"):
 * a window of them for the Duplicates page, all of them for the CLI, and the SQL of a contact's
 * "possible duplicate" mark and filter. Members are joined with the cached contacts, so while the
 * groups are found again after a publish a contact the publish removed is not listed.
 */
import type Database from 'better-sqlite3';
import type { ContactDuplicateGroup } from '../../../../shared/contract.ts';
import type { DuplicateGroup, DuplicateGroupIds, DuplicateGroupsPage, DuplicateLevel, DuplicateMember } from '../../../../shared/duplicates.ts';
import { DUPLICATE_LEVELS_SHOWN, MAX_DUPLICATE_GROUPS } from '../../../../shared/duplicates.ts';

/**
 * Whether the contact `alias` is in a group at `level`, or in the group `key` (an SQL expression;
 * `level` and `key` bound parameters or literals).
 */
export function inDuplicateGroup(alias: string, level: string, key?: string): string {
  return `EXISTS (SELECT 1 FROM contact_duplicates dup WHERE dup.contact_id = ${alias}.id AND dup.level = ${level}${key ? ` AND dup.group_key = ${key}` : ''})`;
}

/**
 * The members of the groups at `level` as an export's view: `d` = contact_duplicates, `c` = its
 * contact, groups of two or more cached contacts, by group key then contact id.
 */
export function duplicateMembersSql(level: DuplicateLevel): { from: string; where: string; orderBy: string; params: Record<string, unknown> } {
  return {
    from: 'contact_duplicates d JOIN contacts c ON c.id = d.contact_id',
    where: `d.level = :dupLevel AND (SELECT count(*) FROM contact_duplicates g JOIN contacts gc ON gc.id = g.contact_id WHERE g.level = d.level AND g.group_key = d.group_key) > 1`,
    orderBy: 'd.group_key, c.id',
    params: { dupLevel: level },
  };
}

/**
 * The groups at a level with their sizes, from the groups' own index alone: they are found from
 * the mirror right after each publish of the contacts, and cleared when that fails
 * (sync/engine.ts), so they hold the mirror's contacts. A join with the mirror here would cost a
 * lookup per member on every page open.
 */
const GROUPS_SQL = 'SELECT group_key AS key, count(*) AS size FROM contact_duplicates WHERE level = ? GROUP BY group_key HAVING count(*) > 1';

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));

/**
 * A window of the groups at `level`, the largest first (then by key), with their members.
 * @param request `level`; `offset` ≥ 0; `limit` 1–{@link MAX_DUPLICATE_GROUPS}
 * @returns the window with the level's totals; `computedAt` null before the first find
 */
export function duplicateGroups(db: Database.Database, request: { level: DuplicateLevel; offset: number; limit: number }): DuplicateGroupsPage {
  const { level, offset } = request;
  const limit = Math.min(Math.max(1, request.limit), MAX_DUPLICATE_GROUPS);
  const state = db.prepare('SELECT computed_at FROM contact_duplicates_state').get() as { computed_at: string } | undefined;
  const totals = db.prepare(`SELECT count(*) AS groups, coalesce(sum(size), 0) AS contacts FROM (${GROUPS_SQL})`).get(level) as { groups: number; contacts: number };
  const window = db.prepare(`${GROUPS_SQL} ORDER BY size DESC, key LIMIT ? OFFSET ?`).all(level, limit, offset) as { key: string; size: number }[];
  const members = db.prepare(`SELECT c.id, c.first_name, c.last_name, c.company_name, c.email, c.address1, c.address2, c.city, c.state, c.zip
    FROM contact_duplicates d JOIN contacts c ON c.id = d.contact_id WHERE d.level = ? AND d.group_key = ? ORDER BY c.id`);
  const items: DuplicateGroup[] = window.map(({ key, size }) => ({
    key, level, size,
    members: (members.all(level, key) as Record<string, unknown>[]).map((r): DuplicateMember => ({
      id: text(r.id), firstName: text(r.first_name), lastName: text(r.last_name), companyName: text(r.company_name), email: text(r.email),
      address1: text(r.address1), address2: text(r.address2), city: text(r.city), state: text(r.state), zip: text(r.zip),
    })),
  }));
  return { level, computedAt: state?.computed_at ?? null, groups: totals.groups, contacts: totals.contacts, offset, items };
}

/**
 * Every group at `level` with its members' ids (`letterdesk duplicates --json`), by key.
 * @returns groups of two or more cached contacts, ids ascending
 */
export function duplicateGroupIds(db: Database.Database, level: DuplicateLevel): DuplicateGroupIds[] {
  const rows = db.prepare(`SELECT d.group_key AS key, c.id FROM contact_duplicates d JOIN contacts c ON c.id = d.contact_id
    WHERE d.level = ? ORDER BY d.group_key, c.id`).all(level) as { key: string; id: string }[];
  const out: DuplicateGroupIds[] = [];
  for (const { key, id } of rows) {
    const last = out.at(-1);
    if (last?.key === key) last.contactIds.push(id);
    else out.push({ key, level, contactIds: [id] });
  }
  return out.filter((g) => g.contactIds.length > 1);
}

/**
 * The groups contact `id` is in, each with its other cached members (the contact's detail).
 * @returns at most one group per level, household first ({@link DUPLICATE_LEVELS_SHOWN}); groups left with no
 *   other cached member are not listed
 */
export function contactDuplicateGroups(db: Database.Database, id: string): ContactDuplicateGroup[] {
  const rows = db.prepare(`SELECT d.level, d.group_key AS key, c.id, c.full_name FROM contact_duplicates own
    JOIN contact_duplicates d ON d.level = own.level AND d.group_key = own.group_key AND d.contact_id <> own.contact_id
    JOIN contacts c ON c.id = d.contact_id WHERE own.contact_id = ? ORDER BY c.id`).all(id) as { level: DuplicateLevel; key: string; id: string; full_name: string | null }[];
  return DUPLICATE_LEVELS_SHOWN.flatMap((level) => {
    const of = rows.filter((r) => r.level === level);
    const first = of[0];
    return first ? [{ level, key: first.key, others: of.map((r) => ({ id: text(r.id), fullName: text(r.full_name) })) }] : [];
  });
}
