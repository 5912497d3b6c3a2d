/** Names for the OpenAPI schemas the pages use. */
import type { Schemas } from './client'

export type AccountItem = Schemas['AccountItem']
export type AccountList = Schemas['AccountList']
export type AccountDetail = Schemas['AccountDetail']
export type AccountUpdated = Schemas['AccountUpdated']
export type AccountState = Schemas['AccountStateName']
export type StateCounts = Schemas['StateCounts']
export type DashboardSummary = Schemas['DashboardSummary']
export type TotalsView = Schemas['TotalsView']
export type TrendView = Schemas['TrendView']
export type RecordItem = Schemas['RecordItem']
export type RecordList = Schemas['RecordList']
export type RecordDetail = Schemas['RecordDetail']
export type InsightList = Schemas['InsightList']
export type KeyItem = Schemas['KeyItem']
export type KeyList = Schemas['KeyList']
export type NewKey = Schemas['NewKey']
export type CreatedKey = Schemas['CreatedKey']
export type KeyUpdated = Schemas['KeyUpdated']
export type GroupItem = Schemas['GroupItem']
export type GroupList = Schemas['GroupList']
export type GroupImpact = Schemas['GroupImpactView']
export type SettingsView = Schemas['SettingsView']
export type SettingsValues = Schemas['SettingsValues']
export type SettingsUpdated = Schemas['SettingsUpdated']
export type Strategy = Schemas['Strategy']
export type AuditItem = Schemas['AuditItem']
export type AuditList = Schemas['AuditList']
export type AuditVerification = Schemas['AuditVerification']
export type OpsEventItem = Schemas['OpsEventItem']
export type OpsEventList = Schemas['OpsEventList']
export type VersionView = Schemas['VersionView']
export type UpdateView = Schemas['UpdateView']
export type UpdateStarted = Schemas['StartedView']
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
export type LoginResponse = Schemas['LoginResponse']
export type LoginStarted = Schemas['LoginStartedView']
export type LoginCompleted = Schemas['LoginCompletedView']
export type DeviceStarted = Schemas['DeviceStartedView']
export type DevicePoll = Schemas['DevicePollView']
export type BackupSettings = Schemas['BackupSettingsView']
export type BatchResult = Schemas['BatchResult']
export type SessionList = Schemas['SessionList']

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
export type BackupList = Schemas['BackupList']
export type DownloadLink = Schemas['DownloadLink']
export type WebhookView = Schemas['WebhookView']
export type WebhookList = Schemas['WebhookList']
export type RuleView = Schemas['RuleView']
export type RuleList = Schemas['RuleList']
export type TestDeliveryView = Schemas['TestDeliveryView']
