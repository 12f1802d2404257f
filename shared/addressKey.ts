/**
 * The normalised address of a contact and the keys of its duplicate groups (docs/cache-schema.md
 * `contact_duplicates`). Two contacts would receive the same letter twice when their keys at the
 * chosen level are equal:
 *
 *  - `address`: the same delivery line and ZIP;
 *  - `household` (the default): and the same last name;
 *  - `individual`: and the same first and last name.
 *
 * The delivery line is `address1` and `address2` joined, folded as USPS Publication 28 writes an
 * address: upper case, diacritics and punctuation removed, spaces collapsed; street suffixes
 * (Appendix C1), directionals (§233) and secondary unit designators (Appendix C2) abbreviated.
 * A unit designator followed by its number becomes `#` and the number ("Apt 4", "Suite 4",
 * "# 4", "Apt #4" are all `# 4`): Publication 28 lets `#` stand for any designator, so the
 * designator itself cannot tell two units apart and only the number is kept. Designators that take
 * no number (Rear, Front, Basement …) stay as words. The ZIP is its first five digits; without one,
 * the city and state take its place.
 *
 * Pure (no I/O): the sync's build and the tests run the same function.
 */

/** How alike two contacts must be to count as one recipient. */
export type DuplicateLevel = 'address' | 'household' | 'individual';

/** The levels, broadest first. */
export const DUPLICATE_LEVELS: readonly DuplicateLevel[] = ['address', 'household', 'individual'];

/** The level a page, a filter or the CLI uses when none is chosen. */
export const DEFAULT_DUPLICATE_LEVEL: DuplicateLevel = 'household';

