use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{Ed25519KeyPair, KeyPair};
use gateway_host::update::verify::{checksum_for, hex, parse_hex, verify_signature};

#[test]
fn the_checksum_file_line_for_a_file_is_found_in_both_sha256sum_formats() {
    let a = "a".repeat(64);
    let b = "b".repeat(64);
    let sums = format!("{a}  switchboard-0.2.0-linux-x86_64.tar.gz\n{b} *switchboard-0.2.0-macos-aarch64.tar.gz\n");
    assert_eq!(checksum_for(&sums, "switchboard-0.2.0-linux-x86_64.tar.gz"), parse_hex(&a));
    assert_eq!(checksum_for(&sums, "switchboard-0.2.0-macos-aarch64.tar.gz"), parse_hex(&b));
    assert_eq!(checksum_for(&sums, "switchboard-0.2.0-linux"), None);
    assert_eq!(checksum_for("zz  x\n", "x"), None);
    assert_eq!(hex(&[0x00, 0xab]), "00ab");
}

#[test]
fn a_signature_verifies_only_with_its_key_and_message() {
    let rng = SystemRandom::new();
    let pair = Ed25519KeyPair::from_pkcs8(Ed25519KeyPair::generate_pkcs8(&rng).expect("key").as_ref()).expect("pair");
    let other = Ed25519KeyPair::from_pkcs8(Ed25519KeyPair::generate_pkcs8(&rng).expect("key").as_ref()).expect("pair");
    let public: [u8; 32] = pair.public_key().as_ref().try_into().expect("32 bytes");
    let message = b"sums";
    let signature = pair.sign(message);
    assert!(verify_signature(&public, message, signature.as_ref()).is_ok());
    assert!(verify_signature(&public, b"other sums", signature.as_ref()).is_err());
    let forged = other.sign(message);
    let error = verify_signature(&public, message, forged.as_ref()).expect_err("another key");
    assert_eq!(error.code(), "update_verification_failed");
}
