/** Step-up: sensitive calls (credential export, admin API key creation) need the current
 * password in their body. `withPassword` asks for it in a dialog, runs the call, and forgets
 * the password at once (decision 0169). A wrong password asks again. */
import { defineStore } from 'pinia'
import { shallowRef } from 'vue'
import { ApiError } from '@/api/client'

interface Pending {
  title: string
  impact: string
  run: (password: string) => Promise<unknown>
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

export const useStepUp = defineStore('stepUp', () => {
  const pending = shallowRef<Pending | null>(null)
  const wrong = shallowRef(false)

  function withPassword<T>(title: string, impact: string, run: (password: string) => Promise<T>): Promise<T | null> {
    wrong.value = false
    return new Promise<T | null>((resolve, reject) => {
      pending.value = { title, impact, run, resolve: resolve as (v: unknown) => void, reject }
    })
  }

  async function submit(password: string): Promise<void> {
    const p = pending.value
    if (!p) return
    try {
      const value = await p.run(password)
      pending.value = null
      p.resolve(value)
    } catch (e) {
      if (e instanceof ApiError && (e.code === 'forbidden' || e.code === 'step_up_required')) {
        wrong.value = true
        return
      }
      pending.value = null
      p.reject(e)
    }
  }

  function cancel(): void {
    pending.value?.resolve(null)
    pending.value = null
  }

  return { pending, wrong, withPassword, submit, cancel }
})
