/** Names for the OpenAPI schemas the pages use in their own signatures (call answers are
 * inferred by the client from the path, `client.ts`). */
import type { Schemas } from './client'

export type AccountItem = Schemas['AccountItem']
export type { AccountState } from './closedSets'
export type DashboardSummary = Schemas['DashboardSummary']
export type TrendView = Schemas['TrendView']
export type RecordItem = Schemas['RecordItem']
export type RecordList = Schemas['RecordList']
export type RecordDetail = Schemas['RecordDetail']
export type KeyItem = Schemas['KeyItem']
export type CreatedKey = Schemas['CreatedKey']
export type KeyUpdated = Schemas['KeyUpdated']
export type GroupItem = Schemas['GroupItem']
export type SettingsValues = Schemas['SettingsValues']
export type Strategy = Schemas['Strategy']
export type AuditItem = Schemas['AuditItem']
export type AuditVerification = Schemas['AuditVerification']
export type OpsEventItem = Schemas['OpsEventItem']
/** One `progress` event of `system/update/events` (Server-Sent Events, not in the document). */
export interface UpdateProgress {
  seq: number
  phase: string
  message: string
  downloadedBytes?: number | null
  totalBytes?: number | null
  atUnixMs: number
}
export type CurrentSession = Schemas['CurrentSession']
export type LoginStarted = Schemas['LoginStartedView']
export type LoginCompleted = Schemas['LoginCompletedView']
export type DeviceStarted = Schemas['DeviceStartedView']
export type BackupSettings = Schemas['BackupSettingsView']

/** One quota window as the providers store it (`quota.windows[]`). */
export interface QuotaWindow {
  name: string
  used_percent: number
  window_minutes?: number | null
  /** Unix seconds. */
  reset_at?: number | null
  plan_type?: string
}

export function quotaWindows(account: { quota: { windows: unknown[] } }): QuotaWindow[] {
  return (account.quota.windows as QuotaWindow[]).filter((w) => typeof w?.used_percent === 'number')
}
export type BackupView = Schemas['BackupView']
export type DownloadLink = Schemas['DownloadLink']
export type WebhookView = Schemas['WebhookView']
export type RuleView = Schemas['RuleView']
