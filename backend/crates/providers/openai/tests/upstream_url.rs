//! The upstream URL guard: what passes is usable by the upstream clients as written.

use provider_openai::upstream_url::{checked_appcast_url, checked_base_url};
use provider_openai::{OpenAiSetting, OpenAiSettings};

#[test]
fn base_urls_pass_only_when_safe_and_usable_as_written() {
    let allowed = [
        ("https://chatgpt.com/backend-api/", false, "https://chatgpt.com/backend-api"),
        ("https://xn--bcher-kva.example/api", false, "https://xn--bcher-kva.example/api"),
        ("http://127.0.0.1:8080/backend-api", true, "http://127.0.0.1:8080/backend-api"),
        ("http://[::1]:8080", true, "http://[::1]:8080"),
        ("http://localhost:1", true, "http://localhost:1"),
    ];
    for (url, loopback, expected) in allowed {
        assert_eq!(checked_base_url(url, loopback).as_deref(), Ok(expected), "{url}");
    }
    let refused = [
        ("https://bücher.example/api", true),
        ("https://chatgpt.com/backend api", true),
        ("https://", true),
        ("chatgpt.com/backend-api", true),
        ("https://user:pw@chatgpt.com", true),
        ("https://chatgpt.com/?x=1", true),
        ("https://chatgpt.com/#top", true),
        ("ftp://127.0.0.1", true),
        ("http://127.0.0.1:8080", false),
        ("http://chatgpt.com", true),
    ];
    for (url, loopback) in refused {
        assert!(checked_base_url(url, loopback).is_err(), "{url} must be refused");
    }
}

#[test]
fn appcast_urls_may_carry_a_query_but_no_fragment() {
    assert_eq!(
        checked_appcast_url("https://example.com/feed.xml?channel=stable", false).as_deref(),
        Ok("https://example.com/feed.xml?channel=stable")
    );
    assert!(checked_appcast_url("https://example.com/feed.xml?a=1#b", false).is_err());
    assert!(checked_appcast_url("https://example.com/feed.xml?a b", false).is_err());
    assert!(checked_appcast_url("http://example.com/feed.xml", true).is_err());
}

#[test]
fn the_settings_check_names_the_setting_at_fault() {
    let good = OpenAiSettings::default();
    assert!(good.check().is_ok());
    let cases = [
        (OpenAiSettings { backend_url: "https://bad host".into(), ..good.clone() }, OpenAiSetting::BackendUrl),
        (OpenAiSettings { auth_url: "http://auth.example.com".into(), ..good.clone() }, OpenAiSetting::AuthUrl),
        (OpenAiSettings { originator: "bad\nvalue".into(), ..good.clone() }, OpenAiSetting::Originator),
        (OpenAiSettings { client_version: "1\u{7f}".into(), ..good.clone() }, OpenAiSetting::ClientVersion),
    ];
    for (settings, setting) in cases {
        assert_eq!(settings.check().map_err(|e| e.setting), Err(setting));
    }
    assert_eq!(
        good.check_appcast_url("http://example.com/a.xml").map_err(|e| e.setting),
        Err(OpenAiSetting::AppcastUrl)
    );
}
