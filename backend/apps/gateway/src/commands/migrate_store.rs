//! `switchboard migrate-store --to postgres://…`: moving an embedded install up to the
//! production mode (decision 0188). The embedded store is opened as the server opens it (the
//! data directory's lock is taken, so a running server refuses the copy), the target is
//! connected with the same master key and migrated, then every table is copied in one
//! transaction with its rows counted on both sides.

use crate::config::Config;
use gateway_store::postgres;
use gateway_store::transfer::{TransferReport, sqlite_to_postgres};

use crate::bootstrap::storage::{DATABASE_FILE, MASTER_KEY_FILE, keyring};
use crate::bootstrap::{Mode, Role, StartError, open_storage};

fn failed(error: impl std::fmt::Display) -> StartError {
    StartError::Wiring(error.to_string())
}

pub async fn run(mut config: Config, to: String) -> Result<(), StartError> {
    if Mode::of(&config) != Mode::Embedded {
        return Err(failed(
            "migrate-store copies an embedded install, but this configuration sets database.url (the production \
             mode): run it with the embedded install's configuration",
        ));
    }
    if !to.starts_with("postgres://") && !to.starts_with("postgresql://") {
        return Err(failed("--to must be a postgres:// URL"));
    }
    // Opened as `serve` opens it: migrated, master key settled, the directory locked.
    let source = open_storage(&mut config, Role::Server).await?;
    let lock = source.lock;
    source.facts.close().await;
    let keyring = keyring(&config)?;
    let target = postgres::connect(&to, 4).await.map_err(|e| StartError::Storage(e.to_string()))?.with_keyring(keyring);
    let migrated = target.migrate().await.map_err(|e| StartError::Storage(e.to_string()));
    let outcome = match migrated {
        Ok(_) => sqlite_to_postgres(&config.server.data_dir.join(DATABASE_FILE), target.pool()).await.map_err(failed),
        Err(e) => Err(e),
    };
    target.close().await;
    drop(lock);
    let report = outcome?;
    print_report(&report);
    print_next_steps(&config);
    Ok(())
}

fn print_report(report: &TransferReport) {
    println!("{:<28} {:>10} {:>10}", "table", "sqlite", "postgres");
    for table in &report.tables {
        println!("{:<28} {:>10} {:>10}", table.name, table.source_rows, table.copied_rows);
    }
    let total: i64 = report.tables.iter().map(|t| t.copied_rows).sum();
    println!("copied {total} rows in {} tables; every count matches", report.tables.len());
}

fn print_next_steps(config: &Config) {
    let dir = std::path::absolute(&config.server.data_dir).unwrap_or_else(|_| config.server.data_dir.clone());
    eprintln!(
        "\nNext: start the gateway in production mode with\n  database.url = the --to URL\n  redis.url    = your Redis \
         (nothing to copy: it holds only rebuildable state; admins sign in again)\n  secrets.master_key = the same key \
         (the content of {}, unless you configured one)\nThe embedded files stay as they were; remove {} once the \
         production gateway serves.",
        dir.join(MASTER_KEY_FILE).display(),
        dir.join(DATABASE_FILE).display()
    );
}
