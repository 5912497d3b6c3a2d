//! URLs lose their user name and password before they are printed.

use gateway_core::redaction::url_userinfo_redacted;

#[test]
fn userinfo_is_redacted_and_everything_else_kept() {
    for (url, shown) in [
        ("postgres://app:pw@db:5432/x", "postgres://[REDACTED]@db:5432/x"),
        ("redis://:pw@127.0.0.1:6379/0", "redis://[REDACTED]@127.0.0.1:6379/0"),
        ("rediss://user@redis", "rediss://[REDACTED]@redis"),
        ("https://a:b@c@host/path?q=1", "https://[REDACTED]@host/path?q=1"),
        ("https://host/p@th?mail=a@b", "https://host/p@th?mail=a@b"),
        ("postgres://db/x", "postgres://db/x"),
        ("not a url with a@sign", "not a url with a@sign"),
    ] {
        assert_eq!(url_userinfo_redacted(url), shown, "{url}");
    }
}
