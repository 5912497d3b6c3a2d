//! Backups against real servers: SeaweedFS (S3, multipart, SigV4) on loopback, PostgreSQL with
//! `pg_dump`/`pg_restore`, SQLite with `VACUUM INTO`.

mod interrupted;
mod postgres;
mod sqlite;
mod support;
mod sweep;
