/** The admin session: who is signed in, the CSRF token, login/logout, and the expired-session
 * path (back to /login with the URL to return to). */
import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import { ApiError, api, setCsrfToken } from '@/api/client'
import type { CurrentSession } from '@/api/types'

export const useSession = defineStore('session', () => {
  const current = ref<CurrentSession | null>(null)
  const checked = ref(false)
  const expired = ref(false)
  /** When the last step-up succeeded (5-minute grace for sensitive actions). */
  const stepUpAt = ref(0)

  const signedIn = computed(() => current.value !== null)
  const username = computed(() => current.value?.user.username ?? '')

  async function check(): Promise<boolean> {
    try {
      const session = await api.get('/auth/session', { quiet401: true })
      current.value = session
      setCsrfToken(session.session?.csrfToken ?? null)
      return true
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        current.value = null
        return false
      }
      throw error
    } finally {
      checked.value = true
    }
  }

  async function login(username: string, password: string, totp?: string): Promise<void> {
    const response = await api.post('/auth/login', {
      body: { username, password, ...(totp ? { totp } : {}) },
      quiet401: true,
    })
    setCsrfToken(response.session.csrfToken)
    expired.value = false
    await check()
  }

  async function logout(): Promise<void> {
    try {
      await api.post('/auth/logout')
    } finally {
      current.value = null
      setCsrfToken(null)
    }
  }

  function markExpired(): void {
    current.value = null
    expired.value = true
    setCsrfToken(null)
  }

  return { current, checked, expired, signedIn, username, stepUpAt, check, login, logout, markExpired }
})
