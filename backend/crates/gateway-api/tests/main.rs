//! Tests of the gateway-api package: the admin OpenAPI document.

mod admin;
