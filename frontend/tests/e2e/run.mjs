// The dashboard's browser tests: the real binary + simulator, Debian's Chromium through
// playwright-core. Journeys first (one context), then the page matrix in parallel workers,
// then the quality-bar measurements. Writes screenshots and results.json to
// frontend/test-results/ and prints `N passed, N failed`.
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { addAccountByOAuth, changeSettingAndUndo, updateThatFailsVerification, deviceCodeLogin, cooldownAfter429, createAndCopyKey, editKeyAndUndo, errorsNameTheRequestId, expiredSessionReturnsToTheSamePage, signIn, stepUpForAdminKey, watchRequestLive } from './flows.mjs'
import { backupRunVerifyDownloadDelete } from './backupFlow.mjs'
import { launch } from './lib/browser.mjs'
import { startStack } from './lib/stack.mjs'
import { COMBOS, measureRoutes, pageList, runCombo } from './pages.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const frontend = resolve(here, '../..')
const repo = resolve(frontend, '..')
const out = resolve(frontend, 'test-results')
const shots = `${out}/screenshots`
const BUDGET = { cls: 0.02, overviewMs: 1500, pageMs: 2000, shellOverviewKb: 250 }
let passed = 0
let failed = 0
let skipped = 0
const failures = []

function skip(name, reason) {
  skipped++
  console.log(`skip - ${name}: ${reason}`)
}

async function check(name, fn) {
  const t0 = Date.now()
  try {
    await fn()
    passed++
    console.log(`ok - ${name} (${Date.now() - t0} ms)`)
  } catch (e) {
    failed++
    failures.push(name)
    console.log(`not ok - ${name}: ${e.stack ?? e}`)
  }
}

const started = Date.now()
mkdirSync(shots, { recursive: true })
const stack = await startStack(repo)
const browser = await launch()
const report = { flows: [], pages: [], routes: [] }
try {
  await check('the committed OpenAPI document matches the binary', async () => {
    const live = await (await fetch(`${stack.url}/api/admin/openapi.json`)).json()
    writeFileSync(`${out}/openapi.live.json`, JSON.stringify(live, null, 2))
    const committed = JSON.parse(readFileSync(`${frontend}/src/api/openapi.json`, 'utf8'))
    assert.deepEqual(committed, live, 'run `npm run gen:api` after fetching the new document (docs/dashboard.md)')
  })
  await stack.simJson('POST', '/_sim/accounts', { id: 'acct-dash', plan: 'pro' })
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] })
  await context.addInitScript("localStorage.setItem('sb.prefs', JSON.stringify({ theme: 'light', locale: 'en', timeZone: 'UTC' }))")
  const page = await context.newPage()
  let key = null
  await check('sign in (wrong password first, then back to the asked URL)', () => signIn(page, stack.url))
  await check('add an account by OAuth paste-back against the simulator', () => addAccountByOAuth(page, stack.url, context))
  await check('create a key, copy it, and the secret leaves the DOM', async () => (key = await createAndCopyKey(page, stack.url)))
  await check('a request appears live on the Requests page', () => watchRequestLive(page, stack.url, key))
  await check('change a setting and undo it', () => changeSettingAndUndo(page, stack.url))
  await check('edit a key (limit and budget) and undo it', () => editKeyAndUndo(page, stack.url))
  await check('a scripted 429 shows the account cooling down', () => cooldownAfter429(page, stack.url, key, stack.simJson))
  await check('step-up: a wrong password is refused, the right one reveals an admin API key once', () => stepUpForAdminKey(page, stack.url))
  await check('an error names its request id and offers a retry', () => errorsNameTheRequestId(page, stack.url))
  await check('an expired session goes to login and comes back to the same page', () => expiredSessionReturnsToTheSamePage(page, stack.url, context))
  await check('add an account with a device code (countdown, polling, approval)', () => deviceCodeLogin(page, stack.url, stack.simJson))
  await check('the System page starts an update and streams its progress to a failed verification', () => updateThatFailsVerification(page, stack.url, stack.releaseVersion))
  await check('backups: storage set in the form (errors by field), run from the page, live progress to completed and verified, verify, download link after step-up, delete', () => backupRunVerifyDownloadDelete(page, stack.url))
  const storageState = await context.storageState()
  const ids = await page.evaluate(async () => {
    const accounts = await fetch('/api/admin/accounts').then((r) => r.json())
    const records = await fetch('/api/admin/usage/records?limit=1').then((r) => r.json())
    return { account: accounts.items[0]?.id ?? 1, request: records.items[0]?.id ?? 'none' }
  })
  await context.close()

  const only = process.env.SB_E2E_ONLY ?? 'all'
  const pick = process.env.SB_E2E_PAGES?.split(',')
  const pages = pageList(ids).filter(([name]) => !pick || pick.includes(name))
  if (only === 'all' || only === 'matrix') await matrix(pages, storageState)
  if (only === 'all' || only === 'routes') await budgets(pages, storageState)
} finally {
  await browser.close()
  await stack.stop()
  writeFileSync(`${out}/results.json`, JSON.stringify(report, null, 1))
}
console.log(`screenshots: ${shots}`)
console.log(`# browser tests took ${Math.round((Date.now() - started) / 1000)} s`)
if (failures.length) console.log(`failed: ${failures.join('; ')}`)
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exit(failed ? 1 : 0)

