// @vitest-environment jsdom
// The "Add account" drawer for xAI: OAuth paste-back, device code and import reach the xAI
// admin routes, and reauthorizing an xAI account signs in with xAI.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount, type VueWrapper } from '@vue/test-utils'
import { createPinia } from 'pinia'
import { createMemoryHistory, createRouter } from 'vue-router'
import { i18n } from '@/i18n'
import AddAccount from '@/components/accounts/AddAccount.vue'

interface Call {
  method: string
  path: string
  body: Record<string, unknown> | null
}

const completed = { accountId: 7, created: true, reauthorized: false, email: 'grok@example.com', externalAccountId: 'xai-user-1', credentialState: 'active' }
let calls: Call[] = []
let answers: Record<string, (body: Record<string, unknown> | null) => unknown> = {}

function json(status: number, value: unknown): Response {
  return new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } })
}

beforeAll(() => {
  // jsdom has no modal dialogs.
  HTMLDialogElement.prototype.showModal = function showModal(this: HTMLDialogElement) {
    this.setAttribute('open', '')
  }
  HTMLDialogElement.prototype.close = function close(this: HTMLDialogElement) {
    this.removeAttribute('open')
  }
})

beforeEach(() => {
  calls = []
  answers = {}
  vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
    const path = url.replace('/api/admin', '')
    const body = init.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : null
    calls.push({ method: init.method ?? 'GET', path, body })
    const answer = answers[`${init.method} ${path}`]
    if (!answer) return json(404, { error: { code: 'not_found', message: `no route ${path}` } })
    return json(200, answer(body))
  })
})

afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

function drawer(props: Record<string, unknown> = {}): VueWrapper {
  const router = createRouter({ history: createMemoryHistory(), routes: [{ path: '/:p(.*)*', component: { template: '<div />' } }] })
  return mount(AddAccount, { props: { open: true, ...props }, global: { plugins: [i18n, router, createPinia()] }, attachTo: document.body })
}

async function chooseXai(wrapper: VueWrapper): Promise<void> {
  const xai = wrapper.findAll('[role="radio"]').find((b) => b.text() === 'xAI')!
  await xai.trigger('click')
  expect(xai.attributes('aria-checked')).toBe('true')
}

async function chooseMethod(wrapper: VueWrapper, name: string): Promise<void> {
  await wrapper.findAll('[role="tab"]').find((b) => b.text() === name)!.trigger('click')
}

const authorizeUrl =
  'http://127.0.0.1:9/xai/oauth2/authorize?response_type=code&client_id=c&redirect_uri=http%3A%2F%2F127.0.0.1%3A56121%2Fcallback&state=st-9&nonce=n&code_challenge=x'

