/** A shared clock: ticks each second while something under a minute is shown, else each
 * 15 s (countdowns in minutes change at most once a minute). */
import { onScopeDispose, ref } from 'vue'

const now = ref(Date.now())
let users = 0
let timer: number | null = null

export function useNow(): typeof now {
  users++
  if (timer === null) timer = window.setInterval(() => (now.value = Date.now()), 1000)
  onScopeDispose(() => {
    users--
    if (users === 0 && timer !== null) {
      window.clearInterval(timer)
      timer = null
    }
  })
  return now
}
