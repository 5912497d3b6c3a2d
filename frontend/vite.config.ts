import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import vue from '@vitejs/plugin-vue'
import { defineConfig } from 'vitest/config'
import type { Plugin } from 'vite'

// dist/ holds only .gitkeep in git (the Rust build embeds the folder and must find it);
// vite empties the folder on every build, so put the placeholder back.
const keepPlaceholder = (): Plugin => ({
  name: 'keep-dist-placeholder',
  closeBundle() {
    writeFileSync(resolve(import.meta.dirname, 'dist/.gitkeep'), '')
  },
})

export default defineConfig({
  plugins: [vue(), keepPlaceholder()],
  resolve: { alias: { '@': resolve(import.meta.dirname, 'src') } },
  define: {
    __VUE_OPTIONS_API__: false,
    __VUE_PROD_DEVTOOLS__: false,
    __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: false,
    __INTLIFY_JIT_COMPILATION__: true,
    __INTLIFY_DROP_MESSAGE_COMPILER__: false,
    __INTLIFY_PROD_DEVTOOLS__: false,
  },
  build: {
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 700,
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: { '/api': process.env.SWITCHBOARD_URL ?? 'http://127.0.0.1:8080' },
  },
  test: {
    include: ['tests/unit/**/*.test.ts'],
    environment: 'node',
  },
})
