/**
 * Building hostile service responses as JSON *text* for test/integration/reliabilityHostile.test.ts:
 * valid records from the sample generator, then fields replaced by raw JSON text (so keys such as
 * `__proto__` arrive exactly as a service would send them, which no object literal can express).
 */
import { createSampleDataset } from '../../electron/main/sampleApi/dataset.ts';

export interface HostileDataset {
  /** One JSON text per contact, valid per §2.2. */
  contacts: string[];
  /** One JSON text per order, valid per §2.3. */
  orders: string[];
  contactIds: string[];
  orderIds: string[];
}

/** `contacts` valid contacts and `orders` valid orders as JSON texts (deterministic). */
export function createDataset(contacts: number, orders: number): HostileDataset {
  const d = createSampleDataset({ contacts, orders, seed: 99 });
  const c = [...d.contacts()];
  const o = [...d.orders()];
  return { contacts: c.map((r) => JSON.stringify(r)), orders: o.map((r) => JSON.stringify(r)), contactIds: c.map((r) => r.id), orderIds: o.map((r) => r.id) };
}

/**
 * Replaces (or adds, first in the object) top-level fields of a JSON object text with raw JSON
 * texts. `raw` may be anything, including text that is not valid on its own in an object literal
 * context such as a `__proto__` key.
 * @param text a JSON object text
 * @param edits [key, raw JSON value text] pairs; a key not in the object is added in front
 */
export function patchText(text: string, edits: [string, string | ((current: unknown) => string)][]): string {
  const obj = JSON.parse(text) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const replacements: [string, string][] = [];
  edits.forEach(([key, raw], i) => {
    if (!Object.prototype.hasOwnProperty.call(obj, key)) {
      const value = typeof raw === 'function' ? raw(undefined) : raw;
      out[`__K${i}__`] = `__V${i}__`;
      replacements.push([`"__K${i}__":"__V${i}__"`, `${JSON.stringify(key)}:${value}`]);
    }
  });
  for (const [key, value] of Object.entries(obj)) {
    const index = edits.findIndex(([k]) => k === key);
    if (index < 0) {
      out[key] = value;
      continue;
    }
    const raw = edits[index]![1];
    out[`__K${index}__`] = `__V${index}__`;
    replacements.push([`"__K${index}__":"__V${index}__"`, `${JSON.stringify(key)}:${typeof raw === 'function' ? raw(value) : raw}`]);
  }
  let result = JSON.stringify(out);
  for (const [placeholder, replacement] of replacements) result = result.replace(placeholder, () => replacement);
  return result;
}
