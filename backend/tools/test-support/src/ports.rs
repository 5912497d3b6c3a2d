//! Free loopback ports for tests that must pass a port to a child process.

use std::net::TcpListener;

/// A port that was free a moment ago on 127.0.0.1. Prefer binding `127.0.0.1:0` directly where
/// the code under test allows it; use this only for child processes.
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("binding 127.0.0.1:0 must work on a test machine");
    listener.local_addr().expect("a bound listener has an address").port()
}
