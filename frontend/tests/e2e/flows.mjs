// The user journeys, in one browser context against the real binary and the simulator.
import assert from 'node:assert/strict'
import { PASSWORD } from './lib/stack.mjs'
import { settled } from './lib/browser.mjs'

export async function signIn(page, base) {
  await page.goto(`${base}/accounts`)
  await page.waitForURL(/\/login\?next=/)
  await page.getByTestId('login-username').fill('admin')
  await page.getByTestId('login-password').fill('wrong-password')
  await page.getByTestId('login-submit').click()
  await page.getByTestId('login-error').waitFor()
  await page.getByTestId('login-password').fill(PASSWORD)
  await page.getByTestId('login-submit').click()
  // Back to the URL asked for before the login.
  await page.waitForURL(`${base}/accounts`)
}

export async function addAccountByOAuth(page, base, context) {
  await page.goto(`${base}/accounts`)
  await settled(page)
  await page.getByTestId('add-account').first().click()
  await page.getByTestId('oauth-start').click()
  const authorizeUrl = (await page.getByTestId('oauth-url').textContent()).trim()
  await page.getByTestId('oauth-1455-warning').waitFor()
  // Sign in "in another tab": the simulator approves and redirects to localhost:1455, which
  // fails to load, exactly as the page warns. The address bar then holds the callback.
  const tab = await context.newPage()
  let callback = null
  tab.on('request', (request) => {
    if (new URL(request.url()).port === '1455') callback = request.url()
  })
  await tab.route((u) => u.port === '1455', (route) => route.abort())
  await tab.goto(authorizeUrl).catch(() => {})
  await tab.close()
  assert.ok(callback?.includes('code='), `no callback captured: ${callback}`)
  await page.getByTestId('oauth-paste').fill(callback)
  const found = await page.getByTestId('oauth-found').textContent()
  assert.match(found, /code found/)
  assert.match(found, /state matches/)
  await page.getByTestId('oauth-complete').click()
  await page.getByTestId('add-success').waitFor()
  const email = (await page.getByTestId('added-email').textContent()).trim()
  assert.ok(email.includes('@'), `account e-mail shown: ${email}`)
  await page.keyboard.press('Escape')
  await page.getByTestId('account-row').first().waitFor()
  return email
}

export async function createAndCopyKey(page, base) {
  await page.goto(`${base}/keys`)
  await settled(page)
  await page.getByTestId('create-key').first().click()
  await page.getByTestId('key-name').fill('e2e-key')
  await page.getByTestId('key-create-submit').click()
  const secret = (await page.getByTestId('key-secret').textContent()).trim()
  assert.match(secret, /^sk-/)
  await page.locator('[data-testid=key-secret] + .copy [data-testid=copy]').click()
  await page.getByText('Copied', { exact: true }).first().waitFor()
  const clip = await page.evaluate(() => navigator.clipboard.readText())
  assert.equal(clip, secret, 'the clipboard holds the key')
  // The close button stays disabled until "I have stored it" is ticked.
  assert.equal(await page.getByTestId('key-reveal-close').isDisabled(), true)
  await page.getByTestId('key-stored').check()
  await page.getByTestId('key-reveal-close').click()
  await page.getByTestId('key-row').first().waitFor()
  assert.equal(await page.content().then((html) => html.includes(secret)), false, 'the secret left the DOM')
  assert.equal(await page.evaluate(() => JSON.stringify(localStorage) + location.href).then((s) => s.includes('sk-')), false)
  return secret
}

