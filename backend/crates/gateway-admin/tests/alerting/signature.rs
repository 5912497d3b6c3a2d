use gateway_admin::alerting::signature::{sign, verify};
use secrecy::SecretString;

#[test]
fn a_signature_verifies_with_its_secret_only() {
    let secret = SecretString::from("whsec-0123456789abcdef".to_owned());
    let header = sign(&secret, 1_700_000_000, b"{\"kind\":\"account_banned\"}");
    assert!(header.starts_with("t=1700000000,v1="), "{header}");
    assert_eq!(header.len(), "t=1700000000,v1=".len() + 64);
    assert!(verify("whsec-0123456789abcdef", &header, b"{\"kind\":\"account_banned\"}"));
    assert!(!verify("whsec-another-secret-00", &header, b"{\"kind\":\"account_banned\"}"));
    assert!(!verify("whsec-0123456789abcdef", &header, b"{\"kind\":\"pool_empty\"}"), "the body is signed");
    let moved = header.replace("t=1700000000", "t=1700000001");
    assert!(!verify("whsec-0123456789abcdef", &moved, b"{\"kind\":\"account_banned\"}"), "the time is signed");
}
