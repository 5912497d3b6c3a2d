//! The backup daemon's pure rules: the cron schedule, retention, row-count comparison.

mod retention;
mod row_counts;
mod schedule;
