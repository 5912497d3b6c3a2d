/** Availability cells from trend buckets: each 15-minute cell is stable, low sample, unstable,
 * down or no data (a missing bucket). Caller errors do not count against availability. */
import type { TrendView } from '@/api/types'

export type CellState = 'stable' | 'low' | 'unstable' | 'down' | 'none'

export interface Cell {
  start: number
  state: CellState
  requests: number
  failed: number
}

/** Fewer requests than this in a cell: too few to judge. */
export const LOW_SAMPLE = 5

export function cellState(requests: number, failed: number): CellState {
  if (requests === 0) return 'none'
  const rate = 1 - failed / requests
  if (requests < LOW_SAMPLE) return 'low'
  if (rate >= 0.99) return 'stable'
  if (rate >= 0.9) return 'unstable'
  return 'down'
}

/** `count` cells of `cellMs` ending at `to`; buckets are summed into the cell they start in. */
export function availabilityCells(trend: TrendView, to: number, count: number, cellMs = 15 * 60_000): Cell[] {
  const first = Math.floor(to / cellMs) * cellMs - (count - 1) * cellMs
  const cells: Cell[] = Array.from({ length: count }, (_, i) => ({ start: first + i * cellMs, state: 'none', requests: 0, failed: 0 }))
  for (const point of trend.points) {
    const index = Math.floor((Date.parse(point.start) - first) / cellMs)
    const cell = cells[index]
    if (!cell) continue
    const judged = point.totals.requests - point.totals.clientErrors - point.totals.running
    cell.requests += Math.max(0, judged)
    cell.failed += Math.max(0, point.totals.failed - point.totals.clientErrors)
  }
  for (const cell of cells) cell.state = cellState(cell.requests, cell.failed)
  return cells
}

/** Weekly pace: how much of the window is used against how much of it has elapsed. */
export function weeklyPace(usedPercent: number, windowMinutes: number, resetAtSeconds: number, now: number): { used: number; elapsed: number; projected: number } {
  const windowMs = windowMinutes * 60_000
  const start = resetAtSeconds * 1000 - windowMs
  const elapsed = Math.min(1, Math.max(0, (now - start) / windowMs))
  const used = usedPercent / 100
  return { used, elapsed, projected: elapsed > 0 ? used / elapsed : 0 }
}
