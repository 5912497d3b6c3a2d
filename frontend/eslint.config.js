import pluginVue from 'eslint-plugin-vue'
import { defineConfigWithVueTs, vueTsConfigs } from '@vue/eslint-config-typescript'

export default defineConfigWithVueTs(
  { ignores: ['dist/**', 'node_modules/**', 'src/api/schema.d.ts', 'test-results/**'] },
  pluginVue.configs['flat/recommended'],
  vueTsConfigs.recommended,
  {
    files: ['src/**/*.vue'],
    rules: {
      // i18n: every visible string comes from the locale files.
      'vue/no-bare-strings-in-template': [
        'error',
        { allowlist: ['·', '—', '→', '/', '%', '×', '…', '(', ')', ':', '+', '-', '#', '•', '✓', '✗', '|', '$', 'n/a', 'Ctrl', 'K', 'Esc', '?', 'j', 'k', 'x', 'Enter', 'en', 'Switchboard', 'p50', 'p95', 'p99', 'TTFT', 'English', '简体中文', 'HTTP', 'WebSocket', 'SSE'] },
      ],
      'vue/multi-word-component-names': 'off',
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
      'vue/max-len': 'off',
      'vue/html-indent': 'off',
      'vue/html-closing-bracket-newline': 'off',
      'vue/multiline-html-element-content-newline': 'off',
    },
  },
  {
    files: ['tests/**/*.mjs'],
    languageOptions: { globals: { axe: 'readonly', process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', performance: 'readonly', document: 'readonly', window: 'readonly', navigator: 'readonly', PerformanceObserver: 'readonly', Buffer: 'readonly', fetch: 'readonly', AbortSignal: 'readonly' } },
  },
)
