/** Privacy mask for e-mails: `alice@example.com` → `a•••@e…`. Anything without `@` keeps its
 * first character. */
export function maskEmail(value: string | null | undefined): string {
  if (!value) return ''
  const at = value.indexOf('@')
  if (at < 0) return value.length <= 1 ? value : `${value[0]}•••`
  const local = value.slice(0, at)
  const domain = value.slice(at + 1)
  return `${local.slice(0, 1)}•••@${domain.slice(0, 1)}…`
}
