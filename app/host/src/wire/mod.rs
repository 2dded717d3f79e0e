//! The wire: how the session host and its front end talk across a thread,
//! a process or a loopback port. Plain serde messages in frames; what the
//! messages are is the protocol's business, so everything here is generic
//! (`send<T: Serialize>`, `recv<T: DeserializeOwned>`).
//!
//! # Frames
//!
//! A frame is a 4-byte little-endian payload length, then the payload: one
//! message in postcard (docs/protocol.md says why postcard, with the
//! measurements). A frame's payload is at most [`MAX_FRAME_BYTES`],
//! 64 MiB. The biggest message is a recovery point of a big world: on the
//! 10,000-ball pile the engine state is 9.8 MB in postcard (5.4 MB through
//! zstd) and a plain copy of the whole session 38.5 MB, so 64 MiB carries
//! a world 1.7 times that size uncompressed (docs/protocol.md). Godot's
//! remote debugger caps at 8 MiB, too little for one such recovery point. A message over the cap is an
//! error at the sender, with nothing written, never a truncated frame; a
//! length over the cap is an error at the receiver before anything is
//! allocated for it; a length under it reserves exactly that many bytes.
//!
//! # Handshake
//!
//! The first frame each way ([`handshake`]): magic, [`PROTOCOL_VERSION`],
//! the executable's build ([`BuildId`]), the role, and on a loopback port
//! a per-run [`Token`]. Frames are capped at [`HANDSHAKE_MAX_BYTES`] until
//! it is through.
//!
//! # Transports
//!
//! | transport | for | module |
//! |---|---|---|
//! | a socket pair, one end inherited by a child process | the editor's session host in a process of its own | [`child`] |
//! | the same pair inside one process | a host on a thread (a native debugger, fast tests) | [`in_process`] |
//! | a TCP port on 127.0.0.1 with a per-run token | a player the editor attaches to | [`loopback`] |
//!
//! Each gives a [`Connection`], which splits into a [`Reader`] and a
//! [`Writer`] that two threads can own.
//!
//! # Errors
//!
//! [`WireError`], one variant per thing that can be wrong, with the values
//! on both sides. No input panics or allocates beyond the cap
//! (`app/host/tests/wire/fuzz.rs`, docs/reliability-fuzz.md). Message
//! types must not hold sequences of zero-sized values: such an element
//! takes no bytes, so a hostile length could make decoding loop for long.

pub mod child;
mod error;
mod frame;
pub mod handshake;
pub mod loopback;
mod transport;

pub use error::WireError;
pub use frame::{Reader, Writer, decode, encode};
pub use handshake::{BuildId, HANDSHAKE_MAX_BYTES, Handshake, Hello, Role, Token};
pub use transport::{Connection, Stream, in_process};

/// The protocol's version: both sides must speak the same. Raise it when
/// a message changes shape, so an old peer is told "version 1 against 2"
/// rather than decoding a message into something else.
pub const PROTOCOL_VERSION: u32 = 2;

/// The largest frame payload, bytes (see "Frames" above).
pub const MAX_FRAME_BYTES: u32 = 64 << 20;
