//! A loopback TCP port, for a process the editor did not start as its
//! child (a player it attaches to, as Godot's editor listens on 127.0.0.1
//! for the game it runs).
//!
//! The listener binds 127.0.0.1 only, on a port the system picks, and makes
//! a [`Token`] for the run; the process it lets in is given the port and
//! the token out of band (arguments, environment), and presents the token
//! in its hello. Any other local process can reach the port, so a hello
//! without the token is refused with [`WireError::Token`] and the listener
//! goes on listening: [`LoopbackListener::accept`] returns the error, and
//! the next call accepts the next connection. A connector that sends
//! nothing is dropped after the handshake timeout.

use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};

use super::WireError;
use super::handshake::{Handshake, Token};
use super::transport::{Connection, Side, Stream};

/// A listener on 127.0.0.1 with a per-run token.
#[derive(Debug)]
pub struct LoopbackListener {
    /// The bound socket.
    listener: TcpListener,
    /// What a connector must present.
    token: Token,
    /// This side's handshake, requiring `token`.
    handshake: Handshake,
}

impl LoopbackListener {
    /// Binds 127.0.0.1 on a free port with a fresh random token; `ours` is
    /// this side's handshake (its token is replaced).
    pub fn bind(ours: Handshake) -> Result<LoopbackListener, WireError> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        let token = Token::random()?;
        Ok(LoopbackListener {
            listener,
            handshake: Handshake {
                token: Some(token.clone()),
                ..ours
            },
            token,
        })
    }

    /// The address to give the connector.
    pub fn addr(&self) -> Result<SocketAddr, WireError> {
        Ok(self.listener.local_addr()?)
    }

    /// The token to give the connector.
    pub fn token(&self) -> &Token {
        &self.token
    }

    /// Waits for the next connection and runs its handshake. A refused one
    /// (wrong token, version, build or role; a stranger) is an error here
    /// and is closed; the listener stays open for the next.
    pub fn accept(&self) -> Result<Connection, WireError> {
        let (stream, _) = self.listener.accept()?;
        stream.set_nodelay(true)?;
        Connection::handshake(Stream::Tcp(stream), Side::Accept, &self.handshake)
    }
}

/// Connects to a [`LoopbackListener`] at `addr` (a loopback address, or
/// [`WireError::NotLoopback`]), presenting `token`.
pub fn connect_loopback(
    addr: SocketAddr,
    token: Token,
    ours: &Handshake,
) -> Result<Connection, WireError> {
    if !addr.ip().is_loopback() {
        return Err(WireError::NotLoopback { addr });
    }
    let stream = TcpStream::connect_timeout(&addr, ours.timeout)?;
    stream.set_nodelay(true)?;
    let ours = Handshake {
        token: Some(token),
        ..ours.clone()
    };
    Connection::handshake(Stream::Tcp(stream), Side::Initiate, &ours)
}
