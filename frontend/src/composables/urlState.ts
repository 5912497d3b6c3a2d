/** Filters, ranges, sort and open detail live in the URL query (shareable; Back works). */
import { computed, type WritableComputedRef } from 'vue'
import { useRoute, useRouter } from 'vue-router'

export function useQueryParam(name: string, fallback = ''): WritableComputedRef<string> {
  const route = useRoute()
  const router = useRouter()
  return computed({
    get: () => {
      const value = route.query[name]
      return typeof value === 'string' ? value : fallback
    },
    set: (value: string) => {
      const query = { ...route.query }
      if (value === fallback || value === '') delete query[name]
      else query[name] = value
      void router.replace({ query })
    },
  })
}
