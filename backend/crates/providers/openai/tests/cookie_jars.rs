//! Each account's cookie jar (`cookie_jars.rs`): filled from an answer's `Set-Cookie`, sent on
//! that account's requests only, dropped when the account's egress path changes, expired by its
//! attributes, handed to the store as it changes (sealed there; values never in `Debug`).

use gateway_core::domain::{
    AccountId, AccountProfile, AccountRecord, CredentialDocument, CredentialFacts, CredentialRevision, CredentialSlot,
    EgressProxy, ProviderData, ProviderKind, QuotaFacts, QuotaRevision, SchedulingFacts,
};
use gateway_core::snapshot::AccountEntry;
use http::{HeaderMap, HeaderValue};
use provider_openai::cookie_jars::AccountCookies;
use secrecy::ExposeSecret;
use time::OffsetDateTime;
use url::Url;

fn entry(id: i64, proxy: Option<&str>) -> AccountEntry {
    let now = OffsetDateTime::now_utc();
    let record = AccountRecord {
        id: AccountId(id),
        provider: ProviderKind::Openai,
        external_account_id: format!("acct-{id}"),
        profile: AccountProfile { email: None, plan_type: None },
        scheduling: SchedulingFacts::default(),
        credential_revision: CredentialRevision(1),
        credential: CredentialSlot::Available(CredentialDocument::new("{}".to_owned())),
        credential_facts: CredentialFacts::active(None, None),
        quota_revision: QuotaRevision(0),
        quota: QuotaFacts::default(),
        provider_data: ProviderData::default(),
        egress_proxy: None,
        created_at: now,
        updated_at: now,
    };
    let egress_proxy = proxy.map(|p| EgressProxy::new(p.to_owned(), p.to_owned()));
    AccountEntry { record, max_in_flight: 4, egress_proxy }
}

fn answer(cookies: &[&str]) -> HeaderMap {
    let mut headers = HeaderMap::new();
    for cookie in cookies {
        headers.append(http::header::SET_COOKIE, HeaderValue::from_str(cookie).expect("value"));
    }
    headers
}

fn url() -> Url {
    Url::parse("https://chatgpt.com/backend-api/codex/responses").expect("url")
}

#[test]
fn cookies_go_back_to_their_account_only() {
    let jars = AccountCookies::default();
    let (a, b) = (entry(1, None), entry(2, None));
    assert!(jars.header(&a, &url()).is_none(), "no jar, no header");
    jars.absorb(&a, &url(), &answer(&["__cf_bm=abc123; path=/; HttpOnly; Secure; SameSite=None", "sid=s1; Path=/"]));
    let header = jars.header(&a, &url()).expect("a's cookies");
    let text = header.to_str().expect("ascii");
    assert!(text.contains("__cf_bm=abc123") && text.contains("sid=s1"), "{text}");
    assert!(header.is_sensitive(), "the header is marked sensitive");
    assert!(jars.header(&b, &url()).is_none(), "another account never gets them");
    // Secure cookies never go over plain HTTP; another host gets nothing.
    let plain = Url::parse("http://chatgpt.com/backend-api/codex/responses").expect("url");
    assert!(!jars.header(&a, &plain).map(|h| h.to_str().expect("ascii").contains("__cf_bm")).unwrap_or(false));
    let other = Url::parse("https://example.com/backend-api/codex/responses").expect("url");
    assert!(jars.header(&a, &other).is_none());
}

#[test]
fn a_new_egress_path_drops_the_jar_and_deletion_and_expiry_are_honoured() {
    let jars = AccountCookies::default();
    let direct = entry(1, None);
    jars.absorb(&direct, &url(), &answer(&["__cf_bm=v1; path=/", "short=x; Max-Age=0"]));
    assert_eq!(jars.names(AccountId(1)), ["__cf_bm"], "Max-Age=0 deletes at once");
    let changes = jars.take_changes(OffsetDateTime::now_utc());
    assert_eq!(changes.save.len(), 1);
    assert_eq!(changes.save[0].egress_path, "direct");
    assert_eq!(changes.save[0].cookies[0].name, "__cf_bm");
    assert!(changes.save[0].jar.expose_secret().contains("v1"), "the stored jar keeps the value");
    assert!(!format!("{:?}", changes.save[0]).contains("v1"), "Debug never shows it");
    // The proxy changed: the cookies described another address.
    let proxied = entry(1, Some("http://10.0.0.1:3128"));
    assert!(jars.header(&proxied, &url()).is_none(), "dropped on another path");
    let changes = jars.take_changes(OffsetDateTime::now_utc());
    assert_eq!(changes.delete, [AccountId(1)], "and deleted from the store");
    // The upstream deletes a cookie.
    jars.absorb(&proxied, &url(), &answer(&["sid=1; path=/"]));
    jars.absorb(&proxied, &url(), &answer(&["sid=; path=/; Max-Age=0"]));
    assert!(jars.header(&proxied, &url()).is_none());
}

#[test]
fn a_stored_jar_is_loaded_and_an_answer_since_then_wins() {
    let jars = AccountCookies::default();
    let a = entry(1, None);
    jars.absorb(&a, &url(), &answer(&["__cf_bm=old; path=/"]));
    let stored = jars.take_changes(OffsetDateTime::now_utc()).save;
    let restarted = AccountCookies::default();
    restarted.absorb(&entry(2, None), &url(), &answer(&["__cf_bm=fresh; path=/"]));
    let mut loaded = stored;
    loaded.extend(restarted.take_changes(OffsetDateTime::now_utc()).save.into_iter().map(|mut jar| {
        jar.jar = secrecy::SecretString::from("[]".to_owned());
        jar
    }));
    restarted.load(loaded);
    assert!(restarted.header(&a, &url()).expect("loaded").to_str().expect("ascii").contains("old"));
    let b = restarted.header(&entry(2, None), &url()).expect("kept");
    assert!(b.to_str().expect("ascii").contains("fresh"), "a jar collected since the start is kept");
}
