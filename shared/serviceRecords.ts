/**
 * Runtime schemas and types for the records the service sends (`service-api.md` §2).
 *
 * Every object schema is *loose*: fields the spec does not name are kept as they arrive, so the raw
 * record that lands in the cache loses nothing (DESIGN.md: "unknown fields must survive").
 * Fields the spec shows as null (or "null observed") are nullable; everything else is typed exactly
 * as the spec gives it, so a record that deviates is *reported* by the API client (with its id and
 * the reason) instead of being coerced silently.
 *
 * Pure module: imports nothing but zod, so it runs in main, in workers, in the CLI and in the page.
 */
import { z } from 'zod';

/** §2: "All identifiers are strings made of digits." */
export const idString = z.string().regex(/^\d+$/, 'an identifier is a string of digits (§2)');

/** §2: "Timestamps are ISO 8601 strings in UTC with milliseconds." */
export const timestampString = z.iso.datetime({ precision: 3, offset: false });

/** §2.2 ContactLabel. */
export const contactLabelSchema = z.looseObject({
  id: idString,
  title: z.string(),
});
export type ContactLabel = z.infer<typeof contactLabelSchema>;

/** §2.2 Contact (element of `data.rows` of `GET /contacts`). */
export const contactSchema = z.looseObject({
  id: idString,
  firstName: z.string(),
  lastName: z.string(),
  fullName: z.string(),
  companyName: z.string(),
  address1: z.string(),
  address2: z.string(),
  city: z.string(),
  state: z.string(),
  zip: z.string(),
  phoneNo: z.string(),
  extension: z.string(),
  websiteUrl: z.string(),
  orgId: idString,
  email: z.string(),
  isVerified: z.boolean().nullable(),
  isLiveMode: z.boolean(),
  ContactLabels: z.array(contactLabelSchema),
  createdAt: timestampString,
});
export type Contact = z.infer<typeof contactSchema>;

/** §2.3 Campaign. */
export const campaignSchema = z.looseObject({
  id: idString,
  name: z.string(),
  description: z.string(),
  scheduleType: z.string(),
  useType: z.string().nullable(),
  /** §2.3: "format of a set value is given only as a date". */
  deliveryDate: z.string().nullable(),
  campaignType: z.string(),
});
export type Campaign = z.infer<typeof campaignSchema>;

/** §2.3 Product. */
export const productSchema = z.looseObject({
  id: idString,
  paperType: z.string(),
  paperSize: z.string(),
  deliveryType: z.string(),
  productType: z.string(),
  envelopeType: z.string(),
  postageType: z.string(),
  name: z.string(),
  meta: z.record(z.string(), z.unknown()).nullable(),
});
export type Product = z.infer<typeof productSchema>;

/** §2.3 OrderContact.contact: the snapshot of the recipient at order time. */
export const contactSnapshotSchema = z.looseObject({
  id: idString,
  zip: z.string(),
  city: z.string(),
  email: z.string(),
  phoneNo: z.string(),
  address1: z.string(),
  address2: z.string(),
  fullName: z.string(),
  lastName: z.string(),
  firstName: z.string(),
  websiteUrl: z.string(),
  companyName: z.string(),
});
export type ContactSnapshot = z.infer<typeof contactSnapshotSchema>;

/**
 * §2.3 OrderContact: one recipient entry of an order. The spec leaves the type of `status` and of a
 * set `trackingCode` open ("not shown"), so both accept any JSON value; the cache stores them as text.
 */
export const orderContactSchema = z.looseObject({
  id: idString,
  orderId: idString,
  trackingCode: z.unknown().nullable(),
  contact: contactSnapshotSchema,
  isDelivered: z.boolean(),
  status: z.unknown().nullable(),
  meta: z.record(z.string(), z.unknown()),
});
export type OrderContact = z.infer<typeof orderContactSchema>;

/** §2.3 Template. */
export const templateSchema = z.looseObject({
  id: idString,
  title: z.string(),
  templateUrl: z.string(),
  templateType: z.string(),
  thumbnailUrl: z.string(),
  creator: z.looseObject({ id: idString, fullName: z.string() }),
});
export type Template = z.infer<typeof templateSchema>;

/** §2.3 Order (element of `data.rows` of `GET /orders/`). */
export const orderSchema = z.looseObject({
  id: idString,
  orgId: idString,
  fileUrl: z.string().nullable(),
  /** §2.3: element shape "not shown"; kept as raw JSON. */
  mergeVariables: z.array(z.unknown()),
  status: z.number().int(),
  meta: z.record(z.string(), z.unknown()),
  isLiveMode: z.boolean(),
  campaign: campaignSchema,
  product: productSchema,
  contacts: z.array(orderContactSchema),
  template: templateSchema,
});
export type Order = z.infer<typeof orderSchema>;

/**
 * §2.1 Response envelope, with `rows` left unparsed: the client validates each row on its own so one
 * bad record is reported rather than failing the page.
 */
export const envelopeSchema = z.looseObject({
  message: z.string(),
  data: z.looseObject({
    count: z.number().int().nonnegative(),
    rows: z.array(z.unknown()),
  }),
});
export type Envelope = z.infer<typeof envelopeSchema>;

/** The word for success in `message` (§2.1: "it is the word for success on a successful call"). */
export const SUCCESS_MESSAGE = 'success';

/** The two resources Letterdesk mirrors. */
export const RESOURCES = ['contacts', 'orders'] as const;
export type Resource = (typeof RESOURCES)[number];
