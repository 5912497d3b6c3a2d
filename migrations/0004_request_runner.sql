-- Which process runs a request: its replica's stable name and the id of that process's start
-- (boot). A process that dies (kill -9, OOM, a lost host) cannot finish its rows; with these
-- columns a live replica (once the boot's heartbeat stopped) or the process's own successor
-- (same replica name, new boot) recovers them as `incomplete` within a minute instead of at
-- their deadline. Rows written before this migration have neither and keep the deadline path.
ALTER TABLE model_requests
    ADD COLUMN replica_name TEXT NULL CHECK (length(replica_name) BETWEEN 1 AND 200),
    ADD COLUMN boot_id      UUID NULL,
    ADD CONSTRAINT model_requests_runner_whole CHECK ((replica_name IS NULL) = (boot_id IS NULL));

-- The recovery asks "which boots still have running rows" and "the running rows of boot B".
CREATE INDEX model_requests_running_boot_idx ON model_requests (boot_id) WHERE status = 'running';
