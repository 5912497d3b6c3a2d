//! The browser address of a login (PROTOCOL §A.2): the issuer's `/oauth/authorize` with the
//! parameters Codex sends, in Codex's order, each value percent-encoded (RFC 3986 unreserved
//! characters kept, space as `%20`).

/// The scopes Codex asks for (with the connector scopes added 2026-03).
pub const SCOPES: &str = "openid profile email offline_access api.connectors.read api.connectors.invoke";

/// The redirect Codex registers (its local callback server); the admin pastes the address the
/// browser ends on.
pub const REDIRECT_URI: &str = "http://localhost:1455/auth/callback";

/// What varies between two authorize requests.
pub struct AuthorizeParams<'a> {
    pub issuer: &'a str,
    pub client_id: &'a str,
    pub redirect_uri: &'a str,
    pub code_challenge: &'a str,
    pub state: &'a str,
    pub originator: &'a str,
}

pub fn authorize_url(p: &AuthorizeParams<'_>) -> String {
    let pairs: [(&str, &str); 10] = [
        ("response_type", "code"),
        ("client_id", p.client_id),
        ("redirect_uri", p.redirect_uri),
        ("scope", SCOPES),
        ("code_challenge", p.code_challenge),
        ("code_challenge_method", "S256"),
        ("id_token_add_organizations", "true"),
        ("codex_cli_simplified_flow", "true"),
        ("state", p.state),
        ("originator", p.originator),
    ];
    let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={}", encode(v))).collect();
    format!("{}/oauth/authorize?{}", p.issuer, query.join("&"))
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
pub fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len() * 3);
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
