import { describe, expect, it } from 'vitest'
import { proxyProblem, shownProxy } from '@/format/proxy'

describe('egress proxy field', () => {
  it('takes HTTP CONNECT and SOCKS5 URLs with or without credentials', () => {
    expect(proxyProblem('http://proxy.internal:3128')).toBeNull()
    expect(proxyProblem('  http://user:p%40ss@10.0.0.5:3128  ')).toBeNull()
    expect(proxyProblem('socks5://127.0.0.1:1080')).toBeNull()
    expect(proxyProblem('socks5h://bob:secret@proxy.example')).toBeNull()
    expect(proxyProblem('http://[::1]:8080/')).toBeNull()
  })

  it('names the first problem, never echoing the URL', () => {
    expect(proxyProblem('')).toBe('empty')
    expect(proxyProblem('   ')).toBe('empty')
    expect(proxyProblem(`http://h:1/${'a'.repeat(2100)}`)).toBe('tooLong')
    expect(proxyProblem('not a url')).toBe('notUrl')
    expect(proxyProblem('proxy.internal:3128')).toBe('scheme')
    expect(proxyProblem('https://proxy.internal')).toBe('scheme')
    expect(proxyProblem('ftp://u:secret@proxy')).toBe('scheme')
    expect(proxyProblem('http://proxy.internal/path')).toBe('path')
    expect(proxyProblem('http://proxy.internal?x=1')).toBe('path')
    expect(proxyProblem('socks5://:secret@proxy:1080')).toBe('passwordWithoutUser')
  })

  it('shows what the API returns and nothing for a direct route', () => {
    expect(shownProxy(null)).toBeNull()
    expect(shownProxy(undefined)).toBeNull()
    expect(shownProxy({ url: 'socks5://10.0.0.1:1080', hasCredentials: true, readable: false })).toEqual({
      url: 'socks5://10.0.0.1:1080',
      hasCredentials: true,
      readable: false,
    })
  })
})
