/**
 * Word lists the sample dataset draws from: US-looking names, companies, streets, cities with their
 * state and ZIP prefix and area code, contact labels, products, template and campaign words, and the
 * hard cases (non-ASCII, quotes, commas, line breaks, formula-looking values, very long values).
 */

export const FIRST_NAMES = [
  'James', 'Mary', 'Robert', 'Patricia', 'John', 'Jennifer', 'Michael', 'Linda', 'David', 'Elizabeth',
  'William', 'Barbara', 'Richard', 'Susan', 'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Charles', 'Karen',
  'Christopher', 'Lisa', 'Daniel', 'Nancy', 'Matthew', 'Betty', 'Anthony', 'Margaret', 'Mark', 'Sandra',
  'Donald', 'Ashley', 'Steven', 'Kimberly', 'Paul', 'Emily', 'Andrew', 'Donna', 'Joshua', 'Michelle',
  'Kenneth', 'Carol', 'Kevin', 'Amanda', 'Brian', 'Dorothy', 'George', 'Melissa', 'Timothy', 'Deborah',
  'Ronald', 'Stephanie', 'Edward', 'Rebecca', 'Jason', 'Sharon', 'Jeffrey', 'Laura', 'Ryan', 'Cynthia',
  'Jacob', 'Kathleen', 'Gary', 'Amy', 'Nicholas', 'Angela', 'Eric', 'Shirley', 'Jonathan', 'Anna',
  'Stephen', 'Brenda', 'Larry', 'Pamela', 'Justin', 'Emma', 'Scott', 'Nicole', 'Brandon', 'Helen',
  'Benjamin', 'Samantha', 'Samuel', 'Katherine', 'Gregory', 'Christine', 'Alexander', 'Debra', 'Frank', 'Rachel',
  'Raymond', 'Carolyn', 'Jack', 'Janet', 'Dennis', 'Catherine', 'Jerry', 'Maria', 'Tyler', 'Heather',
  'Aaron', 'Diane', 'Jose', 'Ruth', 'Adam', 'Julie', 'Nathan', 'Olivia', 'Henry', 'Joyce',
  'Douglas', 'Virginia', 'Zachary', 'Victoria', 'Peter', 'Kelly', 'Kyle', 'Lauren', 'Ethan', 'Christina',
] as const;

export const LAST_NAMES = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez',
  'Hernandez', 'Lopez', 'Gonzalez', 'Wilson', 'Anderson', 'Thomas', 'Taylor', 'Moore', 'Jackson', 'Martin',
  'Lee', 'Perez', 'Thompson', 'White', 'Harris', 'Sanchez', 'Clark', 'Ramirez', 'Lewis', 'Robinson',
  'Walker', 'Young', 'Allen', 'King', 'Wright', 'Scott', 'Torres', 'Nguyen', 'Hill', 'Flores',
  'Green', 'Adams', 'Nelson', 'Baker', 'Hall', 'Rivera', 'Campbell', 'Mitchell', 'Carter', 'Roberts',
  'Gomez', 'Phillips', 'Evans', 'Turner', 'Diaz', 'Parker', 'Cruz', 'Edwards', 'Collins', 'Reyes',
  'Stewart', 'Morris', 'Morales', 'Murphy', 'Cook', 'Rogers', 'Gutierrez', 'Ortiz', 'Morgan', 'Cooper',
  'Peterson', 'Bailey', 'Reed', 'Kelly', 'Howard', 'Ramos', 'Kim', 'Cox', 'Ward', 'Richardson',
  'Watson', 'Brooks', 'Chavez', 'Wood', 'James', 'Bennett', 'Gray', 'Mendoza', 'Ruiz', 'Hughes',
  'Price', 'Alvarez', 'Castillo', 'Sanders', 'Patel', 'Myers', 'Long', 'Ross', 'Foster', 'Jimenez',
] as const;

export const COMPANY_STEMS = [
  'Acme', 'Summit', 'Blue Ridge', 'Harbor', 'Pioneer', 'Liberty', 'Evergreen', 'Keystone', 'Redwood', 'Granite',
  'Northstar', 'Silverline', 'Prairie', 'Beacon', 'Cascade', 'Lakeside', 'Ironwood', 'Maple', 'Crescent', 'Sterling',
  'Frontier', 'Heritage', 'Atlas', 'Meridian', 'Oakmont', 'Riverbend', 'Sunrise', 'Westfield', 'Bayview', 'Highland',
] as const;

export const COMPANY_KINDS = [
  'Dental', 'Realty', 'Insurance', 'Roofing', 'Logistics', 'Bakery', 'Auto Repair', 'Law Group', 'Veterinary Clinic', 'Plumbing',
  'Landscaping', 'Accounting', 'Pharmacy', 'Fitness', 'Coffee Co.', 'Hardware', 'Printing', 'Property Management', 'Credit Union', 'Pediatrics',
] as const;

