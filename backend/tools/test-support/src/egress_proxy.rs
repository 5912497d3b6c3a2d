//! Tiny local egress proxies for the tests (the transport's and the gateway's end to end):
//! HTTP CONNECT (optionally requiring Basic auth) and SOCKS5 (no auth or username/password).
//! Each counts the tunnels it opened; dropping it stops it.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use base64::Engine;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

pub struct TestProxy {
    pub port: u16,
    tunnels: Arc<AtomicUsize>,
    _tasks: JoinSet<()>,
}

type Tunnel = Option<(TcpStream, TcpStream)>;

impl TestProxy {
    /// Tunnels opened so far.
    pub fn tunnels(&self) -> usize {
        self.tunnels.load(Ordering::SeqCst)
    }

    pub fn url(&self, scheme: &str, userinfo: Option<&str>) -> String {
        match userinfo {
            Some(info) => format!("{scheme}://{info}@127.0.0.1:{}", self.port),
            None => format!("{scheme}://127.0.0.1:{}", self.port),
        }
    }

    /// An HTTP CONNECT proxy; with `auth` it answers 407 unless `Proxy-Authorization` matches.
    pub async fn http_connect(auth: Option<(&str, &str)>) -> Self {
        let expected = auth
            .map(|(u, p)| format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{u}:{p}"))));
        Self::start(move |client| connect_handshake(client, expected.clone())).await
    }

    /// A SOCKS5 proxy; with `auth` it requires username/password.
    pub async fn socks5(auth: Option<(&str, &str)>) -> Self {
        let auth = auth.map(|(u, p)| (u.to_owned(), p.to_owned()));
        Self::start(move |client| socks_handshake(client, auth.clone())).await
    }

    async fn start<F, Fut>(handshake: F) -> Self
    where
        F: Fn(TcpStream) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Tunnel> + Send + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let port = listener.local_addr().expect("addr").port();
        let tunnels = Arc::new(AtomicUsize::new(0));
        let counter = tunnels.clone();
        let mut tasks = JoinSet::new();
        tasks.spawn(async move {
            let mut connections = JoinSet::new();
            while let Ok((client, _)) = listener.accept().await {
                let tunnel = handshake(client);
                let counter = counter.clone();
                connections.spawn(async move {
                    if let Some((mut client, mut upstream)) = tunnel.await {
                        counter.fetch_add(1, Ordering::SeqCst);
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
                    }
                });
            }
        });
        Self { port, tunnels, _tasks: tasks }
    }
}

async fn connect_handshake(mut client: TcpStream, expected: Option<String>) -> Tunnel {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        head.push(client.read_u8().await.ok()?);
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let target = text.lines().next()?.strip_prefix("CONNECT ")?.split(' ').next()?.to_owned();
    if let Some(expected) = expected {
        let given = text.lines().find_map(|l| l.strip_prefix("Proxy-Authorization: ")).map(str::trim);
        if given != Some(expected.as_str()) {
            let _ = client.write_all(b"HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n").await;
            return None;
        }
    }
    let upstream = TcpStream::connect(target).await.ok()?;
    client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n").await.ok()?;
    Some((client, upstream))
}

async fn socks_handshake(mut client: TcpStream, auth: Option<(String, String)>) -> Tunnel {
    let version = client.read_u8().await.ok()?;
    let count = client.read_u8().await.ok()?;
    let mut methods = vec![0u8; usize::from(count)];
    client.read_exact(&mut methods).await.ok()?;
    if version != 5 {
        return None;
    }
    let wanted = if auth.is_some() { 2 } else { 0 };
    if !methods.contains(&wanted) {
        client.write_all(&[5, 0xff]).await.ok()?;
        return None;
    }
    client.write_all(&[5, wanted]).await.ok()?;
    if let Some((user, pass)) = auth {
        let _ = client.read_u8().await.ok()?;
        let mut name = vec![0u8; usize::from(client.read_u8().await.ok()?)];
        client.read_exact(&mut name).await.ok()?;
        let mut word = vec![0u8; usize::from(client.read_u8().await.ok()?)];
        client.read_exact(&mut word).await.ok()?;
        let ok = name == user.as_bytes() && word == pass.as_bytes();
        client.write_all(&[1, if ok { 0 } else { 1 }]).await.ok()?;
        if !ok {
            return None;
        }
    }
    let mut request = [0u8; 4];
    client.read_exact(&mut request).await.ok()?;
    let host = match request[3] {
        1 => {
            let mut ip = [0u8; 4];
            client.read_exact(&mut ip).await.ok()?;
            std::net::Ipv4Addr::from(ip).to_string()
        }
        3 => {
            let mut name = vec![0u8; usize::from(client.read_u8().await.ok()?)];
            client.read_exact(&mut name).await.ok()?;
            String::from_utf8(name).ok()?
        }
        _ => return None,
    };
    let port = client.read_u16().await.ok()?;
    let upstream = TcpStream::connect((host.as_str(), port)).await.ok()?;
    client.write_all(&[5, 0, 0, 1, 127, 0, 0, 1, 0, 0]).await.ok()?;
    Some((client, upstream))
}
