/** Account mutations shared by the list and the detail page: enable/disable with Undo,
 * refresh/probe/test as reports, delete behind a typed confirmation. */
import { useI18n } from 'vue-i18n'
import { ApiError, api, type Schemas } from '@/api/client'
import type { AccountItem } from '@/api/types'
import { useConfirm } from '@/stores/confirm'
import { useToasts } from '@/stores/toasts'

export function useAccountActions(onChanged: () => void) {
  const { t } = useI18n()
  const toasts = useToasts()
  const confirm = useConfirm()

  function fail(e: unknown): void {
    const err = e instanceof ApiError ? e : null
    toasts.push({ kind: 'error', message: err?.message ?? String(e), requestId: err?.requestId ?? null })
  }

  async function patch(account: AccountItem, changes: Partial<Schemas['AccountChanges']>, message: string): Promise<void> {
    try {
      const result = await api.patch('/accounts/{id}', { path: { id: account.id }, body: changes })
      onChanged()
      const previous = result.previous
      toasts.push({
        kind: 'success',
        message,
        undo: async () => {
          await api.patch('/accounts/{id}', { path: { id: account.id }, body: { enabled: previous.enabled, concurrencyCap: previous.concurrencyCap, weight: previous.weight, groupIds: previous.groupIds } })
          onChanged()
        },
      })
    } catch (e) {
      fail(e)
    }
  }

  const label = (a: AccountItem) => a.email ?? a.externalAccountId

  return {
    label,
    toggle: (a: AccountItem) => patch(a, { enabled: !a.enabled }, t(a.enabled ? 'accounts.disabledToast' : 'accounts.enabledToast', { name: label(a) })),
    patch,
    async check(a: AccountItem, kind: 'refresh' | 'probe' | 'test'): Promise<void> {
      try {
        const init = { path: { id: a.id } }
        const r = kind === 'refresh' ? await api.post('/accounts/{id}/refresh', init) : kind === 'probe' ? await api.post('/accounts/{id}/probe', init) : await api.post('/accounts/{id}/test', init)
        const ok = 'ok' in r ? r.ok : r.refreshed
        toasts.push({ kind: ok ? 'success' : 'error', message: ok ? t(`accounts.${kind}Ok`, { name: label(a) }) : t('accounts.checkFailed', { code: r.errorCode ?? '', message: r.message ?? '' }) })
        onChanged()
      } catch (e) {
        fail(e)
      }
    },
    async remove(a: AccountItem): Promise<boolean> {
      const ok = await confirm.ask({
        title: t('accounts.deleteTitle', { name: label(a) }),
        impact: t('accounts.deleteImpact', { groups: a.groupIds.length }),
        confirmLabel: t('action.delete'),
        danger: true,
        typeToConfirm: a.today.requests > 0 || a.lastUsedAt ? label(a) : undefined,
      })
      if (!ok) return false
      try {
        await api.del('/accounts/{id}', { path: { id: a.id } })
        toasts.push({ kind: 'success', message: t('accounts.deleted', { name: label(a) }) })
        onChanged()
        return true
      } catch (e) {
        fail(e)
        return false
      }
    },
  }
}
