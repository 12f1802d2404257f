/**
 * Row generation of the sample dataset (dataset.ts): contact and order `seq` from `hash(seed, seq)`
 * alone, so any row costs the same at any scale. Identifiers follow the sequence: contact id =
 * 10,000,001 + seq, order id = 50,000,001 + seq. Rows carry the §2 fields (and contacts a `meta`
 * where set); what only the service's filters see is hidden state (hidden.ts), never in a row.
 * Times are relative to the dataset's day `asOf` (timeline.ts): equal seed, row and day give equal rows.
 */
import type { Contact, ContactSnapshot, Order, OrderContact } from '../../../shared/serviceRecords.ts';
import { plantedFields, plantedRole } from './duplicates.ts';
import { samplePreviewPath } from './previews.ts';
import { hash32, Rng } from './random.ts';
import { contactCreatedMs, defaultAsOfMs, orderTimeline, SAMPLE_STATUS_CODES } from './timeline.ts';
import {
  ACCOUNT_IDS,
  ADDRESS2,
  CAMPAIGN_ADJECTIVES,
  CAMPAIGN_THEMES,
  CAMPAIGN_TYPES,
  CITIES,
  COMPANY_KINDS,
  COMPANY_STEMS,
  COMPANY_SUFFIXES,
  CREATORS,
  FIRST_NAMES,
  FORMULA_VALUES,
  HARD_NAMES,
  LABELS,
  LAST_NAMES,
  PRODUCTS,
  STREET_NAMES,
  STREET_SUFFIXES,
  TEMPLATE_KINDS,
  TEMPLATE_WORDS,
  USE_TYPES,
} from './words.ts';

/** First contact id; contact id = CONTACT_ID_BASE + seq. */
export const CONTACT_ID_BASE = 10_000_001;
/** First order id; order id = ORDER_ID_BASE + seq. */
export const ORDER_ID_BASE = 50_000_001;
/** Recipient entry ids: RECIPIENT_ID_BASE + orderSeq * 1000 + index (at most 400 recipients). */
const RECIPIENT_ID_BASE = 1_000_000_000;
const ORG_ID = '4207';

/** A generated contact: §2.2, plus `meta` (`{ account_id }`) on about a third of them. */
export type SampleContact = Contact & { meta?: { account_id: string } };

/** A generated order: §2.3. */
export type SampleOrder = Order;
/** The default origin of the orders' `template.thumbnailUrl` (dataset.ts `previewOrigin`): a host that does not exist. */
export const DEFAULT_PREVIEW_ORIGIN = 'https://templates.sample.letterdesk.example';


/** Hard-case kinds, applied to every 13th contact (seq % 13 === 3): about 7.7 % of the rows. */
const HARD_KINDS = ['nonAscii', 'quotes', 'lineBreaks', 'formula', 'long', 'nonAsciiFormula'] as const;
type HardKind = (typeof HARD_KINDS)[number];

function hardKindOf(seq: number): HardKind | null {
  return seq % 13 === 3 ? (HARD_KINDS[Math.floor(seq / 13) % HARD_KINDS.length] as HardKind) : null;
}

/** Whether contact `seq` is a hard case (duplicates.ts plants no duplicate there). */
export function isHardContact(seq: number): boolean {
  return hardKindOf(seq) !== null;
}

/** Memo of folded words; bounded by the word lists (names and company words only). */
const folded = new Map<string, string>();

function asciiFold(text: string): string {
  let out = folded.get(text);
  if (out === undefined) {
    out = text
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^A-Za-z0-9.]/g, '')
      .toLowerCase();
    if (folded.size < 10_000) folded.set(text, out);
  }
  return out;
}

/**
 * The `meta.account_id` of contact/order `seq`, from its own hash so that filtering by account
 * (what a sync scoped to an account does) needs no row generation. About 36 % of contacts and 40 %
 * of orders carry one.
 */
export function accountIdOf(seed: number, resource: 'contacts' | 'orders', seq: number): string | null {
  const roll = hash32(seed ^ (resource === 'contacts' ? 0x4ccf1d3 : 0x2a8b5e71), seq) / 4294967296;
  if (roll >= (resource === 'contacts' ? 0.36 : 0.4)) return null;
  return ACCOUNT_IDS[Math.floor(roll * 100) % ACCOUNT_IDS.length] as string;
}

/**
 * Generates contact `seq` (before any overlay patch).
 * @param seed dataset seed
 * @param seq sequence number (0 = oldest)
 * @param base number of base contacts (spreads `createdAt` over the 7 years before `asOf`)
 * @param asOf the dataset's day, epoch ms (timeline.ts `asOfMs`) @default the start of today, UTC
 */
