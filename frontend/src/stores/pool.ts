/** Live account facts from the event stream (`account`, `account_removed`): pages patch their
 * rows from here instead of refetching, and the shell knows whether any account is usable. */
import { defineStore } from 'pinia'
import { computed, shallowRef } from 'vue'
import type { QuotaWindow } from '@/api/types'
import { useLive } from './live'

export interface AccountFacts {
  id: number
  state: string
  stateReason: string | null
  stateUntil: string | null
  enabled: boolean
  inFlight: number
  quotaState: string
  quotaWindows: QuotaWindow[]
}

export const usePool = defineStore('pool', () => {
  const facts = shallowRef<Map<number, AccountFacts>>(new Map())
  /** Whether the stream has sent its first full poll. */
  const known = computed(() => facts.value.size > 0)
  const usable = computed(() => (known.value ? [...facts.value.values()].filter((f) => f.enabled && f.state === 'normal').length : null))
  let bound = false

  function bind(): void {
    if (bound) return
    bound = true
    const live = useLive()
    live.on('account', (f) => {
      const next = new Map(facts.value)
      next.set(f.id, f)
      facts.value = next
    })
    live.on('account_removed', ({ id }) => {
      const next = new Map(facts.value)
      next.delete(id)
      facts.value = next
    })
  }

  return { facts, known, usable, bind }
})
