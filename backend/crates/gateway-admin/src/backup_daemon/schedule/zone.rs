//! The schedule's time zone: a fixed UTC offset or an IANA zone name resolved from the tz
//! database bundled into the binary (the image may have no `/usr/share/zoneinfo`; decision
//! 0218). It maps instants to local wall-clock times and back, saying when a local time was
//! skipped (a gap) or happens twice (a fold).

use std::sync::LazyLock;

use jiff::tz::{AmbiguousOffset, Offset, TimeZone, TimeZoneDatabase};
use time::{Date, Duration, Month, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};

static BUNDLED: LazyLock<TimeZoneDatabase> = LazyLock::new(TimeZoneDatabase::bundled);

/// Where a schedule's wall clock is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CronZone {
    Fixed(UtcOffset),
    Named(TimeZone),
}

/// The instants a local wall-clock time stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalInstants {
    One(OffsetDateTime),
    /// The local time was skipped (clocks went forward): the instant the gap ends.
    Gap(OffsetDateTime),
    /// The local time happens twice (clocks went back): the first and the second time.
    Fold(OffsetDateTime, OffsetDateTime),
}

impl CronZone {
    /// `UTC`, `Z`, `±HH:MM` or an IANA name such as `Europe/Berlin` (any ASCII case).
    pub fn parse(zone: &str) -> Result<Self, String> {
        if zone.eq_ignore_ascii_case("UTC") || zone == "Z" {
            return Ok(Self::Fixed(UtcOffset::UTC));
        }
        if zone.starts_with(['+', '-']) {
            return parse_offset(zone).map(Self::Fixed);
        }
        BUNDLED.get(zone).map(Self::Named).map_err(|_| {
            format!("CRON_TZ={zone}: unknown time zone; use an IANA name such as Europe/Berlin, UTC, or an offset such as +02:00")
        })
    }

    /// The local wall-clock time at `instant`.
    pub fn local(&self, instant: OffsetDateTime) -> Option<PrimitiveDateTime> {
        match self {
            Self::Fixed(offset) => {
                let local = instant.to_offset(*offset);
                Some(PrimitiveDateTime::new(local.date(), local.time()))
            }
            Self::Named(tz) => {
                let dt = tz.to_datetime(jiff::Timestamp::from_second(instant.unix_timestamp()).ok()?);
                let month = Month::try_from(u8::try_from(dt.month()).ok()?).ok()?;
                let date = Date::from_calendar_date(i32::from(dt.year()), month, u8::try_from(dt.day()).ok()?).ok()?;
                let time = Time::from_hms(
                    u8::try_from(dt.hour()).ok()?,
                    u8::try_from(dt.minute()).ok()?,
                    u8::try_from(dt.second()).ok()?,
                )
                .ok()?;
                Some(PrimitiveDateTime::new(date, time))
            }
        }
    }

    /// How far before the local time of `after` a search must start so that no local time
    /// whose instant is after `after` is missed: how much the offset drops (clocks going back)
    /// within the next day. A local time is at least its instant plus the smallest offset
    /// ahead, and offsets differ by far less than a day, so a day of transitions is enough.
    pub fn fold_lookback(&self, after: OffsetDateTime) -> Option<Duration> {
        let Self::Named(tz) = self else { return Some(Duration::ZERO) };
        let start = jiff::Timestamp::from_second(after.unix_timestamp()).ok()?;
        let horizon = after.unix_timestamp() + 86_400;
        let now = tz.to_offset(start).seconds();
        let lowest = tz
            .following(start)
            .take_while(|t| t.timestamp().as_second() <= horizon)
            .map(|t| t.offset().seconds())
            .fold(now, i32::min);
        Some(Duration::seconds(i64::from(now - lowest)))
    }

    /// The instants the local wall-clock time `local` (whole seconds) stands for.
    pub fn instants(&self, local: PrimitiveDateTime) -> Option<LocalInstants> {
        let tz = match self {
            Self::Fixed(offset) => return Some(LocalInstants::One(local.assume_offset(*offset))),
            Self::Named(tz) => tz,
        };
        let dt = jiff::civil::DateTime::new(
            i16::try_from(local.year()).ok()?,
            i8::try_from(u8::from(local.month())).ok()?,
            i8::try_from(local.day()).ok()?,
            i8::try_from(local.hour()).ok()?,
            i8::try_from(local.minute()).ok()?,
            i8::try_from(local.second()).ok()?,
            0,
        )
        .ok()?;
        let at = |offset: Offset| Some(local.assume_offset(UtcOffset::from_whole_seconds(offset.seconds()).ok()?));
        Some(match tz.to_ambiguous_timestamp(dt).offset() {
            AmbiguousOffset::Unambiguous { offset } => LocalInstants::One(at(offset)?),
            AmbiguousOffset::Gap { after, .. } => {
                // read with the later offset the local time lies before the jump
                let before_jump = jiff::Timestamp::from_second(at(after)?.unix_timestamp()).ok()?;
                let end = tz.following(before_jump).next()?.timestamp();
                LocalInstants::Gap(OffsetDateTime::from_unix_timestamp(end.as_second()).ok()?)
            }
            AmbiguousOffset::Fold { before, after } => LocalInstants::Fold(at(before)?, at(after)?),
        })
    }
}

fn parse_offset(zone: &str) -> Result<UtcOffset, String> {
    let bad = || format!("CRON_TZ={zone}: use an IANA name such as Europe/Berlin, UTC, or an offset such as +02:00");
    let (sign, digits) = match zone.as_bytes().first() {
        Some(b'+') => (1i8, &zone[1..]),
        Some(b'-') => (-1i8, &zone[1..]),
        _ => return Err(bad()),
    };
    let (h, m) = digits.split_once(':').ok_or_else(bad)?;
    let h: i8 = h.parse().map_err(|_| bad())?;
    let m: i8 = m.parse().map_err(|_| bad())?;
    // real offsets run from -12:00 to +14:00
    if !(0..=14).contains(&h) || !(0..60).contains(&m) {
        return Err(bad());
    }
    UtcOffset::from_hms(sign * h, sign * m, 0).map_err(|_| bad())
}
