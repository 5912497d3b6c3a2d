import { describe, expect, it } from 'vitest'
import { notePrefetchTime, overviewQueries, takePrefetchTime } from '@/pages/overviewQueries'

describe('overviewQueries', () => {
  it('asks for the same window as the prefetch when a minute boundary falls between them', () => {
    const prefetchedAt = Date.UTC(2026, 11, 2, 15, 59, 59, 900)
    notePrefetchTime(prefetchedAt)
    const prefetch = overviewQueries('24h', 'UTC', prefetchedAt)
    // The page sets up 200 ms later, in the next minute.
    const pageLater = Date.UTC(2026, 11, 2, 16, 0, 0, 100)
    expect(overviewQueries('24h', 'UTC', pageLater)).not.toEqual(prefetch)
    expect(overviewQueries('24h', 'UTC', takePrefetchTime() ?? pageLater)).toEqual(prefetch)
  })

  it('hands the prefetch time out once', () => {
    notePrefetchTime(1_000)
    expect(takePrefetchTime()).toBe(1_000)
    expect(takePrefetchTime()).toBeUndefined()
  })
})
