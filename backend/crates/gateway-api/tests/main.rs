//! Tests of the gateway-api package: the admin OpenAPI document and the dashboard serving.

mod admin;
mod spa;