export const COMPANY_SUFFIXES = ['LLC', 'Inc.', 'Co.', 'Group', 'Partners', 'Corp.', '', '', '', ''] as const;

export const STREET_NAMES = [
  'Main', 'Oak', 'Pine', 'Maple', 'Cedar', 'Elm', 'Washington', 'Lake', 'Hill', 'Park',
  'Walnut', 'Sunset', 'Lincoln', 'Jackson', 'Franklin', 'Highland', 'Ridge', 'Church', 'Spring', 'Chestnut',
  'Madison', 'Jefferson', 'Meadow', 'Forest', 'River', 'Willow', 'Mill', 'Center', 'Adams', 'Dogwood',
] as const;

export const STREET_SUFFIXES = ['St', 'Ave', 'Rd', 'Blvd', 'Ln', 'Dr', 'Ct', 'Way', 'Pl', 'Ter'] as const;

export const ADDRESS2 = ['Apt 4B', 'Suite 210', 'Unit 7', 'Floor 3', 'Apt 12', 'Suite 1400', 'PO Box 88', 'Bldg C'] as const;

/** City, full state name, first three ZIP digits, area code: the four always match each other. */
export const CITIES: readonly (readonly [city: string, state: string, zip3: string, area: string])[] = [
  ['New York', 'New York', '100', '212'], ['Buffalo', 'New York', '142', '716'], ['Los Angeles', 'California', '900', '213'],
  ['San Diego', 'California', '921', '619'], ['San Francisco', 'California', '941', '415'], ['Sacramento', 'California', '958', '916'],
  ['Chicago', 'Illinois', '606', '312'], ['Springfield', 'Illinois', '627', '217'], ['Houston', 'Texas', '770', '713'],
  ['Austin', 'Texas', '787', '512'], ['Dallas', 'Texas', '752', '214'], ['San Antonio', 'Texas', '782', '210'],
  ['Phoenix', 'Arizona', '850', '602'], ['Tucson', 'Arizona', '857', '520'], ['Philadelphia', 'Pennsylvania', '191', '215'],
  ['Pittsburgh', 'Pennsylvania', '152', '412'], ['Jacksonville', 'Florida', '322', '904'], ['Miami', 'Florida', '331', '305'],
  ['Tampa', 'Florida', '336', '813'], ['Orlando', 'Florida', '328', '407'], ['Columbus', 'Ohio', '432', '614'],
  ['Cleveland', 'Ohio', '441', '216'], ['Cincinnati', 'Ohio', '452', '513'], ['Indianapolis', 'Indiana', '462', '317'],
  ['Charlotte', 'North Carolina', '282', '704'], ['Raleigh', 'North Carolina', '276', '919'], ['Seattle', 'Washington', '981', '206'],
  ['Spokane', 'Washington', '992', '509'], ['Denver', 'Colorado', '802', '303'], ['Boulder', 'Colorado', '803', '303'],
  ['Boston', 'Massachusetts', '021', '617'], ['Worcester', 'Massachusetts', '016', '508'], ['Nashville', 'Tennessee', '372', '615'],
  ['Memphis', 'Tennessee', '381', '901'], ['Detroit', 'Michigan', '482', '313'], ['Grand Rapids', 'Michigan', '495', '616'],
  ['Portland', 'Oregon', '972', '503'], ['Las Vegas', 'Nevada', '891', '702'], ['Louisville', 'Kentucky', '402', '502'],
  ['Baltimore', 'Maryland', '212', '410'], ['Milwaukee', 'Wisconsin', '532', '414'], ['Madison', 'Wisconsin', '537', '608'],
  ['Albuquerque', 'New Mexico', '871', '505'], ['Kansas City', 'Missouri', '641', '816'], ['St. Louis', 'Missouri', '631', '314'],
  ['Atlanta', 'Georgia', '303', '404'], ['Savannah', 'Georgia', '314', '912'], ['Omaha', 'Nebraska', '681', '402'],
  ['Minneapolis', 'Minnesota', '554', '612'], ['New Orleans', 'Louisiana', '701', '504'], ['Salt Lake City', 'Utah', '841', '801'],
  ['Birmingham', 'Alabama', '352', '205'], ['Richmond', 'Virginia', '232', '804'], ['Boise', 'Idaho', '837', '208'],
  ['Des Moines', 'Iowa', '503', '515'], ['Anchorage', 'Alaska', '995', '907'], ['Honolulu', 'Hawaii', '968', '808'],
  ['Burlington', 'Vermont', '054', '802'], ['Portland', 'Maine', '041', '207'], ['Charleston', 'South Carolina', '294', '843'],
];