async function respond(base, key, input) {
  const r = await fetch(`${base}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-5.4', input, stream: true }) })
  await r.text()
  return r.status
}

export async function watchRequestLive(page, base, key) {
  await page.goto(`${base}/requests`)
  await settled(page)
  await page.waitForFunction(() => document.querySelector('[data-testid=live-status]')?.textContent?.includes('Live'))
  const before = await page.getByTestId('request-row').count()
  assert.equal(await respond(base, key, 'hello from the dashboard test'), 200)
  // No reload: the live stream brings it as a "new requests" pill, then into the table.
  await page.getByTestId('new-requests').waitFor({ timeout: 15_000 })
  await page.getByTestId('new-requests').click()
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=request-row]').length > n, before)
  const first = page.getByTestId('request-row').first()
  await first.click()
  await page.getByTestId('request-detail').waitFor()
}

export async function changeSettingAndUndo(page, base) {
  const read = () => page.evaluate(() => fetch('/api/admin/settings').then((r) => r.json()))
  const original = (await read()).settings.rotationStrategy
  const target = original === 'round_robin' ? 'sticky' : 'round_robin'
  await page.goto(`${base}/settings/routing`)
  await settled(page)
  await page.getByTestId(`strategy-${target}`).check()
  await page.getByTestId('settings-review').click()
  await page.getByTestId('settings-save').click()
  await page.getByTestId('undo').waitFor()
  assert.equal((await read()).settings.rotationStrategy, target)
  await page.getByTestId('undo').click()
  await page.getByText('Change undone.').waitFor()
  assert.equal((await read()).settings.rotationStrategy, original)
}

export async function cooldownAfter429(page, base, key, simJson) {
  const accounts = await simJson('GET', '/_sim/accounts')
  const id = accounts[0]?.id ?? accounts.accounts?.[0]?.id
  await simJson('POST', `/_sim/accounts/${id}/script`, { directive: 'status=429', count: 1 })
  await page.goto(`${base}/accounts`)
  await settled(page)
  const status = await respond(base, key, 'this one is rate limited')
  assert.ok(status >= 400, `the client sees the failure (${status})`)
  // The live stream moves the row to "Rate limited" with its countdown, without a reload.
  const cooled = await page
    .waitForFunction(() => [...document.querySelectorAll('[data-testid=state-badge]')].some((b) => /Rate limited|Quota exhausted/.test(b.textContent)), null, { timeout: 15_000 })
    .then(() => true, () => false)
  const shown = await page.locator('[data-testid=account-row]').first().textContent()
  assert.ok(cooled, `the row shows the account out of rotation: ${shown}`)
  await simJson('DELETE', `/_sim/accounts/${id}/script`)
}

export async function stepUpForAdminKey(page, base) {
  await page.goto(`${base}/settings/security`)
  await settled(page)
  await page.getByTestId('create-admin-key').click()
  await page.getByTestId('step-up-password').fill('not-the-password')
  await page.getByTestId('step-up-submit').click()
  await page.getByText('Wrong password.').waitFor()
  await page.getByTestId('step-up-password').fill(PASSWORD)
  await page.getByTestId('step-up-submit').click()
  const shown = await page.getByTestId('admin-key').locator('code').textContent()
  assert.match(shown, /^sb-admin-/)
  const r = await fetch(`${base}/api/admin/system/version`, { headers: { authorization: `Bearer ${shown}` } })
  assert.equal(r.status, 200, 'the revealed admin API key works')
  assert.equal(await page.getByTestId('step-up-password').count(), 0, 'the password field is gone')
}

export async function errorsNameTheRequestId(page, base) {
  await page.goto(`${base}/requests/0190a0b1-0000-7000-8000-000000000000`)
  const banner = page.getByTestId('request-detail').getByRole('alert')
  await banner.waitFor()
  const text = await banner.textContent()
  assert.match(text, /request id [0-9a-f-]{36}/, `the error names the request id: ${text}`)
  await banner.getByRole('button', { name: 'Retry' }).waitFor()
}

export async function expiredSessionReturnsToTheSamePage(page, base, context) {
  await page.goto(`${base}/accounts`)
  await settled(page)
  await context.clearCookies()
  // A client-side navigation: the next API call answers 401.
  await page.getByTestId('nav-keys').click()
  await page.waitForURL(/\/login\?.*expired=1/)
  await page.getByText('Your session ended').waitFor()
  await page.getByTestId('login-password').fill(PASSWORD)
  await page.getByTestId('login-submit').click()
  await page.waitForURL(`${base}/keys`)
}

export async function editKeyAndUndo(page, base) {
  await page.goto(`${base}/keys`)
  await settled(page)
  const limits = page.getByTestId('key-limits').first()
  assert.match(await limits.textContent(), /unlimited/)
  await page.locator('[data-testid^=edit-key-]').first().click()
  await page.getByRole('spinbutton', { name: 'Requests per minute' }).fill('60')
  await page.getByRole('spinbutton', { name: 'Daily token budget' }).fill('1000')
  await page.getByTestId('key-create-submit').click()
  const saved = await page.getByTestId('undo').waitFor({ timeout: 10_000 }).then(() => true, () => false)
  if (!saved) assert.fail(`no Undo toast; the dialog says: ${await page.locator('dialog[open]').textContent({ timeout: 1000 }).catch(() => '(closed)')}`)
  await page.waitForFunction(() => document.querySelector('[data-testid=key-limits]')?.textContent?.includes('60/min'), null, { timeout: 8000 })
  assert.equal(await page.getByRole('progressbar', { name: 'Daily token budget' }).count(), 1, 'the budget bar shows')
  await page.getByTestId('undo').click()
  await page.waitForFunction(() => document.querySelector('[data-testid=key-limits]')?.textContent?.includes('unlimited'), null, { timeout: 8000 })
}

export async function deviceCodeLogin(page, base, simJson) {
  await simJson('POST', '/_sim/accounts', { id: 'acct-device', plan: 'plus' })
  await page.goto(`${base}/accounts?add=1`)
  await page.getByRole('tab', { name: 'Device code' }).click()
  await page.getByTestId('device-start').click()
  const code = (await page.getByTestId('device-code').textContent()).trim()
  assert.ok(code.length >= 4, `a user code is shown: ${code}`)
  await page.getByText(/code expires in \d+ m/).waitFor()
  await page.getByText(/checking every \d+ s/).waitFor()
  await simJson('POST', '/_sim/device/approve', { user_code: code, account_id: 'acct-device', decision: 'approve' })
  await page.getByTestId('add-success').waitFor({ timeout: 20_000 })
  assert.match(await page.getByTestId('added-email').textContent(), /acct-device/)
  await page.keyboard.press('Escape')
}

export async function updateThatFailsVerification(page, base, version) {
  await page.goto(`${base}/system`)
  await settled(page)
  await page.getByTestId('update-latest').getByText(version).waitFor()
  await page.getByTestId('update-start').click()
  await page.getByTestId('confirm-ok').click()
  // The progress streams in and ends in `failed`: the archive does not match SHA256SUMS.
  await page.getByTestId('update-progress').waitFor()
  const failed = await page
    .waitForFunction(() => document.querySelector('[data-testid=update-phase]')?.textContent === 'failed', null, { timeout: 20_000 })
    .then(() => true, () => false)
  const log = await page.getByTestId('update-progress').textContent()
  assert.ok(failed, `the progress ends in failed: ${log}`)
  assert.match(log, /checksum|SHA-256|sha256/i, log)
  // Nothing was installed: the same version runs and the outcome says why.
  const status = await page.evaluate(() => fetch('/api/admin/system/update').then((r) => r.json()))
  assert.notEqual(status.currentVersion, version)
  assert.equal(status.previousVersion ?? null, null, JSON.stringify(status))
}
