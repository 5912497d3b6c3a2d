//! A TCP proxy a test can cut: an outage of one service (PostgreSQL, Redis) for one process
//! under test, without disturbing other tests that use the same server.
//!
//! `cut()` closes every open connection and makes new ones close right after they are accepted
//! (the client sees the connection drop, as when a server goes away); `restore()` lets new
//! connections through again. Every task belongs to the proxy and ends when it is dropped.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

pub struct TcpProxy {
    addr: SocketAddr,
    /// `true` while cut; every connection task watches it.
    cut: Arc<watch::Sender<bool>>,
    accept: tokio::task::JoinHandle<()>,
}

impl TcpProxy {
    /// Listens on a free loopback port and forwards every connection to `upstream`.
    pub async fn start(upstream: SocketAddr) -> anyhow::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let cut = Arc::new(watch::channel(false).0);
        let accept = tokio::spawn(accept_loop(listener, upstream, cut.clone()));
        Ok(Self { addr, cut, accept })
    }

    /// The address clients connect to.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Closes every open connection and refuses new ones until [`restore`](Self::restore).
    pub fn cut(&self) {
        self.cut.send_replace(true);
    }

    pub fn restore(&self) {
        self.cut.send_replace(false);
    }

    /// `url` with its `host:port` replaced by this proxy's address (`scheme://[user@]host:port/…`).
    pub fn rewrite_url(&self, url: &str) -> anyhow::Result<String> {
        let (scheme, rest) = url.split_once("://").ok_or_else(|| anyhow::anyhow!("{url} has no scheme"))?;
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let userinfo = authority.rsplit_once('@').map(|(user, _)| format!("{user}@")).unwrap_or_default();
        Ok(format!("{scheme}://{userinfo}{}{path}", self.addr))
    }
}

impl Drop for TcpProxy {
    fn drop(&mut self) {
        // The accept task owns the connection tasks (a JoinSet): aborting it ends them all.
        self.accept.abort();
    }
}

async fn accept_loop(listener: TcpListener, upstream: SocketAddr, cut: Arc<watch::Sender<bool>>) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((client, _)) = accepted else { continue };
                if *cut.borrow() {
                    drop(client);
                    continue;
                }
                connections.spawn(forward(client, upstream, cut.subscribe()));
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

async fn forward(mut client: TcpStream, upstream: SocketAddr, mut cut: watch::Receiver<bool>) {
    let Ok(mut server) = TcpStream::connect(upstream).await else { return };
    tokio::select! {
        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
        _ = cut.wait_for(|cut| *cut) => {}
    }
}
