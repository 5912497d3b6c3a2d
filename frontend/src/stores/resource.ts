/** One data region's state: loading (skeleton), data, empty, error (message + request id),
 * stale (data older than two refresh periods), refetched on the live tick. */
import { computed, onScopeDispose, ref, shallowRef, watch, type Ref, type WatchSource } from 'vue'
import { ApiError } from '@/api/client'
import { POLL_MS, useLive } from './live'

export interface Resource<T> {
  data: Ref<T | null>
  error: Ref<ApiError | null>
  loading: Ref<boolean>
  /** Loading with nothing to show yet (skeleton). */
  initial: Ref<boolean>
  stale: Ref<boolean>
  fetchedAt: Ref<number | null>
  reload: () => Promise<void>
  /** Replace the data in place (live patches, optimistic edits). */
  mutate: (fn: (value: T) => T) => void
}

export function useResource<T>(
  fetcher: (signal: AbortSignal) => Promise<T>,
  options: { deps?: WatchSource[]; live?: boolean } = {},
): Resource<T> {
  const live = useLive()
  const data = shallowRef<T | null>(null) as Ref<T | null>
  const error = ref<ApiError | null>(null) as Ref<ApiError | null>
  const loading = ref(false)
  const fetchedAt = ref<number | null>(null)
  const now = ref(Date.now())
  let controller: AbortController | null = null

  async function reload(): Promise<void> {
    controller?.abort()
    const current = new AbortController()
    controller = current
    loading.value = true
    try {
      const value = await fetcher(current.signal)
      if (current.signal.aborted) return
      data.value = value
      error.value = null
      fetchedAt.value = Date.now()
    } catch (e) {
      if (current.signal.aborted || (e instanceof DOMException && e.name === 'AbortError')) return
      error.value = e instanceof ApiError ? e : new ApiError(0, 'client_error', String(e), null)
    } finally {
      if (controller === current) loading.value = false
    }
  }

  const timer = window.setInterval(() => (now.value = Date.now()), 10_000)
  onScopeDispose(() => {
    window.clearInterval(timer)
    controller?.abort()
  })
  if (options.deps?.length) watch(options.deps, () => void reload())
  if (options.live !== false) watch(() => live.tick, () => void reload())
  void reload()

  return {
    data,
    error,
    loading,
    initial: computed(() => data.value === null && error.value === null),
    stale: computed(() => fetchedAt.value !== null && now.value - fetchedAt.value > 2 * POLL_MS),
    fetchedAt,
    reload,
    mutate: (fn) => {
      if (data.value !== null) data.value = fn(data.value)
    },
  }
}
