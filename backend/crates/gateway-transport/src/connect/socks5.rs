//! A SOCKS5 tunnel (RFC 1928): no authentication, or username/password (RFC 1929) when the
//! proxy URL has user info. The target goes as a domain name (the proxy resolves it) or as an
//! IP address.

use std::net::IpAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::Target;
use crate::error::SendError;
use crate::proxy::ProxyUrl;

const VERSION: u8 = 5;
const NO_AUTH: u8 = 0;
const USER_PASS: u8 = 2;

fn failed(proxy: &ProxyUrl, reason: String) -> SendError {
    SendError::ProxyFailed(format!("proxy {}: {reason}", proxy.redacted()))
}

fn io(proxy: &ProxyUrl) -> impl Fn(std::io::Error) -> SendError + '_ {
    move |e| failed(proxy, format!("SOCKS5 exchange failed: {e}"))
}

pub async fn tunnel(tcp: TcpStream, target: &Target, proxy: &ProxyUrl) -> Result<TcpStream, SendError> {
    let tcp = authenticate(tcp, proxy).await?;
    request(tcp, target, proxy).await
}

/// The method negotiation and, with user info, the username/password exchange.
pub async fn authenticate(mut tcp: TcpStream, proxy: &ProxyUrl) -> Result<TcpStream, SendError> {
    let io = io(proxy);
    let method = if proxy.has_credentials() { USER_PASS } else { NO_AUTH };
    tcp.write_all(&[VERSION, 1, method]).await.map_err(&io)?;
    let mut choice = [0u8; 2];
    tcp.read_exact(&mut choice).await.map_err(&io)?;
    if choice[0] != VERSION || choice[1] != method {
        return Err(failed(proxy, format!("no acceptable authentication method ({:#04x})", choice[1])));
    }
    if method == USER_PASS {
        let user = proxy.username().unwrap_or("").as_bytes();
        let pass = proxy.password().unwrap_or("").as_bytes();
        let (Ok(user_len), Ok(pass_len)) = (u8::try_from(user.len()), u8::try_from(pass.len())) else {
            return Err(failed(proxy, "username or password longer than 255 bytes".to_owned()));
        };
        let mut request = vec![1, user_len];
        request.extend_from_slice(user);
        request.push(pass_len);
        request.extend_from_slice(pass);
        tcp.write_all(&request).await.map_err(&io)?;
        let mut status = [0u8; 2];
        tcp.read_exact(&mut status).await.map_err(&io)?;
        if status[1] != 0 {
            return Err(failed(proxy, "authentication refused".to_owned()));
        }
    }
    Ok(tcp)
}

/// The CONNECT request of an authenticated session.
pub async fn request(mut tcp: TcpStream, target: &Target, proxy: &ProxyUrl) -> Result<TcpStream, SendError> {
    let io = io(proxy);
    let mut request = vec![VERSION, 1, 0];
    match target.host.parse::<IpAddr>() {
        Ok(IpAddr::V4(ip)) => {
            request.push(1);
            request.extend_from_slice(&ip.octets());
        }
        Ok(IpAddr::V6(ip)) => {
            request.push(4);
            request.extend_from_slice(&ip.octets());
        }
        Err(_) => {
            let Ok(len) = u8::try_from(target.host.len()) else {
                return Err(failed(proxy, "target host name longer than 255 bytes".to_owned()));
            };
            request.push(3);
            request.push(len);
            request.extend_from_slice(target.host.as_bytes());
        }
    }
    request.extend_from_slice(&target.port.to_be_bytes());
    tcp.write_all(&request).await.map_err(&io)?;
    let mut reply = [0u8; 4];
    tcp.read_exact(&mut reply).await.map_err(&io)?;
    if reply[1] != 0 {
        return Err(failed(proxy, format!("CONNECT refused (reply {})", reply[1])));
    }
    let skip = match reply[3] {
        1 => 4,
        4 => 16,
        3 => usize::from(tcp.read_u8().await.map_err(&io)?),
        other => return Err(failed(proxy, format!("unknown address type {other}"))),
    };
    let mut bound = vec![0u8; skip + 2];
    tcp.read_exact(&mut bound).await.map_err(&io)?;
    Ok(tcp)
}
