/** The Overview's three requests, shared by the page and the prefetch in main.ts. The range
 * is rounded to the minute, and the page's first load uses the prefetch's own time, so both
 * compute the same query even when a minute boundary falls between them. */
import { rangeWindow, type RangeKey } from '@/format/range'

let prefetchedAt: number | undefined

/** The prefetch in main.ts computed its queries at `now`. */
export function notePrefetchTime(now: number): void {
  prefetchedAt = now
}

/** The time the prefetch used, once (the page's first load); undefined afterwards. */
export function takePrefetchTime(): number | undefined {
  const now = prefetchedAt
  prefetchedAt = undefined
  return now
}

export function overviewQueries(range: RangeKey, timeZone: string, now = Date.now()) {
  const minute = Math.floor(now / 60_000) * 60_000
  const w = rangeWindow(range, minute)
  return {
    summary: { from: w.from, to: w.to, tz: timeZone },
    trend: { from: w.from, to: w.to, bucket: w.bucket, tz: timeZone },
    accounts: { limit: 200, tz: timeZone },
  }
}
