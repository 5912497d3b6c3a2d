use gateway_admin::backup_daemon::schedule::CronSchedule;
use time::macros::datetime;

fn next(expr: &str, after: time::OffsetDateTime) -> time::OffsetDateTime {
    CronSchedule::parse(expr).expect("valid").next_after(after).expect("fires")
}

#[test]
fn daily_at_three_fires_next_at_three_utc() {
    assert_eq!(next("0 3 * * *", datetime!(2026-12-01 02:59:30 UTC)), datetime!(2026-12-01 03:00 UTC));
    // strictly after: at 03:00 itself the next run is tomorrow
    assert_eq!(next("0 3 * * *", datetime!(2026-12-01 03:00 UTC)), datetime!(2026-12-02 03:00 UTC));
}

#[test]
fn steps_ranges_lists_and_names() {
    assert_eq!(next("*/15 * * * *", datetime!(2026-12-01 10:16 UTC)), datetime!(2026-12-01 10:30 UTC));
    assert_eq!(next("0 9-17/4 * * mon-fri", datetime!(2026-12-05 12:00 UTC)), datetime!(2026-12-07 09:00 UTC));
    assert_eq!(next("30 1 1,15 * *", datetime!(2026-12-02 00:00 UTC)), datetime!(2026-12-15 01:30 UTC));
    assert_eq!(next("0 0 1 jan *", datetime!(2026-12-01 00:00 UTC)), datetime!(2027-01-01 00:00 UTC));
    // 7 is Sunday as well
    assert_eq!(next("0 12 * * 7", datetime!(2026-12-01 00:00 UTC)), datetime!(2026-12-06 12:00 UTC));
}

#[test]
fn day_of_month_and_weekday_both_restricted_match_either() {
    // the 13th, or any Friday: Friday 2026-12-04 comes first
    assert_eq!(next("0 0 13 * fri", datetime!(2026-12-01 00:00 UTC)), datetime!(2026-12-04 00:00 UTC));
}

#[test]
fn a_fixed_offset_time_zone_shifts_the_schedule() {
    // 03:00 at +02:00 is 01:00 UTC
    assert_eq!(next("CRON_TZ=+02:00 0 3 * * *", datetime!(2026-12-01 00:00 UTC)), datetime!(2026-12-01 01:00 UTC));
    assert_eq!(next("CRON_TZ=-05:30 0 0 * * *", datetime!(2026-12-01 00:00 UTC)), datetime!(2026-12-01 05:30 UTC));
}

#[test]
fn impossible_dates_never_fire_and_bad_input_is_explained() {
    let never = CronSchedule::parse("0 0 31 2 *").expect("valid syntax");
    assert_eq!(never.next_after(datetime!(2026-12-01 00:00 UTC)), None);
    for (bad, words) in [
        ("0 3 * *", "needs 5 fields"),
        ("0 0 3 * * *", "needs 5 fields"),
        ("61 * * * *", "minute"),
        ("*/0 * * * *", "step"),
        ("0 0 * * funday", "day-of-week"),
        ("CRON_TZ=Mars/Olympus_Mons 0 3 * * *", "unknown time zone"),
        ("CRON_TZ=+25:00 0 3 * * *", "offset such as +02:00"),
    ] {
        let error = CronSchedule::parse(bad).expect_err(bad);
        assert!(error.contains(words), "{bad}: {error}");
    }
}

#[test]
fn an_iana_zone_follows_its_daylight_saving_offset() {
    // 03:00 in Berlin: 02:00 UTC in winter (CET), 01:00 UTC in summer (CEST); any ASCII case
    assert_eq!(
        next("CRON_TZ=Europe/Berlin 0 3 * * *", datetime!(2026-12-01 00:00 UTC)),
        datetime!(2026-12-01 02:00 UTC)
    );
    assert_eq!(
        next("CRON_TZ=europe/berlin 0 3 * * *", datetime!(2026-07-01 00:00 UTC)),
        datetime!(2026-07-01 01:00 UTC)
    );
    // west of UTC: 03:00 in New York is 08:00 UTC (EST) and 07:00 UTC (EDT)
    assert_eq!(
        next("CRON_TZ=America/New_York 0 3 * * *", datetime!(2026-01-10 00:00 UTC)),
        datetime!(2026-01-10 08:00 UTC)
    );
    assert_eq!(
        next("CRON_TZ=America/New_York 0 3 * * *", datetime!(2026-06-10 00:00 UTC)),
        datetime!(2026-06-10 07:00 UTC)
    );
}

