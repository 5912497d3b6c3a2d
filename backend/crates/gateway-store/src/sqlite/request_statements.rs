//! The multi-row `model_requests` statements of the SQLite adapter.
//!
//! The embedded mode has one writer connection, and each statement is a round trip to the
//! driver's worker thread: a batch written row by row spent its time there, not in SQLite. So a
//! batch is written in chunks of up to [`MAX_CHUNK`] rows per statement. Chunk sizes are powers
//! of two, so the statement cache holds a handful of texts whatever the batch sizes are.
//!
//! Every parameter is an anonymous `?`, written once, in bind order, inside a `VALUES` common
//! table expression (`v.c1..v.cN`); the statement's expressions read the columns of `v`. Numbered
//! parameters (`$N`) would be looked up by name for every bind, and SQLite finds a parameter's
//! name by a linear scan, so a chunk of 64 rows × 37 numbered parameters spent most of the writer
//! thread in `sqlite3_bind_parameter_name`: binding was quadratic in the parameter count (seen
//! with `perf` in bench (f); decision 0182).
//!
//! The statements are built once from one-row templates written with `$1..$N`, renamed to
//! `v.c1..v.cN` (see `requests.rs` for the monotone rules the update applies).

use std::sync::OnceLock;

/// The largest number of rows one statement carries (37 parameters per inserted row).
pub(crate) const MAX_CHUNK: usize = 64;

/// Parameters per update row (`bind_update`).
const UPDATE_PARAMS: u32 = 26;
/// Parameters per inserted row (`bind_update` then `bind_start`).
const INSERT_PARAMS: u32 = 37;

/// `CASE` rank of a send state.
macro_rules! rank {
    ($e:expr) => {
        concat!("(CASE ", $e, " WHEN 'not_sent' THEN 0 WHEN 'ambiguous' THEN 1 WHEN 'sent' THEN 2 END)")
    };
}

/// The assignments of an update ($1..$26). Rows still `running` take the update's values (`NULL`
/// keeps the stored one); terminal rows only see their watermark rise.
const UPDATE_SET: &str = concat!(
    "send_state = CASE WHEN ",
    rank!("$3"),
    " > ",
    rank!("send_state"),
    " THEN $3 ELSE send_state END, \
     status = CASE WHEN status = 'running' THEN $2 ELSE status END, \
     provider = CASE WHEN status = 'running' THEN COALESCE($4, provider) ELSE provider END, \
     account_id = CASE WHEN status = 'running' \
        THEN COALESCE((SELECT a.id FROM provider_accounts a WHERE a.id = $5), account_id) ELSE account_id END, \
     upstream_model = CASE WHEN status = 'running' THEN COALESCE($6, upstream_model) ELSE upstream_model END, \
     http_status = CASE WHEN status = 'running' THEN COALESCE($7, http_status) ELSE http_status END, \
     error_code = CASE WHEN status = 'running' THEN COALESCE($8, error_code) ELSE error_code END, \
     attempts = CASE WHEN status = 'running' THEN COALESCE($9, attempts) ELSE attempts END, \
     input_tokens = CASE WHEN status = 'running' THEN COALESCE($10, input_tokens) ELSE input_tokens END, \
     cached_input_tokens = CASE WHEN status = 'running' THEN COALESCE($11, cached_input_tokens) ELSE cached_input_tokens END, \
     output_tokens = CASE WHEN status = 'running' THEN COALESCE($12, output_tokens) ELSE output_tokens END, \
     reasoning_tokens = CASE WHEN status = 'running' THEN COALESCE($13, reasoning_tokens) ELSE reasoning_tokens END, \
     total_tokens = CASE WHEN status = 'running' THEN COALESCE($14, total_tokens) ELSE total_tokens END, \
     cost_nano_usd = CASE WHEN status = 'running' THEN COALESCE($15, cost_nano_usd) ELSE cost_nano_usd END, \
     service_tier = CASE WHEN status = 'running' THEN COALESCE($16, service_tier) ELSE service_tier END, \
     client_response_id = CASE WHEN status = 'running' THEN COALESCE($17, client_response_id) ELSE client_response_id END, \
     upstream_response_id = CASE WHEN status = 'running' THEN COALESCE($18, upstream_response_id) ELSE upstream_response_id END, \
     downstream_committed_at = CASE WHEN status = 'running' THEN COALESCE(downstream_committed_at, $19) ELSE downstream_committed_at END, \
     finished_at = CASE WHEN status <> 'running' THEN finished_at WHEN $2 = 'running' THEN NULL ELSE COALESCE($20, $26) END, \
     connect_ms = CASE WHEN status = 'running' THEN COALESCE($21, connect_ms) ELSE connect_ms END, \
     headers_ms = CASE WHEN status = 'running' THEN COALESCE($22, headers_ms) ELSE headers_ms END, \
     first_event_ms = CASE WHEN status = 'running' THEN COALESCE($23, first_event_ms) ELSE first_event_ms END, \
     first_token_ms = CASE WHEN status = 'running' THEN COALESCE($24, first_token_ms) ELSE first_token_ms END, \
     total_ms = CASE WHEN status = 'running' THEN COALESCE($25, total_ms) ELSE total_ms END"
);

