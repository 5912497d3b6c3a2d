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

/** Records per page of `GET /backups` (the first page is refetched; older ones are loaded on demand). */
export const BACKUP_PAGE = 50

interface HasId {
  id: number
}

/**
 * The older records (loaded with "Load more") after the first page was refetched: records that
 * left the first page because newer ones arrived still exist, so they move into the older list
 * (ids below the new first page's lowest); records deleted from it do not come back. Without
 * older pages loaded there is nothing to carry.
 */
export function carryShiftedOut<T extends HasId>(previousHead: readonly T[], head: readonly T[], older: readonly T[]): T[] {
  if (older.length === 0) return []
  const lowest = head.length ? Math.min(...head.map((b) => b.id)) : Infinity
  const kept = new Set(head.map((b) => b.id))
  const shifted = previousHead.filter((b) => !kept.has(b.id) && b.id < lowest)
  const known = new Set(older.map((b) => b.id))
  return [...shifted.filter((b) => !known.has(b.id)), ...older].sort((a, b) => b.id - a.id)
}

/** The rows shown: the first page, then the older records not on it, newest first. */
export function backupRows<T extends HasId>(head: readonly T[], older: readonly T[]): T[] {
  const onHead = new Set(head.map((b) => b.id))
  return [...head, ...older.filter((b) => !onHead.has(b.id))]
}

/** A list after a live `backup` event: the record replaced where shown, prepended when newer
 * than all shown (a new job), otherwise left out (an older record not loaded). */
export function patchBackup<T extends HasId>(items: readonly T[], record: T): T[] {
  if (items.some((b) => b.id === record.id)) return items.map((b) => (b.id === record.id ? record : b))
  if (items.every((b) => b.id < record.id)) return [record, ...items]
  return [...items]
}
