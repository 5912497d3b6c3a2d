use upstream_sim::ids::{http_date, rfc3339};

#[test]
fn http_dates_are_imf_fixdate() {
    assert_eq!(http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
    assert_eq!(http_date(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT", "RFC 9110's example");
    assert_eq!(http_date(951_782_400), "Tue, 29 Feb 2000 00:00:00 GMT");
    assert_eq!(http_date(1_798_761_599), "Thu, 31 Dec 2026 23:59:59 GMT");
    assert_eq!(rfc3339(1_798_761_599), "2026-12-31T23:59:59Z");
}
