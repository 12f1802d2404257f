/**
 * The service's own vocabularies, as its published SDK names them (service-published-facts.md),
 * each value with the words the app shows for it. `service-api.md` §3 and §4.2 list none of the
 * order ones and only Failed and Verified for `addressStatus`; the service's documentation adds
 * Corrected. The order vocabularies are known values, not closed sets: a query may carry any other
 * text for `orderStatus`, `paymentStatus` and `sources` (serviceParams.ts marks them open).
 *
 * Pure module: no imports.
 */

/** §4.2 `orderStatus` values the service's SDK names, in its order. */
export const ORDER_STATUSES = ['ON_HOLD', 'SCHEDULED', 'PROCESSING', 'MAILED', 'CANCELED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** §4.2 `paymentStatus` values the service's SDK names, in its order. */
export const PAYMENT_STATUSES = ['PENDING', 'PAID', 'PAYMENT_FAILED', 'NOT_CHARGED'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** §4.2 `sources` values the service's SDK names, in its order: the service's own client, then its integrations. */
export const ORDER_SOURCES = ['OLC_CLIENT', 'ZAPIER', 'HUBSPOT', 'SALESFORCE', 'PODIO', 'GOHIGHLEVEL'] as const;
export type OrderSource = (typeof ORDER_SOURCES)[number];

/** §4.1 `addressStatus` values: §3's Failed and Verified, and Corrected from the service's documentation. */
export const ADDRESS_STATUSES = ['Failed', 'Verified', 'Corrected'] as const;
export type AddressStatus = (typeof ADDRESS_STATUSES)[number];

/** Display name of each order status. */
export const ORDER_STATUS_NAMES: Readonly<Record<OrderStatus, string>> = Object.freeze({
  ON_HOLD: 'On hold',
  SCHEDULED: 'Scheduled',
  PROCESSING: 'Processing',
  MAILED: 'Mailed',
  CANCELED: 'Canceled',
});

/** Display name of each payment status. */
export const PAYMENT_STATUS_NAMES: Readonly<Record<PaymentStatus, string>> = Object.freeze({
  PENDING: 'Pending',
  PAID: 'Paid',
  PAYMENT_FAILED: 'Payment failed',
  NOT_CHARGED: 'Not charged',
});

/** Display name of each source (OLC_CLIENT is the service's own client, Open Letter Connect). */
export const ORDER_SOURCE_NAMES: Readonly<Record<OrderSource, string>> = Object.freeze({
  OLC_CLIENT: 'Open Letter Connect',
  ZAPIER: 'Zapier',
  HUBSPOT: 'HubSpot',
  SALESFORCE: 'Salesforce',
  PODIO: 'Podio',
  GOHIGHLEVEL: 'GoHighLevel',
});

/** Display name of each address status (the service's values are already words). */
export const ADDRESS_STATUS_NAMES: Readonly<Record<AddressStatus, string>> = Object.freeze({
  Failed: 'Failed',
  Verified: 'Verified',
  Corrected: 'Corrected',
});

/** A known list of values with the display name of each. */
export interface Vocabulary<V extends string = string> {
  /** The values as the service writes them, in the SDK's order. */
  readonly values: readonly V[];
  /** Value → display name. */
  readonly names: Readonly<Record<V, string>>;
}

/** The vocabulary of each service parameter that has one, by the parameter's spec name. */
export const VOCABULARIES: Readonly<{ orderStatus: Vocabulary<OrderStatus>; paymentStatus: Vocabulary<PaymentStatus>; sources: Vocabulary<OrderSource>; addressStatus: Vocabulary<AddressStatus> }> =
  Object.freeze({
    orderStatus: Object.freeze({ values: ORDER_STATUSES, names: ORDER_STATUS_NAMES }),
    paymentStatus: Object.freeze({ values: PAYMENT_STATUSES, names: PAYMENT_STATUS_NAMES }),
    sources: Object.freeze({ values: ORDER_SOURCES, names: ORDER_SOURCE_NAMES }),
    addressStatus: Object.freeze({ values: ADDRESS_STATUSES, names: ADDRESS_STATUS_NAMES }),
  });

/**
 * The display name of `value` in `vocabulary`: its name when the value is known (compared as the
 * service writes it), else the value itself, since a person may have typed any other value.
 * @example vocabularyName(VOCABULARIES.paymentStatus, 'PAYMENT_FAILED') // 'Payment failed'
 */
export function vocabularyName<V extends string>(vocabulary: Vocabulary<V>, value: string): string {
  return Object.prototype.hasOwnProperty.call(vocabulary.names, value) ? vocabulary.names[value as V] : value;
}
