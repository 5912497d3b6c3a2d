//! The backup schedule: a 5-field cron expression (`minute hour day-of-month month day-of-week`)
//! with an optional time zone prefix: `CRON_TZ=UTC`, `CRON_TZ=+02:00` (a fixed UTC offset) or
//! `CRON_TZ=Europe/Berlin` (an IANA zone with its daylight-saving changes). Fields take `*`,
//! numbers, ranges `a-b`, steps `*/n` and `a-b/n`, lists `a,b`, and the names `jan`…`dec` /
//! `sun`…`sat`; day-of-week 0 and 7 are Sunday. When both day fields are restricted a day
//! matches either (classic cron).
//!
//! Daylight saving (decision 0218): a local time the clocks skip fires once, at the instant the
//! gap ends (`30 2 * * *` runs at 03:00 on the spring-forward day); a local time that happens
//! twice fires at its first occurrence, and also at its second when the hour field is `*` or
//! `*/n` (an hourly-or-more-often schedule keeps its rhythm through the repeated hour).

mod zone;

pub use zone::{CronZone, LocalInstants};

use time::{Duration, OffsetDateTime, PrimitiveDateTime, UtcOffset};

/// A parsed schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CronSchedule {
    minutes: u64,
    hours: u64,
    days: u64,
    months: u64,
    weekdays: u64,
    days_restricted: bool,
    weekdays_restricted: bool,
    hours_wildcard: bool,
    zone: CronZone,
}

const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const WEEKDAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

impl CronSchedule {
    /// Parses user input; the error says what is wrong in words an admin understands.
    pub fn parse(input: &str) -> Result<Self, String> {
        let mut rest = input.trim();
        let mut zone = CronZone::Fixed(UtcOffset::UTC);
        if let Some(after) = rest.strip_prefix("CRON_TZ=") {
            let (name, tail) = after.split_once(char::is_whitespace).ok_or("CRON_TZ= must be followed by 5 fields")?;
            zone = CronZone::parse(name)?;
            rest = tail.trim_start();
        }
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let [minute, hour, day, month, weekday] = fields.as_slice() else {
            return Err(format!("needs 5 fields (minute hour day-of-month month day-of-week), got {}", fields.len()));
        };
        let mut weekdays = parse_field(weekday, 0, 7, &WEEKDAYS, "day-of-week")?;
        if weekdays & (1 << 7) != 0 {
            weekdays = (weekdays | 1) & !(1 << 7);
        }
        Ok(Self {
            minutes: parse_field(minute, 0, 59, &[], "minute")?,
            hours: parse_field(hour, 0, 23, &[], "hour")?,
            days: parse_field(day, 1, 31, &[], "day-of-month")?,
            months: parse_field(month, 1, 12, &MONTHS, "month")?,
            weekdays,
            days_restricted: !day.starts_with('*'),
            weekdays_restricted: !weekday.starts_with('*'),
            hours_wildcard: hour.starts_with('*'),
            zone,
        })
    }

    /// The first instant strictly after `after` that the schedule fires; `None` if none within
    /// five years (for example `0 0 31 2 *`).
    pub fn next_after(&self, after: OffsetDateTime) -> Option<OffsetDateTime> {
        let local = self.zone.local(after)?;
        // the second pass of a repeated hour ahead lies before `local` on the wall clock
        let start = local.replace_second(0).ok()?.replace_nanosecond(0).ok()? - self.zone.fold_lookback(after)?;
        let limit = start + Duration::days(5 * 366);
        let earliest = |best: Option<OffsetDateTime>, at: OffsetDateTime| Some(best.map_or(at, |b| b.min(at)));
        // Local times map to instants in order, except the second pass of a repeated hour: such
        // a candidate is kept while later local times are looked at.
        let mut best = None;
        let mut t = start;
        while let Some(candidate) = self.next_local_match(t, limit) {
            match self.zone.instants(candidate)? {
                LocalInstants::One(at) | LocalInstants::Gap(at) | LocalInstants::Fold(at, _) if at > after => {
                    return earliest(best, at);
                }
                LocalInstants::Fold(_, second) if self.hours_wildcard && second > after => {
                    best = earliest(best, second);
                }
                _ => {}
            }
            t = candidate + Duration::minutes(1);
        }
        best
    }

    /// The first local wall-clock minute at or after `t` (and not after `limit`) that matches.
    fn next_local_match(&self, mut t: PrimitiveDateTime, limit: PrimitiveDateTime) -> Option<PrimitiveDateTime> {
        while t <= limit {
            if !bit(self.months, u8::from(t.month())) {
                let (year, month) = if t.month() == time::Month::December {
                    (t.year() + 1, time::Month::January)
                } else {
                    (t.year(), t.month().next())
                };
                t = time::Date::from_calendar_date(year, month, 1).ok()?.midnight();
                continue;
            }
            if !self.day_matches(t) {
                t = t.date().next_day()?.midnight();
                continue;
            }
            if !bit(self.hours, t.hour()) {
                t = t.replace_minute(0).ok()? + Duration::hours(1);
                continue;
            }
            if !bit(self.minutes, t.minute()) {
                t += Duration::minutes(1);
                continue;
            }
            return Some(t);
        }
        None
    }

    fn day_matches(&self, t: PrimitiveDateTime) -> bool {
        let day = bit(self.days, t.day());
        let weekday = bit(self.weekdays, t.weekday().number_days_from_sunday());
        match (self.days_restricted, self.weekdays_restricted) {
            (true, true) => day || weekday,
            _ => day && weekday,
        }
    }
}

fn bit(mask: u64, value: u8) -> bool {
    mask & (1u64 << value) != 0
}

fn parse_field(field: &str, min: u8, max: u8, names: &[&str], label: &str) -> Result<u64, String> {
    let mut mask = 0u64;
    for part in field.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((range, step)) => {
                let step: u8 = step.parse().map_err(|_| format!("{label}: bad step in {part:?}"))?;
                if step == 0 {
                    return Err(format!("{label}: step must be at least 1"));
                }
                (range, step)
            }
            None => (part, 1),
        };
        let (low, high) = if range == "*" {
            (min, max)
        } else if let Some((a, b)) = range.split_once('-') {
            (value(a, min, names, label)?, value(b, min, names, label)?)
        } else {
            let v = value(range, min, names, label)?;
            (v, if step > 1 { max } else { v })
        };
        if low < min || high > max || low > high {
            return Err(format!("{label}: {part:?} is outside {min}-{max}"));
        }
        let mut v = low;
        while v <= high {
            mask |= 1u64 << v;
            v = v.saturating_add(step);
        }
    }
    Ok(mask)
}

fn value(text: &str, min: u8, names: &[&str], label: &str) -> Result<u8, String> {
    if let Some(index) = names.iter().position(|n| n.eq_ignore_ascii_case(text)) {
        return u8::try_from(index).map(|i| i + min).map_err(|_| format!("{label}: {text:?}"));
    }
    text.parse().map_err(|_| format!("{label}: {text:?} is not a number"))
}
