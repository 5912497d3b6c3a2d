use gateway_core::domain::{ClientKeyHash, ClientKeySecret, GroupId, KeyScope};

#[test]
fn a_key_is_identified_by_its_sha256_and_shown_by_its_prefix() {
    let secret = ClientKeySecret::new("sk-sb-abcdefghijklmnop".to_owned());
    assert_eq!(secret.hash(), ClientKeyHash::of("sk-sb-abcdefghijklmnop"));
    assert_ne!(secret.hash(), ClientKeyHash::of("sk-sb-abcdefghijklmnoq"));
    assert_eq!(secret.display_prefix(), "sk-sb-abcdef");
    assert!(!format!("{secret:?}").contains("abcdef"));
    assert!(!format!("{:?}", secret.hash()).contains("sk-sb"));
}

#[test]
fn no_groups_means_all_accounts() {
    assert_eq!(KeyScope::from_group_ids(vec![]), KeyScope::AllAccounts);
    assert_eq!(KeyScope::from_group_ids(vec![GroupId(2)]).name(), "groups");
}
