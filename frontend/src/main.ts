import { createPinia } from 'pinia'
import { createApp, watch } from 'vue'
import App from './App.vue'
import { setUnauthenticatedHandler } from './api/client'
import { i18n } from './i18n'
import { router } from './router'
import { isRange } from './format/range'
import { notePrefetchTime, overviewQueries } from './pages/overviewQueries'
import { prefetch } from './stores/prefetch'
import { usePrefs } from './stores/prefs'
import { useSession } from './stores/session'
import './styles.css'

const app = createApp(App)
const pinia = createPinia()
app.use(pinia).use(i18n).use(router)

const prefs = usePrefs()

// Landing on the Overview: ask for its data now, in parallel with the session check.
if (window.location.pathname === '/') {
  const range = new URLSearchParams(window.location.search).get('range')
  const now = Date.now()
  notePrefetchTime(now)
  const q = overviewQueries(isRange(range) ? range : '24h', prefs.timeZone, now)
  prefetch('/dashboard/summary', q.summary)
  prefetch('/usage/trend', q.trend)
  prefetch('/accounts', q.accounts)
}
watch(() => prefs.locale, (locale) => ((i18n.global.locale as unknown as { value: string }).value = locale), { immediate: true })

// A 401 on any call: the session expired or was revoked; back to login, then to this URL.
setUnauthenticatedHandler(() => {
  const session = useSession()
  if (!session.signedIn) return
  session.markExpired()
  const current = router.currentRoute.value
  if (current.name !== 'login') void router.push({ name: 'login', query: { next: current.fullPath, expired: '1' } })
})

app.mount('#app')
