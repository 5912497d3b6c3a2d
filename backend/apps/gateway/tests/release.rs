//! `release/`: the version source, the platform matrix and `release/build` (archives,
//! SHA256SUMS, the Ed25519 signature, release.json).

use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

fn yaml(path: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(repo_root().join(path)).expect("readable");
    serde_norway::from_str(&text).expect("yaml")
}

fn hex_sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

fn temp_dir(label: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("switchboard-release-{label}-{}", test_support::free_port()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn release_build(args: &[&str]) -> std::process::Output {
    Command::new(repo_root().join("release/build")).args(args).output().expect("release/build runs")
}

#[test]
fn the_release_version_is_the_workspace_version() {
    assert_eq!(yaml("release/version.yaml")["version"], env!("CARGO_PKG_VERSION"));
    let printed = release_build(&["--print-version"]);
    assert_eq!(String::from_utf8_lossy(&printed.stdout).trim(), env!("CARGO_PKG_VERSION"));
}

#[test]
fn every_platform_is_named_os_arch_and_the_matrix_follows_the_file() {
    let platforms = yaml("release/platforms.yaml")["platforms"].as_array().cloned().expect("platforms");
    for platform in &platforms {
        let (os, arch) = (platform["os"].as_str().expect("os"), platform["arch"].as_str().expect("arch"));
        assert_eq!(platform["name"], format!("{os}-{arch}"), "{platform}");
        assert!(platform["target"].as_str().is_some_and(|t| t.starts_with(arch)), "{platform}");
    }
    let host = format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH);
    assert!(platforms.iter().any(|p| p["name"] == host.as_str()), "this host ({host}) is a release platform");
    let matrix = release_build(&["--print-matrix"]);
    let matrix: serde_json::Value = serde_json::from_slice(&matrix.stdout).expect("the matrix is JSON");
    let names: Vec<&serde_json::Value> = platforms.iter().map(|p| &p["name"]).collect();
    let matrix_names: Vec<&serde_json::Value> = matrix.as_array().expect("array").iter().map(|p| &p["name"]).collect();
    assert_eq!(names, matrix_names);
    assert!(matrix[0]["runner"].is_string() && matrix[0]["target"].is_string(), "{matrix}");
}

fn extract(archive: &Path, into: &Path) {
    let status = Command::new("tar").arg("-xzf").arg(archive).arg("-C").arg(into).status().expect("tar runs");
    assert!(status.success());
}

#[test]
fn release_build_writes_archives_with_checksums_and_a_signature() {
    let dir = temp_dir("build");
    let binary = dir.join("fake-switchboard");
    std::fs::write(&binary, b"#!/bin/sh\necho fake\n").expect("fake binary");
    let key = dir.join("signing.pem");
    let made = Command::new("openssl").args(["genpkey", "-algorithm", "ed25519", "-out"]).arg(&key).status();
    assert!(made.expect("openssl runs").success());
    let out = dir.join("out");
    let built = release_build(&[
        "--out",
        out.to_str().expect("utf8"),
        "--version",
        "9.9.9",
        "--binary",
        &format!("linux-x86_64={}", binary.display()),
        "--sign-key",
        key.to_str().expect("utf8"),
    ]);
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));

    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("release.json")).expect("release.json")).expect("json");
    assert_eq!(manifest["version"], "9.9.9");
    assert_eq!(manifest["checksums"], "SHA256SUMS");
    assert_eq!(manifest["signature"], "SHA256SUMS.sig");
    let asset = &manifest["assets"][0];
    assert_eq!(manifest["assets"].as_array().map(Vec::len), Some(1));
    assert_eq!(asset["platform"], "linux-x86_64");
    assert_eq!(asset["name"], "switchboard-9.9.9-linux-x86_64.tar.gz");
    let archive = std::fs::read(out.join("switchboard-9.9.9-linux-x86_64.tar.gz")).expect("archive");
    assert_eq!(asset["sha256"], hex_sha256(&archive));
    assert_eq!(asset["size"], archive.len());

    let sums = std::fs::read_to_string(out.join("SHA256SUMS")).expect("SHA256SUMS");
    assert_eq!(sums, format!("{}  switchboard-9.9.9-linux-x86_64.tar.gz\n", hex_sha256(&archive)));
    let public = dir.join("public.pem");
    let exported = Command::new("openssl").args(["pkey", "-pubout", "-in"]).arg(&key).arg("-out").arg(&public).status();
    assert!(exported.expect("openssl runs").success());
    let verified = Command::new("openssl")
        .args(["pkeyutl", "-verify", "-rawin", "-pubin", "-inkey"])
        .arg(&public)
        .arg("-in")
        .arg(out.join("SHA256SUMS"))
        .arg("-sigfile")
        .arg(out.join("SHA256SUMS.sig"))
        .output()
        .expect("openssl runs");
    assert!(verified.status.success(), "the signature verifies: {verified:?}");
    let printed = String::from_utf8_lossy(&built.stdout);
    assert!(printed.contains("update.public_key = "), "the public key to configure is printed: {printed}");

    let unpacked = dir.join("unpacked");
    std::fs::create_dir_all(&unpacked).expect("dir");
    extract(&out.join("switchboard-9.9.9-linux-x86_64.tar.gz"), &unpacked);
    let inside = unpacked.join("switchboard-9.9.9-linux-x86_64/switchboard");
    assert_eq!(std::fs::read(&inside).expect("binary in the archive"), std::fs::read(&binary).expect("binary"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_a_key_nothing_is_signed_and_a_bad_version_is_refused() {
    let dir = temp_dir("unsigned");
    let binary = dir.join("fake-switchboard");
    std::fs::write(&binary, b"#!/bin/sh\n").expect("fake binary");
    let out = dir.join("out");
    let platform = format!("linux-x86_64={}", binary.display());
    let base = ["--out", out.to_str().expect("utf8"), "--binary", platform.as_str()];
    let built = Command::new(repo_root().join("release/build"))
        .args(base)
        .env_remove("SWITCHBOARD_RELEASE_SIGNING_KEY")
        .output()
        .expect("runs");
    assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("release.json")).expect("release.json")).expect("json");
    assert!(manifest["signature"].is_null());
    assert!(!out.join("SHA256SUMS.sig").exists());
    let refused = release_build(&[&base[..], &["--version", "latest"]].concat());
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("is not MAJOR.MINOR.PATCH"));
    let _ = std::fs::remove_dir_all(&dir);
}
