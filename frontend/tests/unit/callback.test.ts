import { describe, expect, it } from 'vitest'
import { parseCallback, stateOf } from '@/format/callback'

const authorize = 'https://auth.openai.com/oauth/authorize?response_type=code&client_id=app&state=st-123&code_challenge=x'

describe('OAuth paste-back parsing', () => {
  it('reads the state of the authorize URL', () => {
    expect(stateOf(authorize)).toBe('st-123')
    expect(stateOf('not a url')).toBeNull()
  })
  it('accepts the full callback address', () => {
    const p = parseCallback('http://localhost:1455/auth/callback?code=ac_1&scope=openid&state=st-123', 'st-123')
    expect(p).toMatchObject({ code: 'ac_1', state: 'st-123', stateMatches: true, callbackUrl: '?code=ac_1&scope=openid&state=st-123' })
  })
  it('accepts only the query string, with or without ?', () => {
    expect(parseCallback('?code=ac_2&state=st-123', 'st-123').code).toBe('ac_2')
    expect(parseCallback('code=ac_2&state=st-123', 'st-123').callbackUrl).toBe('?code=ac_2&state=st-123')
  })
  it('accepts a bare code and pairs it with the flow state', () => {
    expect(parseCallback('  ac_3 ', 'st-123')).toMatchObject({ code: 'ac_3', stateMatches: true, callbackUrl: '?code=ac_3&state=st-123' })
    expect(parseCallback('ac_3', null).callbackUrl).toBeNull()
  })
  it('flags a foreign callback, a refused consent and a missing code', () => {
    expect(parseCallback('http://localhost:1455/auth/callback?code=ac&state=other', 'st-123').stateMatches).toBe(false)
    expect(parseCallback('http://localhost:1455/auth/callback?error=access_denied&state=st-123', 'st-123')).toMatchObject({ code: null, error: 'access_denied' })
    expect(parseCallback('http://localhost:1455/auth/callback?state=st-123', 'st-123').code).toBeNull()
    expect(parseCallback('', 'st-123').callbackUrl).toBeNull()
  })
})
