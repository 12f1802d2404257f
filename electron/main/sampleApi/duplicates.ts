/**
 * The duplicates planted in the sample dataset (generate.ts applies them): in every block of
 * {@link PLANT_BLOCK} contacts, nine consecutive ones from the block's offset 40 on (moved on
 * until none of the nine is a hard case, whose fields other tests check) copy the first one,
 * the host:
 *
 * | role | name | address | found with the host at |
 * |---|---|---|---|
 * | 1 | the host's | its variant: suffix spelled out, upper case, unit as `#4B` in address1, ZIP+4 | every level |
 * | 2 | the host's last name, another first | its variant: lower case, unit as `# 4B` | address, household |
 * | 3 | another last name | the host's | address |
 * | 4 | the host's | another street suffix | never |
 * | 5 | the host's | another ZIP | never |
 * | 6 | the host's | another unit number | never |
 * | 7, 8 | the host's | a directional N, S after the house number | never |
 *
 * Each planted contact keeps its own id, email, labels and every other field.
 */

import type { AddressedContact } from '../../../shared/addressKey.ts';

/** One block of the dataset holds one planted set. */
export const PLANT_BLOCK = 100;
/** The roles of a planted set: the host and the eight after it. */
const PLANT_SIZE = 9;
const PLANT_FROM = 40;

/** The fields a planted contact takes from its host, varied by role: those the duplicate keys are made of. */
export type PlantedFields = AddressedContact;

/** Where the planted set of a block starts: the first offset from 40 whose nine contacts are not hard cases. */
function plantStart(block: number, isHard: (seq: number) => boolean): number {
  let start = block * PLANT_BLOCK + PLANT_FROM;
  while (Array.from({ length: PLANT_SIZE }, (_, i) => start + i).some(isHard)) start++;
  return start;
}

/**
 * The host of contact `seq` and its role in its planted set (see the module comment).
 * @param isHard whether a sequence number is a hard case (generate.ts)
 * @returns null for a contact that is not planted (the hosts included: they are generated as usual)
 */
export function plantedRole(seq: number, isHard: (seq: number) => boolean): { host: number; role: number } | null {
  const start = plantStart(Math.floor(seq / PLANT_BLOCK), isHard);
  const role = seq - start;
  return role >= 1 && role < PLANT_SIZE ? { host: start, role } : null;
}

const SPELLED: Record<string, string> = {
  St: 'Street', Ave: 'Avenue', Rd: 'Road', Blvd: 'Boulevard', Ln: 'Lane', Dr: 'Drive', Ct: 'Court', Way: 'Way', Pl: 'Place', Ter: 'Terrace',
};

/** A unit of the sample's second lines ("Apt 4B", "Suite 210" …) as its number; null for a PO box or none. */
function unitOf(address2: string): string | null {
  return /^(?:Apt|Suite|Unit|Floor|Bldg) (\S+)$/.exec(address2)?.[1] ?? null;
}

/**
 * The fields of a planted contact from its host's and its own (as generated).
 * @param role 1–8 (see the module comment)
 */
export function plantedFields(role: number, host: PlantedFields, own: PlantedFields): PlantedFields {
  const { address1, address2 } = host;
  const words = address1.split(' ');
  const suffix = words.at(-1) ?? '';
  const unit = unitOf(address2);
  const place = { city: host.city, state: host.state, zip: host.zip };
  const names = { firstName: host.firstName, lastName: host.lastName };
  switch (role) {
    case 1: {
      const spelled = [...words.slice(0, -1), SPELLED[suffix] ?? suffix].join(' ').toUpperCase();
      const line = unit !== null ? `${spelled} #${unit}` : `${spelled} ${address2.toUpperCase()}`.trim();
      return { ...names, address1: line, address2: '', city: host.city, state: host.state, zip: `${host.zip}-${host.zip.slice(0, 4)}` };
    }
    case 2: {
      const firstName = own.firstName !== host.firstName ? own.firstName : host.firstName === 'Jordan' ? 'Casey' : 'Jordan';
      return { ...place, firstName, lastName: host.lastName, address1: address1.toLowerCase(), address2: unit !== null ? `# ${unit}` : address2.toLowerCase() };
    }
    case 3: {
      const lastName = own.lastName !== host.lastName ? own.lastName : `${host.lastName}-Reyes`;
      return { ...place, firstName: own.firstName, lastName, address1, address2 };
    }
    case 4:
      return { ...names, ...place, address1: [...words.slice(0, -1), suffix === 'St' ? 'Ave' : 'St'].join(' '), address2 };
    case 5:
      return { ...names, ...place, zip: `${host.zip.slice(0, 4)}${(Number(host.zip.slice(4, 5)) + 1) % 10}`, address1, address2 };
    case 6:
      return { ...names, ...place, address1, address2: unit === '2' ? 'Apt 3' : 'Apt 2' };
    default:
      return { ...names, ...place, address1: [words[0], role === 7 ? 'N' : 'S', ...words.slice(1)].join(' '), address2 };
  }
}

/** A planted group: contacts the sample API made to receive the same letter twice. */
export interface PlantedGroup {
  level: 'address' | 'household' | 'individual';
  /** Their contact ids, in ascending order. */
  contactIds: string[];
}

/** The roles found with their host at each level. */
const GROUP_ROLES: Record<PlantedGroup['level'], readonly number[]> = { address: [0, 1, 2, 3], household: [0, 1, 2], individual: [0, 1] };

/**
 * The planted groups and near misses among the first `contacts` base contacts.
 * @param idOf a sequence number's contact id
 * @returns the groups of every complete planted set, and for each set its near misses with the
 *   host (role 4–8: never in a group with it)
 */
export function plantedDuplicates(contacts: number, isHard: (seq: number) => boolean, idOf: (seq: number) => string): { groups: PlantedGroup[]; nearMisses: string[][] } {
  const groups: PlantedGroup[] = [];
  const nearMisses: string[][] = [];
  for (let block = 0; block * PLANT_BLOCK < contacts; block++) {
    const start = plantStart(block, isHard);
    if (start + PLANT_SIZE > contacts) break;
    for (const [level, roles] of Object.entries(GROUP_ROLES) as [PlantedGroup['level'], readonly number[]][]) {
      groups.push({ level, contactIds: roles.map((r) => idOf(start + r)).sort() });
    }
    nearMisses.push([0, 4, 5, 6, 7, 8].map((r) => idOf(start + r)));
  }
  return { groups, nearMisses };
}