/// Which rows an update touches besides its id: running ones, or terminal ones whose watermark rises.
const UPDATE_GUARD: &str = concat!("(status = 'running' OR ", rank!("$3"), " > ", rank!("send_state"), ")");

const INSERT_COLUMNS: &str = "INSERT INTO model_requests (id, status, send_state, provider, account_id, \
     upstream_model, http_status, error_code, attempts, input_tokens, cached_input_tokens, output_tokens, \
     reasoning_tokens, total_tokens, cost_nano_usd, service_tier, client_response_id, upstream_response_id, \
     downstream_committed_at, finished_at, connect_ms, headers_ms, first_event_ms, first_token_ms, total_ms, \
     client_key_id, requested_model, operation, transport, stream, routing_scope, routing_groups, started_at, \
     deadline_at, replica_name, boot_id) ";

/// One inserted row: a start with its update folded in, or a fresh `running` one ($1..$26), and
/// the start's own columns ($27..$37). A client key or account that no longer exists is `NULL`.
const INSERT_ROW: &str = "$1, $2, $3, $4, (SELECT a.id FROM provider_accounts a WHERE a.id = $5), $6, $7, $8, \
     COALESCE($9, '[]'), $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, \
     CASE WHEN $2 = 'running' THEN NULL ELSE COALESCE($20, $26) END, $21, $22, $23, $24, $25, \
     (SELECT k.id FROM client_api_keys k WHERE k.id = $27), $28, $29, $30, $31, $32, $33, $34, $35, $36, $37";

/// The insert of `rows` starts (a power of two up to [`MAX_CHUNK`]), returning the ids it wrote.
pub(crate) fn insert(rows: usize) -> &'static str {
    static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
    by_size(&TEXTS, rows, insert_text)
}

/// The update of `rows` rows (a power of two up to [`MAX_CHUNK`]).
pub(crate) fn update(rows: usize) -> &'static str {
    static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
    by_size(&TEXTS, rows, update_text)
}

/// Splits `n` rows into statement-sized chunks: powers of two, largest first.
pub(crate) fn chunks(mut n: usize) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if n == 0 {
            return None;
        }
        let size = if n >= MAX_CHUNK { MAX_CHUNK } else { 1 << n.ilog2() };
        n -= size;
        Some(size)
    })
}

fn by_size(texts: &'static OnceLock<Vec<String>>, rows: usize, build: fn(usize) -> String) -> &'static str {
    let texts = texts.get_or_init(|| (0..=MAX_CHUNK.ilog2()).map(|p| build(1 << p)).collect());
    debug_assert!(rows.is_power_of_two() && rows <= MAX_CHUNK, "chunk sizes come from `chunks`");
    texts[rows.ilog2() as usize].as_str()
}

fn insert_text(rows: usize) -> String {
    format!(
        "WITH v({}) AS (VALUES {}) {INSERT_COLUMNS}SELECT {} FROM v WHERE true ON CONFLICT (id) DO NOTHING RETURNING id",
        columns(INSERT_PARAMS),
        anonymous_tuples(rows, INSERT_PARAMS),
        renumber(INSERT_ROW, |n| format!("v.c{n}")),
    )
}

fn update_text(rows: usize) -> String {
    let from_v = |n: u32| format!("v.c{n}");
    format!(
        "WITH v({}) AS (VALUES {}) UPDATE model_requests SET {} FROM v WHERE model_requests.id = v.c1 AND {}",
        columns(UPDATE_PARAMS),
        anonymous_tuples(rows, UPDATE_PARAMS),
        renumber(UPDATE_SET, from_v),
        renumber(UPDATE_GUARD, from_v),
    )
}

/// `c1, c2, …, cN`: the columns of the `VALUES` table.
fn columns(params: u32) -> String {
    (1..=params).map(|n| format!("c{n}")).collect::<Vec<_>>().join(", ")
}

/// `rows` tuples of `params` anonymous parameters each.
fn anonymous_tuples(rows: usize, params: u32) -> String {
    let tuple = format!("({})", vec!["?"; params as usize].join(", "));
    vec![tuple; rows].join(", ")
}

/// `template` with every `$N` replaced by `to(N)`.
fn renumber(template: &str, to: impl Fn(u32) -> String) -> String {
    let mut out = String::with_capacity(template.len() * 2);
    let mut rest = template;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let digits = rest[at + 1..].bytes().take_while(u8::is_ascii_digit).count();
        match rest[at + 1..at + 1 + digits].parse::<u32>() {
            Ok(n) => out.push_str(&to(n)),
            Err(_) => out.push('$'),
        }
        rest = &rest[at + 1 + digits..];
    }
    out.push_str(rest);
    out
}
