//! The rows. `docs/reliability.md` ("Upstream faults") shows the same table; the test
//! `fault_table_matches_the_documentation` fails when they differ.

use std::time::Duration;

use gateway_protocol::ErrorCode;

use super::Fault;
use super::row::{Blame, ClientAnswer, CooldownRule, FaultRow, Next, Surface};

const MINUTE: Duration = Duration::from_secs(60);
const HOUR: Duration = Duration::from_secs(3600);
/// Longest cooldown taken from an upstream usage-limit reset.
pub const MAX_RESET_COOLDOWN: Duration = Duration::from_secs(7 * 24 * 3600);
/// Longest cooldown taken from an upstream `Retry-After`.
pub const MAX_RETRY_AFTER: Duration = HOUR;
/// A challenge or an edge block: first cooldown, doubled on repeats up to the max.
pub const EDGE_COOLDOWN_BASE: Duration = Duration::from_secs(15);
pub const EDGE_COOLDOWN_MAX: Duration = Duration::from_secs(10 * 60);

const fn data(fault: Fault, presented_as: &'static str, blame: Blame) -> FaultRow {
    FaultRow {
        fault,
        surface: Surface::DataPlane,
        presented_as,
        blame,
        cooldown: CooldownRule::None,
        next: Next::AnotherAccount,
        client: ClientAnswer::PoolRefusal,
        circuit_failure: false,
        ops_event: None,
    }
}

const fn cool(mut row: FaultRow, rule: CooldownRule) -> FaultRow {
    row.cooldown = rule;
    row
}

const fn stop(mut row: FaultRow, client: ClientAnswer) -> FaultRow {
    row.next = Next::Stop;
    row.client = client;
    row
}

const fn circuit(mut row: FaultRow) -> FaultRow {
    row.circuit_failure = true;
    row
}

const fn edge(mut row: FaultRow, ops_event: &'static str) -> FaultRow {
    row.cooldown = CooldownRule::Growing { base: EDGE_COOLDOWN_BASE, max: EDGE_COOLDOWN_MAX };
    row.next = Next::AnotherEgressPath;
    row.ops_event = Some(ops_event);
    row
}

const fn refresh(
    fault: Fault,
    presented_as: &'static str,
    blame: Blame,
    cooldown: CooldownRule,
    ops_event: Option<&'static str>,
) -> FaultRow {
    FaultRow {
        fault,
        surface: Surface::TokenEndpoint,
        presented_as,
        blame,
        cooldown,
        next: Next::NoRequest,
        client: ClientAnswer::Nobody,
        circuit_failure: false,
        ops_event,
    }
}

const fn after_commit(fault: Fault, presented_as: &'static str) -> FaultRow {
    FaultRow {
        fault,
        surface: Surface::Stream,
        presented_as,
        blame: Blame::Nobody,
        cooldown: CooldownRule::None,
        next: Next::AfterCommit,
        client: ClientAnswer::StreamError,
        circuit_failure: false,
        ops_event: None,
    }
}

