/**
 * Word pools for realistic project records. SCOPE_OF_WORK pieces are percent-encoded once at
 * load: the concatenation of encoded pieces is the encoding of the concatenated HTML, which
 * keeps generating 200,000 records cheap.
 */

export const PLACE_WORDS = [
  'Oakridge', 'Riverside', 'Maple Grove', 'Harborview', 'Cedar Point', 'Summit', 'Lakeshore',
  'Willow Creek', 'Pinecrest', 'Stonebridge', 'Fairview', 'Northgate', 'Eastwood', 'Silver Lake',
  'Brookside', 'Highland Park', 'Ashford', 'Red Rock', 'Bayfront', 'Sunset Ridge', 'Elm Street',
  'Kingsley', 'Meadowbrook', 'Copper Hill', 'Granite Falls', 'Westfield', 'Hawthorne', 'Foxglove',
] as const;

export const BUILDING_WORDS = [
  'Medical Office', 'Residence', 'Elementary School', 'Retail Center', 'Warehouse', 'Townhomes',
  'Fire Station', 'Library', 'Clinic', 'Parking Structure', 'Community Center', 'Apartments',
  'Distribution Center', 'Bank Branch', 'Restaurant', 'Dental Suite', 'Church Hall', 'Lofts',
] as const;

export const WORK_WORDS = [
  'Renovation', 'Tenant Improvement', 'New Construction', 'Kitchen Remodel', 'Roof Replacement',
  'Addition', 'Fit-out', 'Expansion', 'Seismic Retrofit', 'HVAC Upgrade', 'Exterior Refresh',
  'ADA Upgrades', 'Phase 2', 'Interior Demo',
] as const;

export const PROJECT_TYPES = ['Commercial', 'Residential', 'Remodel', 'New Construction', 'Service', 'Opportunity'] as const;

export const FIRST_NAMES = ['Dana', 'Luis', 'Priya', 'Marcus', 'Ingrid', 'Tomás', 'Aiko', 'Grace', 'Olumide', 'Hannah', 'Wei', 'Zoë'] as const;
export const LAST_NAMES = ['Whitfield', 'Ortega', 'Raman', 'Bell', 'Sørensen', 'Nakamura', 'O’Neil', 'Adeyemi', 'Kowalski', 'Chen', 'Müller', 'Brooks'] as const;

export interface CityRow {
  city: string;
  state: string;
  zip: number;
  lat: number;
  lon: number;
}

export const CITIES: readonly CityRow[] = [
  { city: 'Portland', state: 'OR', zip: 97201, lat: 45.5152, lon: -122.6784 },
  { city: 'Boise', state: 'ID', zip: 83702, lat: 43.615, lon: -116.2023 },
  { city: 'Denver', state: 'CO', zip: 80202, lat: 39.7392, lon: -104.9903 },
  { city: 'Austin', state: 'TX', zip: 78701, lat: 30.2672, lon: -97.7431 },
  { city: 'Raleigh', state: 'NC', zip: 27601, lat: 35.7796, lon: -78.6382 },
  { city: 'Columbus', state: 'OH', zip: 43215, lat: 39.9612, lon: -82.9988 },
  { city: 'Sacramento', state: 'CA', zip: 95814, lat: 38.5816, lon: -121.4944 },
  { city: 'Tampa', state: 'FL', zip: 33602, lat: 27.9506, lon: -82.4572 },
  { city: 'Spokane', state: 'WA', zip: 99201, lat: 47.6588, lon: -117.426 },
  { city: 'Madison', state: 'WI', zip: 53703, lat: 43.0731, lon: -89.4012 },
];

export const STREETS = ['Main St', 'Oak Ave', 'Industrial Way', 'Commerce Blvd', '5th Street', 'Lakeview Dr', 'Mill Rd', 'Harbor Pkwy', 'Elm Ct', 'Ridge Rd'] as const;

export const COLORS = ['#3A7BD5', '#E67E22', '#27AE60', '#8E44AD', '#C0392B', '#16A085', '#F1C40F', '#2C3E50', '#D35400', '#7F8C8D'] as const;

const SCOPE_ITEMS = [
  'Demolition of existing interior partitions, ceilings &amp; finishes',
  'Concrete slab repair and moisture mitigation (≤ 3 lbs/1000 sf)',
  'Framing, drywall, tape &amp; finish to Level 4',
  'Electrical: new 200A panel, LED fixtures, occupancy sensors',
  'Plumbing rough-in and fixtures per drawings P-101 through P-104',
  'HVAC: replace two 5-ton RTUs, new ductwork and controls',
  'Roofing: tear-off and new 60 mil TPO membrane with R-30 insulation',
  'Exterior paint, sealants and storefront glazing repairs',
  'Millwork: reception desk, break-room casework, quartz tops',
  'Flooring: LVT in corridors, carpet tile in offices, sealed concrete in storage',
  'Fire sprinkler modifications and alarm device relocation',
  'Site work: ADA parking stalls, curb ramps and striping',
  'Doors, frames &amp; hardware; keying per owner schedule',
  'Final cleaning, punch list and close-out documents',
] as const;

const SCOPE_PARAGRAPHS = [
  'Contractor shall furnish all labor, materials, equipment and supervision required to complete the work described in the contract documents dated <em>March 3</em>, including all addenda.',
  'Work hours are 7:00&nbsp;AM to 5:00&nbsp;PM, Monday through Friday. Noisy work (coring, demolition) must be scheduled 48 hours in advance with the building manager.',
  'Owner will occupy adjacent suites during construction; maintain dust partitions, negative air and clean egress paths at all times. <strong>No exceptions.</strong>',
  'Allowances: $12,500 for signage, $8,000 for low-voltage cabling. Unused allowance amounts are returned to the owner by change order.',
  'Exclusions: hazardous material abatement, permit fees over $5,000, furniture, and owner-supplied equipment &quot;OFOI&quot; items.',
  'Schedule: substantial completion within 120 calendar days of notice to proceed; liquidated damages of $750/day thereafter.',
] as const;

export const ENCODED_SCOPE_ITEMS = SCOPE_ITEMS.map((t) => encodeURIComponent(`<li>${t}</li>`));
export const ENCODED_SCOPE_PARAGRAPHS = SCOPE_PARAGRAPHS.map((t) => encodeURIComponent(`<p>${t}</p>`));
export const ENCODED_UL_OPEN = encodeURIComponent('<ul>');
export const ENCODED_UL_CLOSE = encodeURIComponent('</ul>');

export const NOTE_SENTENCES = [
  'Owner prefers email over phone for RFIs.',
  'Gate code is 4471; lock it after hours.',
  'Architect: "no substitutions without written approval".',
  'Crane pick scheduled for the second week; confirm with the city.',
  'Retainage 10% until substantial completion, then 5%.',
  'Parking is limited — use the north lot, not the customer spaces.',
  'Submittals go through the portal, not by email.',
  'Inspections: call by 2 PM for next-day slots.',
  'Keys are with the property manager, Suite 210.',
  'Client asked for weekly photo reports every Friday.',
] as const;

export const JOBSITE_SENTENCES = [
  'Hard hats, vests and safety glasses required past the fence line.',
  'Deliveries via the alley entrance only, 7–10 AM.',
  'Sign in at the trailer; visitors must be escorted.',
  'No smoking anywhere on site.',
  'Dumpster swaps Tuesdays and Fridays.',
] as const;
