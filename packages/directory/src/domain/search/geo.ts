/** Distances and the uniform grid the search index keeps of listings with a geo point. */

export const EARTH_RADIUS_KM = 6371.0088;
const RAD = Math.PI / 180;
const KM_PER_DEG_LAT = (Math.PI * EARTH_RADIUS_KM) / 180;

/** Great-circle distance in km (haversine). */
export function haversineKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLng = (lng2 - lng1) * RAD;
  const s1 = Math.sin(dLat / 2);
  const s2 = Math.sin(dLng / 2);
  const a = s1 * s1 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * s2 * s2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** A latitude/longitude box that holds every point within `radiusKm` of the centre (lng may wrap). */
export interface GeoBox {
  latMin: number;
  latMax: number;
  /** When `allLng`, any longitude; otherwise lngMin..lngMax, where lngMin > lngMax means it wraps at 180°. */
  allLng: boolean;
  lngMin: number;
  lngMax: number;
}

export function boxAround(lat: number, lng: number, radiusKm: number): GeoBox {
  const dLat = radiusKm / KM_PER_DEG_LAT + 1e-9;
  const latMin = Math.max(-90, lat - dLat);
  const latMax = Math.min(90, lat + dLat);
  const angular = radiusKm / EARTH_RADIUS_KM;
  const ratio = Math.sin(Math.min(angular, Math.PI / 2)) / Math.cos(lat * RAD);
  if (latMin <= -90 || latMax >= 90 || angular >= Math.PI / 2 || !(ratio < 1)) {
    return { latMin, latMax, allLng: true, lngMin: -180, lngMax: 180 };
  }
  const dLng = Math.asin(ratio) / RAD + 1e-9;
  if (dLng >= 180) return { latMin, latMax, allLng: true, lngMin: -180, lngMax: 180 };
  let lngMin = lng - dLng;
  let lngMax = lng + dLng;
  if (lngMin < -180) lngMin += 360;
  if (lngMax > 180) lngMax -= 360;
  return { latMin, latMax, allLng: false, lngMin, lngMax };
}

export function inBox(box: GeoBox, lat: number, lng: number): boolean {
  if (lat < box.latMin || lat > box.latMax) return false;
  if (box.allLng) return true;
  return box.lngMin <= box.lngMax ? lng >= box.lngMin && lng <= box.lngMax : lng >= box.lngMin || lng <= box.lngMax;
}

/** Grid of CELL_DEG cells; cell lists hold rank positions, ascending. */
export const CELL_DEG = 0.25;
export const GRID_ROWS = Math.round(180 / CELL_DEG);
export const GRID_COLS = Math.round(360 / CELL_DEG);

export function gridRow(lat: number): number {
  const r = Math.floor((lat + 90) / CELL_DEG);
  return r < 0 ? 0 : r >= GRID_ROWS ? GRID_ROWS - 1 : r;
}

export function gridCol(lng: number): number {
  let c = Math.floor((lng + 180) / CELL_DEG) % GRID_COLS;
  if (c < 0) c += GRID_COLS;
  return c;
}

/** The grid cells a box covers, as [row, colFrom, colTo] runs (colFrom <= colTo). */
export function boxCellRuns(box: GeoBox): [number, number, number][] {
  const r0 = gridRow(box.latMin);
  const r1 = gridRow(box.latMax);
  const colRuns: [number, number][] = [];
  if (box.allLng) colRuns.push([0, GRID_COLS - 1]);
  else {
    const c0 = gridCol(box.lngMin);
    const c1 = gridCol(box.lngMax);
    if (c0 <= c1 && box.lngMin <= box.lngMax) colRuns.push([c0, c1]);
    else {
      colRuns.push([c0, GRID_COLS - 1]);
      colRuns.push([0, c1]);
    }
  }
  const runs: [number, number, number][] = [];
  for (let r = r0; r <= r1; r++) for (const [a, b] of colRuns) runs.push([r, a, b]);
  return runs;
}
