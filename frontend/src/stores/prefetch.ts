/** Data the landing page needs, requested while the session is still being checked (one round
 * trip earlier than the page could ask). A page takes its promise once; a 401 here is quiet
 * (the session check decides about sign-in). */
import { api } from '@/api/client'
import type { Answer, Operation } from '@/api/operations'

/** The landing page's requests. */
type Prefetched = '/dashboard/summary' | '/usage/trend' | '/accounts'
type Query = Record<string, string | number | null | undefined>

const pending = new Map<string, Promise<unknown>>()

export function prefetch(path: Prefetched, query: Record<string, string | number>): void {
  const key = `${path}?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`
  const promise: Promise<unknown> = api.get(path, { query, quiet401: true })
  promise.catch(() => undefined)
  pending.set(key, promise)
}

/** The prefetched answer for exactly this request, once; null when there is none. */
export function takePrefetched<P extends Prefetched>(path: P, query: Query): Promise<Answer<Operation<'get', P>>> | null {
  const clean = Object.entries(query).filter(([, v]) => v !== null && v !== undefined && v !== '') as [string, string | number][]
  const key = `${path}?${new URLSearchParams(clean.map(([k, v]) => [k, String(v)]))}`
  const promise = pending.get(key) as Promise<Answer<Operation<'get', P>>> | undefined
  pending.delete(key)
  return promise ?? null
}
