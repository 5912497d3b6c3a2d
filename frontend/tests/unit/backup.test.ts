import { describe, expect, it } from 'vitest'
import { backupTone, formatBytes, isBackupActive, needsBackupPolling } from '@/format/backup'

describe('backup records', () => {
  it('polls only while a record can still change by itself', () => {
    expect(needsBackupPolling(['completed', 'failed'])).toBe(false)
    expect(needsBackupPolling([])).toBe(false)
    expect(needsBackupPolling(['completed', 'uploading'])).toBe(true)
    expect(needsBackupPolling(['queued'])).toBe(true)
    expect(needsBackupPolling(['deleting'])).toBe(true)
    expect(isBackupActive('dumping')).toBe(true)
    expect(isBackupActive('deleting')).toBe(false)
    expect(isBackupActive('completed')).toBe(false)
  })

  it('gives finished states their tone and unknown states none', () => {
    expect(backupTone('completed')).toBe('ok')
    expect(backupTone('failed')).toBe('danger')
    expect(backupTone('something-new')).toBe('')
  })

  it('formats sizes in binary units with the locale digits', () => {
    expect(formatBytes(0, 'en')).toBe('0 B')
    expect(formatBytes(1023, 'en')).toBe('1,023 B')
    expect(formatBytes(1536, 'en')).toBe('1.5 KB')
    expect(formatBytes(16 * 1024 * 1024, 'en')).toBe('16.0 MB')
    expect(formatBytes(5 * 1024 ** 4 * 1024, 'en')).toBe('5,120.0 TB')
    expect(formatBytes(null, 'en')).toBe('—')
    expect(formatBytes(-1, 'en')).toBe('—')
  })
})
