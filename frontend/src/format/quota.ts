/** Quota bar presentation: level colours by used share, label per window. */

export type QuotaLevel = 'normal' | 'warning' | 'danger' | 'exhausted'

export function quotaLevel(usedPercent: number): QuotaLevel {
  if (usedPercent >= 100) return 'exhausted'
  if (usedPercent >= 90) return 'danger'
  if (usedPercent >= 70) return 'warning'
  return 'normal'
}

/** The shown value: used % or remaining % (a global preference). */
export function shownPercent(usedPercent: number, mode: 'used' | 'remaining'): number {
  const clamped = Math.min(100, Math.max(0, usedPercent))
  return mode === 'used' ? clamped : 100 - clamped
}

/** "5 h", "weekly", "1 d" from a window length in minutes. */
export function windowLabel(minutes: number | null | undefined): { key: string; count?: number } {
  if (!minutes) return { key: 'quota.window.other' }
  if (minutes === 10080) return { key: 'quota.window.weekly' }
  if (minutes % 1440 === 0) return { key: 'quota.window.days', count: minutes / 1440 }
  if (minutes % 60 === 0) return { key: 'quota.window.hours', count: minutes / 60 }
  return { key: 'quota.window.minutes', count: minutes }
}
