/**
 * US states and territories by their USPS codes (USPS Publication 28, Appendix B). The service
 * sends a contact's `state` as a full name (§2.2); the overview and mailing labels use the code.
 */

/** Full name → USPS code, for the 50 states, the District of Columbia and the territories. */
export const USPS_STATE_CODES: Readonly<Record<string, string>> = Object.freeze({
  Alabama: 'AL', Alaska: 'AK', Arizona: 'AZ', Arkansas: 'AR', California: 'CA', Colorado: 'CO', Connecticut: 'CT',
  Delaware: 'DE', 'District of Columbia': 'DC', Florida: 'FL', Georgia: 'GA', Hawaii: 'HI', Idaho: 'ID', Illinois: 'IL',
  Indiana: 'IN', Iowa: 'IA', Kansas: 'KS', Kentucky: 'KY', Louisiana: 'LA', Maine: 'ME', Maryland: 'MD',
  Massachusetts: 'MA', Michigan: 'MI', Minnesota: 'MN', Mississippi: 'MS', Missouri: 'MO', Montana: 'MT',
  Nebraska: 'NE', Nevada: 'NV', 'New Hampshire': 'NH', 'New Jersey': 'NJ', 'New Mexico': 'NM', 'New York': 'NY',
  'North Carolina': 'NC', 'North Dakota': 'ND', Ohio: 'OH', Oklahoma: 'OK', Oregon: 'OR', Pennsylvania: 'PA',
  'Rhode Island': 'RI', 'South Carolina': 'SC', 'South Dakota': 'SD', Tennessee: 'TN', Texas: 'TX', Utah: 'UT',
  Vermont: 'VT', Virginia: 'VA', Washington: 'WA', 'West Virginia': 'WV', Wisconsin: 'WI', Wyoming: 'WY',
  'American Samoa': 'AS', Guam: 'GU', 'Northern Mariana Islands': 'MP', 'Puerto Rico': 'PR', 'U.S. Virgin Islands': 'VI',
  'Virgin Islands': 'VI',
});

const BY_KEY: ReadonlyMap<string, string> = new Map([
  ...Object.entries(USPS_STATE_CODES).map(([name, code]) => [stateKey(name), code] as const),
  ...Object.values(USPS_STATE_CODES).map((code) => [stateKey(code), code] as const),
]);

/** A state as compared: lower case, letters only ("new york", "N.Y." → "newyork", "ny"). */
function stateKey(text: string): string {
  return text.normalize('NFKD').toLowerCase().replace(/[^a-z]/g, '');
}

/**
 * The USPS code of a state as the service or a person writes it: its full name in any case and
 * spacing ("Illinois", "new  york"), or its code ("IL", "il").
 * @returns the two-letter code, or null for anything else (outside the US, empty, unknown)
 */
export function uspsStateCode(state: string | null | undefined): string | null {
  if (!state) return null;
  return BY_KEY.get(stateKey(state)) ?? null;
}
