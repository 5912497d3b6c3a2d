//! Device cookies: signed per user, case-insensitive on the name, refused when tampered with,
//! expired, signed with another key or naming another user.

use std::time::Duration;

use gateway_admin::auth::device_cookie::{DeviceCookieKey, DeviceCookies};
use time::OffsetDateTime;

fn cookies(key: &DeviceCookieKey) -> DeviceCookies {
    DeviceCookies::new(key.clone(), Duration::from_secs(3600))
}

#[test]
fn a_cookie_names_its_user_and_device_and_verifies_only_unchanged() {
    let key = DeviceCookieKey::random();
    let now = OffsetDateTime::now_utc();
    let devices = cookies(&key);
    let cookie = devices.issue("Admin", now);
    let device = devices.verify(&cookie, " admin ", now).expect("valid for the same user");
    let other = devices.issue("admin", now);
    assert_ne!(devices.verify(&other, "admin", now), Some(device.clone()), "every cookie is its own device");
    assert_eq!(devices.verify(&cookie, "ops", now), None, "another user's cookie is no device of this one");
    // Any change of any character breaks the signature or the format.
    for i in 0..cookie.len() {
        let mut bytes = cookie.clone().into_bytes();
        bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(bytes).expect("ascii");
        assert_eq!(devices.verify(&tampered, "admin", now), None, "changed at {i}: {tampered}");
    }
    for garbage in ["", ".", "v1", "v1.a.b.c.d", "v1....", &format!("{cookie}.x")] {
        assert_eq!(devices.verify(garbage, "admin", now), None, "{garbage}");
    }
}

#[test]
fn a_cookie_expires_and_belongs_to_its_key() {
    let key = DeviceCookieKey::random();
    let now = OffsetDateTime::now_utc();
    let cookie = cookies(&key).issue("admin", now);
    assert!(cookies(&key).verify(&cookie, "admin", now + time::Duration::seconds(3599)).is_some());
    assert_eq!(cookies(&key).verify(&cookie, "admin", now + time::Duration::seconds(3600)), None, "expired");
    assert_eq!(cookies(&DeviceCookieKey::random()).verify(&cookie, "admin", now), None, "another key");
    // Derived keys are the same for the same master key (every replica), different otherwise.
    let (a, b) = (DeviceCookieKey::derive(b"k1:master"), DeviceCookieKey::derive(b"k1:master"));
    assert!(cookies(&b).verify(&cookies(&a).issue("admin", now), "admin", now).is_some());
    let c = DeviceCookieKey::derive(b"k2:other");
    assert_eq!(cookies(&c).verify(&cookies(&a).issue("admin", now), "admin", now), None);
    assert_eq!(format!("{a:?}"), "DeviceCookieKey([REDACTED])");
}