/** Appendix C1: every common spelling of a street suffix to its standard abbreviation. */
const SUFFIX_SPELLINGS: Record<string, readonly string[]> = {
  ALY: ['ALLEE', 'ALLEY', 'ALLY', 'ALY'], ANX: ['ANEX', 'ANNEX', 'ANNX', 'ANX'], ARC: ['ARC', 'ARCADE'],
  AVE: ['AV', 'AVE', 'AVEN', 'AVENU', 'AVENUE', 'AVN', 'AVNUE'], BYU: ['BAYOO', 'BAYOU'], BCH: ['BCH', 'BEACH'],
  BND: ['BEND', 'BND'], BLF: ['BLF', 'BLUF', 'BLUFF'], BTM: ['BOT', 'BTM', 'BOTTM', 'BOTTOM'],
  BLVD: ['BLVD', 'BOUL', 'BOULEVARD', 'BOULV'], BR: ['BR', 'BRNCH', 'BRANCH'], BRG: ['BRDGE', 'BRG', 'BRIDGE'],
  BRK: ['BRK', 'BROOK'], BYP: ['BYP', 'BYPA', 'BYPAS', 'BYPASS', 'BYPS'], CP: ['CAMP', 'CP', 'CMP'],
  CYN: ['CANYN', 'CANYON', 'CNYN', 'CYN'], CPE: ['CAPE', 'CPE'], CSWY: ['CAUSEWAY', 'CAUSWA', 'CSWY'],
  CTR: ['CEN', 'CENT', 'CENTER', 'CENTR', 'CENTRE', 'CNTER', 'CNTR', 'CTR'], CIR: ['CIR', 'CIRC', 'CIRCL', 'CIRCLE', 'CRCL', 'CRCLE'],
  CLF: ['CLF', 'CLIFF'], CLFS: ['CLFS', 'CLIFFS'], CLB: ['CLB', 'CLUB'], CMN: ['COMMON', 'CMN'], COR: ['COR', 'CORNER'],
  CORS: ['CORNERS', 'CORS'], CRSE: ['COURSE', 'CRSE'], CT: ['COURT', 'CT'], CTS: ['COURTS', 'CTS'], CV: ['COVE', 'CV'],
  CRK: ['CREEK', 'CRK'], CRES: ['CRESCENT', 'CRES', 'CRSENT', 'CRSNT'], XING: ['CROSSING', 'CRSSNG', 'XING'],
  DL: ['DALE', 'DL'], DM: ['DAM', 'DM'], DV: ['DIV', 'DIVIDE', 'DV', 'DVD'], DR: ['DR', 'DRIV', 'DRIVE', 'DRV'],
  DRS: ['DRIVES', 'DRS'], EST: ['EST', 'ESTATE'], ESTS: ['ESTATES', 'ESTS'], EXPY: ['EXP', 'EXPR', 'EXPRESS', 'EXPRESSWAY', 'EXPW', 'EXPY'],
  EXT: ['EXT', 'EXTENSION', 'EXTN', 'EXTNSN'], FLS: ['FALLS', 'FLS'], FRY: ['FERRY', 'FRRY', 'FRY'], FLD: ['FIELD', 'FLD'],
  FLDS: ['FIELDS', 'FLDS'], FLT: ['FLAT', 'FLT'], FRD: ['FORD', 'FRD'], FRST: ['FOREST', 'FORESTS', 'FRST'],
  FRG: ['FORG', 'FORGE', 'FRG'], FRK: ['FORK', 'FRK'], FT: ['FORT', 'FRT', 'FT'], FWY: ['FREEWAY', 'FREEWY', 'FRWAY', 'FRWY', 'FWY'],
  GDN: ['GARDEN', 'GARDN', 'GRDEN', 'GRDN', 'GDN'], GDNS: ['GARDENS', 'GDNS', 'GRDNS'], GTWY: ['GATEWAY', 'GATEWY', 'GATWAY', 'GTWAY', 'GTWY'],
  GLN: ['GLEN', 'GLN'], GRN: ['GREEN', 'GRN'], GRV: ['GROV', 'GROVE', 'GRV'], HBR: ['HARB', 'HARBOR', 'HARBR', 'HBR', 'HRBOR'],
  HVN: ['HAVEN', 'HVN'], HTS: ['HT', 'HTS', 'HEIGHTS'], HWY: ['HIGHWAY', 'HIGHWY', 'HIWAY', 'HIWY', 'HWAY', 'HWY'],
  HL: ['HILL', 'HL'], HLS: ['HILLS', 'HLS'], HOLW: ['HLLW', 'HOLLOW', 'HOLLOWS', 'HOLW', 'HOLWS'], INLT: ['INLT', 'INLET'],
  IS: ['IS', 'ISLAND', 'ISLND'], ISS: ['ISLANDS', 'ISLNDS', 'ISS'], JCT: ['JCT', 'JCTION', 'JCTN', 'JUNCTION', 'JUNCTN', 'JUNCTON'],
  KY: ['KEY', 'KY'], KYS: ['KEYS', 'KYS'], KNL: ['KNL', 'KNOL', 'KNOLL'], LK: ['LK', 'LAKE'], LKS: ['LKS', 'LAKES'],
  LNDG: ['LANDING', 'LNDG', 'LNDNG'], LN: ['LANE', 'LN'], LGT: ['LGT', 'LIGHT'], LF: ['LOAF', 'LF'], LCK: ['LCK', 'LOCK'],
  LDG: ['LDG', 'LDGE', 'LODG', 'LODGE'], LOOP: ['LOOP', 'LOOPS'], MNR: ['MANOR', 'MNR'], MDWS: ['MEADOWS', 'MDW', 'MDWS', 'MEDOWS'],
  ML: ['MILL', 'ML'], MLS: ['MILLS', 'MLS'], MSN: ['MISSN', 'MSSN', 'MSN', 'MISSION'], MTWY: ['MOTORWAY', 'MTWY'],
  MT: ['MNT', 'MT', 'MOUNT'], MTN: ['MNTAIN', 'MNTN', 'MOUNTAIN', 'MOUNTIN', 'MTIN', 'MTN'], NCK: ['NCK', 'NECK'],
  ORCH: ['ORCH', 'ORCHARD', 'ORCHRD'], OVAL: ['OVAL', 'OVL'], OPAS: ['OVERPASS', 'OPAS'], PARK: ['PARK', 'PRK', 'PARKS'],
  PKWY: ['PARKWAY', 'PARKWY', 'PKWAY', 'PKWY', 'PKY', 'PARKWAYS', 'PKWYS'], PASS: ['PASS'], PSGE: ['PASSAGE', 'PSGE'],
  PATH: ['PATH', 'PATHS'], PIKE: ['PIKE', 'PIKES'], PNE: ['PINE', 'PNE'], PNES: ['PINES', 'PNES'], PL: ['PL', 'PLACE'],
  PLN: ['PLAIN', 'PLN'], PLNS: ['PLAINS', 'PLNS'], PLZ: ['PLAZA', 'PLZ', 'PLZA'], PT: ['POINT', 'PT'], PTS: ['POINTS', 'PTS'],
  PRT: ['PORT', 'PRT'], PR: ['PR', 'PRAIRIE', 'PRR'], RADL: ['RAD', 'RADIAL', 'RADIEL', 'RADL'], RNCH: ['RANCH', 'RANCHES', 'RNCH', 'RNCHS'],
  RPDS: ['RAPIDS', 'RPDS'], RST: ['REST', 'RST'], RDG: ['RDG', 'RDGE', 'RIDGE'], RIV: ['RIV', 'RIVER', 'RVR', 'RIVR'],
  RD: ['RD', 'ROAD'], RDS: ['ROADS', 'RDS'], RTE: ['ROUTE', 'RTE'], ROW: ['ROW'], RUN: ['RUN'], SHL: ['SHL', 'SHOAL'],
  SHR: ['SHOAR', 'SHORE', 'SHR'], SHRS: ['SHOARS', 'SHORES', 'SHRS'], SKWY: ['SKYWAY', 'SKWY'], SPG: ['SPG', 'SPNG', 'SPRING', 'SPRNG'],
  SPGS: ['SPGS', 'SPNGS', 'SPRINGS', 'SPRNGS'], SQ: ['SQ', 'SQR', 'SQRE', 'SQU', 'SQUARE'], STA: ['STA', 'STATION', 'STATN', 'STN'],
  STRA: ['STRA', 'STRAV', 'STRAVEN', 'STRAVENUE', 'STRAVN', 'STRVN', 'STRVNUE'], STRM: ['STREAM', 'STREME', 'STRM'],
  ST: ['STREET', 'STRT', 'ST', 'STR'], STS: ['STREETS', 'STS'], SMT: ['SMT', 'SUMIT', 'SUMITT', 'SUMMIT'],
  TER: ['TER', 'TERR', 'TERRACE'], TRWY: ['THROUGHWAY', 'TRWY'], TRCE: ['TRACE', 'TRACES', 'TRCE'], TRAK: ['TRACK', 'TRACKS', 'TRAK', 'TRK', 'TRKS'],
  TRFY: ['TRAFFICWAY', 'TRFY'], TRL: ['TRAIL', 'TRAILS', 'TRL', 'TRLS'], TUNL: ['TUNEL', 'TUNL', 'TUNLS', 'TUNNEL', 'TUNNELS', 'TUNNL'],
  TPKE: ['TRNPK', 'TURNPIKE', 'TURNPK', 'TPKE'], UPAS: ['UNDERPASS', 'UPAS'], UN: ['UN', 'UNION'], VLY: ['VALLEY', 'VALLY', 'VLLY', 'VLY'],
  VIA: ['VDCT', 'VIA', 'VIADCT', 'VIADUCT'], VW: ['VIEW', 'VW'], VLG: ['VILL', 'VILLAG', 'VILLAGE', 'VILLG', 'VILLIAGE', 'VLG'],
  VL: ['VILLE', 'VL'], VIS: ['VIS', 'VIST', 'VISTA', 'VST', 'VSTA'], WALK: ['WALK', 'WALKS'], WAY: ['WY', 'WAY'],
  WL: ['WELL', 'WL'], WLS: ['WELLS', 'WLS'],
};

