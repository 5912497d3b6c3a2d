/** Confirmation requests answered by `ConfirmHost` (a promise per question). */
import { defineStore } from 'pinia'
import { shallowRef } from 'vue'

export interface ConfirmRequest {
  title: string
  impact: string
  details?: string[]
  confirmLabel: string
  danger?: boolean
  /** The object's name, to be typed before the action is allowed. */
  typeToConfirm?: string
}

export const useConfirm = defineStore('confirm', () => {
  const current = shallowRef<ConfirmRequest | null>(null)
  let resolve: ((ok: boolean) => void) | null = null

  function ask(request: ConfirmRequest): Promise<boolean> {
    resolve?.(false)
    current.value = request
    return new Promise((r) => (resolve = r))
  }

  function answer(ok: boolean): void {
    resolve?.(ok)
    resolve = null
    current.value = null
  }

  return { current, ask, answer }
})
