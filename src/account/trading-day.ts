/**
 * The account's trading day (`account.dayStartsAt`): an IANA time zone ("Europe/London",
 * "America/New_York", "UTC") or a fixed UTC offset ("+02:00", "-05:30", "Z"). The day number is the
 * local calendar date as days since 1970-01-01, so two instants share a day exactly when the zone's
 * wall clock shows the same date for both.
 *
 *   const day = tradingDay('Europe/Paris');   // throws a plain Error on an unknown zone
 *   day.of(ms) → day number; day.startOf(n) → the first ms of day n
 *
 * Cheap per tick: a zone's day changes only on a minute boundary, so the zone's calendar is asked
 * once per minute at most (Intl is ~µs per call).
 */

export const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
const OFFSET = /^([+-])(\d{2}):?(\d{2})$/;

export interface TradingDay {
  /** the zone as configured */
  readonly zone: string;
  of(ms: number): number;
  /** the first ms of day `n` in the zone */
  startOf(n: number): number;
}

/** A fixed offset in ms ("+02:00" → 7 200 000), or null when `s` is not one. */
function fixedOffset(s: string): number | null {
  if (s === 'Z' || s === 'UTC' || s === 'utc') return 0;
  const m = OFFSET.exec(s);
  if (!m) return null;
  const h = Number(m[2]);
  const min = Number(m[3]);
  if (h > 14 || min > 59) return null;
  return (m[1] === '-' ? -1 : 1) * (h * 60 + min) * MINUTE_MS;
}

/** Throws an Error naming the problem when `zone` is neither an IANA zone nor an offset. */
export function tradingDay(zone: string): TradingDay {
  const fixed = fixedOffset(zone.trim());
  if (fixed !== null) {
    return { zone, of: (ms) => Math.floor((ms + fixed) / DAY_MS), startOf: (n) => n * DAY_MS - fixed };
  }
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
  } catch {
    throw new Error(`not an IANA time zone or a UTC offset like +02:00: ${JSON.stringify(zone)}`);
  }
  /** the zone's offset from UTC at `ms`, in ms */
  const offsetAt = (ms: number): number => {
    const p: Record<string, number> = {};
    for (const x of fmt.formatToParts(ms)) if (x.type !== 'literal') p[x.type] = Number(x.value);
    const local = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!);
    return local - (ms - (((ms % MINUTE_MS) + MINUTE_MS) % MINUTE_MS));
  };
  let minute = Number.NaN;
  let day = 0;
  return {
    zone,
    of(ms: number): number {
      const m = Math.floor(ms / MINUTE_MS);
      if (m !== minute) {
        minute = m;
        day = Math.floor((ms + offsetAt(ms)) / DAY_MS);
      }
      return day;
    },
    startOf(n: number): number {
      // local midnight of day n, at the offset in force then (twice: the offset may differ across it)
      let t = n * DAY_MS - offsetAt(n * DAY_MS);
      t = n * DAY_MS - offsetAt(t);
      return t;
    },
  };
}
