import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import en from '@/locales/en'
import zhCN from '@/locales/zh-CN'

function keys(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [prefix]
  return Object.entries(value).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k))
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sources(path) : /\.(vue|ts)$/.test(name) ? [path] : []
  })
}

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()

describe('locales', () => {
  const enKeys = keys(en).sort()
  it('zh-CN has exactly the English keys', () => {
    expect(keys(zhCN).sort()).toEqual(enKeys)
  })
  it('translations keep the same placeholders and plural forms', () => {
    const get = (obj: unknown, key: string) => key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], obj) as string
    for (const key of enKeys) {
      const a = get(en, key)
      const b = get(zhCN, key)
      expect(placeholders(b), key).toEqual(placeholders(a))
      expect(b.split(' | ').length, key).toBe(a.split(' | ').length)
      expect(b.trim(), key).not.toBe('')
    }
  })
  it('every literal key used in the code exists', () => {
    const known = new Set(enKeys)
    const used = sources(join(import.meta.dirname, '../../src')).flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/\bt\('([a-zA-Z0-9_.-]+)'/g)].map((m) => m[1]!))
    const missing = [...new Set(used)].filter((k) => !known.has(k))
    expect(missing).toEqual([])
    expect(used.length).toBeGreaterThan(200)
  })
})