describe('Add account for xAI', () => {
  it('offers the three methods instead of a "not built" note', async () => {
    const wrapper = drawer()
    await chooseXai(wrapper)
    expect(wrapper.text()).not.toContain('not built yet')
    expect(wrapper.findAll('[role="tab"]').map((b) => b.text())).toEqual(['OAuth paste-back', 'Device code', 'Import'])
    wrapper.unmount()
  })

  it('signs in by paste-back through the xAI routes, naming the 127.0.0.1:56121 callback', async () => {
    answers['POST /oauth/xai/start'] = () => ({ flowId: 'f1', authorizeUrl, expiresAt: new Date(Date.now() + 1_800_000).toISOString() })
    answers['POST /oauth/xai/complete'] = () => completed
    const wrapper = drawer()
    await chooseXai(wrapper)
    await wrapper.get('[data-testid="oauth-start"]').trigger('click')
    await flushPromises()
    expect(calls.at(-1)).toEqual({ method: 'POST', path: '/oauth/xai/start', body: {} })
    expect(wrapper.get('[data-testid="oauth-1455-warning"]').text()).toContain('127.0.0.1:56121')
    expect(wrapper.get('[data-testid="oauth-paste"]').attributes('placeholder')).toBe('http://127.0.0.1:56121/callback?code=…&state=…')
    await wrapper.get('[data-testid="oauth-paste"]').setValue('http://127.0.0.1:56121/callback?code=ac_x&state=st-9')
    expect(wrapper.get('[data-testid="oauth-found"]').text()).toContain('state matches this sign-in')
    await wrapper.get('[data-testid="oauth-complete"]').trigger('click')
    await flushPromises()
    expect(calls.at(-1)).toEqual({ method: 'POST', path: '/oauth/xai/complete', body: { callbackUrl: '?code=ac_x&state=st-9' } })
    expect(wrapper.get('[data-testid="added-email"]').text()).toBe('grok@example.com')
    expect(wrapper.emitted('added')).toHaveLength(1)
    wrapper.unmount()
  })

  it('signs in with a device code, polling the xAI flow until it completes', async () => {
    vi.useFakeTimers()
    const expiresAt = new Date(Date.now() + 900_000).toISOString()
    answers['POST /oauth/xai/device/start'] = () => ({ flowId: 'd1', userCode: 'ABCD-EFGH', verificationUrl: 'http://127.0.0.1:9/xai/device', expiresAt, intervalSeconds: 5 })
    let polls = 0
    answers['POST /oauth/xai/device/poll'] = () => (++polls < 2 ? { status: 'pending', intervalSeconds: 5 } : { status: 'completed', account: completed })
    const wrapper = drawer()
    await chooseXai(wrapper)
    await chooseMethod(wrapper, 'Device code')
    await wrapper.get('[data-testid="device-start"]').trigger('click')
    await flushPromises()
    expect(wrapper.get('[data-testid="device-code"]').text()).toBe('ABCD-EFGH')
    await vi.advanceTimersByTimeAsync(5_000)
    await vi.advanceTimersByTimeAsync(5_000)
    await flushPromises()
    expect(calls.filter((c) => c.path === '/oauth/xai/device/poll')).toEqual([
      { method: 'POST', path: '/oauth/xai/device/poll', body: { flowId: 'd1' } },
      { method: 'POST', path: '/oauth/xai/device/poll', body: { flowId: 'd1' } },
    ])
    expect(wrapper.get('[data-testid="added-email"]').text()).toBe('grok@example.com')
    wrapper.unmount()
  })

  it('imports a Grok CLI auth.json with a preview before the commit', async () => {
    const entry = { entry: 0, action: 'create', email: 'grok@example.com', externalAccountId: 'xai-user-1', credentialState: 'active', error: null }
    answers['POST /accounts/import'] = (body) => ({ dryRun: body?.dryRun, entries: [entry], created: body?.dryRun ? [] : [7], updated: [] })
    const wrapper = drawer()
    await chooseXai(wrapper)
    await chooseMethod(wrapper, 'Import')
    expect(wrapper.get('[data-testid="import-help"]').text()).toContain('Grok CLI auth.json')
    const content = '{"https://auth.x.ai::client":{"key":"at","auth_mode":"oidc","refresh_token":"rt"}}'
    await wrapper.get('[data-testid="import-content"]').setValue(content)
    const [preview, commit] = wrapper.findAll('button').filter((b) => ['Preview', 'Import'].includes(b.text()) && b.attributes('role') !== 'tab')
    expect(commit!.attributes('disabled')).toBeDefined()
    await preview!.trigger('click')
    await flushPromises()
    expect(calls.at(-1)).toEqual({ method: 'POST', path: '/accounts/import', body: { provider: 'xai', content, dryRun: true } })
    expect(wrapper.text()).toContain('xai-user-1')
    await commit!.trigger('click')
    await flushPromises()
    expect(calls.at(-1)?.body).toEqual({ provider: 'xai', content, dryRun: false })
    expect(wrapper.emitted('added')).toHaveLength(1)
    wrapper.unmount()
  })

  it('reauthorizes an xAI account with xAI, without a provider choice', async () => {
    answers['POST /oauth/xai/start'] = () => ({ flowId: 'f2', authorizeUrl, expiresAt: new Date(Date.now() + 1_800_000).toISOString() })
    const wrapper = drawer({ accountId: 7, accountProvider: 'xai' })
    expect(wrapper.findAll('[role="radio"]')).toHaveLength(0)
    await wrapper.get('[data-testid="oauth-start"]').trigger('click')
    await flushPromises()
    expect(calls).toEqual([{ method: 'POST', path: '/oauth/xai/start', body: { accountId: 7 } }])
    wrapper.unmount()
  })
})
