-- Backups (issue 21): see migrations/0007_backup_verification.sql (the PostgreSQL twin).
ALTER TABLE backup_records ADD COLUMN row_counts TEXT NULL;
ALTER TABLE backup_records ADD COLUMN bytes_done INTEGER NOT NULL DEFAULT 0 CHECK (bytes_done >= 0);
ALTER TABLE backup_records ADD COLUMN upload_id TEXT NULL CHECK (length(upload_id) <= 1024);
ALTER TABLE backup_records ADD COLUMN verified_at INTEGER NULL;
ALTER TABLE backup_records ADD COLUMN verify_error TEXT NULL CHECK (length(verify_error) <= 2000);
