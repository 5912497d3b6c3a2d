/** Display preferences, kept in localStorage (never secrets): theme, language, privacy mask,
 * quota bars as used or remaining, display zone. */
import { defineStore } from 'pinia'
import { ref, watch } from 'vue'
import { browserZone } from '@/format/time'

export type ThemeChoice = 'light' | 'dark' | 'system'
export type Locale = 'en' | 'zh-CN'

const KEY = 'sb.prefs'

interface Stored {
  theme: ThemeChoice
  locale: Locale
  mask: boolean
  quotaMode: 'used' | 'remaining'
  timeZone: string
  sidebarCollapsed: boolean
}

function load(): Partial<Stored> {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? '{}') as Partial<Stored>
  } catch {
    return {}
  }
}

function initialLocale(): Locale {
  return navigator.language?.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en'
}

export function resolvedTheme(choice: ThemeChoice): 'light' | 'dark' {
  if (choice !== 'system') return choice
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'
}

export const usePrefs = defineStore('prefs', () => {
  const stored = load()
  const theme = ref<ThemeChoice>(stored.theme ?? 'system')
  const locale = ref<Locale>(stored.locale ?? initialLocale())
  const mask = ref(stored.mask ?? false)
  const quotaMode = ref<'used' | 'remaining'>(stored.quotaMode ?? 'used')
  const timeZone = ref(stored.timeZone ?? browserZone())
  const sidebarCollapsed = ref(stored.sidebarCollapsed ?? false)
  const effectiveTheme = ref<'light' | 'dark'>(resolvedTheme(theme.value))

  function applyTheme(): void {
    effectiveTheme.value = resolvedTheme(theme.value)
    document.documentElement.dataset.theme = effectiveTheme.value
  }
  window.matchMedia?.('(prefers-color-scheme: dark)').addEventListener?.('change', applyTheme)
  watch(theme, applyTheme, { immediate: true })
  watch(locale, (value) => (document.documentElement.lang = value), { immediate: true })
  watch([theme, locale, mask, quotaMode, timeZone, sidebarCollapsed], () => {
    const value: Stored = {
      theme: theme.value,
      locale: locale.value,
      mask: mask.value,
      quotaMode: quotaMode.value,
      timeZone: timeZone.value,
      sidebarCollapsed: sidebarCollapsed.value,
    }
    localStorage.setItem(KEY, JSON.stringify(value))
  })

  return { theme, locale, mask, quotaMode, timeZone, sidebarCollapsed, effectiveTheme }
})
