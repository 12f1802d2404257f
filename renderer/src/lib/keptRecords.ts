/**
 * Records kept as invalid (they do not match service-api.md §2) open in the details like any other:
 * the detail components read a typed record, and for a kept one these functions build it from
 * whatever fields it has — text fields that are missing or of another type read as empty, lists as
 * empty, objects as empty — so the panel shows what there is, beside the reason it was kept.
 */
import type { ContactDetail, OrderDetail } from '../../../shared/contract.ts';
import type { Campaign, Contact, ContactLabel, ContactSnapshot, Order, OrderContact, Product, Template } from '../../../shared/serviceRecords.ts';

type Fields = { [key: string]: unknown };

const fields = (v: unknown): Fields => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Fields) : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '');
const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : text(v));
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const bool = (v: unknown): boolean => v === true;

/** The detail's contact as §2.2 types it; a kept one with its missing fields empty. */
export function contactOf(detail: ContactDetail): Contact {
  if (detail.invalidReason === null) return detail.contact;
  const c = fields(detail.contact);
  return {
    ...c,
    id: text(c.id),
    firstName: text(c.firstName),
    lastName: text(c.lastName),
    fullName: text(c.fullName),
    companyName: text(c.companyName),
    address1: text(c.address1),
    address2: text(c.address2),
    city: text(c.city),
    state: text(c.state),
    zip: text(c.zip),
    phoneNo: text(c.phoneNo),
    extension: text(c.extension),
    websiteUrl: text(c.websiteUrl),
    orgId: text(c.orgId),
    email: text(c.email),
    isVerified: typeof c.isVerified === 'boolean' ? c.isVerified : null,
    isLiveMode: bool(c.isLiveMode),
    ContactLabels: list(c.ContactLabels).map((l): ContactLabel => ({ ...fields(l), id: text(fields(l).id), title: text(fields(l).title) })),
    createdAt: text(c.createdAt),
  };
}

function snapshotOf(v: unknown): ContactSnapshot {
  const s = fields(v);
  const keys = ['id', 'zip', 'city', 'email', 'phoneNo', 'address1', 'address2', 'fullName', 'lastName', 'firstName', 'websiteUrl', 'companyName'] as const;
  return { ...s, ...Object.fromEntries(keys.map((k) => [k, text(s[k])])) } as ContactSnapshot;
}

/** The detail's order as §2.3 types it; a kept one with its missing fields empty. */
export function orderOf(detail: OrderDetail): Order {
  if (detail.invalidReason === null) return detail.order;
  const o = fields(detail.order);
  const campaign = fields(o.campaign);
  const product = fields(o.product);
  const template = fields(o.template);
  const creator = fields(template.creator);
  return {
    ...o,
    id: text(o.id),
    orgId: text(o.orgId),
    fileUrl: textOrNull(o.fileUrl),
    mergeVariables: list(o.mergeVariables),
    status: typeof o.status === 'number' && Number.isInteger(o.status) ? o.status : 0,
    meta: fields(o.meta),
    isLiveMode: bool(o.isLiveMode),
    campaign: { ...campaign, id: text(campaign.id), name: text(campaign.name), description: text(campaign.description), scheduleType: text(campaign.scheduleType), useType: textOrNull(campaign.useType), deliveryDate: textOrNull(campaign.deliveryDate), campaignType: text(campaign.campaignType) } satisfies Campaign,
    product: {
      ...product,
      id: text(product.id),
      paperType: text(product.paperType),
      paperSize: text(product.paperSize),
      deliveryType: text(product.deliveryType),
      productType: text(product.productType),
      envelopeType: text(product.envelopeType),
      postageType: text(product.postageType),
      name: text(product.name),
      meta: product.meta === null || product.meta === undefined ? null : fields(product.meta),
    } satisfies Product,
    contacts: list(o.contacts).map((r): OrderContact => {
      const e = fields(r);
      return { ...e, id: text(e.id), orderId: text(e.orderId), trackingCode: e.trackingCode ?? null, contact: snapshotOf(e.contact), isDelivered: bool(e.isDelivered), status: e.status ?? null, meta: fields(e.meta) };
    }),
    template: { ...template, id: text(template.id), title: text(template.title), templateUrl: text(template.templateUrl), templateType: text(template.templateType), thumbnailUrl: text(template.thumbnailUrl), creator: { ...creator, id: text(creator.id), fullName: text(creator.fullName) } } satisfies Template,
  };
}

/**
 * A field of a kept record that is not of its §2 type (`isLiveMode: "yes"`), as the JSON it was
 * sent as, so the panel shows what the service said instead of the empty value it reads as; null
 * for a valid record, or when the field has its type.
 * @param type the field's §2 type: `typeof` of a valid value; `null` also allowed when `nullable`
 */
export function sentAsOtherType(detail: ContactDetail | OrderDetail, key: string, type: 'boolean' | 'string' | 'number', nullable = false): string | null {
  if (detail.invalidReason === null) return null;
  const record = 'contact' in detail ? detail.contact : detail.order;
  const value = fields(record)[key];
  if (typeof value === type || (nullable && value === null)) return null;
  return value === undefined ? 'missing' : JSON.stringify(value);
}