/** §233 and Appendix B: directionals, spelled out or run together, to their abbreviation. */
const DIRECTIONALS: Record<string, string> = {
  NORTH: 'N', SOUTH: 'S', EAST: 'E', WEST: 'W', NORTHEAST: 'NE', NORTHWEST: 'NW', SOUTHEAST: 'SE', SOUTHWEST: 'SW',
};

/** Appendix C2: designators followed by a unit number (`#` included). */
const NUMBERED_DESIGNATORS = new Set([
  '#', 'APT', 'APARTMENT', 'BLDG', 'BUILDING', 'DEPT', 'DEPARTMENT', 'FL', 'FLOOR', 'HNGR', 'HANGAR', 'LOT', 'PIER',
  'RM', 'ROOM', 'SLIP', 'SPC', 'SPACE', 'STOP', 'STE', 'SUITE', 'TRLR', 'TRAILER', 'UNIT',
]);

/** Appendix C2: designators that take no number, to their abbreviation. */
const BARE_DESIGNATORS: Record<string, string> = {
  BASEMENT: 'BSMT', FRONT: 'FRNT', LOBBY: 'LBBY', LOWER: 'LOWR', OFFICE: 'OFC', PENTHOUSE: 'PH', UPPER: 'UPPR',
};

/** Appendix C1 spellings to their abbreviation. */
const SUFFIXES: ReadonlyMap<string, string> = new Map(
  Object.entries(SUFFIX_SPELLINGS).flatMap(([abbr, spellings]) => spellings.map((s) => [s, abbr] as [string, string])),
);

/** Bare designators, spelled out or abbreviated, to their abbreviation. */
const BARE: ReadonlyMap<string, string> = new Map([...Object.entries(BARE_DESIGNATORS), ...Object.values(BARE_DESIGNATORS).map((a) => [a, a] as [string, string]), ['REAR', 'REAR'], ['SIDE', 'SIDE']]);

