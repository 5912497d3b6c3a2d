use gateway_host::update::release::{ReleaseManifest, archive_name, binary_entry, is_newer, is_plain_file_name};

fn manifest(version: &str, asset: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "name": "switchboard", "version": version, "checksums": "SHA256SUMS", "signature": null,
        "assets": [{"platform": "linux-x86_64", "os": "linux", "arch": "x86_64", "name": asset, "size": 10, "sha256": "00"}],
    }))
    .expect("json")
}

#[test]
fn the_asset_for_the_platform_must_carry_the_version_in_its_name() {
    let parsed = ReleaseManifest::parse(&manifest("0.2.0", "switchboard-0.2.0-linux-x86_64.tar.gz")).expect("valid");
    assert_eq!(parsed.asset_for("linux-x86_64").expect("asset").size, Some(10));
    let missing = parsed.asset_for("macos-aarch64").expect_err("no such platform");
    assert_eq!(missing.code(), "update_unavailable");

    let relabelled =
        ReleaseManifest::parse(&manifest("0.3.0", "switchboard-0.2.0-linux-x86_64.tar.gz")).expect("parses");
    let error = relabelled.asset_for("linux-x86_64").expect_err("an old archive under a new version");
    assert!(error.to_string().contains("expected \"switchboard-0.3.0-linux-x86_64.tar.gz\""), "{error}");
}

#[test]
fn a_manifest_is_refused_for_another_product_a_bad_version_or_a_path_as_a_name() {
    let other = br#"{"name":"other","version":"1.0.0","checksums":"SHA256SUMS","assets":[]}"#;
    assert!(ReleaseManifest::parse(other).is_err());
    let bad_version = br#"{"name":"switchboard","version":"latest","checksums":"SHA256SUMS","assets":[]}"#;
    assert!(ReleaseManifest::parse(bad_version).is_err());
    for name in ["../etc/passwd", "a/b.tar.gz", "https://evil/x", "..", "a%2fb", ""] {
        let doc = manifest("0.2.0", name);
        assert!(ReleaseManifest::parse(&doc).is_err(), "{name:?} must be refused");
    }
    assert!(ReleaseManifest::parse(b"not json").is_err());
}

#[test]
fn versions_compare_by_semver() {
    assert!(is_newer("0.2.0", "0.1.0"));
    assert!(is_newer("0.10.0", "0.9.9"));
    assert!(is_newer("1.0.0", "1.0.0-rc.1"));
    assert!(!is_newer("0.1.0", "0.1.0"));
    assert!(!is_newer("0.1.0", "0.2.0"));
    assert!(!is_newer("garbage", "0.1.0"));
}

#[test]
fn names_follow_release_build() {
    assert_eq!(archive_name("0.2.0", "linux-x86_64"), "switchboard-0.2.0-linux-x86_64.tar.gz");
    assert_eq!(binary_entry("0.2.0", "linux-x86_64"), "switchboard-0.2.0-linux-x86_64/switchboard");
    assert!(is_plain_file_name("SHA256SUMS.sig"));
    assert!(!is_plain_file_name("dir\\file"));
}
