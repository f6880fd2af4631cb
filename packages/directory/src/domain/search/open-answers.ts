/**
 * Whether each distinct opening hours of an index is open at a search's instant, worked out at most
 * once per search, in arrays made once per index rather than once per search. At 5 M listings
 * there are hundreds of thousands of distinct hours; an array that size made for every search is
 * memory outside V8's heap, and V8 runs a full collection of the heap for every few dozen MB of
 * that (docs/directory.md, "Full collections on the search path").
 */
import { openInRanges, zoneNow } from './hours.js';
import type { HoursTable } from './index-core.js';

const OPEN = 1;
const CLOSED = 2;

export class OpenAnswers {
  // An entry is the current test's when its stamp is the test's: a new test forgets every earlier
  // answer by taking the next stamp, without clearing anything.
  readonly #hoursStamp: Uint32Array;
  readonly #hoursOpen: Uint8Array;
  readonly #zoneStamp: Uint32Array;
  readonly #zoneWeekMinute: Int32Array;
  readonly #zoneToday: Int32Array;
  readonly #zoneYesterday: Int32Array;
  #stamp = 0;

  /** `lastStamp`: the stamp taken before the first test (tests start near the end of the stamps). */
  constructor(
    private readonly hours: HoursTable,
    private readonly zones: readonly string[],
    lastStamp = 0,
  ) {
    this.#stamp = lastStamp;
    this.#hoursStamp = new Uint32Array(hours.zone.length);
    this.#hoursOpen = new Uint8Array(hours.zone.length);
    this.#zoneStamp = new Uint32Array(zones.length);
    this.#zoneWeekMinute = new Int32Array(zones.length);
    this.#zoneToday = new Int32Array(zones.length);
    this.#zoneYesterday = new Int32Array(zones.length);
  }

  /** The bytes its arrays hold (five per distinct hours, sixteen per zone). */
  get byteLength(): number {
    return this.#hoursStamp.byteLength + this.#hoursOpen.byteLength + this.#zoneStamp.byteLength + this.#zoneWeekMinute.byteLength + this.#zoneToday.byteLength + this.#zoneYesterday.byteLength;
  }

  /**
   * The test "open at `instant`" of a listing by its hours id (hoursOf[pos]; -1: no hours, never
   * open). Two tests may be in use at once (two instants in one search): each checks its own stamp,
   * so the later one only makes the earlier work an answer out again.
   */
  testAt(instant: number, hoursOf: Int32Array): (pos: number) => boolean {
    const stamp = this.#nextStamp();
    const { zone, hrOff, hr, clOff, cl } = this.hours;
    const zones = this.zones;
    const hoursStamp = this.#hoursStamp;
    const hoursOpen = this.#hoursOpen;
    const zoneStamp = this.#zoneStamp;
    const zoneWeekMinute = this.#zoneWeekMinute;
    const zoneToday = this.#zoneToday;
    const zoneYesterday = this.#zoneYesterday;
    return (pos: number): boolean => {
      const k = hoursOf[pos]!;
      if (k < 0) return false;
      if (hoursStamp[k] === stamp) return hoursOpen[k] === OPEN;
      const z = zone[k]!;
      if (zoneStamp[z] !== stamp) {
        const now = zoneNow(zones[z]!, instant);
        zoneWeekMinute[z] = now ? now.weekMinute : -1;
        if (now) {
          zoneToday[z] = now.today;
          zoneYesterday[z] = now.yesterday;
        }
        zoneStamp[z] = stamp;
      }
      const weekMinute = zoneWeekMinute[z]!;
      const open = weekMinute >= 0 && openInRanges(hr, hrOff[k]!, hrOff[k + 1]!, cl, clOff[k]!, clOff[k + 1]!, weekMinute, zoneToday[z]!, zoneYesterday[z]!);
      hoursOpen[k] = open ? OPEN : CLOSED;
      hoursStamp[k] = stamp;
      return open;
    };
  }

  #nextStamp(): number {
    // Stamp 0 is what every entry starts with; after 2^32 - 2 tests the stamps start again.
    if (this.#stamp === 0xffff_fffe) {
      this.#hoursStamp.fill(0);
      this.#zoneStamp.fill(0);
      this.#stamp = 0;
    }
    return ++this.#stamp;
  }
}
