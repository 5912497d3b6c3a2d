import { describe, expect, it } from 'vitest'
import { maskEmail } from '@/format/mask'
import { delta, formatCompact, formatMs, formatNanoUsd, formatPercent } from '@/format/numbers'
import { quotaLevel, shownPercent, windowLabel } from '@/format/quota'
import { bucketFor, isRange, rangeWindow } from '@/format/range'
import { calendarDayOffset, formatCalendar, formatCountdown } from '@/format/time'

describe('maskEmail', () => {
  it('keeps the first letter of the local part and of the domain', () => {
    expect(maskEmail('alice@example.com')).toBe('a•••@e…')
    expect(maskEmail('x')).toBe('x')
    expect(maskEmail('account-7')).toBe('a•••')
    expect(maskEmail(null)).toBe('')
  })
})

describe('numbers', () => {
  it('formats money from nano-USD as an estimate with enough digits for small sums', () => {
    expect(formatNanoUsd(1_234_500_000_000, 'en')).toBe('$1,234.50')
    expect(formatNanoUsd(120_000, 'en')).toBe('$0.0001')
    expect(formatNanoUsd(0, 'en')).toBe('$0.00')
    expect(formatNanoUsd(null, 'en')).toBe('—')
  })
  it('formats durations in ms, s and minutes', () => {
    expect(formatMs(850, 'en')).toBe('850 ms')
    expect(formatMs(1234, 'en')).toBe('1.2 s')
    expect(formatMs(125_000, 'en')).toBe('2 m 5 s')
    expect(formatMs(null, 'en')).toBe('—')
  })
  it('compacts and percents through Intl in the locale', () => {
    expect(formatCompact(3_400_000, 'en')).toBe('3.4M')
    expect(formatCompact(12_000, 'zh-CN')).toBe('1.2万')
    expect(formatPercent(0.987, 'en')).toBe('98.7%')
    expect(delta(150, 100)).toBe(0.5)
    expect(delta(5, 0)).toBeNull()
  })
})

describe('time', () => {
  const now = new Date('2026-12-01T10:00:00Z')
  it('is calendar-day aware: a later time the same day is "today", not "tomorrow"', () => {
    expect(formatCalendar('2026-12-01T23:30:00Z', now, 'en', 'UTC')).toBe('today 23:30')
    expect(formatCalendar('2026-12-02T00:10:00Z', now, 'en', 'UTC')).toBe('tomorrow 00:10')
    expect(formatCalendar('2026-11-30T13:54:00Z', now, 'en', 'UTC')).toBe('yesterday 13:54')
  })
  it('counts days in the admin zone, not UTC', () => {
    // 23:30 UTC on 1 Dec is already 2 Dec 07:30 in Shanghai.
    expect(calendarDayOffset(new Date('2026-12-01T23:30:00Z'), now, 'Asia/Shanghai')).toBe(1)
    expect(calendarDayOffset(new Date('2026-12-01T23:30:00Z'), now, 'UTC')).toBe(0)
    expect(formatCalendar('2026-12-01T23:30:00Z', now, 'zh-CN', 'Asia/Shanghai')).toBe('明天 07:30')
  })
  it('counts down in hours and minutes, seconds only under a minute', () => {
    const t0 = Date.parse('2026-12-01T10:00:00Z')
    expect(formatCountdown('2026-12-01T12:14:30Z', t0)).toBe('2 h 14 m')
    expect(formatCountdown('2026-12-01T10:14:00Z', t0)).toBe('14 m')
    expect(formatCountdown('2026-12-01T10:00:42Z', t0)).toBe('42 s')
    expect(formatCountdown('2026-12-04T10:00:00Z', t0)).toBe('3 d 0 h')
    expect(formatCountdown('2026-12-01T09:00:00Z', t0)).toBeNull()
  })
})

describe('quota', () => {
  it('colours by used share: <70 normal, 70–90 warning, ≥90 danger, 100 exhausted', () => {
    expect([0, 69.9, 70, 89.9, 90, 99.9, 100, 130].map(quotaLevel)).toEqual(['normal', 'normal', 'warning', 'warning', 'danger', 'danger', 'exhausted', 'exhausted'])
  })
  it('shows used or remaining', () => {
    expect(shownPercent(30, 'used')).toBe(30)
    expect(shownPercent(30, 'remaining')).toBe(70)
    expect(shownPercent(130, 'remaining')).toBe(0)
  })
  it('labels the provider windows', () => {
    expect(windowLabel(300)).toEqual({ key: 'quota.window.hours', count: 5 })
    expect(windowLabel(10080)).toEqual({ key: 'quota.window.weekly' })
    expect(windowLabel(1440)).toEqual({ key: 'quota.window.days', count: 1 })
    expect(windowLabel(null)).toEqual({ key: 'quota.window.other' })
  })
})

describe('ranges', () => {
  it('pick the bucket automatically', () => {
    expect(['1h', '6h', '24h', '7d', '30d'].map((r) => bucketFor(r as never))).toEqual(['1m', '5m', '15m', '1h', '1d'])
    expect(isRange('24h')).toBe(true)
    expect(isRange('2h')).toBe(false)
    const w = rangeWindow('1h', Date.parse('2026-12-01T10:00:00Z'))
    expect(w).toEqual({ from: '2026-12-01T09:00:00.000Z', to: '2026-12-01T10:00:00.000Z', bucket: '1m' })
  })
})

describe('availability', async () => {
  const { availabilityCells, cellState, weeklyPace } = await import('@/format/availability')
  const totals = (requests: number, failed: number, clientErrors = 0) => ({ requests, failed, clientErrors, running: 0, completed: requests - failed, incomplete: 0, cancelled: 0, successRate: null, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0, totalTokens: 0, costNanoUsd: 0 })
  it('judges cells by success without caller errors, low samples apart', () => {
    expect(cellState(0, 0)).toBe('none')
    expect(cellState(3, 0)).toBe('low')
    expect(cellState(100, 1)).toBe('stable')
    expect(cellState(100, 5)).toBe('unstable')
    expect(cellState(100, 20)).toBe('down')
  })
  it('puts buckets in their 15-minute cell; missing buckets are no data', () => {
    const to = Date.parse('2026-12-01T10:00:00Z')
    const trend = { bucket: '15m', tz: 'UTC', from: '', to: '', points: [
      { start: '2026-12-01T09:45:00Z', totals: totals(10, 5, 5) },
      { start: '2026-12-01T09:30:00Z', totals: totals(20, 10) },
    ] } as never
    const cells = availabilityCells(trend, to, 4)
    expect(cells.map((c) => c.state)).toEqual(['none', 'down', 'stable', 'none'])
    expect(cells[2]).toMatchObject({ requests: 5, failed: 0 })
  })
  it('paces the weekly window against the elapsed share', () => {
    const now = Date.parse('2026-12-01T00:00:00Z')
    const reset = now / 1000 + 3.5 * 86400
    expect(weeklyPace(60, 10080, reset, now)).toMatchObject({ used: 0.6, elapsed: 0.5 })
  })
})
