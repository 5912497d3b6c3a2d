import { describe, expect, it } from 'vitest'
import { callbackAddress, parseCallback, stateOf } from '@/format/callback'

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
  it('names the loopback page each provider redirects to', () => {
    const xai = 'https://auth.x.ai/oauth2/authorize?redirect_uri=http%3A%2F%2F127.0.0.1%3A56121%2Fcallback&state=s'
    expect(callbackAddress(xai)).toEqual({ host: '127.0.0.1:56121', example: 'http://127.0.0.1:56121/callback?code=…&state=…' })
    expect(callbackAddress('https://auth.openai.com/oauth/authorize?redirect_uri=http://localhost:1455/auth/callback')?.host).toBe('localhost:1455')
    expect(callbackAddress(authorize)).toBeNull()
    expect(callbackAddress('not a url')).toBeNull()
  })
})
