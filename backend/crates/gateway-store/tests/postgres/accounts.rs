//! PostgreSQL-only account checks (the port behaviour is in `storage_contract::accounts`).

use gateway_admin::ports::UnitOfWork;
use gateway_core::domain::GroupId;
use gateway_core::ports::{ConstraintKind, StorageError};

use crate::postgres::test_store::TestStore;

#[tokio::test]
async fn constraint_names_and_closed_sets_hold_for_any_writer() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let account = t.import("acct-1", "tok").await?.account_id;
    let mut tx = t.store.begin().await?;
    let err = tx.replace_account_groups(account, &[GroupId(999_999)]).await.expect_err("no such group");
    assert!(
        matches!(&err, StorageError::Constraint { kind: ConstraintKind::ForeignKey, constraint }
            if constraint == "account_group_accounts_group_id_fkey"),
        "{err:?}"
    );
    drop(tx);
    let raw = sqlx::query("UPDATE provider_accounts SET credential_state = 'sleeping'").execute(&t.raw).await;
    assert!(raw.is_err(), "closed sets are CHECK constraints");
    t.finish().await
}
