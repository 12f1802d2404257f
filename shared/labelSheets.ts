/**
 * Mailing labels: the sheets Letterdesk prints on (Avery's US Letter and A4 layouts, and a custom
 * grid), where each label sits on its page, and the address block as USPS Publication 28 asks for
 * it (name, company, delivery line, second line, `CITY ST ZIP`). Pure: the page lays the labels out
 * from these numbers, and the tests check them against the sheets' published dimensions.
 */
import type { ContactQuery, OrderQuery } from './query.ts';
import { uspsStateCode } from './usStates.ts';

/** Page sizes, in millimetres. */
export const PAGE_SIZES = Object.freeze({
  letter: { name: 'US Letter', width: 215.9, height: 279.4 },
  a4: { name: 'A4', width: 210, height: 297 },
});
export type PageSize = keyof typeof PAGE_SIZES;

/** A sheet of labels: the page, the grid, and where its first label sits, all in millimetres. */
export interface LabelSheet {
  id: string;
  /** What the sheet is called: its box's number, labels a sheet and their size ("Avery 5160 / 8160 · 30, 2⅝ × 1 in"). */
  name: string;
  page: PageSize;
  columns: number;
  rows: number;
  /** One label's size. */
  labelWidth: number;
  labelHeight: number;
  /** From the page's top edge to the first row's top, and from its left edge to the first column's left. */
  top: number;
  left: number;
  /** From one label's left (top) edge to the next one's: the label's size plus the gap. */
  pitchX: number;
  pitchY: number;
}

const INCH = 25.4;

/** The sheets of the box, by id, as Avery publishes their templates. */
export const LABEL_SHEETS: readonly LabelSheet[] = Object.freeze([
  { id: 'avery-5160', name: 'Avery 5160 / 8160 · 30, 2⅝ × 1 in', page: 'letter', columns: 3, rows: 10, labelWidth: 2.625 * INCH, labelHeight: 1 * INCH, top: 0.5 * INCH, left: 0.1875 * INCH, pitchX: 2.75 * INCH, pitchY: 1 * INCH },
  { id: 'avery-5163', name: 'Avery 5163 · 10, 4 × 2 in', page: 'letter', columns: 2, rows: 5, labelWidth: 4 * INCH, labelHeight: 2 * INCH, top: 0.5 * INCH, left: 0.15625 * INCH, pitchX: 4.1875 * INCH, pitchY: 2 * INCH },
  { id: 'avery-5164', name: 'Avery 5164 · 6, 4 × 3⅓ in', page: 'letter', columns: 2, rows: 3, labelWidth: 4 * INCH, labelHeight: (10 / 3) * INCH, top: 0.5 * INCH, left: 0.15625 * INCH, pitchX: 4.1875 * INCH, pitchY: (10 / 3) * INCH },
  { id: 'avery-l7160', name: 'Avery L7160 · 21, A4, 63.5 × 38.1 mm', page: 'a4', columns: 3, rows: 7, labelWidth: 63.5, labelHeight: 38.1, top: 15.15, left: 7.21, pitchX: 66.04, pitchY: 38.1 },
  { id: 'avery-l7163', name: 'Avery L7163 · 14, A4, 99.1 × 38.1 mm', page: 'a4', columns: 2, rows: 7, labelWidth: 99.1, labelHeight: 38.1, top: 15.15, left: 4.65, pitchX: 101.6, pitchY: 38.1 },
].map((s) => Object.freeze(s as LabelSheet)));

/** The sheet a new person starts with. */
export const DEFAULT_SHEET_ID = 'avery-5160';

/** What a custom grid may be: whole labels on the page, each at least 10 mm. */
export function sheetProblem(sheet: LabelSheet): string | null {
  const page = PAGE_SIZES[sheet.page];
  if (!page) return 'Choose US Letter or A4.';
  if (!Number.isInteger(sheet.columns) || !Number.isInteger(sheet.rows) || sheet.columns < 1 || sheet.rows < 1 || sheet.columns > 10 || sheet.rows > 40) return 'A sheet has 1 to 10 columns and 1 to 40 rows of labels.';
  const values = [sheet.labelWidth, sheet.labelHeight, sheet.top, sheet.left, sheet.pitchX, sheet.pitchY];
  if (values.some((v) => !Number.isFinite(v) || v < 0)) return 'Sizes and margins are millimetres of 0 or more.';
  if (sheet.labelWidth < 10 || sheet.labelHeight < 10) return 'A label is at least 10 mm wide and 10 mm high.';
  if (sheet.pitchX < sheet.labelWidth || sheet.pitchY < sheet.labelHeight) return 'The step from one label to the next is at least the label’s size (the gap cannot be negative).';
  const right = sheet.left + (sheet.columns - 1) * sheet.pitchX + sheet.labelWidth;
  const bottom = sheet.top + (sheet.rows - 1) * sheet.pitchY + sheet.labelHeight;
  if (right > page.width + 0.01 || bottom > page.height + 0.01) return `The labels run off the ${page.name} page: make them smaller, fewer or the margins narrower.`;
  return null;
}

