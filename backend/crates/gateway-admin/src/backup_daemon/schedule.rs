//! The backup schedule: a 5-field cron expression (`minute hour day-of-month month day-of-week`)
//! with an optional time zone prefix `CRON_TZ=UTC` or `CRON_TZ=+02:00` (a fixed UTC offset).
//! Fields take `*`, numbers, ranges `a-b`, steps `*/n` and `a-b/n`, lists `a,b`, and the names
//! `jan`…`dec` / `sun`…`sat`; day-of-week 0 and 7 are Sunday. When both day fields are
//! restricted a day matches either (classic cron).

use time::{Duration, OffsetDateTime, UtcOffset};

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
    offset: UtcOffset,
}

const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const WEEKDAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

impl CronSchedule {
    /// Parses user input; the error says what is wrong in words an admin understands.
    pub fn parse(input: &str) -> Result<Self, String> {
        let mut rest = input.trim();
        let mut offset = UtcOffset::UTC;
        if let Some(after) = rest.strip_prefix("CRON_TZ=") {
            let (zone, tail) = after.split_once(char::is_whitespace).ok_or("CRON_TZ= must be followed by 5 fields")?;
            offset = parse_offset(zone)?;
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
            offset,
        })
    }

    /// The first instant strictly after `after` that the schedule fires; `None` if none within
    /// five years (for example `0 0 31 2 *`).
    pub fn next_after(&self, after: OffsetDateTime) -> Option<OffsetDateTime> {
        let local = after.to_offset(self.offset);
        let mut t = local.replace_second(0).ok()?.replace_nanosecond(0).ok()? + Duration::minutes(1);
        let limit = local + Duration::days(5 * 366);
        while t <= limit {
            if !bit(self.months, u8::from(t.month())) {
                let (year, month) = if t.month() == time::Month::December {
                    (t.year() + 1, time::Month::January)
                } else {
                    (t.year(), t.month().next())
                };
                let date = time::Date::from_calendar_date(year, month, 1).ok()?;
                t = date.midnight().assume_offset(self.offset);
                continue;
            }
            if !self.day_matches(t) {
                t = (t.date().next_day()?).midnight().assume_offset(self.offset);
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
            return Some(t.to_offset(UtcOffset::UTC));
        }
        None
    }

    fn day_matches(&self, t: OffsetDateTime) -> bool {
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

fn parse_offset(zone: &str) -> Result<UtcOffset, String> {
    if zone.eq_ignore_ascii_case("UTC") || zone == "Z" {
        return Ok(UtcOffset::UTC);
    }
    let bad =
        || format!("CRON_TZ={zone}: use UTC or a fixed offset such as +02:00 (zone names are not built yet, issue 21)");
    let (sign, digits) = match zone.as_bytes().first() {
        Some(b'+') => (1i8, &zone[1..]),
        Some(b'-') => (-1i8, &zone[1..]),
        _ => return Err(bad()),
    };
    let (h, m) = digits.split_once(':').ok_or_else(bad)?;
    let h: i8 = h.parse().map_err(|_| bad())?;
    let m: i8 = m.parse().map_err(|_| bad())?;
    UtcOffset::from_hms(sign * h, sign * m, 0).map_err(|_| bad())
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
