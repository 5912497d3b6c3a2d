import { describe, expect, it } from 'vitest'
import { deliveryRows, emptyWebhookForm, outcomeTone, ruleHasThresholds, webhookBody, webhookFormProblems } from '@/format/alerts'

describe('alert webhooks', () => {
  it('sends the secret on create, and on edit only when typed', () => {
    const form = { ...emptyWebhookForm(), name: ' ops ', url: 'https://hooks.example.com/a', kinds: ['error_rate'], secret: 'whsec-0123456789abcdef' }
    expect(webhookBody(form, true)).toEqual({ name: 'ops', url: 'https://hooks.example.com/a', kinds: ['error_rate'], enabled: true, secret: 'whsec-0123456789abcdef' })
    expect(webhookBody({ ...form, secret: '' }, false)).not.toHaveProperty('secret')
    expect(webhookBody(form, false).secret).toBe('whsec-0123456789abcdef')
  })

  it('names the fields to fix before sending', () => {
    expect(webhookFormProblems(emptyWebhookForm(), true)).toEqual(['name', 'url', 'secret'])
    const ok = { ...emptyWebhookForm(), name: 'ops', url: 'https://h.example', secret: 'x'.repeat(16) }
    expect(webhookFormProblems(ok, true)).toEqual([])
    expect(webhookFormProblems({ ...ok, secret: '' }, false), 'an edit keeps the stored secret').toEqual([])
    expect(webhookFormProblems({ ...ok, secret: 'short' }, false)).toEqual(['secret'])
    expect(webhookFormProblems({ ...ok, url: 'ftp://h' }, true)).toEqual(['url'])
  })

  it('reads recent deliveries from the alert.delivery ops events only', () => {
    const rows = deliveryRows([
      { id: 3, occurredAt: '2026-12-01T10:00:00Z', kind: 'alert.delivery', details: { webhook: 'ops', alertKind: 'account_banned', attempt: 2, outcome: 'delivered', status: 204, error: null } },
      { id: 2, occurredAt: '2026-12-01T09:59:00Z', kind: 'credential.refresh_failed', details: {} },
      { id: 1, occurredAt: '2026-12-01T09:58:00Z', kind: 'alert.delivery', details: { webhook: 'ops', alertKind: 'test', outcome: 'failed', error: 'the webhook did not answer in time' } },
    ])
    expect(rows.map((r) => [r.id, r.kind, r.attempt, r.outcome, r.status])).toEqual([[3, 'account_banned', 2, 'delivered', 204], [1, 'test', 1, 'failed', null]])
    expect(rows[1]?.error).toBe('the webhook did not answer in time')
    expect(outcomeTone('delivered')).toBe('ok')
    expect(outcomeTone('failed')).toBe('danger')
    expect(outcomeTone('other')).toBe('')
    expect(ruleHasThresholds('error_rate')).toBe(true)
    expect(ruleHasThresholds('pool_empty')).toBe(false)
  })
})
