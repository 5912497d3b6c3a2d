/** Time ranges for charts and lists, with the automatic bucket width. */
import type { Bucket } from '@/api/closedSets'
export const RANGES = ['1h', '6h', '24h', '7d', '30d'] as const
export type RangeKey = (typeof RANGES)[number]

const MS: Record<RangeKey, number> = { '1h': 3_600_000, '6h': 21_600_000, '24h': 86_400_000, '7d': 604_800_000, '30d': 2_592_000_000 }
const BUCKET: Record<RangeKey, Bucket> = { '1h': '1m', '6h': '5m', '24h': '15m', '7d': '1h', '30d': '1d' }

export function isRange(value: unknown): value is RangeKey {
  return typeof value === 'string' && (RANGES as readonly string[]).includes(value)
}

export function rangeWindow(range: RangeKey, now = Date.now()): { from: string; to: string; bucket: Bucket } {
  return { from: new Date(now - MS[range]).toISOString(), to: new Date(now).toISOString(), bucket: BUCKET[range] }
}

export function bucketFor(range: RangeKey): Bucket {
  return BUCKET[range]
}
