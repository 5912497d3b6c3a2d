//! The fault table: one row per fault an upstream can produce, and what the gateway does about
//! it. Provider crates map their answers onto a [`Fault`] (`providers/*/src/classify.rs`); the
//! engine's failover ([`crate::engine::failover`]) and the refresher read the row. The table is
//! the one place the answer to "who is blamed, for how long, and what does the client get" is
//! written; `docs/reliability.md` ("Upstream faults") shows it, and a test holds the two to the
//! same rows.
//!
//! Invariant: only an explicit upstream verdict (a deactivated account, a refused refresh
//! token, a usage limit with its reset) changes what is stored about an account. Local and
//! ambiguous faults — TLS, DNS, a proxy, a timeout, an edge page, a challenge — change nothing
//! stored; at most they cool the account briefly in coordination storage.

mod row;
pub mod table;

pub use row::{Blame, ClientAnswer, CooldownRule, FaultRow, Next, Surface};
pub use table::row;

use crate::closed_set;

closed_set!(
    /// A fault as the upstream presents it: the row of the fault table. The code is what the
    /// attempt record, the cooldown, the metrics and the ops events call it; codes are only ever
    /// added, never renamed (stored rows keep them).
    Fault as "fault" {
        /// A 4xx about the body (400, 404, 409, 422, a 413 with the backend's JSON, a 403 that
        /// refuses the content), a WebSocket close 1009, a message too big to send.
        UpstreamRejected = "upstream_rejected",
        /// A 413 whose body is not the backend's JSON: an edge in front of it refused the size.
        EdgeRequestTooLarge = "edge_request_too_large",
        /// 429 `usage_limit_reached` with its reset (`resets_at`, `resets_in_seconds`, or the
        /// rate-limit headers of the full window).
        UsageLimitReached = "usage_limit_reached",
        /// 429 with `Retry-After` (seconds or an HTTP date) and no usage limit: a short rate limit.
        UpstreamRateLimited = "upstream_rate_limited",
        /// 429 with neither a reset deadline nor `Retry-After`.
        RateLimitedWithoutDeadline = "rate_limited_without_deadline",
        /// 429 `usage_not_included`: the plan does not include Codex.
        PlanExcludesService = "plan_excludes_service",
        /// 401: the credential was refused; one refresh, then the same account again.
        UpstreamUnauthorized = "upstream_unauthorized",
        /// 401 again after a refresh, or a refresh that failed: the credential cannot be used now.
        CredentialRefused = "credential_refused",
        /// 403 (or a refresh answer) saying the account is deactivated, banned or suspended.
        AccountDeactivated = "account_deactivated",
        /// Another 403 with the backend's JSON.
        AccountUnusable = "account_unusable",
        /// The account cannot use the requested model.
        ModelNotSupported = "model_not_supported",
        /// The stored credential cannot even be sent (not a valid header value).
        CredentialMalformed = "credential_malformed",
        /// A Cloudflare challenge: 403/429/503 with `cf-mitigated: challenge` or an interstitial
        /// challenge page. About the egress address and its cookies, not the account.
        CloudflareChallenge = "cloudflare_challenge",
        /// An edge refusal that is not a challenge: a 403 or 429 whose body is not the backend's
        /// JSON (Cloudflare's 1020 "access denied", 1015 "rate limited"), or the backend's
        /// `unsupported_country_region_territory`.
        EdgeBlocked = "edge_blocked",
        /// Any other error answer whose body is not the backend's JSON: an edge's page (502,
        /// 520–524, an HTML 500, a plain-text 503, an empty body).
        EdgeErrorPage = "edge_error_page",
        /// 5xx with the backend's JSON.
        UpstreamUnavailable = "upstream_unavailable",
        /// 503/529 with `Retry-After`, or `server_is_overloaded` / `slow_down`.
        UpstreamOverloaded = "upstream_overloaded",
        /// No response head before the header timeout: the request may have been processed.
        UpstreamHeadTimeout = "upstream_head_timeout",
        /// The connection failed after the request was written, before the head (or a
        /// WebSocket closed before the first event): the outcome is unknown.
        UpstreamAmbiguous = "upstream_ambiguous",
        /// TCP could not connect (refused, unreachable, timed out); nothing was sent.
        UpstreamConnectFailed = "upstream_connect_failed",
        /// The TLS handshake or the certificate check failed; nothing was sent.
        UpstreamTlsFailed = "upstream_tls_failed",
        /// The upstream's name did not resolve; nothing was sent.
        UpstreamDnsFailed = "upstream_dns_failed",
        /// The account's egress proxy is down, refused the tunnel or its login.
        EgressProxyFailed = "egress_proxy_failed",
        /// The state a `previous_response_id` needs is gone.
        PreviousResponseNotFound = "previous_response_not_found",
        /// This gateway ran out of descriptors or local ports.
        GatewayOverloaded = "gateway_overloaded",
        /// The upstream refused the client version the gateway presents (xAI's 426).
        ClientVersionRejected = "client_version_rejected",
        /// After the commit: the stream went silent for longer than the idle timeout.
        StreamStalled = "stream_stalled",
        /// After the commit: the connection broke or the stream ended mid-event.
        StreamBroken = "stream_broken",
        /// A Cloudflare challenge (or another edge page) on the OAuth token endpoint.
        TokenEndpointChallenge = "token_endpoint_challenge",
        /// The token endpoint failed for now: 5xx, 429, a timeout, unreachable, a malformed answer.
        TokenEndpointUnavailable = "token_endpoint_unavailable",
        /// The token endpoint refused the refresh token for good (`invalid_grant`, reused,
        /// revoked, expired, a 401).
        RefreshTokenRefused = "refresh_token_refused",
    }
);

impl Fault {
    /// This fault's row of the table.
    pub fn row(self) -> &'static FaultRow {
        table::row(self)
    }
}
