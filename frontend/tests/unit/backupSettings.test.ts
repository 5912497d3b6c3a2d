import { describe, expect, it } from 'vitest'
import type { BackupSettings } from '@/api/types'
import { storageBody, storageForm } from '@/format/backupSettings'

const stored: BackupSettings = {
  enabled: true,
  endpoint: 'https://s3.example.com',
  region: 'eu-west-1',
  bucket: 'switchboard',
  pathStyle: false,
  prefix: 'prod/',
  credentialsConfigured: true,
  scheduleCron: 'CRON_TZ=Europe/Berlin 0 3 * * *',
  retentionCount: 7,
  retentionDays: null,
  updatedAt: '2026-12-01T10:00:00Z',
}

describe('backup storage form', () => {
  it('starts from the stored settings with the key pair blank', () => {
    const form = storageForm(stored)
    expect(form.accessKeyId).toBe('')
    expect(form.secretAccessKey).toBe('')
    expect(form.scheduleCron).toBe('CRON_TZ=Europe/Berlin 0 3 * * *')
    expect(form.retentionDays).toBe('')
  })

  it('keeps the stored keys when none are typed', () => {
    const body = storageBody(storageForm(stored))
    expect(body).toEqual({ enabled: true, endpoint: 'https://s3.example.com', region: 'eu-west-1', bucket: 'switchboard', pathStyle: false, prefix: 'prod/', scheduleCron: 'CRON_TZ=Europe/Berlin 0 3 * * *', retentionCount: 7, retentionDays: null })
    expect('accessKeyId' in body || 'secretAccessKey' in body || 'clearCredentials' in body).toBe(false)
  })

  it('sends typed keys (even one alone, for the API to refuse by field) and clears only when asked', () => {
    const both = storageBody({ ...storageForm(stored), accessKeyId: ' AKIA1 ', secretAccessKey: 's3cret ' })
    expect([both.accessKeyId, both.secretAccessKey, both.clearCredentials]).toEqual(['AKIA1', 's3cret ', undefined])
    const one = storageBody({ ...storageForm(stored), accessKeyId: 'AKIA1' })
    expect([one.accessKeyId, one.secretAccessKey]).toEqual(['AKIA1', undefined])
    const cleared = storageBody({ ...storageForm(stored), clearCredentials: true })
    expect(cleared.clearCredentials).toBe(true)
    // typed keys win over the clear box
    expect(storageBody({ ...storageForm(stored), clearCredentials: true, accessKeyId: 'a', secretAccessKey: 'b' }).clearCredentials).toBeUndefined()
  })

  it('sends blanks as none and trims text', () => {
    const body = storageBody({ ...storageForm(stored), endpoint: ' https://s3.example.com/ ', scheduleCron: '  ', retentionCount: '', retentionDays: 30 })
    expect([body.endpoint, body.scheduleCron, body.retentionCount, body.retentionDays]).toEqual(['https://s3.example.com/', null, null, 30])
  })
})