#[test]
fn a_skipped_local_hour_fires_once_when_the_gap_ends() {
    // Berlin 2026-03-29: 02:00 CET jumps to 03:00 CEST at 01:00 UTC; 02:30 does not exist
    let daily = "CRON_TZ=Europe/Berlin 30 2 * * *";
    assert_eq!(next(daily, datetime!(2026-03-28 12:00 UTC)), datetime!(2026-03-29 01:00 UTC));
    assert_eq!(next(daily, datetime!(2026-03-29 01:00 UTC)), datetime!(2026-03-30 00:30 UTC));
    // every 30 minutes: the skipped 02:00 and 02:30 collapse into the one run at 03:00 CEST
    let half_hourly = "CRON_TZ=Europe/Berlin */30 * * * *";
    assert_eq!(next(half_hourly, datetime!(2026-03-29 00:40 UTC)), datetime!(2026-03-29 01:00 UTC));
    assert_eq!(next(half_hourly, datetime!(2026-03-29 01:00 UTC)), datetime!(2026-03-29 01:30 UTC));
}

#[test]
fn a_repeated_local_hour_fires_a_fixed_time_once_and_a_wildcard_hour_in_both_passes() {
    // Berlin 2026-10-25: 03:00 CEST goes back to 02:00 CET at 01:00 UTC; 02:30 happens twice
    let daily = "CRON_TZ=Europe/Berlin 30 2 * * *";
    assert_eq!(next(daily, datetime!(2026-10-24 12:00 UTC)), datetime!(2026-10-25 00:30 UTC));
    assert_eq!(next(daily, datetime!(2026-10-25 00:30 UTC)), datetime!(2026-10-26 01:30 UTC));
    // from inside the second pass, the fixed time does not fire again that day
    assert_eq!(next(daily, datetime!(2026-10-25 01:10 UTC)), datetime!(2026-10-26 01:30 UTC));
    // hourly, from late in the first pass: the next run is the second pass's 02:00, whose wall
    // clock lies before the current 02:40
    assert_eq!(
        next("CRON_TZ=Europe/Berlin 0 * * * *", datetime!(2026-10-25 00:40 UTC)),
        datetime!(2026-10-25 01:00 UTC)
    );
    let half_hourly = "CRON_TZ=Europe/Berlin */30 * * * *";
    let mut at = datetime!(2026-10-25 00:10 UTC);
    let mut fired = Vec::new();
    for _ in 0..4 {
        at = next(half_hourly, at);
        fired.push(at);
    }
    assert_eq!(
        fired,
        [
            datetime!(2026-10-25 00:30 UTC), // 02:30 CEST
            datetime!(2026-10-25 01:00 UTC), // 02:00 CET, the second pass
            datetime!(2026-10-25 01:30 UTC), // 02:30 CET
            datetime!(2026-10-25 02:00 UTC), // 03:00 CET
        ]
    );
}

#[test]
fn through_a_whole_year_of_transitions_runs_keep_their_rhythm() {
    // every 15 minutes: exactly 15 minutes apart in real time, through both changes
    let quarter = CronSchedule::parse("CRON_TZ=Europe/Berlin */15 * * * *").expect("valid");
    let mut at = datetime!(2026-01-01 00:00 UTC);
    while at < datetime!(2027-01-01 00:00 UTC) {
        let fired = quarter.next_after(at).expect("fires");
        assert_eq!(fired - at, time::Duration::minutes(15), "after {at}");
        at = fired;
    }
    // daily at 02:30 (skipped once, repeated once): one run per local day, 365 in the year
    let daily = CronSchedule::parse("CRON_TZ=Europe/Berlin 30 2 * * *").expect("valid");
    let mut at = datetime!(2025-12-31 12:00 UTC);
    let mut runs = 0;
    loop {
        at = daily.next_after(at).expect("fires");
        if at >= datetime!(2026-12-31 12:00 UTC) {
            break;
        }
        runs += 1;
    }
    assert_eq!(runs, 365);
}