/// Every row, in the order of the documentation table.
pub static ROWS: &[FaultRow] = &[
    stop(
        data(
            Fault::UpstreamRejected,
            "a 4xx about the body (400, 404, 409, 422, 413 JSON, a 403 refusing the content; another 4xx that is not JSON, its body not shown), WebSocket close 1009, a message too big to send",
            Blame::Request,
        ),
        ClientAnswer::UpstreamRefusal,
    ),
    stop(
        data(
            Fault::EdgeRequestTooLarge,
            "413 with a body that is not the backend's JSON (an edge's page)",
            Blame::Request,
        ),
        ClientAnswer::Error(ErrorCode::RequestTooLarge),
    ),
    cool(
        data(
            Fault::UsageLimitReached,
            "429 `usage_limit_reached` with `resets_at` / `resets_in_seconds` (or the full window's reset header)",
            Blame::Account,
        ),
        CooldownRule::UpstreamDeadline { fallback: Some(Duration::from_secs(15 * 60)), max: MAX_RESET_COOLDOWN },
    ),
    cool(
        data(
            Fault::UpstreamRateLimited,
            "429 with `Retry-After` (seconds or an HTTP date) and no usage limit",
            Blame::Account,
        ),
        CooldownRule::UpstreamDeadline { fallback: Some(MINUTE), max: MAX_RETRY_AFTER },
    ),
    cool(
        data(Fault::RateLimitedWithoutDeadline, "429 with neither a reset deadline nor `Retry-After`", Blame::Account),
        CooldownRule::Growing { base: Duration::from_secs(30), max: Duration::from_secs(15 * 60) },
    ),
    cool(
        data(Fault::PlanExcludesService, "429 `usage_not_included`", Blame::Account),
        CooldownRule::Fixed(Duration::from_secs(30 * 60)),
    ),
    FaultRow {
        next: Next::RefreshAndRetry,
        ..data(Fault::UpstreamUnauthorized, "401 (the first on this account in the request)", Blame::Account)
    },
    cool(
        data(Fault::CredentialRefused, "401 again after a refresh, or the refresh failed", Blame::Account),
        CooldownRule::Fixed(Duration::from_secs(10 * 60)),
    ),
    cool(
        data(
            Fault::AccountDeactivated,
            "403 (or 401) naming the account deactivated, banned or suspended",
            Blame::Account,
        ),
        CooldownRule::Fixed(Duration::from_secs(30 * 60)),
    ),
    cool(
        data(Fault::AccountUnusable, "another 403 with the backend's JSON", Blame::Account),
        CooldownRule::Fixed(Duration::from_secs(30 * 60)),
    ),
    cool(
        data(Fault::ModelNotSupported, "400/404/422 \"… model is not supported …\"", Blame::Account),
        CooldownRule::ExcludeModel(HOUR),
    ),
    cool(
        data(
            Fault::CredentialMalformed,
            "the stored access token is not a valid header value (nothing sent)",
            Blame::Account,
        ),
        CooldownRule::Fixed(Duration::from_secs(30 * 60)),
    ),
    edge(
        data(
            Fault::CloudflareChallenge,
            "403/429/503 with `cf-mitigated: challenge` or a \"Just a moment…\" challenge page",
            Blame::Egress,
        ),
        "upstream.challenge",
    ),
    edge(
        data(
            Fault::EdgeBlocked,
            "403/429 with a body that is not the backend's JSON (Cloudflare 1020 / 1015), or `unsupported_country_region_territory`",
            Blame::Egress,
        ),
        "upstream.edge_blocked",
    ),
    circuit(data(
        Fault::EdgeErrorPage,
        "a 5xx with a body that is not the backend's JSON (502, 520–524, an HTML 500, a text 503, an empty body)",
        Blame::Provider,
    )),
    circuit(data(Fault::UpstreamUnavailable, "5xx with the backend's JSON", Blame::Provider)),
    circuit(cool(
        data(
            Fault::UpstreamOverloaded,
            "503/529 with `Retry-After`, or `server_is_overloaded` / `slow_down`",
            Blame::Provider,
        ),
        CooldownRule::UpstreamDeadline { fallback: None, max: MAX_RETRY_AFTER },
    )),
    stop(
        data(Fault::UpstreamHeadTimeout, "no response head before `engine.header_timeout_seconds`", Blame::Nobody),
        ClientAnswer::Error(ErrorCode::UpstreamTimeout),
    ),
    stop(
        data(
            Fault::UpstreamAmbiguous,
            "the connection reset or closed after the request was written, before the head; a WebSocket closed before the first event",
            Blame::Nobody,
        ),
        ClientAnswer::Error(ErrorCode::UpstreamTimeout),
    ),
    circuit(data(Fault::UpstreamConnectFailed, "TCP connect refused, unreachable or timed out", Blame::Provider)),
    circuit(data(Fault::UpstreamTlsFailed, "the TLS handshake or certificate check failed", Blame::Provider)),
    circuit(data(Fault::UpstreamDnsFailed, "the upstream's name does not resolve", Blame::Nobody)),
    FaultRow {
        next: Next::AnotherEgressPath,
        ..data(
            Fault::EgressProxyFailed,
            "the account's egress proxy is down, refused the tunnel or its login",
            Blame::Egress,
        )
    },
    stop(
        data(
            Fault::PreviousResponseNotFound,
            "`previous_response_not_found`, or no live socket holds the response",
            Blame::Nobody,
        ),
        ClientAnswer::Error(ErrorCode::PreviousResponseNotFound),
    ),
    stop(
        data(
            Fault::GatewayOverloaded,
            "this gateway is out of descriptors or local ports (nothing sent)",
            Blame::Nobody,
        ),
        ClientAnswer::Error(ErrorCode::GatewayOverloaded),
    ),
    stop(
        data(Fault::ClientVersionRejected, "xAI 426: the client version is refused", Blame::Nobody),
        ClientAnswer::Error(ErrorCode::ClientVersionRejected),
    ),
    after_commit(
        Fault::StreamStalled,
        "after the commit, the stream is silent for `providers.*.stream_idle_timeout_seconds`",
    ),
    after_commit(Fault::StreamBroken, "after the commit, the connection resets or the stream ends mid-event"),
    refresh(
        Fault::TokenEndpointChallenge,
        "a challenge or another edge page (not JSON) at the OAuth token endpoint",
        Blame::Egress,
        CooldownRule::RefreshBackoff,
        None,
    ),
    refresh(
        Fault::TokenEndpointUnavailable,
        "the token endpoint answers 5xx or 429, times out, is unreachable, or answers without a token",
        Blame::Provider,
        CooldownRule::RefreshBackoff,
        None,
    ),
    refresh(
        Fault::RefreshTokenRefused,
        "`invalid_grant`, `refresh_token_reused` / `_invalidated` / `_expired`, or a 401",
        Blame::Account,
        CooldownRule::Terminal,
        None,
    ),
];

/// The row of `fault`.
pub fn row(fault: Fault) -> &'static FaultRow {
    ROWS.iter()
        .find(|row| row.fault == fault)
        .expect("the fault table has a row for every fault (checked by the fault table tests)")
}
