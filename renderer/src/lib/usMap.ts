/**
 * The US map's state outlines: us-atlas's state shapes (TopoJSON, decoded by topojson-client),
 * projected by d3-geo's Albers USA into a 975 × 610 box (the scale and centre us-atlas's own
 * projected files use) and drawn as SVG paths. Projecting takes tens of milliseconds, so it is
 * done once, when the page is idle after it starts, and kept.
 */
import { geoAlbersUsa, geoPath } from 'd3-geo';
import type { FeatureCollection, Geometry } from 'geojson';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import statesTopology from 'us-atlas/states-10m.json' with { type: 'json' };
import { STATE_BY_FIPS } from './overviewData.ts';

/** The map's own coordinates; the map scales them to its card. */
export const MAP_WIDTH = 975;
export const MAP_HEIGHT = 610;

/** The territories Albers USA does not place (American Samoa, Guam, the Northern Marianas, Puerto Rico, the Virgin Islands). */
const OFF_MAP = new Set(['60', '66', '69', '72', '78']);

/** One state's outline: its USPS code and its SVG path in the map's coordinates. */
export interface StateOutline {
  code: string;
  d: string;
}

let outlines: StateOutline[] | null = null;

/** The 50 states' and DC's outlines (projected on the first call, then kept). */
export function stateOutlines(): StateOutline[] {
  if (outlines) return outlines;
  const topology = statesTopology as unknown as Topology<{ states: GeometryCollection }>;
  const shapes = feature(topology, topology.objects.states) as FeatureCollection<Geometry>;
  const path = geoPath(geoAlbersUsa().scale(1300).translate([MAP_WIDTH / 2, MAP_HEIGHT / 2]));
  outlines = shapes.features
    .filter((f) => STATE_BY_FIPS[String(f.id)] !== undefined && !OFF_MAP.has(String(f.id)))
    .map((f) => ({ code: STATE_BY_FIPS[String(f.id)] as string, d: path(f) ?? '' }));
  return outlines;
}

/** Projects the outlines when the page is next idle, so that the first opening of the Overview does not. */
export function prepareStateOutlines(): void {
  if (outlines) return;
  const idle = (globalThis as { requestIdleCallback?: (run: () => void, options: { timeout: number }) => number }).requestIdleCallback;
  if (idle) idle(() => void stateOutlines(), { timeout: 5000 });
  else setTimeout(() => void stateOutlines(), 1000);
}
