//! A fresh PostgreSQL schema per test, so tests run in parallel without seeing each other.

use std::time::{SystemTime, UNIX_EPOCH};

use rand::Rng;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{ConnectOptions, Connection, Executor};

/// The server tests use: `SWITCHBOARD_TEST_DATABASE_URL`, else the local default.
pub fn database_url() -> String {
    std::env::var("SWITCHBOARD_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned())
}

/// A schema created for one test. `url()` selects it through `search_path`, so code under test
/// needs no knowledge of it. Schemas older than an hour (left by crashed runs) are removed when
/// a new one is created.
pub struct TestDatabase {
    pub schema: String,
    url: String,
}

impl TestDatabase {
    pub async fn create() -> anyhow::Result<Self> {
        let base = database_url();
        let mut admin = sqlx::postgres::PgConnection::connect(&base).await.map_err(|e| {
            anyhow::anyhow!(
                "PostgreSQL is not reachable at {base} ({e}); run the tests through scripts/test, \
                 which starts it, or set SWITCHBOARD_TEST_DATABASE_URL"
            )
        })?;
        let now = SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs();
        let schema = format!("t_{now}_{:08x}", rand::rng().random::<u32>());
        drop_stale_schemas(&mut admin, now).await?;
        admin.execute(sqlx::AssertSqlSafe(format!("CREATE SCHEMA \"{schema}\""))).await?;
        admin.close().await?;
        let url = with_search_path(&base, &schema);
        Ok(Self { schema, url })
    }

    /// A connection URL whose sessions use this schema.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A small pool on this schema.
    pub async fn pool(&self) -> anyhow::Result<PgPool> {
        let options: PgConnectOptions = self.url.parse()?;
        Ok(PgPoolOptions::new().max_connections(4).connect_with(options.disable_statement_logging()).await?)
    }

    /// Drops the schema and everything in it.
    pub async fn drop_schema(self) -> anyhow::Result<()> {
        let mut admin = sqlx::postgres::PgConnection::connect(&database_url()).await?;
        admin.execute(sqlx::AssertSqlSafe(format!("DROP SCHEMA IF EXISTS \"{}\" CASCADE", self.schema))).await?;
        admin.close().await?;
        Ok(())
    }
}

fn with_search_path(base: &str, schema: &str) -> String {
    let separator = if base.contains('?') { '&' } else { '?' };
    format!("{base}{separator}options=-c%20search_path%3D{schema}")
}

async fn drop_stale_schemas(admin: &mut sqlx::postgres::PgConnection, now: u64) -> anyhow::Result<()> {
    let names: Vec<(String,)> = sqlx::query_as("SELECT nspname FROM pg_namespace WHERE nspname LIKE 't\\_%\\_%'")
        .fetch_all(&mut *admin)
        .await?;
    for (name,) in names {
        let created = name.split('_').nth(1).and_then(|s| s.parse::<u64>().ok());
        if created.is_some_and(|created| created + 3600 < now) {
            admin.execute(sqlx::AssertSqlSafe(format!("DROP SCHEMA IF EXISTS \"{name}\" CASCADE"))).await?;
        }
    }
    Ok(())
}
