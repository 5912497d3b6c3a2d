/** Backup records: which states are still moving (the page polls while one is), the state's
 * badge tone, and byte sizes for people. */

export const ACTIVE_BACKUP_STATES = ['queued', 'dumping', 'uploading'] as const
/** How often the list is refetched while a job is active or being deleted. */
export const BACKUP_POLL_MS = 2_000

export function isBackupActive(state: string): boolean {
  return (ACTIVE_BACKUP_STATES as readonly string[]).includes(state)
}

/** Poll while any record can still change state by itself. */
export function needsBackupPolling(states: readonly string[]): boolean {
  return states.some((s) => isBackupActive(s) || s === 'deleting')
}

export function backupTone(state: string): string {
  return ({ completed: 'ok', failed: 'danger', queued: '', dumping: 'warn', uploading: 'warn', deleting: '' } as Record<string, string>)[state] ?? ''
}

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB']

/** 1 KB = 1024 B; one decimal from KB upwards, in the locale's digits. */
export function formatBytes(bytes: number | null | undefined, locale: string): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes) || bytes < 0) return '—'
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024
    unit++
  }
  const digits = unit === 0 ? 0 : 1
  return `${new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value)} ${UNITS[unit]}`
}
