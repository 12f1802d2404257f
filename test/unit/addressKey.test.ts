import { describe, expect, it } from 'vitest';
import { duplicateKeys, normaliseDeliveryLine, zip5, type AddressedContact } from '../../shared/addressKey.ts';

const contact = (fields: Partial<AddressedContact>): AddressedContact => ({
  firstName: 'Ada', lastName: 'Lovelace', address1: '', address2: '', city: 'Columbus', state: 'Ohio', zip: '43215', ...fields,
});

// Publication 28 examples: each spelling on the left is written as the right one.
const PUB28: [address1: string, address2: string, expected: string][] = [
  ['123 Main Street', '', '123 MAIN ST'],
  ['123 main st.', '', '123 MAIN ST'],
  ['123 Main Street Apt 4', '', '123 MAIN ST # 4'],
  ['123 MAIN ST #4', '', '123 MAIN ST # 4'],
  ['123 Main St', 'Apt. #4', '123 MAIN ST # 4'],
  ['123 Main St', '# 4', '123 MAIN ST # 4'],
  ['123 Main St', 'Apartment 4', '123 MAIN ST # 4'],
  ['1000 Park Avenue', 'Suite 210', '1000 PARK AVE # 210'],
  ['1000 Park Av', 'Ste 210', '1000 PARK AVE # 210'],
  ['1000 Park Aven', 'STE. 210', '1000 PARK AVE # 210'],
  ['1000 Park Avenu', 'suite #210', '1000 PARK AVE # 210'],
  ['45 Sunset Boulevard', 'Unit 7', '45 SUNSET BLVD # 7'],
  ['45 Sunset Boul', 'Room 7', '45 SUNSET BLVD # 7'],
  ['9 Ridge Road', 'Floor 3', '9 RIDGE RD # 3'],
  ['77 Lake Drive', 'Building C', '77 LAKE DR # C'],
  ['12 Elm Court', 'Lot 12', '12 ELM CT # 12'],
  ['500 Northeast Madison Parkway', '', '500 NE MADISON PKWY'],
  ['500 North East 1st Terrace', '', '500 N E 1ST TER'],
  ['8 West Highland Lane', 'Rear', '8 W HIGHLAND LN REAR'],
  ['8 W. Highland Ln.', 'Basement', '8 W HIGHLAND LN BSMT'],
  ['2 Southwest Hill Circle', 'Penthouse', '2 SW HILL CIR PH'],
  ['31 Willow Crossing', 'Trailer 9', '31 WILLOW XING # 9'],
  ['31 Willow Xing', 'Space 9', '31 WILLOW XING # 9'],
  ['700 Mill Expressway', '', '700 MILL EXPY'],
  ['6 Spring Heights', '', '6 SPRING HTS'],
  ['14 Forest Highway', '', '14 FOREST HWY'],
  ['P.O. Box 88', '', 'PO BOX 88'],
  ['Post Office Box 88', '', 'PO BOX 88'],
  ['4 Oak Street', 'P.O. Box 88', '4 OAK ST PO BOX 88'],
  ['  4312   Oak   Ter ', '', '4312 OAK TER'],
  ['4312 Oak Terrace', '', '4312 OAK TER'],
  ['55 Cañón Way', '', '55 CANON WAY'],
  ['55 Canon Wy', '', '55 CANON WAY'],
  ['10 O\'Brien Place', '', '10 OBRIEN PL'],
  ['12 Front Street', 'Front', '12 FRONT ST FRNT'],
  ['3 Lake View Drive North', '', '3 LAKE VIEW DR N'],
];

describe('the delivery line, as Publication 28 writes it', () => {
  it.each(PUB28)('%s / %s → %s', (address1, address2, expected) => {
    expect(normaliseDeliveryLine(address1, address2)).toBe(expected);
  });

  it('reads address2 after address1, so a unit in either line is the same unit', () => {
    expect(normaliseDeliveryLine('123 Main St Apt 4')).toBe(normaliseDeliveryLine('123 Main St', 'Apt 4'));
  });

  it('is empty for no address', () => {
    expect(normaliseDeliveryLine('', '')).toBe('');
    expect(normaliseDeliveryLine(' , ', '.')).toBe('');
  });
});