/** Contact labels (§2.2 ContactLabel): 15 of them, ids are digit strings. */
export const LABELS: readonly { id: string; title: string }[] = [
  'VIP', 'Customer', 'Prospect', 'Donor', 'Volunteer', 'Newsletter', 'Holiday Card', 'Lapsed', 'Board Member', 'Vendor',
  'Press', 'Event 2024', 'Do Not Mail', 'Referral', 'West Region',
].map((title, i) => ({ id: String(7001 + i), title }));

export const ACCOUNT_IDS = ['acct-1001', 'acct-1002', 'acct-1003'] as const;

/** Hidden last-mailed statuses (§3 names In Transit, Mailed, Scheduled "and further values") with their weights. */
export const LAST_MAILED_STATUSES: readonly (readonly [status: string, weight: number])[] = [
  ['Mailed', 0.34], ['In Transit', 0.16], ['Scheduled', 0.1], ['Delivered', 0.26], ['Returned', 0.08], ['Processing', 0.06],
];

/** §2.3 Product: a handful of paper, envelope and postage choices. */
export const PRODUCTS = [
  { id: '31', paperType: 'standard', paperSize: '8.5x11', deliveryType: 'usps', productType: 'letter', envelopeType: '#10 double window', postageType: 'first_class', name: 'Letter · #10 envelope · First Class', meta: null },
  { id: '32', paperType: 'standard', paperSize: '8.5x11', deliveryType: 'usps', productType: 'letter', envelopeType: '#10 double window', postageType: 'standard', name: 'Letter · #10 envelope · Standard', meta: null },
  { id: '33', paperType: 'premium', paperSize: '8.5x11', deliveryType: 'usps', productType: 'letter', envelopeType: '9x12 flat', postageType: 'first_class', name: 'Premium letter · flat envelope', meta: { color: 'full' } },
  { id: '34', paperType: 'cardstock', paperSize: '4x6', deliveryType: 'usps', productType: 'postcard', envelopeType: 'none', postageType: 'first_class', name: 'Postcard 4×6', meta: null },
  { id: '35', paperType: 'cardstock', paperSize: '6x11', deliveryType: 'usps', productType: 'postcard', envelopeType: 'none', postageType: 'standard', name: 'Postcard 6×11 · Standard', meta: null },
  { id: '36', paperType: 'standard', paperSize: '8.5x11', deliveryType: 'usps_certified', productType: 'certified_letter', envelopeType: '#10 double window', postageType: 'certified', name: 'Certified letter', meta: { returnReceipt: true } },
  { id: '37', paperType: 'linen', paperSize: '5x7', deliveryType: 'usps', productType: 'greeting_card', envelopeType: 'A7 colored', postageType: 'first_class', name: 'Greeting card A7', meta: null },
] as const;

export const CAMPAIGN_ADJECTIVES = ['Spring', 'Summer', 'Fall', 'Winter', 'Holiday', 'Annual', 'Quarterly', 'Welcome', 'Renewal', 'Thank-You', 'Year-End', 'Grand Opening'] as const;
export const CAMPAIGN_THEMES = ['Appeal', 'Mailer', 'Newsletter', 'Reminder', 'Offer', 'Invitation', 'Statement', 'Survey', 'Announcement', 'Follow-up'] as const;

export const TEMPLATE_WORDS = ['Classic', 'Modern', 'Bold', 'Minimal', 'Photo', 'Handwritten', 'Corporate', 'Seasonal'] as const;
export const TEMPLATE_KINDS = ['Letter', 'Postcard', 'Card', 'Invoice', 'Notice'] as const;

/** People who create orders and templates (§2.3 Template.creator). */
export const CREATORS: readonly { id: string; fullName: string }[] = [
  'Alicia Keane', 'Marcus Bell', 'Priya Raman', 'Tom Ostrowski', 'Hannah Weiss', 'Diego Fuentes', 'Grace Liu', 'Sam Okafor',
].map((fullName, i) => ({ id: String(301 + i), fullName }));

export const CAMPAIGN_TYPES = ['single', 'recurring', 'triggered'] as const;
export const USE_TYPES = ['marketing', 'operational', 'fundraising'] as const;

/** Non-ASCII names (diacritics, ligature-like letters, non-Latin scripts, an emoji). */
export const HARD_NAMES: readonly (readonly [first: string, last: string])[] = [
  ['Zoë', 'Ångström'], ['José', 'Nuñez'], ['François', 'Lefèvre'], ['Søren', 'Kierkegård'], ['Chloé', 'Müller'],
  ['Łukasz', 'Wójcik'], ['Thị Minh', 'Nguyễn'], ['Björk', 'Guðmundsdóttir'], ['小龙', '李'], ['Renée 🎉', 'Dubois'],
];

/** Values that a spreadsheet would read as a formula (OWASP CSV injection). */
export const FORMULA_VALUES = ['=SUM(1+1)*cmd|\' /C calc\'!A0', '+1 (555) 010-0000', '-Rear entrance-', '@SUM(A1:A9)', '=HYPERLINK("http://example.com","click")'] as const;
