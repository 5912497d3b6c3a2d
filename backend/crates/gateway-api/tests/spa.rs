//! The dashboard's static serving (`gateway_api::spa`) with a fixture build and without one.

mod path;
mod serving;
