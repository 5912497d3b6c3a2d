// Runs before the app: sets the theme on <html> so the first paint has the right colours
// (no flash, no layout shift when the app mounts).
try {
  const stored = JSON.parse(localStorage.getItem('sb.prefs') ?? '{}') as { theme?: string; locale?: string }
  const dark = stored.theme === 'dark' || ((!stored.theme || stored.theme === 'system') && window.matchMedia('(prefers-color-scheme: dark)').matches)
  document.documentElement.dataset.theme = dark ? 'dark' : 'light'
  if (stored.locale) document.documentElement.lang = stored.locale
} catch {
  document.documentElement.dataset.theme = 'light'
}
