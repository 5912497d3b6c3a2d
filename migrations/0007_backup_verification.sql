-- Backups (issue 21): what the daemon needs to stream, verify and recover a job.
-- row_counts:   rows per table at dump time (same snapshot as the dump), compared after a restore.
-- bytes_done:   bytes uploaded so far (the dashboard's progress).
-- upload_id:    the open S3 multipart upload, aborted when an interrupted job is failed.
-- verified_at / verify_error: the last full-restore verification and its failure, if any.
ALTER TABLE backup_records
    ADD COLUMN row_counts   JSONB       NULL,
    ADD COLUMN bytes_done   BIGINT      NOT NULL DEFAULT 0 CHECK (bytes_done >= 0),
    ADD COLUMN upload_id    TEXT        NULL CHECK (length(upload_id) <= 1024),
    ADD COLUMN verified_at  TIMESTAMPTZ NULL,
    ADD COLUMN verify_error TEXT        NULL CHECK (length(verify_error) <= 2000);
