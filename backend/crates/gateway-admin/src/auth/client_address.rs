//! The client address of an admin request (the per-address login limit, session lists).
//!
//! Without `admin.trusted_proxy` it is the socket peer. With it, forwarded headers count only
//! when the peer itself is a trusted proxy (`admin.trusted_proxy_cidrs`); then the client is
//! the right-most `X-Forwarded-For` entry that is not a trusted proxy — every proxy appends the
//! address it saw, so the entries left of it are whatever the client wrote itself.

use std::net::{IpAddr, SocketAddr};

use ipnet::IpNet;

/// Longest address text kept (an entry a proxy wrote that is not an IP address).
const MAX_ADDRESS_LEN: usize = 64;

/// Which peers may forward a client address.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    enabled: bool,
    networks: Vec<IpNet>,
}

impl TrustedProxies {
    /// `enabled`: a proxy is in front (`admin.trusted_proxy`); `networks`: its addresses.
    pub fn new(enabled: bool, networks: Vec<IpNet>) -> Self {
        Self { enabled, networks }
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.networks.iter().any(|network| network.contains(&ip))
    }

    /// Whether forwarded headers (`X-Forwarded-For`, `X-Forwarded-Proto`) from `peer` count.
    pub fn trusts_peer(&self, peer: Option<IpAddr>) -> bool {
        self.enabled && peer.is_some_and(|peer| self.trusts(peer))
    }

    /// The client address of a request from `peer` carrying these `X-Forwarded-For` header
    /// values (in order).
    pub fn client_address(&self, peer: Option<IpAddr>, forwarded_for: &[&str]) -> Option<String> {
        let peer_text = peer.map(|p| p.to_canonical().to_string());
        if !self.trusts_peer(peer) {
            return peer_text;
        }
        let entries: Vec<&str> = forwarded_for
            .iter()
            .flat_map(|value| value.split(','))
            .map(|entry| entry.trim().trim_matches('"'))
            .filter(|entry| !entry.is_empty())
            .collect();
        let mut leftmost = None;
        for entry in entries.iter().rev() {
            match parse_entry(entry) {
                Some(ip) if self.trusts(ip) => leftmost = Some(ip.to_string()),
                Some(ip) => return Some(ip.to_string()),
                // Written by a trusted proxy, but not an address: keep it as the client's name.
                None => return Some(entry.chars().take(MAX_ADDRESS_LEN).collect()),
            }
        }
        // Every hop is a trusted proxy: the client is inside the trusted networks.
        leftmost.or(peer_text)
    }
}

/// An `X-Forwarded-For` entry: an address, optionally with a port (`1.2.3.4:80`, `[::1]:80`).
fn parse_entry(entry: &str) -> Option<IpAddr> {
    let ip = entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| entry.parse::<SocketAddr>().ok().map(|s| s.ip()))
        .or_else(|| entry.strip_prefix('[').and_then(|e| e.strip_suffix(']')).and_then(|e| e.parse().ok()))?;
    Some(ip.to_canonical())
}
