//! The target's tables, parents before children (foreign keys), so rows insert in order.

use std::collections::{BTreeMap, BTreeSet};

use sqlx::postgres::PgPool;

use super::{TransferError, db};

/// Every base table of the current schema, each after the tables it references.
pub async fn tables_in_dependency_order(pool: &PgPool) -> Result<Vec<String>, TransferError> {
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT table_name::text FROM information_schema.tables \
         WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name",
    )
    .fetch_all(pool)
    .await
    .map_err(db)?;
    let edges: Vec<(String, String)> = sqlx::query_as(
        "SELECT child.relname::text, parent.relname::text FROM pg_constraint c \
         JOIN pg_class child ON child.oid = c.conrelid \
         JOIN pg_class parent ON parent.oid = c.confrelid \
         JOIN pg_namespace n ON n.oid = child.relnamespace \
         WHERE c.contype = 'f' AND n.nspname = current_schema()",
    )
    .fetch_all(pool)
    .await
    .map_err(db)?;
    Ok(sort(&tables, &edges))
}

/// Kahn's algorithm over `(child, parent)` edges; self-references are ignored (ids keep their
/// order within a table), alphabetical among equals so the order is stable.
pub fn sort(tables: &[String], edges: &[(String, String)]) -> Vec<String> {
    let mut parents: BTreeMap<&str, BTreeSet<&str>> = tables.iter().map(|t| (t.as_str(), BTreeSet::new())).collect();
    for (child, parent) in edges {
        if child != parent
            && let Some(set) = parents.get_mut(child.as_str())
        {
            set.insert(parent.as_str());
        }
    }
    let mut ordered = Vec::with_capacity(tables.len());
    while !parents.is_empty() {
        let ready: Vec<&str> = parents.iter().filter(|(_, p)| p.is_empty()).map(|(t, _)| *t).collect();
        // A cycle (none in the schema) would stall: take the rest as they come.
        let next = if ready.is_empty() { parents.keys().copied().collect() } else { ready };
        for table in next {
            parents.remove(table);
            for set in parents.values_mut() {
                set.remove(table);
            }
            ordered.push(table.to_owned());
        }
    }
    ordered
}
