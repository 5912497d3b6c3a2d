/** The backup storage form: the editable copy of the settings (the key pair is write-only and
 * always starts blank) and the `PUT /backups/settings` body it sends. */
import type { Schemas } from '@/api/client'
import type { BackupSettings } from '@/api/types'

export interface StorageForm {
  enabled: boolean
  endpoint: string
  region: string
  bucket: string
  pathStyle: boolean
  prefix: string
  /** Blank keeps the stored key pair; both filled replace it. */
  accessKeyId: string
  secretAccessKey: string
  clearCredentials: boolean
  scheduleCron: string
  /** Number inputs give numbers through v-model, and '' when cleared. */
  retentionCount: number | string
  retentionDays: number | string
}

export function storageForm(s: BackupSettings): StorageForm {
  return {
    enabled: s.enabled,
    endpoint: s.endpoint,
    region: s.region,
    bucket: s.bucket,
    pathStyle: s.pathStyle,
    prefix: s.prefix,
    accessKeyId: '',
    secretAccessKey: '',
    clearCredentials: false,
    scheduleCron: s.scheduleCron ?? '',
    retentionCount: s.retentionCount ?? '',
    retentionDays: s.retentionDays ?? '',
  }
}

const count = (v: number | string) => (String(v).trim() === '' ? null : Number(v))

/** The whole settings object. Keys are sent only when typed (the API refuses one without the
 * other, by field); neither typed keeps the stored pair, or clears it when asked. */
export function storageBody(f: StorageForm): Schemas['BackupSettingsBody'] {
  const body: Schemas['BackupSettingsBody'] = {
    enabled: f.enabled,
    endpoint: f.endpoint.trim(),
    region: f.region.trim(),
    bucket: f.bucket.trim(),
    pathStyle: f.pathStyle,
    prefix: f.prefix.trim(),
    scheduleCron: f.scheduleCron.trim() || null,
    retentionCount: count(f.retentionCount),
    retentionDays: count(f.retentionDays),
  }
  const accessKeyId = f.accessKeyId.trim()
  const secretAccessKey = f.secretAccessKey
  if (accessKeyId || secretAccessKey) {
    if (accessKeyId) body.accessKeyId = accessKeyId
    if (secretAccessKey) body.secretAccessKey = secretAccessKey
  } else if (f.clearCredentials) {
    body.clearCredentials = true
  }
  return body
}
