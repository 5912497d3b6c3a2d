//! The admin API's OpenAPI document, built without a server.

mod openapi;
mod openapi_committed;
mod wire_names;
