export * from './search-index.js';
export { isOpenAt, compileHours, zoneNow } from './hours.js';
export type { CompiledHours, ZoneNow } from './hours.js';
export { haversineKm } from './geo.js';
export { cutWords, foldText, foldWords, indexWords, tagKey } from './text.js';
