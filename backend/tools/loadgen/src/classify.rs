//! Mapping the errors of hyper, tokio and tungstenite onto the stable `ErrorKind`s.

use std::error::Error as StdError;
use std::io;

use tokio_tungstenite::tungstenite::Error as WsError;

use crate::stats::ErrorKind;

/// An error while making the TCP connection: refused, unreachable, out of ports, ...
pub fn connect_error(_: &io::Error) -> ErrorKind {
    ErrorKind::Connect
}

/// An I/O error on an established connection.
pub fn io_error(error: &io::Error) -> ErrorKind {
    match error.kind() {
        io::ErrorKind::ConnectionReset
        | io::ErrorKind::ConnectionAborted
        | io::ErrorKind::BrokenPipe
        | io::ErrorKind::UnexpectedEof
        | io::ErrorKind::NotConnected => ErrorKind::Reset,
        io::ErrorKind::TimedOut => ErrorKind::Timeout,
        _ => ErrorKind::Protocol,
    }
}

/// An error from hyper while sending a request or reading its response.
pub fn hyper_error(error: &hyper::Error) -> ErrorKind {
    if error.is_timeout() {
        return ErrorKind::Timeout;
    }
    if error.is_parse() || error.is_parse_status() || error.is_user() {
        return ErrorKind::Protocol;
    }
    if let Some(io) = find_io(error) {
        return io_error(io);
    }
    if error.is_incomplete_message() || error.is_closed() || error.is_canceled() || error.is_shutdown() {
        return ErrorKind::Reset;
    }
    ErrorKind::Protocol
}

/// An error from the WebSocket handshake or stream (a refused upgrade is handled by the caller).
pub fn ws_error(error: &WsError) -> ErrorKind {
    match error {
        WsError::ConnectionClosed | WsError::AlreadyClosed => ErrorKind::Reset,
        WsError::Io(io) => io_error(io),
        WsError::Protocol(p) => {
            use tokio_tungstenite::tungstenite::error::ProtocolError;
            match p {
                ProtocolError::ResetWithoutClosingHandshake | ProtocolError::HandshakeIncomplete => ErrorKind::Reset,
                _ => ErrorKind::Protocol,
            }
        }
        WsError::Http(_) => ErrorKind::Non2xx,
        _ => ErrorKind::Protocol,
    }
}

fn find_io<'a>(error: &'a (dyn StdError + 'static)) -> Option<&'a io::Error> {
    let mut current = error.source();
    while let Some(e) = current {
        if let Some(io) = e.downcast_ref::<io::Error>() {
            return Some(io);
        }
        current = e.source();
    }
    None
}