/** Upper case, diacritics removed, `#` apart, punctuation within a word dropped, the rest as spaces. */
function fold(text: string): string[] {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/#/g, ' # ')
    .replace(/[.'’-]/g, '')
    .replace(/[^A-Z0-9#/ ]+/g, ' ')
    .split(' ')
    .filter((w) => w !== '');
}

/**
 * The delivery line as Publication 28 writes it (see the module comment).
 * @param address1 the contact's first address line ('' when none)
 * @param address2 its second line, joined after the first ('' when none)
 * @returns the words joined by single spaces; '' when there is no address
 */
export function normaliseDeliveryLine(address1: string, address2 = ''): string {
  const words = fold(`${address1} ${address2}`.replace(/\b(P O|POST OFFICE) BOX\b/gi, 'PO BOX'));
  // The street is the words before the first unit or PO box (never its first two words: "12 Front St").
  let unitAt = words.length;
  for (let i = 2; i < words.length; i++) {
    const word = words[i] as string;
    if ((NUMBERED_DESIGNATORS.has(word) && i + 1 < words.length) || BARE.has(word) || (word === 'PO' && words[i + 1] === 'BOX')) {
      unitAt = i;
      break;
    }
  }
  const street = words.slice(0, unitAt);
  // Directionals before the street name and after the suffix; the suffix is its last word.
  const direction = (i: number) => (street[i] !== undefined ? DIRECTIONALS[street[i] as string] : undefined);
  for (const i of [1, 2]) {
    const abbr = direction(i);
    if (abbr === undefined || i >= street.length - 1) break;
    street[i] = abbr;
  }
  let last = street.length - 1;
  const post = direction(last);
  if (post !== undefined && last > 1) street[last--] = post;
  const suffix = last > 0 ? SUFFIXES.get(street[last] as string) : undefined;
  if (suffix !== undefined) street[last] = suffix;
  const out = street;
  for (let i = unitAt; i < words.length; i++) {
    const word = words[i] as string;
    if (NUMBERED_DESIGNATORS.has(word)) {
      const next = words[i + 1] === '#' ? i + 2 : i + 1;
      const unit = words[next];
      if (unit !== undefined) {
        out.push('#', unit);
        i = next;
        continue;
      }
    }
    out.push(BARE.get(word) ?? word);
  }
  return out.join(' ');
}

/**
 * The first five digits of a ZIP or ZIP+4 ("43215-1234" → "43215").
 * @returns '' when fewer than five digits are given
 */
export function zip5(zip: string): string {
  const digits = zip.replace(/\D/g, '');
  return digits.length >= 5 ? digits.slice(0, 5) : '';
}

/** A name folded: upper case, diacritics and punctuation removed, spaces collapsed. */
export function normaliseName(name: string): string {
  return fold(name).filter((w) => w !== '#').join(' ');
}

/** The fields of a contact the keys are made of (its §2.2 names; absent fields are ''). */
export interface AddressedContact {
  firstName: string;
  lastName: string;
  address1: string;
  address2: string;
  city: string;
  state: string;
  zip: string;
}

/** The keys of one contact at every level. */
export type DuplicateKeys = Record<DuplicateLevel, string>;

/**
 * The keys of `contact` at each level: the normalised delivery line and ZIP (`LINE|ZIP`, or
 * `LINE|CITY STATE` without a ZIP), then `|LAST` (household), then `|FIRST` (individual).
 * @returns null when the contact has no address to match on (no line, or neither ZIP nor city);
 *   a name level whose names are empty falls back to the broader key, so two nameless contacts at
 *   one address stay a household
 */
export function duplicateKeys(contact: AddressedContact): DuplicateKeys | null {
  const line = normaliseDeliveryLine(contact.address1, contact.address2);
  if (line === '') return null;
  const zip = zip5(contact.zip);
  const place = zip !== '' ? zip : normaliseName(`${contact.city} ${contact.state}`);
  if (place === '') return null;
  const address = `${line}|${place}`;
  const last = normaliseName(contact.lastName);
  const full = normaliseName(`${contact.firstName} ${contact.lastName}`);
  const household = `${address}|${last}`;
  return { address, household, individual: full === last ? household : `${household}|${normaliseName(contact.firstName)}` };
}

/**
 * Whether `value` names a level.
 * @returns true for 'address', 'household' and 'individual'
 */
export function isDuplicateLevel(value: unknown): value is DuplicateLevel {
  return typeof value === 'string' && (DUPLICATE_LEVELS as readonly string[]).includes(value);
}
