//! What can go wrong on the wire, as one typed error ([`WireError`]).
//!
//! Every variant says what was wrong with the values on both sides where
//! there are two (a version mismatch names both versions, an oversized frame
//! its length and the cap), so a log line is enough to act on.

use std::io;

use super::handshake::{BuildId, Role};

/// Why a send, a receive or a handshake failed.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// The peer closed the connection between two frames: the ordinary end
    /// of a session, or a peer that died.
    #[error("the peer closed the connection")]
    Closed,
    /// The connection ended inside a frame.
    #[error("truncated frame: the connection ended after {got} of its {expected} bytes")]
    Truncated {
        /// Bytes the frame should have had, its 4-byte header included
        /// (4 while the header itself was cut).
        expected: u64,
        /// Bytes that arrived.
        got: u64,
    },
    /// A frame longer than the cap: refused at the sender before a byte is
    /// written, or at the receiver before anything is allocated for it.
    #[error("oversized frame: {len} bytes, over the cap of {cap} bytes")]
    Oversized {
        /// The frame's payload length.
        len: u64,
        /// The cap in force (the handshake's small one before the peer is
        /// known, [`super::MAX_FRAME_BYTES`] after).
        cap: u32,
    },
    /// No whole frame arrived within the reader's timeout. What did arrive
    /// is kept: the next receive carries on where this one stopped.
    #[error("no whole frame arrived within the read timeout")]
    TimedOut,
    /// A whole frame arrived but its payload is not a message of the
    /// expected type.
    #[error("malformed payload ({len} bytes): {reason}")]
    Malformed {
        /// The payload's length.
        len: usize,
        /// The decoder's reason.
        reason: String,
    },
    /// The message could not be encoded (a `Serialize` impl that failed).
    #[error("cannot encode the message: {reason}")]
    Encode {
        /// The encoder's reason.
        reason: String,
    },
    /// The first frame was not a stepframe handshake.
    #[error("the peer is not a stepframe wire endpoint (magic {found:02x?})")]
    NotStepframe {
        /// The 8 bytes found where the magic belongs.
        found: [u8; 8],
    },
    /// The two sides speak different protocol versions.
    #[error(
        "protocol version mismatch: this side speaks version {ours}, the peer version {theirs}"
    )]
    Version {
        /// This side's [`super::PROTOCOL_VERSION`].
        ours: u32,
        /// The peer's.
        theirs: u32,
    },
    /// The two sides are different builds of the executable.
    #[error("build mismatch: this side is {ours}, the peer is {theirs}")]
    Build {
        /// This side's build.
        ours: BuildId,
        /// The peer's.
        theirs: BuildId,
    },
    /// The peer has the wrong role (two editors, or two hosts).
    #[error("role mismatch: expected the peer to be the {expected}, it says it is the {found}")]
    Role {
        /// The role this side expects of its peer.
        expected: Role,
        /// The role the peer gave.
        found: Role,
    },
    /// A loopback connection without the listener's token, or with
    /// another one: refused.
    #[error("token refused: the connector did not present this listener's per-run token")]
    Token,
    /// A loopback address was required (the listener binds 127.0.0.1 only).
    #[error("{addr} is not a loopback address")]
    NotLoopback {
        /// The address given.
        addr: std::net::SocketAddr,
    },
    /// The socket a parent handed down could not be taken.
    #[error("no usable inherited socket ({var}={value:?}): {reason}")]
    Inherited {
        /// The environment variable that names it.
        var: &'static str,
        /// Its value.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An earlier error left the stream out of step (a frame was cut or
    /// refused, so where the next one starts is unknown): drop the
    /// connection.
    #[error("the connection is unusable after an earlier error: {first}")]
    Broken {
        /// The error that broke it.
        first: String,
    },
    /// The operating system's error.
    #[error("I/O: {0}")]
    Io(#[from] io::Error),
}