export function generateContact(seed: number, seq: number, base: number, asOf: number = defaultAsOfMs()): SampleContact {
  const r = new Rng(hash32(seed, seq * 2 + 1));
  const hard = hardKindOf(seq);
  const [city, state, zip3, area] = r.pick(CITIES);
  let firstName: string = r.pick(FIRST_NAMES);
  let lastName: string = r.pick(LAST_NAMES);
  if (hard === 'nonAscii' || hard === 'nonAsciiFormula') [firstName, lastName] = r.pick(HARD_NAMES);
  const stem = r.pick(COMPANY_STEMS);
  const suffix = r.pick(COMPANY_SUFFIXES);
  let companyName = r.chance(0.15) ? '' : `${stem} ${r.pick(COMPANY_KINDS)}${suffix ? ` ${suffix}` : ''}`;
  let address1 = `${r.range(1, 9899)} ${r.pick(STREET_NAMES)} ${r.pick(STREET_SUFFIXES)}`;
  let address2 = r.chance(0.3) ? r.pick(ADDRESS2) : '';
  const zip = `${zip3}${r.digits(2)}`;
  let phoneNo = r.chance(0.7) ? `(${area}) ${r.range(200, 989)}-${r.digits(4)}` : `${area}-${r.range(200, 989)}-${r.digits(4)}`;
  const extension = r.chance(0.25) ? String(r.range(10, 9999)) : '';
  const domain = companyName ? `${asciiFold(stem)}${asciiFold(companyName.split(' ')[1] ?? 'mail')}.com` : r.pick(['gmail.com', 'yahoo.com', 'outlook.com', 'icloud.com']);
  let websiteUrl = companyName && r.chance(0.7) ? `https://www.${domain}` : '';
  const email = `${asciiFold(firstName) || 'contact'}.${asciiFold(lastName) || String(seq)}${r.chance(0.2) ? r.range(1, 99) : ''}@${domain}`;
  const verifiedRoll = r.next();
  const isVerified = verifiedRoll < 0.55 ? true : verifiedRoll < 0.8 ? false : null;
  const labelCount = r.chance(0.3) ? 0 : r.range(1, 3);
  const ContactLabels: { id: string; title: string }[] = [];
  for (let i = 0; i < labelCount; i++) {
    const label = r.pick(LABELS);
    if (!ContactLabels.some((l) => l.id === label.id)) ContactLabels.push({ id: label.id, title: label.title });
  }
  const createdMs = contactCreatedMs(seq, base, r.next(), asOf);
  // Draws that once made fields now kept as hidden state (hidden.ts): still drawn, so that every
  // field after them stays as it was for the same seed.
  if (r.chance(0.6)) {
    r.next();
    r.next();
  }
  const accountId = accountIdOf(seed, 'contacts', seq);
  const isLiveMode = r.chance(0.9);
  r.next();

  switch (hard) {
    case 'quotes':
      lastName = `O'${lastName}`;
      companyName = `${stem}, "The ${r.pick(COMPANY_KINDS)} People", LLC`;
      address1 = `${r.range(1, 999)} "Old" ${r.pick(STREET_NAMES)} Rd, Rear`;
      break;
    case 'lineBreaks':
      address2 = `${r.pick(ADDRESS2)}\r\nAttn: Receiving`;
      companyName = `${stem}\nLogistics`;
      break;
    case 'formula':
    case 'nonAsciiFormula':
      companyName = r.pick(FORMULA_VALUES);
      address2 = '-Rear entrance-';
      phoneNo = `+1 ${area} ${r.range(200, 989)} ${r.digits(4)}`;
      websiteUrl = '@example.com';
      break;
    case 'long':
      companyName = `${stem} ${'International Consolidated Holdings '.repeat(60)}`.trim();
      address2 = `Building ${'Annex, '.repeat(400)}end`;
      break;
    default:
      break;
  }

  const contact: SampleContact = {
    id: String(CONTACT_ID_BASE + seq),
    firstName,
    lastName,
    fullName: `${firstName} ${lastName}`,
    companyName,
    address1,
    address2,
    city,
    state,
    zip,
    phoneNo,
    extension,
    websiteUrl,
    orgId: ORG_ID,
    email,
    isVerified,
    isLiveMode,
    ContactLabels,
    createdAt: new Date(createdMs).toISOString(),
  };
  if (accountId !== null) contact.meta = { account_id: accountId };
  const planted = plantedRole(seq, isHardContact);
  if (planted !== null) {
    const fields = plantedFields(planted.role, generateContact(seed, planted.host, base, asOf), contact);
    Object.assign(contact, fields, { fullName: `${fields.firstName} ${fields.lastName}` });
  }
  return contact;
}

function snapshotOf(c: SampleContact): ContactSnapshot {
  return {
    id: c.id,
    zip: c.zip,
    city: c.city,
    email: c.email,
    phoneNo: c.phoneNo,
    address1: c.address1,
    address2: c.address2,
    fullName: c.fullName,
    lastName: c.lastName,
    firstName: c.firstName,
    websiteUrl: c.websiteUrl,
    companyName: c.companyName,
  };
}

function recipientCount(r: Rng): number {
  const roll = r.next();
  if (roll < 0.795) return 1;
  if (roll < 0.945) return r.range(2, 10);
  if (roll < 0.995) return r.range(11, 40);
  return r.range(41, 300);
}

