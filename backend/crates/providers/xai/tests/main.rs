//! Integration tests of provider-xai: the error table, the event re-synthesis, the request
//! edits, the import formats, and both OAuth logins against the simulator's OIDC issuer (real
//! sockets, ES256 ID tokens checked against its JWKS).

mod catalog_billing;
mod classify;
mod compact;
mod continuation;
mod events;
mod import;
mod inband;
mod oauth;
mod reasoning;
mod replay;
mod request;
mod tool_calls;
mod tools;
