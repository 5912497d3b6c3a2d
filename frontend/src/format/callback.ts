/** Parses what the admin pasted in the OAuth paste-back step: the full callback address, only
 * its query string, or the bare code. Shows what was found before anything is submitted. */

export interface ParsedCallback {
  code: string | null
  state: string | null
  /** `error=` of a refused consent (`access_denied`). */
  error: string | null
  /** true/false when the flow's state is known; null when nothing to compare. */
  stateMatches: boolean | null
  /** What the API receives (`callbackUrl`), or null when nothing usable was pasted. */
  callbackUrl: string | null
}

const EMPTY: ParsedCallback = { code: null, state: null, error: null, stateMatches: null, callbackUrl: null }

/** The `state` parameter of the authorize URL the flow started with. */
export function stateOf(authorizeUrl: string): string | null {
  try {
    return new URL(authorizeUrl).searchParams.get('state')
  } catch {
    return null
  }
}

/** The loopback address the provider redirects to after sign-in (`redirect_uri` of the
 * authorize URL): the page that is expected to fail to load. */
export function callbackAddress(authorizeUrl: string): { host: string; example: string } | null {
  try {
    const redirect = new URL(new URL(authorizeUrl).searchParams.get('redirect_uri') ?? '')
    return { host: redirect.host, example: `${redirect.origin}${redirect.pathname}?code=…&state=…` }
  } catch {
    return null
  }
}

export function parseCallback(input: string, expectedState: string | null = null): ParsedCallback {
  const text = input.trim()
  if (!text) return EMPTY
  let query: string
  if (/^https?:\/\//i.test(text)) {
    try {
      query = new URL(text).search.replace(/^\?/, '')
    } catch {
      return EMPTY
    }
  } else if (text.includes('=')) {
    query = text.slice(text.indexOf('?') + 1)
  } else {
    // A bare code: the state is the flow's own.
    const callbackUrl = expectedState ? `?code=${encodeURIComponent(text)}&state=${encodeURIComponent(expectedState)}` : null
    return { code: text, state: expectedState, error: null, stateMatches: expectedState ? true : null, callbackUrl }
  }
  const params = new URLSearchParams(query)
  const code = params.get('code')
  const state = params.get('state')
  const error = params.get('error')
  const stateMatches = expectedState && state ? state === expectedState : state ? null : false
  return { code, state, error, stateMatches, callbackUrl: query ? `?${query}` : null }
}
