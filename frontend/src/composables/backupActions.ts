/** The backup records' actions over the admin API: run now (optional expiry), verify, delete
 * (confirmed), a download link (password step-up). Each reports through a toast and reloads. */
import { ref } from 'vue'
import { useI18n } from 'vue-i18n'
import { ApiError, api } from '@/api/client'
import type { BackupView, DownloadLink } from '@/api/types'
import { useConfirm } from '@/stores/confirm'
import { useStepUp } from '@/stores/stepUp'
import { useToasts } from '@/stores/toasts'

/** `reload(id)` refetches what the page shows after an action on record `id` (null: a new record). */
export function useBackupActions(reload: (id: number | null) => Promise<void>) {
  const { t } = useI18n()
  const toasts = useToasts()
  const confirm = useConfirm()
  const stepUp = useStepUp()
  /** The record whose action is running (its buttons are disabled). */
  const busy = ref<number | null>(null)
  const link = ref<(DownloadLink & { id: number }) | null>(null)

  function fail(e: unknown): void {
    const message = e instanceof ApiError ? e.message : String(e)
    toasts.push({ kind: 'error', message, requestId: e instanceof ApiError ? e.requestId : null })
  }

  async function run(expiresInDays: number | null): Promise<boolean> {
    try {
      const queued = await api.post('/backups', { body: expiresInDays ? { expiresInDays } : {} })
      toasts.push({ kind: 'success', message: t('backups.queued', { id: queued.id }) })
      await reload(null)
      return true
    } catch (e) {
      fail(e)
      return false
    }
  }

  async function verify(b: BackupView): Promise<void> {
    busy.value = b.id
    try {
      const checked = await api.post('/backups/{id}/verify', { path: { id: b.id } })
      if (checked.verifyError) toasts.push({ kind: 'error', message: t('backups.verifyFailed', { id: b.id, message: checked.verifyError }) })
      else toasts.push({ kind: 'success', message: t('backups.verifyOk', { id: b.id }) })
      await reload(b.id)
    } catch (e) {
      fail(e)
    } finally {
      busy.value = null
    }
  }

  async function remove(b: BackupView): Promise<void> {
    const ok = await confirm.ask({ title: t('backups.deleteTitle', { id: b.id }), impact: t('backups.deleteImpact'), confirmLabel: t('action.delete'), danger: true })
    if (!ok) return
    busy.value = b.id
    try {
      await api.del('/backups/{id}', { path: { id: b.id } })
      toasts.push({ kind: 'success', message: t('backups.deleted', { id: b.id }) })
      await reload(b.id)
    } catch (e) {
      fail(e)
    } finally {
      busy.value = null
    }
  }

  async function download(b: BackupView): Promise<void> {
    try {
      const got = await stepUp.withPassword(t('backups.downloadTitle', { id: b.id }), t('backups.downloadImpact'), (password) => api.post('/backups/{id}/download-link', { path: { id: b.id }, body: { password } }))
      if (got) link.value = { ...got, id: b.id }
    } catch (e) {
      fail(e)
    }
  }

  return { busy, link, run, verify, remove, download, fail }
}
