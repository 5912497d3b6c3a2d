/** Number formatting through Intl, in the active locale. */

export function formatInteger(value: number | null | undefined, locale: string): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '—'
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(value)
}

/** 1234 → "1.2K", 3_400_000 → "3.4M" (compact, for KPI cards and axes). */
export function formatCompact(value: number | null | undefined, locale: string): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '—'
  return new Intl.NumberFormat(locale, { notation: 'compact', maximumFractionDigits: 1 }).format(value)
}

export function formatPercent(ratio: number | null | undefined, locale: string, digits = 1): string {
  if (ratio === null || ratio === undefined || Number.isNaN(ratio)) return '—'
  return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: digits }).format(ratio)
}

/** The API's money is integer nano-USD; shown as USD (an estimate everywhere). */
export function formatNanoUsd(nano: number | null | undefined, locale: string): string {
  if (nano === null || nano === undefined) return '—'
  const usd = nano / 1e9
  const digits = usd !== 0 && Math.abs(usd) < 1 ? 4 : 2
  return new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD', maximumFractionDigits: digits, minimumFractionDigits: 2 }).format(usd)
}

/** Durations in ms: "850 ms", "1.2 s", "2 m 5 s". */
export function formatMs(ms: number | null | undefined, locale: string): string {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '—'
  if (ms < 1000) return `${new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(ms)} ms`
  if (ms < 60_000) return `${new Intl.NumberFormat(locale, { maximumFractionDigits: 1 }).format(ms / 1000)} s`
  const minutes = Math.floor(ms / 60_000)
  const seconds = Math.round((ms % 60_000) / 1000)
  return `${minutes} m ${seconds} s`
}

/** Relative change of `current` over `previous`, or null when there is no base. */
export function delta(current: number, previous: number): number | null {
  if (!previous) return null
  return (current - previous) / previous
}
