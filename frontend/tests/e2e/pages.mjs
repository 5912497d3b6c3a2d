// Every page × {390, 1440} px × {light, dark} × {en, zh-CN}: screenshot, axe-core (0
// serious/critical), cumulative layout shift ≤ 0.02, no page-level horizontal scroll, no
// per-row requests. Quality-bar timings (4× CPU throttle) and JS per route on one pass.
import { mkdirSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { CLS_PROBE, axe, prefsScript, settled } from './lib/browser.mjs'

export function pageList(ids) {
  return [
    ['login', '/login'],
    ['overview', '/'],
    ['accounts', '/accounts'],
    ['account-detail', `/accounts/${ids.account}`],
    ['groups', '/groups'],
    ['keys', '/keys'],
    ['requests', `/requests/${ids.request}`],
    ['insights', '/insights'],
    ['settings', '/settings/routing'],
    ['backups', '/backups'],
    ['audit', '/audit'],
    ['ops', '/ops'],
    ['system', '/system'],
  ]
}

export const COMBOS = [390, 1440].flatMap((width) => ['light', 'dark'].flatMap((theme) => ['en', 'zh-CN'].map((locale) => ({ width, theme, locale }))))

/** API calls a page load made (the shell's own calls excluded). */
function pageCalls(urls) {
  return urls.filter((u) => !/\/api\/admin\/(events|auth\/session|system\/version)$/.test(new URL(u).pathname))
}

export async function runCombo(browser, base, storageState, combo, pages, outDir) {
  mkdirSync(outDir, { recursive: true })
  const context = await browser.newContext({ viewport: { width: combo.width, height: 900 }, storageState, colorScheme: combo.theme, reducedMotion: 'reduce' })
  await context.addInitScript(prefsScript(combo))
  await context.addInitScript(CLS_PROBE)
  const results = []
  for (const [name, path] of pages) {
    const page = await context.newPage()
    if (name === 'login') await context.clearCookies()
    const calls = []
    page.on('request', (r) => r.url().includes('/api/admin/') && calls.push(r.url()))
    const t0 = Date.now()
    await page.goto(`${base}${path}`)
    await settled(page)
    await page.waitForTimeout(300)
    const cls = await page.evaluate(() => window.__cls)
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    const violations = await axe(page)
    const file = `${outDir}/${name}-${combo.width}-${combo.theme}-${combo.locale}.png`
    await page.screenshot({ path: file, fullPage: true })
    const own = pageCalls(calls)
    results.push({ name, ...combo, cls, overflow, violations, calls: own.length, perRow: own.filter((u) => /\/accounts\/\d+\/(quota|usage|probe)|\/keys\/\d+\/usage/.test(u)).length, ms: Date.now() - t0, file })
    await page.close()
    if (name === 'login' && storageState) await context.addCookies(storageState.cookies)
  }
  await context.close()
  return results
}

/** JS bytes per route (gzip) on a cold load, and time until data is shown with 4× CPU throttle. */
export async function measureRoutes(browser, base, storageState, pages) {
  const out = []
  for (const [name, path] of pages) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, storageState: name === 'login' ? undefined : storageState })
    await context.addInitScript(prefsScript({ theme: 'light', locale: 'en' }))
    const page = await context.newPage()
    const cdp = await context.newCDPSession(page)
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true })
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 })
    const scripts = []
    page.on('response', async (r) => {
      if (r.request().resourceType() === 'script') {
        try { scripts.push({ url: r.url(), gz: gzipSync(await r.body()).length }) } catch { /* navigation away */ }
      }
    })
    await page.goto(`${base}${path}`)
    await settled(page, 30_000)
    const interactive = await page.evaluate(() => performance.now())
    await page.waitForTimeout(800)
    const js = scripts.reduce((n, s) => n + s.gz, 0)
    const chartJs = scripts.filter((s) => /echarts/.test(s.url)).reduce((n, s) => n + s.gz, 0)
    out.push({ name, interactiveMs: Math.round(interactive), jsGzipKb: +(js / 1024).toFixed(1), chartGzipKb: +(chartJs / 1024).toFixed(1) })
    await context.close()
  }
  return out
}
