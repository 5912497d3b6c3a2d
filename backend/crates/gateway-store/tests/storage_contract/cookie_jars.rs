//! Cookie jars (issue 33): written sealed under the account's row, replaced whole, read back as
//! facts without values, unreadable under another key (dropped, never an error), deleted with
//! their account; a jar for an account that no longer exists is not written.

use gateway_admin::ports::UnitOfWork;
use gateway_core::domain::AccountId;
use gateway_core::ports::{CookieFacts, CookieJarStore, StoredCookieJar};
use gateway_store::crypto::{Keyring, MasterKey};
use secrecy::{ExposeSecret, SecretString};
use time::OffsetDateTime;

use crate::storage_contract::fixtures::{Harness, audit, import};

fn jar(account: AccountId, value: &str, path: &str) -> StoredCookieJar {
    let now = OffsetDateTime::now_utc().replace_nanosecond(0).expect("a whole second");
    StoredCookieJar {
        account,
        egress_path: path.to_owned(),
        jar: SecretString::from(format!("[{{\"raw_cookie\":\"__cf_bm={value}\"}}]")),
        cookies: vec![CookieFacts {
            name: "__cf_bm".to_owned(),
            domain: "chatgpt.com".to_owned(),
            path: "/".to_owned(),
            expires_at: Some(now + time::Duration::minutes(30)),
        }],
        updated_at: now,
    }
}

pub async fn cookie_jars_are_sealed_replaced_and_go_with_their_account(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let a = import(&store, "acct-1", "tok-1").await?.account_id;
    let b = import(&store, "acct-2", "tok-2").await?.account_id;
    store.save_cookie_jar(&jar(a, "first", "direct")).await?;
    store.save_cookie_jar(&jar(a, "second", "http://10.0.0.1:3128")).await?;
    store.save_cookie_jar(&jar(b, "other", "direct")).await?;

    let loaded = store.load_cookie_jars().await?;
    assert_eq!(loaded.len(), 2, "one jar per account, replaced whole");
    let first = loaded.iter().find(|j| j.account == a).expect("a's jar");
    assert_eq!(first.egress_path, "http://10.0.0.1:3128");
    assert!(first.jar.expose_secret().contains("second"));
    assert_eq!(first.cookies, jar(a, "x", "p").cookies);
    let facts = store.cookie_jar_facts(a).await?.expect("facts");
    assert_eq!((facts.egress_path.as_str(), facts.cookies.len()), ("http://10.0.0.1:3128", 1));

    // Another key opens no jar: they are dropped from the load, not an error; facts stay.
    let impostor = h.reopen(Some(Keyring::new(MasterKey::generate("k1")?, vec![])?)).await?;
    assert!(impostor.load_cookie_jars().await?.is_empty());
    assert!(impostor.cookie_jar_facts(a).await?.is_some());
    h.close(impostor).await;

    // Deleting one jar, then an account with its jar.
    store.delete_cookie_jar(b).await?;
    assert!(store.cookie_jar_facts(b).await?.is_none());
    store.save_cookie_jar(&jar(b, "again", "direct")).await?;
    let mut tx = store.begin().await?;
    tx.delete_account(b).await?;
    tx.commit(audit("account.delete", "account")).await?;
    assert!(store.cookie_jar_facts(b).await?.is_none(), "the jar went with its account");
    // A jar for an account that is gone is not written, and is no error.
    store.save_cookie_jar(&jar(b, "late", "direct")).await?;
    assert!(store.cookie_jar_facts(b).await?.is_none());
    h.finish().await
}
