//! Alert delivery: signatures, the retry policy in paused time, subscriptions and repeats.

mod delivery;
mod signature;
