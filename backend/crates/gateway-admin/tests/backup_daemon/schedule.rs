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
        ("CRON_TZ=Europe/Berlin 0 3 * * *", "zone names are not built yet"),
    ] {
        let error = CronSchedule::parse(bad).expect_err(bad);
        assert!(error.contains(words), "{bad}: {error}");
    }
}
