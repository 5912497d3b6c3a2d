/** Alert webhooks and rules: the kinds a webhook can subscribe to, the request body a form
 * becomes (the secret only when typed: it is write-only), and recent deliveries read from the
 * `alert.delivery` ops events. */

import type { Schemas } from '@/api/client'

export const ALERT_KINDS = ['account_banned', 'refresh_failing', 'pool_empty', 'quota_exhausted', 'error_rate', 'backup_failing'] as const
export type AlertKindName = (typeof ALERT_KINDS)[number]

export interface WebhookForm {
  name: string
  url: string
  kinds: string[]
  enabled: boolean
  /** Empty on edit: keep the stored secret. */
  secret: string
}

export function emptyWebhookForm(): WebhookForm {
  return { name: '', url: '', kinds: [], enabled: true, secret: '' }
}

/** The body of POST/PUT alerts/webhooks; `creating` requires the secret, an edit sends it only when typed. */
export function webhookBody(form: WebhookForm, creating: boolean): Schemas['WebhookBody'] {
  const body: Schemas['WebhookBody'] = { name: form.name.trim(), url: form.url.trim(), kinds: [...form.kinds], enabled: form.enabled }
  if (creating || form.secret !== '') body.secret = form.secret
  return body
}

/** What the form can say before the server does (the server checks again, the URL guard included). */
export function webhookFormProblems(form: WebhookForm, creating: boolean): string[] {
  const problems: string[] = []
  if (!form.name.trim()) problems.push('name')
  if (!/^https?:\/\//i.test(form.url.trim())) problems.push('url')
  if ((creating || form.secret !== '') && (form.secret.length < 16 || form.secret.length > 256)) problems.push('secret')
  return problems
}

export interface DeliveryRow {
  id: number
  at: string
  webhook: string
  kind: string
  attempt: number
  outcome: string
  status: number | null
  error: string | null
}

interface OpsEventLike {
  id: number
  occurredAt: string
  kind: string
  details?: unknown
}

/** `alert.delivery` ops events as table rows (other kinds are left out), newest first as given. */
export function deliveryRows(events: readonly OpsEventLike[]): DeliveryRow[] {
  return events
    .filter((e) => e.kind === 'alert.delivery')
    .map((e) => {
      const d = (e.details ?? {}) as Record<string, unknown>
      return {
        id: e.id,
        at: e.occurredAt,
        webhook: typeof d.webhook === 'string' ? d.webhook : '—',
        kind: typeof d.alertKind === 'string' ? d.alertKind : '—',
        attempt: typeof d.attempt === 'number' ? d.attempt : 1,
        outcome: typeof d.outcome === 'string' ? d.outcome : 'unknown',
        status: typeof d.status === 'number' ? d.status : null,
        error: typeof d.error === 'string' ? d.error : null,
      }
    })
}

export function outcomeTone(outcome: string): string {
  return ({ delivered: 'ok', retrying: 'warn', failed: 'danger' } as Record<string, string>)[outcome] ?? ''
}

/** Only `error_rate` has thresholds; the other rules are on or off. */
export function ruleHasThresholds(kind: string | undefined): boolean {
  return kind === 'error_rate'
}
