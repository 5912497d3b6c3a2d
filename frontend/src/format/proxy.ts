/** Egress proxy URLs in the forms (issue 18): a first check before the admin API's own (which
 * also applies the SSRF address policy), and what a view shows. The URL is write-only: it is
 * never put back into a field, and a message never repeats it. */

export type ProxyProblem = 'empty' | 'tooLong' | 'notUrl' | 'scheme' | 'host' | 'path' | 'passwordWithoutUser'

const SCHEMES = new Set(['http:', 'socks5:', 'socks5h:'])

/** `null` when the URL may be sent; else the first problem found. */
export function proxyProblem(raw: string): ProxyProblem | null {
  const text = raw.trim()
  if (!text) return 'empty'
  if (text.length > 2048) return 'tooLong'
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'notUrl'
  }
  if (!SCHEMES.has(url.protocol)) return 'scheme'
  if (!url.hostname) return 'host'
  if ((url.pathname && url.pathname !== '/') || url.search || url.hash) return 'path'
  if (!url.username && url.password) return 'passwordWithoutUser'
  return null
}

export interface ProxyShown {
  url: string
  hasCredentials: boolean
  readable: boolean
}

/** The view's proxy, or `null` for a direct route. */
export function shownProxy(view: ProxyShown | null | undefined): ProxyShown | null {
  return view ? { url: view.url, hasCredentials: view.hasCredentials, readable: view.readable } : null
}
