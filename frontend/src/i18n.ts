/** vue-i18n with English and Simplified Chinese; numbers and dates through Intl. */
import { createI18n } from 'vue-i18n'
import en from '@/locales/en'
import zhCN from '@/locales/zh-CN'

const datetimeFormats = {
  en: { time: { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }, short: { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } },
  'zh-CN': { time: { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }, short: { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } },
} as const

export type MessageSchema = typeof en

export const i18n = createI18n<[MessageSchema], 'en' | 'zh-CN'>({
  legacy: false,
  locale: 'en',
  fallbackLocale: 'en',
  messages: { en, 'zh-CN': zhCN },
  datetimeFormats: datetimeFormats as never,
  missingWarn: false,
  fallbackWarn: false,
})
