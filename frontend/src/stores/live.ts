/** Live data: one SSE stream (`GET /api/admin/events`) with typed events, a 30 s polling
 * fallback when the stream cannot be held, both paused while the tab is hidden and refreshed
 * at once on return. Pages subscribe to events and to `tick` (a refetch signal). */
import { defineStore } from 'pinia'
import { ref } from 'vue'
import { API_BASE } from '@/api/client'
import type { BackupView, OpsEventItem, RecordItem } from '@/api/types'
import type { AccountFacts } from './pool'

export type LiveStatus = 'connecting' | 'live' | 'polling' | 'offline'
export type LiveEventName = keyof LiveEvents
/** What each event carries (the stream is not in the OpenAPI document; the admin API's
 * `admin/live_events.rs` sends these shapes, most of them the list endpoints' items). */
export interface LiveEvents {
  hello: { configRevision: number }
  config_revision: { configRevision: number }
  resync: Record<string, never>
  account: AccountFacts
  account_removed: { id: number }
  ops_event: OpsEventItem
  request: RecordItem
  backup: BackupView
  backup_removed: { id: number }
  error: { code: string; message: string }
}
type Handler = (data: never) => void

export const POLL_MS = 30_000
/** After this many stream failures in a row the page polls instead. */
const MAX_STREAM_FAILURES = 3

export const useLive = defineStore('live', () => {
  const status = ref<LiveStatus>('connecting')
  const lastUpdate = ref<number | null>(null)
  const configRevision = ref<number | null>(null)
  /** Incremented whenever pages should refetch (poll, resync, return to the tab). */
  const tick = ref(0)
  const handlers = new Map<LiveEventName, Set<Handler>>()
  let source: EventSource | null = null
  let pollTimer: number | null = null
  let failures = 0
  let started = false

  function on<N extends LiveEventName>(name: N, handler: (data: LiveEvents[N]) => void): () => void {
    const set = handlers.get(name) ?? new Set<Handler>()
    set.add(handler as Handler)
    handlers.set(name, set)
    return () => set.delete(handler)
  }

  function emit(name: LiveEventName, data: unknown): void {
    lastUpdate.value = Date.now()
    // The one place the stream's JSON becomes its event's type.
    handlers.get(name)?.forEach((h) => (h as (data: unknown) => void)(data))
  }

  function refetch(): void {
    lastUpdate.value = Date.now()
    tick.value++
  }

  function startPolling(): void {
    status.value = navigator.onLine === false ? 'offline' : 'polling'
    if (pollTimer === null) pollTimer = window.setInterval(refetch, POLL_MS)
  }

  function stopPolling(): void {
    if (pollTimer !== null) window.clearInterval(pollTimer)
    pollTimer = null
  }

  function connect(): void {
    if (source || typeof EventSource === 'undefined') {
      if (typeof EventSource === 'undefined') startPolling()
      return
    }
    status.value = 'connecting'
    const es = new EventSource(`${API_BASE}/events`)
    source = es
    const names: LiveEventName[] = ['hello', 'config_revision', 'resync', 'account', 'account_removed', 'ops_event', 'request', 'backup', 'backup_removed', 'error']
    for (const name of names) {
      es.addEventListener(name, (event) => {
        let data: unknown = null
        try {
          data = JSON.parse((event as MessageEvent<string>).data)
        } catch {
          return
        }
        if (name === 'hello' || name === 'config_revision') {
          configRevision.value = (data as { configRevision: number }).configRevision
        }
        if (name === 'hello') {
          failures = 0
          status.value = 'live'
          stopPolling()
        }
        if (name === 'resync' || name === 'config_revision') refetch()
        emit(name, data)
      })
    }
    es.onerror = () => {
      if (es.readyState === EventSource.CLOSED || ++failures >= MAX_STREAM_FAILURES) {
        es.close()
        source = null
        startPolling()
        // Try the stream again later; polling covers the gap.
        window.setTimeout(() => {
          if (started && !document.hidden && !source) connect()
        }, POLL_MS)
      } else {
        status.value = 'connecting'
      }
    }
  }

  function disconnect(): void {
    source?.close()
    source = null
    stopPolling()
  }

  function onVisibility(): void {
    if (!started) return
    if (document.hidden) {
      disconnect()
    } else {
      connect()
      refetch()
    }
  }

  function start(): void {
    if (started) return
    started = true
    document.addEventListener('visibilitychange', onVisibility)
    window.addEventListener('online', () => started && connect())
    window.addEventListener('offline', () => (status.value = 'offline'))
    connect()
  }

  function stop(): void {
    started = false
    document.removeEventListener('visibilitychange', onVisibility)
    disconnect()
    status.value = 'connecting'
  }

  return { status, lastUpdate, configRevision, tick, on, start, stop, refetch }
})
