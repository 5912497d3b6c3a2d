//! Fakes for driving `Engine::handle` in process: a scripted provider, a coordination fake,
//! an in-memory request log, and the world that wires them.

pub mod coordination;
pub mod log;
pub mod provider;
pub mod world;
