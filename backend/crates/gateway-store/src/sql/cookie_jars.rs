//! [`CookieJarStore`]: the cookies an upstream set on an account's answers, one sealed jar per
//! account (the text is the same in both databases). Rows are mapped by `rows::cookie_jars`.

use async_trait::async_trait;

use gateway_core::domain::AccountId;
use gateway_core::ports::{CookieJarFacts, CookieJarStore, StorageError, StoredCookieJar};

use crate::rows::cookie_jars::{facts_from_row, facts_json, jar_from_row, seal_jar};
use crate::sql::store::SqlStore;
use crate::sql::{Dialect, Sql, Statement};

const ALL: Sql = Sql::same(
    "SELECT account_id, egress_path, jar_ciphertext, jar_key_id, cookies, updated_at \
     FROM account_cookies ORDER BY account_id",
);
/// Written only while the account exists (a deleted one takes its jar with it).
const SAVE: Sql = Sql::same(
    "INSERT INTO account_cookies (account_id, egress_path, jar_ciphertext, jar_key_id, cookies, updated_at) \
     SELECT id, $2, $3, $4, $5, $6 FROM provider_accounts WHERE id = $1 \
     ON CONFLICT (account_id) DO UPDATE SET egress_path = EXCLUDED.egress_path, \
     jar_ciphertext = EXCLUDED.jar_ciphertext, jar_key_id = EXCLUDED.jar_key_id, \
     cookies = EXCLUDED.cookies, updated_at = EXCLUDED.updated_at",
);
const DELETE: Sql = Sql::same("DELETE FROM account_cookies WHERE account_id = $1");
const FACTS: Sql = Sql::same("SELECT egress_path, cookies, updated_at FROM account_cookies WHERE account_id = $1");

#[async_trait]
impl<D: Dialect> CookieJarStore for SqlStore<D> {
    async fn load_cookie_jars(&self) -> Result<Vec<StoredCookieJar>, StorageError> {
        let keyring = self.keyring()?;
        let rows = Statement::<D>::new(&ALL).fetch_all(self.reader()).await?;
        let mut jars = Vec::with_capacity(rows.len());
        for row in &rows {
            jars.extend(jar_from_row(row, keyring)?);
        }
        Ok(jars)
    }

    async fn save_cookie_jar(&self, jar: &StoredCookieJar) -> Result<(), StorageError> {
        let sealed = seal_jar(self.keyring()?, jar.account, &jar.jar)?;
        Statement::<D>::new(&SAVE)
            .bind(jar.account.0)
            .bind(&jar.egress_path)
            .bind(sealed.ciphertext)
            .bind(sealed.key_id)
            .bind(facts_json(&jar.cookies)?)
            .bind(jar.updated_at)
            .execute(self.writer())
            .await?;
        Ok(())
    }

    async fn delete_cookie_jar(&self, account: AccountId) -> Result<(), StorageError> {
        Statement::<D>::new(&DELETE).bind(account.0).execute(self.writer()).await?;
        Ok(())
    }

    async fn cookie_jar_facts(&self, account: AccountId) -> Result<Option<CookieJarFacts>, StorageError> {
        let row = Statement::<D>::new(&FACTS).bind(account.0).fetch_optional(self.reader()).await?;
        row.as_ref().map(facts_from_row).transpose()
    }
}
