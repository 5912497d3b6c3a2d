//! Alert delivery: signatures, the retry policy in paused time, subscriptions and repeats; the
//! evaluated rules over a real SQLite store.

mod delivery;
mod rules;
mod signature;
