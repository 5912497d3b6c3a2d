// Chromium from Debian driven by playwright-core (never a downloaded browser), plus the
// in-page probes: layout shift, readiness of data regions, axe-core.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { chromium } from 'playwright-core'

const require = createRequire(import.meta.url)
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')

export const CHROMIUM = process.env.SB_CHROMIUM ?? '/usr/bin/chromium'
export const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

export function launch() {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true })
}

/** Installed before any page script: accumulates layout shifts (CLS, without input). */
export const CLS_PROBE = `
  window.__cls = 0;
  window.__shifts = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.hadRecentInput) continue;
      window.__cls += e.value;
      const what = (e.sources || []).slice(0, 3).map((s) => s.node ? (s.node.nodeType === 1 ? s.node.tagName.toLowerCase() + '.' + String(s.node.className).split(' ')[0] : '#text:' + String(s.node.textContent).slice(0, 20)) : '?');
      window.__shifts.push(Math.round(e.startTime) + 'ms ' + e.value.toFixed(4) + ' ' + what.join(', '));
    }
  }).observe({ type: 'layout-shift', buffered: true });
`

export function prefsScript({ theme, locale }) {
  return `localStorage.setItem('sb.prefs', JSON.stringify({ theme: '${theme}', locale: '${locale}', mask: false, quotaMode: 'used', timeZone: 'UTC', sidebarCollapsed: false }));`
}

/** Waits until the page shows data: no skeleton, nothing aria-busy, fonts loaded. */
export async function settled(page, timeout = 15_000) {
  await page.waitForFunction(() => document.querySelector('#main, main') && !document.querySelector('.skeleton, [aria-busy="true"]'), null, { timeout })
  await page.evaluate(() => document.fonts.ready)
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
}

export async function axe(page) {
  await page.evaluate(AXE)
  const result = await page.evaluate(async () => {
    const r = await axe.run(document, { resultTypes: ['violations'] })
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }))
  })
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical')
}
