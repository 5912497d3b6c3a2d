import { describe, expect, it } from 'vitest'
import { backupRows, carryShiftedOut, patchBackup } from '@/format/backup'

const rec = (...ids: number[]) => ids.map((id) => ({ id }))
const ids = (list: { id: number }[]) => list.map((b) => b.id)

describe('backup pages', () => {
  it('shows the first page, then the older records not on it, newest first', () => {
    expect(ids(backupRows(rec(10, 9, 8), rec(8, 7, 6)))).toEqual([10, 9, 8, 7, 6])
    expect(ids(backupRows(rec(3, 2), []))).toEqual([3, 2])
  })

  it('keeps records that a new backup pushed off the first page', () => {
    // first page 10..8, older 7..5 loaded; a new record 11 arrives and 8 leaves the first page
    const older = carryShiftedOut(rec(10, 9, 8), rec(11, 10, 9), rec(7, 6, 5))
    expect(ids(older)).toEqual([8, 7, 6, 5])
    expect(ids(backupRows(rec(11, 10, 9), older))).toEqual([11, 10, 9, 8, 7, 6, 5])
  })

  it('does not bring back a record deleted from the first page', () => {
    // 9 deleted: the first page now reaches down to 7, which was already loaded as older
    const older = carryShiftedOut(rec(10, 9, 8), rec(10, 8, 7), rec(7, 6, 5))
    expect(ids(older)).toEqual([7, 6, 5])
    expect(ids(backupRows(rec(10, 8, 7), older))).toEqual([10, 8, 7, 6, 5])
  })

  it('carries nothing while no older page is loaded', () => {
    expect(carryShiftedOut(rec(10, 9, 8), rec(11, 10, 9), [])).toEqual([])
  })
})

describe('live backup events', () => {
  it('replace a shown record, prepend a new one, and skip an older one not loaded', () => {
    const shown = [{ id: 5, state: 'uploading' }, { id: 4, state: 'completed' }]
    expect(patchBackup(shown, { id: 5, state: 'completed' })).toEqual([{ id: 5, state: 'completed' }, { id: 4, state: 'completed' }])
    expect(ids(patchBackup(shown, { id: 6, state: 'queued' }))).toEqual([6, 5, 4])
    expect(ids(patchBackup(shown, { id: 2, state: 'failed' }))).toEqual([5, 4])
    expect(ids(patchBackup([], { id: 1, state: 'queued' }))).toEqual([1])
  })
})