/**
 * Generates order `seq` (before any overlay patch). Recipients are snapshots of generated contacts.
 * @param seed dataset seed
 * @param seq sequence number (0 = oldest)
 * @param base number of base orders (spreads the creation times over the 12 months before `asOf`)
 * @param contactsBase number of base contacts (recipients are drawn from them)
 * @param previewOrigin origin of `template.thumbnailUrl` (dataset.ts `SampleDatasetOptions.previewOrigin`)
 * @param asOf the dataset's day, epoch ms (timeline.ts `asOfMs`); the `status` code is where it
 *   stands in the order's timeline @default the start of today, UTC
 */
export function generateOrder(seed: number, seq: number, base: number, contactsBase: number, previewOrigin: string = DEFAULT_PREVIEW_ORIGIN, asOf: number = defaultAsOfMs()): SampleOrder {
  const timeline = orderTimeline(seed, seq, base, asOf);
  const { order: r, campaign: cr } = timeline.rngs;
  const id = String(ORDER_ID_BASE + seq);
  const status = timeline.code;
  const inProcess = status === SAMPLE_STATUS_CODES.PROCESSING || status === SAMPLE_STATUS_CODES.MAILED;

  const campaignIdx = timeline.campaignIndex;
  const year = new Date(timeline.createdMs).getUTCFullYear();
  const campaign = {
    id: String(800_001 + campaignIdx),
    name: `${cr.pick(CAMPAIGN_ADJECTIVES)} ${cr.pick(CAMPAIGN_THEMES)} ${year}`,
    description: cr.chance(0.3) ? '' : `Mailing to ${cr.pick(['customers', 'donors', 'members', 'prospects', 'tenants'])} in ${cr.pick(CITIES)[1]}`,
    scheduleType: timeline.scheduled ? 'scheduled' : 'immediate',
    useType: cr.chance(0.6) ? null : cr.pick(USE_TYPES),
    deliveryDate: timeline.deliveryDate,
    campaignType: cr.chance(0.8) ? 'single' : cr.pick(CAMPAIGN_TYPES),
  };
  const productSrc = r.pick(PRODUCTS);
  const product = { ...productSrc, meta: productSrc.meta === null ? null : { ...productSrc.meta } };
  const templateIdx = r.int(40);
  const tr = new Rng(hash32(seed ^ 0x165667b1, templateIdx));
  const creator = tr.pick(CREATORS);
  const template = {
    id: String(6001 + templateIdx),
    title: `${tr.pick(TEMPLATE_WORDS)} ${tr.pick(TEMPLATE_KINDS)} ${templateIdx + 1}`,
    templateUrl: `https://templates.sample.letterdesk.example/t/${6001 + templateIdx}.json`,
    templateType: 'json',
    thumbnailUrl: `${previewOrigin}${samplePreviewPath(String(6001 + templateIdx))}`,
    creator: { id: creator.id, fullName: creator.fullName },
  };
  const n = contactsBase > 0 ? recipientCount(r) : 0;
  const contacts: OrderContact[] = [];
  for (let k = 0; k < n; k++) {
    const contactSeq = r.int(contactsBase);
    contacts.push({
      id: String(RECIPIENT_ID_BASE + seq * 1000 + k),
      orderId: id,
      trackingCode: inProcess && r.chance(0.5) ? `9400 1118 9922 ${r.digits(4)} ${r.digits(4)} ${r.digits(2)}` : null,
      contact: snapshotOf(generateContact(seed, contactSeq, contactsBase, asOf)),
      isDelivered: timeline.settled ? r.chance(0.93) : false,
      status: null,
      meta: {},
    });
  }
  const accountId = accountIdOf(seed, 'orders', seq);
  return {
    id,
    orgId: ORG_ID,
    fileUrl: r.chance(0.1) ? `https://files.sample.letterdesk.example/orders/${id}.pdf` : null,
    mergeVariables: [],
    status,
    meta: accountId === null ? {} : { account_id: accountId },
    isLiveMode: r.chance(0.9),
    campaign,
    product,
    contacts,
    template,
  };
}

/** The `propertyAddresses` of a contact (`withPropertyAddresses=true`, §4.1): none for most, one or two for some. */
export function propertyAddressesOf(contactId: string): { address1: string; city: string; state: string; zip: string }[] {
  const r = new Rng(hash32(0x7e57ab1e, Number(contactId)));
  const n = r.chance(0.6) ? 0 : r.range(1, 2);
  const out: { address1: string; city: string; state: string; zip: string }[] = [];
  for (let i = 0; i < n; i++) {
    const [city, state, zip3] = r.pick(CITIES);
    out.push({ address1: `${r.range(1, 9899)} ${r.pick(STREET_NAMES)} ${r.pick(STREET_SUFFIXES)}`, city, state, zip: `${zip3}${r.digits(2)}` });
  }
  return out;
}
