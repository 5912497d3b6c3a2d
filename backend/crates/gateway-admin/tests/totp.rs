//! TOTP (RFC 6238 / RFC 4226): the RFC's SHA-1 test vectors, the drift window, base32 (RFC
//! 4648 vectors) and the provisioning URI.

use gateway_admin::admin_user::TotpSecret;
use gateway_admin::auth::totp::{base32, code_at, hotp, matching_step, normalise_code, otpauth_uri, step_at};
use time::OffsetDateTime;

const RFC_SECRET: &[u8] = b"12345678901234567890";

#[test]
fn codes_match_the_rfc_6238_sha1_vectors() {
    // RFC 6238 Appendix B gives 8 digits; 6-digit codes are their last six.
    for (time, eight) in [
        (59, "94287082"),
        (1_111_111_109, "07081804"),
        (1_111_111_111, "14050471"),
        (1_234_567_890, "89005924"),
        (2_000_000_000, "69279037"),
        (20_000_000_000, "65353130"),
    ] {
        assert_eq!(code_at(RFC_SECRET, time), eight[2..], "T = {time}");
    }
    // RFC 4226 Appendix D, counters 0 and 1.
    assert_eq!(hotp(RFC_SECRET, 0), 755_224);
    assert_eq!(hotp(RFC_SECRET, 1), 287_082);
}

#[test]
fn a_code_matches_its_step_and_one_either_side_only() {
    let secret = TotpSecret::new(RFC_SECRET.to_vec());
    let now = OffsetDateTime::from_unix_timestamp(1_234_567_890).expect("time");
    let t = now.unix_timestamp();
    assert_eq!(matching_step(&secret, &code_at(RFC_SECRET, t), now), Some(step_at(t)));
    assert_eq!(matching_step(&secret, &code_at(RFC_SECRET, t - 30), now), Some(step_at(t) - 1));
    assert_eq!(matching_step(&secret, &code_at(RFC_SECRET, t + 30), now), Some(step_at(t) + 1));
    assert_eq!(matching_step(&secret, &code_at(RFC_SECRET, t - 60), now), None);
    assert_eq!(matching_step(&secret, &code_at(RFC_SECRET, t + 60), now), None);
    let spaced = code_at(RFC_SECRET, t);
    let spaced = format!("{} {}", &spaced[..3], &spaced[3..]);
    assert_eq!(matching_step(&secret, &spaced, now), Some(step_at(t)));
    for bad in ["", "12345", "1234567", "12345a", "١٢٣٤٥٦"] {
        assert_eq!(normalise_code(bad), None, "{bad:?}");
    }
}

#[test]
fn base32_follows_rfc_4648_without_padding() {
    for (input, expected) in [
        ("", ""),
        ("f", "MY"),
        ("fo", "MZXQ"),
        ("foo", "MZXW6"),
        ("foob", "MZXW6YQ"),
        ("fooba", "MZXW6YTB"),
        ("foobar", "MZXW6YTBOI"),
    ] {
        assert_eq!(base32(input.as_bytes()), expected, "{input:?}");
    }
}

#[test]
fn the_provisioning_uri_names_issuer_user_and_parameters() {
    let secret = TotpSecret::new(b"foobar".to_vec());
    assert_eq!(
        otpauth_uri(&secret, "ops admin"),
        "otpauth://totp/Switchboard:ops%20admin?secret=MZXW6YTBOI&issuer=Switchboard&algorithm=SHA1&digits=6&period=30"
    );
    assert_eq!(format!("{secret:?}"), "TotpSecret([REDACTED])");
}
