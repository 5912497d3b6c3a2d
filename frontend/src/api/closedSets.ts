/** The admin document's closed sets as lists, for filters and pickers. Each list is typed
 * against the document's enum (`satisfies`), and `tests/unit/client.test.ts` checks that it
 * holds every member, so a variant added or renamed in the API fails the type check here. */

import type { Schemas } from './client'
import type { QueryOf } from './operations'

export type RequestStatus = Schemas['RequestStatusName']
export type SendState = Schemas['SendStateName']
export type Transport = Schemas['TransportName']
export type Provider = Schemas['Provider']
export type AccountState = Schemas['AccountStateName']
export type OpsLevel = NonNullable<QueryOf<'get', '/ops-events'>['level']>
export type InsightDimension = NonNullable<QueryOf<'get', '/usage/insights'>['groupBy']>
export type Bucket = NonNullable<QueryOf<'get', '/usage/trend'>['bucket']>

export const REQUEST_STATUSES = ['completed', 'failed', 'incomplete', 'cancelled', 'running'] as const satisfies readonly RequestStatus[]
export const TRANSPORTS = ['http', 'websocket'] as const satisfies readonly Transport[]
export const PROVIDERS = ['openai', 'xai'] as const satisfies readonly Provider[]
export const ACCOUNT_STATES = ['normal', 'quota_exhausted', 'rate_limited', 'disabled', 'error'] as const satisfies readonly AccountState[]
export const OPS_LEVELS = ['debug', 'info', 'warn', 'error'] as const satisfies readonly OpsLevel[]
export const INSIGHT_DIMENSIONS = ['model', 'account', 'key', 'provider', 'status', 'operation', 'transport', 'error_code'] as const satisfies readonly InsightDimension[]
export const BUCKETS = ['1m', '5m', '15m', '1h', '1d'] as const satisfies readonly Bucket[]

/** `value` when it is a member of `set`, else `undefined` (a hand-edited URL, an old link). */
export function memberOf<T extends string>(set: readonly T[], value: string | null | undefined): T | undefined {
  return (set as readonly (string | null | undefined)[]).includes(value) ? (value as T) : undefined
}
