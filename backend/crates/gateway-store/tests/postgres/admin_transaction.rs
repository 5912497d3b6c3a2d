//! PostgreSQL-only audit checks (the port behaviour is in `storage_contract::admin_transaction`).

use gateway_admin::audit::{AuditActor, AuditEntry};
use gateway_admin::ports::{AuditTrail, GroupChanges, UnitOfWork};

use crate::postgres::test_store::TestStore;

#[tokio::test]
async fn the_audit_chain_detects_edits_and_stores_no_secret() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    for name in ["a", "b", "c"] {
        let mut tx = t.store.begin().await?;
        tx.create_group(&GroupChanges { name: name.to_owned(), description: "d".to_owned(), enabled: true }).await?;
        let entry = AuditEntry::new(
            AuditActor { user_id: None, name: "admin".to_owned() },
            "group.create",
            "group",
            Some(name.to_owned()),
            serde_json::json!({ "name": name, "refresh_token": "leaked" }),
        );
        tx.commit(entry).await?;
    }
    assert_eq!(t.store.verify_audit_chain().await?, None);
    let stored: String =
        sqlx::query_scalar("SELECT string_agg(details::text, ' ') FROM admin_audit_events").fetch_one(&t.raw).await?;
    assert!(!stored.contains("leaked"));

    let middle = t.store.list_audit_events(None, 10).await?[1].id;
    sqlx::query("UPDATE admin_audit_events SET details = '{\"name\": \"forged\"}' WHERE id = $1")
        .bind(middle)
        .execute(&t.raw)
        .await?;
    assert_eq!(t.store.verify_audit_chain().await?, Some(middle));
    t.finish().await
}