async function matrix(pages, storageState) {
  const workers = Number(process.env.SB_E2E_WORKERS ?? 3)
  const queue = [...COMBOS]
  const run = async () => {
    for (let combo = queue.shift(); combo; combo = queue.shift()) report.pages.push(...(await runCombo(browser, stack.url, storageState, combo, pages, shots)))
  }
  await Promise.all(Array.from({ length: workers }, run))
  for (const [name] of pages) {
    const rows = report.pages.filter((r) => r.name === name)
    await check(`${name}: axe finds no serious or critical issue (${rows.length} variants)`, () => {
      const bad = rows.filter((r) => r.violations.length)
      assert.equal(bad.length, 0, JSON.stringify(bad.map((r) => [r.width, r.theme, r.locale, r.violations]), null, 1))
    })
    await check(`${name}: CLS <= ${BUDGET.cls} in every variant (max ${Math.max(...rows.map((r) => r.cls)).toFixed(4)})`, () => {
      const bad = rows.filter((r) => r.cls > BUDGET.cls)
      assert.equal(bad.length, 0, JSON.stringify(bad.map((r) => [r.width, r.theme, r.locale, r.cls, r.shifts])))
    })
    await check(`${name}: no page-level horizontal scroll at 390 px`, () => {
      const bad = rows.filter((r) => r.width === 390 && r.overflow > 1)
      assert.equal(bad.length, 0, JSON.stringify(bad.map((r) => [r.theme, r.locale, r.overflow, r.wide])))
    })
    await check(`${name}: at most 4 page requests, none per row (${Math.max(...rows.map((r) => r.calls))} max)`, () => {
      assert.ok(rows.every((r) => r.calls <= 4 && r.perRow === 0), JSON.stringify(rows.map((r) => [r.calls, r.perRow])))
    })
  }
}

async function budgets(pages, storageState) {
  report.routes = await measureRoutes(browser, stack.url, storageState, pages)
  // Wall-clock budgets mean nothing on an oversubscribed machine (other builds running): the
  // numbers are still printed and written to results.json, but the check is reported as
  // skipped, never as passed, while the 1-minute load is above 1.5 x the cores.
  const cores = availableParallelism()
  for (const r of report.routes) {
    const budget = r.name === 'overview' ? BUDGET.overviewMs : BUDGET.pageMs
    if (r.load1 > cores * 1.5 && r.interactiveMs > budget) {
      skip(`${r.name}: data shown in ${r.interactiveMs} ms with 4x CPU throttle (budget ${budget} ms)`, `machine loaded (load ${r.load1} on ${cores} cores), runs ${r.runsMs.join('/')}`)
      continue
    }
    await check(`${r.name}: data shown in ${r.interactiveMs} ms with 4x CPU throttle, best of ${r.runsMs.join('/')} (API done ${r.apiDoneMs} ms, load ${r.load1}; budget ${budget} ms)`, () => assert.ok(r.interactiveMs <= budget))
  }
  const overview = report.routes.find((r) => r.name === 'overview')
  await check(`shell + overview JS ${overview.jsGzipKb} KB gzip (budget ${BUDGET.shellOverviewKb} KB; the ECharts chunk, loaded when idle: ${overview.chartGzipKb} KB)`, () => assert.ok(overview.jsGzipKb <= BUDGET.shellOverviewKb))
  for (const r of report.routes) console.log(`# js ${r.name}: ${r.jsGzipKb} KB gzip${r.chartGzipKb ? ` + charts ${r.chartGzipKb} KB` : ''}`)
}