/** Labels on one sheet. */
export function labelsPerSheet(sheet: LabelSheet): number {
  return sheet.columns * sheet.rows;
}

/** Where one label sits: its page (0-based) and its top-left corner on that page, in millimetres. */
export interface LabelPlace {
  page: number;
  x: number;
  y: number;
}

/**
 * The place of the `index`-th label printed (0-based), row by row, left to right, on sheets whose
 * first `skip` labels are used already (a partly used first sheet: "start at label 4" is skip 3).
 */
export function labelPlace(sheet: LabelSheet, index: number, skip = 0): LabelPlace {
  const slot = index + skip;
  const perSheet = labelsPerSheet(sheet);
  const onSheet = slot % perSheet;
  const row = Math.floor(onSheet / sheet.columns);
  const column = onSheet % sheet.columns;
  return { page: Math.floor(slot / perSheet), x: sheet.left + column * sheet.pitchX, y: sheet.top + row * sheet.pitchY };
}

/** Pages that `count` labels fill, starting after `skip` used ones. */
export function pagesFor(sheet: LabelSheet, count: number, skip = 0): number {
  return count === 0 ? 0 : Math.ceil((count + skip) / labelsPerSheet(sheet));
}

/** An address as a label prints it (contact or order recipient). */
export interface LabelAddress {
  /** The contact's id, or the recipient's `orderId:id`. */
  id: string;
  fullName: string;
  companyName: string;
  address1: string;
  address2: string;
  city: string;
  /** As the records spell it ("Illinois"); the label prints its USPS code. */
  state: string;
  zip: string;
}

/**
 * The lines of an address block, as USPS Publication 28 asks: the name, the company, the second
 * address line above the delivery line when it is a unit that fits (USPS prints the unit on the
 * delivery line; a long second line goes above it), and `CITY ST ZIP` with the state as its USPS code
 * (a state that is not a US one is printed as it is). Blank lines are left out.
 * @param upperCase all capitals, as USPS prefers for machine reading
 */
export function addressLines(a: LabelAddress, upperCase = false): string[] {
  const clean = (s: string): string => s.replace(/\s+/g, ' ').trim();
  const name = clean(a.fullName);
  const company = clean(a.companyName);
  const line1 = clean(a.address1);
  const line2 = clean(a.address2);
  const state = uspsStateCode(a.state) ?? clean(a.state);
  const city = clean(a.city);
  const last = [city, state, clean(a.zip)].filter((p) => p !== '').join(' ');
  // A short unit ("Apt 4", "#12", "Suite 200") joins the delivery line; anything longer goes above it.
  const unit = line2 !== '' && line2.length <= 12 && line1.length + line2.length <= 40;
  const lines = [name, company !== name ? company : '', ...(unit ? [`${line1} ${line2}`] : [line2, line1]), last].map(clean).filter((l) => l !== '');
  return upperCase ? lines.map((l) => l.toUpperCase()) : lines;
}

/** Why an address cannot be printed, or null: a label needs a delivery line and a city with a state, or a ZIP code. */
export function addressProblem(a: LabelAddress): string | null {
  if (a.address1.trim() === '') return 'no street address';
  if (a.city.trim() === '' && a.zip.trim() === '') return 'no city or ZIP code';
  return null;
}

/** Most labels one request reads. */
export const MAX_LABELS = 100_000;

/** What a label request asks for: the contacts of a contact view, or the recipients of an order view. */
export type LabelRequest = { source: 'contacts'; query: ContactQuery } | { source: 'recipients'; query: OrderQuery };

/** An address left off the labels, and why ("no street address", "its contact is no longer cached, so its state is unknown"). */
export interface SkippedAddress {
  id: string;
  name: string;
  reason: string;
}

/** The addresses to print, in view order, and those left off. `more`: the view holds more than {@link MAX_LABELS}. */
export interface LabelAddresses {
  addresses: LabelAddress[];
  skipped: SkippedAddress[];
  more: boolean;
}