describe('ZIP codes', () => {
  it('keep their first five digits', () => {
    expect(zip5('43215')).toBe('43215');
    expect(zip5('43215-1234')).toBe('43215');
    expect(zip5('432151234')).toBe('43215');
    expect(zip5(' 43215 ')).toBe('43215');
    expect(zip5('4321')).toBe('');
  });
});

describe('duplicate keys', () => {
  const same = (a: Partial<AddressedContact>, b: Partial<AddressedContact>) => [duplicateKeys(contact(a)), duplicateKeys(contact(b))];

  it('match "123 Main Street Apt 4" and "123 MAIN ST #4" at every level', () => {
    const [a, b] = same({ address1: '123 Main Street Apt 4' }, { address1: '123 MAIN ST #4', firstName: 'ADA', lastName: 'LOVELACE', zip: '43215-0001' });
    expect(a).not.toBeNull();
    expect(a).toEqual(b);
  });

  const NEAR_MISSES: [what: string, a: Partial<AddressedContact>, b: Partial<AddressedContact>][] = [
    ['another suffix', { address1: '123 Main St' }, { address1: '123 Main Ave' }],
    ['another ZIP', { address1: '123 Main St' }, { address1: '123 Main St', zip: '43216' }],
    ['another unit', { address1: '123 Main St', address2: 'Apt 4' }, { address1: '123 Main St', address2: 'Apt 5' }],
    ['a unit and none', { address1: '123 Main St', address2: 'Apt 4' }, { address1: '123 Main St' }],
    ['another directional', { address1: '123 N Main St' }, { address1: '123 S Main St' }],
    ['a directional and none', { address1: '123 North Main St' }, { address1: '123 Main St' }],
    ['another house number', { address1: '123 Main St' }, { address1: '1234 Main St' }],
  ];
  it.each(NEAR_MISSES)('do not match with %s', (_what, a, b) => {
    const [ka, kb] = same(a, b);
    expect(ka?.address).not.toBe(kb?.address);
    expect(ka?.household).not.toBe(kb?.household);
    expect(ka?.individual).not.toBe(kb?.individual);
  });

  it('tell the three levels apart', () => {
    const ada = duplicateKeys(contact({ address1: '1 Elm St' }));
    const byron = duplicateKeys(contact({ address1: '1 Elm Street', firstName: 'Byron' }));
    const babbage = duplicateKeys(contact({ address1: '1 ELM ST', firstName: 'Charles', lastName: 'Babbage' }));
    expect(byron?.address).toBe(ada?.address);
    expect(byron?.household).toBe(ada?.household);
    expect(byron?.individual).not.toBe(ada?.individual);
    expect(babbage?.address).toBe(ada?.address);
    expect(babbage?.household).not.toBe(ada?.household);
  });

  it('use the city and state when there is no ZIP, and nothing without an address', () => {
    const [a, b] = same({ address1: '1 Elm St', zip: '' }, { address1: '1 Elm Street', zip: '', city: 'COLUMBUS', state: 'ohio' });
    expect(a?.address).toBe(b?.address);
    expect(a?.address).not.toBe(duplicateKeys(contact({ address1: '1 Elm St', zip: '', city: 'Dayton' }))?.address);
    expect(duplicateKeys(contact({ address1: '' }))).toBeNull();
    expect(duplicateKeys(contact({ address1: '1 Elm St', zip: '', city: '', state: '' }))).toBeNull();
  });

  it('fold case, accents and punctuation of names', () => {
    const [a, b] = same({ address1: '1 Elm St', firstName: 'José', lastName: "O'Neil" }, { address1: '1 Elm St', firstName: 'JOSE', lastName: 'ONeil' });
    expect(a?.individual).toBe(b?.individual);
  });
});
