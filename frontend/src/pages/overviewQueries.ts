/** The Overview's three requests, shared by the page and the prefetch in main.ts. The range
 * is rounded to the minute so both compute the same query. */
import { rangeWindow, type RangeKey } from '@/format/range'

export function overviewQueries(range: RangeKey, timeZone: string, now = Date.now()) {
  const minute = Math.floor(now / 60_000) * 60_000
  const w = rangeWindow(range, minute)
  return {
    summary: { from: w.from, to: w.to, tz: timeZone },
    trend: { from: w.from, to: w.to, bucket: w.bucket, tz: timeZone },
    accounts: { limit: 200, tz: timeZone },
  }
}
