/** Dates and countdowns: calendar-day aware ("today 13:54", never "tomorrow" for a same-day
 * time), in the admin's IANA zone. */

function dayKey(date: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(date)
}

/** Whole calendar days between two instants in a zone (0 = same day). */
export function calendarDayOffset(target: Date, now: Date, timeZone: string): number {
  const a = Date.parse(dayKey(target, timeZone))
  const b = Date.parse(dayKey(now, timeZone))
  return Math.round((a - b) / 86_400_000)
}

export function formatClock(date: Date, locale: string, timeZone: string): string {
  return new Intl.DateTimeFormat(locale, { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(date)
}

/** "today 13:54" / "yesterday 09:01" / "tomorrow 08:00" / a full date otherwise. */
export function formatCalendar(iso: string | null | undefined, now: Date, locale: string, timeZone: string): string {
  if (!iso) return '—'
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return '—'
  const offset = calendarDayOffset(date, now, timeZone)
  const clock = formatClock(date, locale, timeZone)
  if (offset >= -1 && offset <= 1) {
    const day = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }).format(offset, 'day')
    return `${day} ${clock}`
  }
  return new Intl.DateTimeFormat(locale, { timeZone, month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', year: offset < -300 ? 'numeric' : undefined }).format(date)
}

export function formatAbsolute(iso: string | null | undefined, locale: string, timeZone: string): string {
  if (!iso) return '—'
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return '—'
  return new Intl.DateTimeFormat(locale, { timeZone, dateStyle: 'medium', timeStyle: 'medium', hourCycle: 'h23' }).format(date) + ` (${timeZone})`
}

/** A countdown to `iso`: "2 h 14 m" over an hour, "14 m" over a minute, "42 s" under one,
 * null once passed. Minutes tick each minute; seconds only under a minute. */
export function countdownParts(iso: string | null | undefined, now: number): { hours: number; minutes: number; seconds: number; totalSeconds: number } | null {
  if (!iso) return null
  const target = Date.parse(iso)
  if (Number.isNaN(target)) return null
  const totalSeconds = Math.ceil((target - now) / 1000)
  if (totalSeconds <= 0) return null
  return {
    totalSeconds,
    hours: Math.floor(totalSeconds / 3600),
    minutes: Math.floor((totalSeconds % 3600) / 60),
    seconds: totalSeconds % 60,
  }
}

export function formatCountdown(iso: string | null | undefined, now: number): string | null {
  const parts = countdownParts(iso, now)
  if (!parts) return null
  if (parts.totalSeconds < 60) return `${parts.seconds} s`
  if (parts.hours >= 48) return `${Math.floor(parts.hours / 24)} d ${parts.hours % 24} h`
  if (parts.hours > 0) return `${parts.hours} h ${parts.minutes} m`
  return `${parts.minutes} m`
}

/** The browser's zone, the default display zone. */
export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
}
