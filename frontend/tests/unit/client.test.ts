// The admin client is typed by path: the answer, path parameters, query and body come from the
// OpenAPI document (the type half is checked by `npm run typecheck`, tsconfig.node.json), and
// the transport keeps its behaviour (parameters in the path, empty query values left out, the
// CSRF header on unsafe methods, `{}` for a POST without body, errors as `ApiError`).
import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest'
import { api, ApiError, setCsrfToken } from '@/api/client'
import type { RecordDetail, RecordItem, RecordList } from '@/api/types'
import * as sets from '@/api/closedSets'

interface Sent {
  method: string
  url: string
  headers: Record<string, string>
  body: string | undefined
}

let sent: Sent[] = []
let answer: () => Response = () => new Response('{}', { status: 200 })

beforeEach(() => {
  sent = []
  vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
    sent.push({ method: init.method ?? 'GET', url, headers: init.headers as Record<string, string>, body: init.body as string | undefined })
    return answer()
  })
})

afterEach(() => {
  setCsrfToken(null)
  vi.unstubAllGlobals()
})

/** Never run: calls whose types are the test. */
function typedCalls(): void {
  expectTypeOf(api.get('/usage/records')).resolves.toEqualTypeOf<RecordList>()
  expectTypeOf(api.get('/usage/records/{id}', { path: { id: 'r-1' } })).resolves.toEqualTypeOf<RecordDetail>()
  expectTypeOf<RecordItem['status']>().toEqualTypeOf<'running' | 'completed' | 'failed' | 'incomplete' | 'cancelled'>()
  expectTypeOf<RecordItem['sendState']>().toEqualTypeOf<'not_sent' | 'ambiguous' | 'sent'>()
  expectTypeOf<RecordItem['transport']>().toEqualTypeOf<'http' | 'websocket'>()
  expectTypeOf<NonNullable<RecordItem['provider']>>().toEqualTypeOf<'openai' | 'xai'>()
  expectTypeOf<RecordItem['routingScope']>().toEqualTypeOf<'all' | 'groups'>()
  expectTypeOf<RecordDetail['attempts'][number]['sendState']>().toEqualTypeOf<'not_sent' | 'ambiguous' | 'sent'>()
  // The filter lists hold every member of the document's sets.
  expectTypeOf<(typeof sets.REQUEST_STATUSES)[number]>().toEqualTypeOf<RecordItem['status']>()
  expectTypeOf<(typeof sets.TRANSPORTS)[number]>().toEqualTypeOf<RecordItem['transport']>()
  expectTypeOf<(typeof sets.PROVIDERS)[number]>().toEqualTypeOf<sets.Provider>()
  expectTypeOf<(typeof sets.ACCOUNT_STATES)[number]>().toEqualTypeOf<sets.AccountState>()
  expectTypeOf<(typeof sets.OPS_LEVELS)[number]>().toEqualTypeOf<sets.OpsLevel>()
  expectTypeOf<(typeof sets.INSIGHT_DIMENSIONS)[number]>().toEqualTypeOf<sets.InsightDimension>()
  expectTypeOf<(typeof sets.BUCKETS)[number]>().toEqualTypeOf<sets.Bucket>()
  // @ts-expect-error a path the document does not have
  void api.get('/usage/record')
  // @ts-expect-error GET /accounts/{id} needs its path parameter
  void api.get('/accounts/{id}')
  // @ts-expect-error the path parameter has the document's type
  void api.get('/accounts/{id}', { path: { id: 'seven' } })
  // @ts-expect-error a status the document does not have
  void api.get('/usage/records', { query: { status: 'done' } })
  // @ts-expect-error a query parameter the document does not have
  void api.get('/usage/records', { query: { colour: 'red' } })
  // @ts-expect-error PATCH /accounts/{id} needs its body
  void api.patch('/accounts/{id}', { path: { id: 7 } })
  // @ts-expect-error a body field of the wrong type
  void api.patch('/accounts/{id}', { path: { id: 7 }, body: { enabled: 'yes' } })
  // @ts-expect-error no PUT on this path
  void api.put('/usage/records')
}

describe('the closed sets', () => {
  it('read a URL value outside the set as absent', () => {
    expect(sets.memberOf(sets.REQUEST_STATUSES, 'failed')).toBe('failed')
    expect(sets.memberOf(sets.REQUEST_STATUSES, 'done')).toBeUndefined()
    expect(sets.memberOf(sets.TRANSPORTS, '')).toBeUndefined()
  })
})

describe('the typed admin client', () => {
  it('type-checks calls by path (see typedCalls)', () => {
    expect(typedCalls).toBeTypeOf('function')
  })

  it('fills path parameters and leaves empty query values out', async () => {
    answer = () => new Response(JSON.stringify({ items: [], nextCursor: null }), { status: 200 })
    await api.get('/usage/records', { query: { status: 'failed', model: '', transport: undefined, limit: 50 } })
    await api.get('/usage/records/{id}', { path: { id: 'a b/c' } })
    expect(sent.map((s) => s.url)).toEqual(['/api/admin/usage/records?status=failed&limit=50', '/api/admin/usage/records/a%20b%2Fc'])
    expect(sent[0]!.method).toBe('GET')
  })

  it('sends the CSRF header on unsafe methods only, and {} for a POST without body', async () => {
    setCsrfToken('csrf-1')
    await api.get('/groups')
    await api.post('/audit/verify')
    await api.patch('/accounts/{id}', { path: { id: 7 }, body: { enabled: false } })
    expect(sent.map((s) => [s.method, s.headers['X-Switchboard-CSRF'], s.body])).toEqual([
      ['GET', undefined, undefined],
      ['POST', 'csrf-1', '{}'],
      ['PATCH', 'csrf-1', '{"enabled":false}'],
    ])
  })

  it('passes extra headers through', async () => {
    await api.patch('/settings', { body: {}, headers: { 'If-Match': '3' } })
    expect(sent[0]!.headers['If-Match']).toBe('3')
  })

  it('throws the error envelope as ApiError with the request id', async () => {
    answer = () =>
      new Response(JSON.stringify({ error: { code: 'invalid_request', message: 'bad', fields: [{ field: 'limit', message: 'too big' }] } }), {
        status: 422,
        headers: { 'x-request-id': 'req-1' },
      })
    const error = await api.get('/usage/records').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({ status: 422, code: 'invalid_request', requestId: 'req-1', fields: [{ field: 'limit', message: 'too big' }] })
  })
})
