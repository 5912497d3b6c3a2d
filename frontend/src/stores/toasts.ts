/** Toasts, announced through a live region; an Undo toast stays 10 s and re-applies the
 * previous values the API returned. */
import { defineStore } from 'pinia'
import { ref } from 'vue'

export interface Toast {
  id: number
  kind: 'success' | 'error' | 'info'
  message: string
  requestId?: string | null
  undo?: () => Promise<void>
  timeout: number
}

let nextId = 1

export const useToasts = defineStore('toasts', () => {
  const items = ref<Toast[]>([])

  function dismiss(id: number): void {
    items.value = items.value.filter((t) => t.id !== id)
  }

  function push(toast: Omit<Toast, 'id' | 'timeout'> & { timeout?: number }): number {
    const id = nextId++
    const timeout = toast.timeout ?? (toast.undo ? 10_000 : toast.kind === 'error' ? 8000 : 4000)
    items.value = [...items.value.slice(-3), { ...toast, id, timeout }]
    window.setTimeout(() => dismiss(id), timeout)
    return id
  }

  return { items, push, dismiss }
})
