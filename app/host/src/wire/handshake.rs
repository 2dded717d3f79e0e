//! The first frame each way: who is talking, in which protocol, from which
//! build.
//!
//! The side that connects (a child host, a player dialling the editor's
//! loopback port) sends a [`Hello`]; the side that accepts checks it and
//! answers with its own, marked refused or not ([`Reply`]). Both then check
//! what they were told: magic, protocol version, build, role and, on a
//! loopback port, the per-run token. Magic and version are the first two
//! fields of both messages and stay so in every version, so a peer of
//! another version is told "version 1 against 2" rather than "malformed".
//! Until the handshake is through, frames are capped at
//! [`HANDSHAKE_MAX_BYTES`], so a stranger on the port cannot make either
//! side reserve the session's cap.
//!
//! # Build identity
//!
//! Both ends of a connection are the same executable (the editor starts
//! its host, and a player, from its own file), and the protocol's types
//! are plain serde data in a codec that does not describe itself: a host
//! built from other sources would decode every message into something
//! else without an error. So each side sends a [`BuildId`]: the crate
//! version, and the length and modification time of the executable file
//! it is running (`/proc/self/exe`, which names the running image even
//! after the file on disk was replaced). One `stat` costs microseconds;
//! a rebuild writes a new file with a new time, so an editor started
//! before `cargo build` meets a host started after it and says so,
//! naming both builds. Not chosen: a hash of the executable (a debug
//! `stepframe` is ~250 MB, seconds to read on a busy machine, on every
//! restart), or an id made at compile time by a build script (it changes
//! only when that one crate is rebuilt, not when the editor's sources do,
//! and a random one defeats reproducible builds).
//!
//! The editor that starts a host expects the build of the file it started
//! ([`Handshake::expecting`] with [`BuildId::of_executable`]), which is its
//! own file unless it was told to start another: a game's tests run the
//! editor inside a test binary and start the game's binary, built by the
//! same `cargo` run from the same sources. What is checked is then what
//! matters: the host that answered is the file that was started, not one
//! rebuilt between the start and the handshake.

use std::fmt;
use std::io::{self, Read, Write};
use std::str::FromStr;
use std::time::{Duration, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::frame::decode;
use super::{PROTOCOL_VERSION, Reader, WireError, Writer};

/// The first 8 bytes of every handshake, both ways.
pub const MAGIC: [u8; 8] = *b"stepfrm\0";

/// The frame cap until the handshake is through: a [`Hello`] is ~60 bytes.
pub const HANDSHAKE_MAX_BYTES: u32 = 1024;

/// How long a side waits for the other's handshake by default: a child
/// host answers in milliseconds once started, and a cold start of a debug
/// build on a loaded 2-core machine was measured at well under a second.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Which end of the protocol a side is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    /// The front end that sends commands and shows views: the editor.
    Editor,
    /// The side that owns and runs the session.
    Host,
}

impl Role {
    /// The role a peer of this one must have.
    pub fn peer(self) -> Role {
        match self {
            Role::Editor => Role::Host,
            Role::Host => Role::Editor,
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Editor => "editor",
            Role::Host => "session host",
        })
    }
}

/// Which build of the executable a side is (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildId {
    /// The stepframe-host crate version it was built with.
    pub version: String,
    /// Length of the executable file, bytes (0: unknown).
    pub exe_bytes: u64,
    /// Modification time of the executable file, nanoseconds after the Unix
    /// epoch (0: unknown).
    pub exe_modified_ns: u64,
}

impl BuildId {
    /// The build of the running process.
    pub fn of_this_process() -> BuildId {
        let meta = std::fs::metadata("/proc/self/exe")
            .or_else(|_| std::env::current_exe().and_then(std::fs::metadata));
        BuildId::of_metadata(meta)
    }

    /// The build in the executable file `path`, as a process started from
    /// it now reports it ([`BuildId::of_this_process`]).
    pub fn of_executable(path: &std::path::Path) -> BuildId {
        BuildId::of_metadata(std::fs::metadata(path))
    }

    fn of_metadata(meta: io::Result<std::fs::Metadata>) -> BuildId {
        let (exe_bytes, exe_modified_ns) = meta.map_or((0, 0), |m| {
            let ns = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
            (m.len(), ns)
        });
        BuildId {
            version: env!("CARGO_PKG_VERSION").to_string(),
            exe_bytes,
            exe_modified_ns,
        }
    }
}

impl fmt::Display for BuildId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.exe_modified_ns / 1_000_000_000;
        let nanos = self.exe_modified_ns % 1_000_000_000;
        write!(
            f,
            "version {}, executable of {} bytes modified at {secs}.{nanos:09} s after the Unix epoch",
            self.version, self.exe_bytes
        )
    }
}

/// A per-run secret a loopback listener gives the process it lets in
/// (through its environment or arguments, never over the port). 128 random
/// bits from the operating system. `Debug` does not print it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Token([u8; 16]);

impl Token {
    /// A fresh random token.
    pub fn random() -> io::Result<Token> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(io::Error::from)?;
        Ok(Token(bytes))
    }

    /// Whether `other` is this token, compared in constant time (a
    /// neighbour timing refusals learns nothing about the bytes).
    pub fn matches(&self, other: &Token) -> bool {
        self.0
            .iter()
            .zip(&other.0)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(..)")
    }
}

/// The token as 32 lowercase hex digits (how it travels in an argument).
impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// A token that is not 32 hex digits.
#[derive(Debug, thiserror::Error)]
#[error("a token is 32 hex digits, got {len} characters: {reason}")]
pub struct TokenParseError {
    /// Characters given.
    len: usize,
    /// What is wrong.
    reason: &'static str,
}

impl FromStr for Token {
    type Err = TokenParseError;

    fn from_str(s: &str) -> Result<Token, TokenParseError> {
        let err = |reason| TokenParseError {
            len: s.chars().count(),
            reason,
        };
        if s.len() != 32 {
            return Err(err("wrong length"));
        }
        let mut bytes = [0u8; 16];
        for (i, b) in bytes.iter_mut().enumerate() {
            let pair = s.get(2 * i..2 * i + 2).ok_or(err("not ASCII"))?;
            *b = u8::from_str_radix(pair, 16).map_err(|_| err("not a hex digit"))?;
        }
        Ok(Token(bytes))
    }
}

/// The connecting side's first frame.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// [`MAGIC`]. Always the first field.
    pub magic: [u8; 8],
    /// [`PROTOCOL_VERSION`]. Always the second field.
    pub protocol: u32,
    /// The sender's build.
    pub build: BuildId,
    /// The sender's role.
    pub role: Role,
    /// The listener's token, on a loopback connection.
    pub token: Option<Token>,
}

/// Why an accepting side refused a [`Hello`], sent back in its [`Reply`]
/// with its own values as `ours`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Refusal {
    /// Another protocol version.
    Version {
        /// The acceptor's version.
        ours: u32,
        /// The one it was sent.
        theirs: u32,
    },
    /// Another build.
    Build {
        /// The acceptor's build.
        ours: BuildId,
        /// The one it was sent.
        theirs: BuildId,
    },
    /// Not the role the acceptor expects of its peer.
    Role {
        /// What the acceptor expected.
        expected: Role,
        /// What it was sent.
        found: Role,
    },
    /// No token, or not the listener's.
    Token,
}

/// The accepting side's answer: its own hello (magic and version first,
/// as in every handshake frame), and whether it refused the connector's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reply {
    /// The acceptor's hello (its token is `None`).
    pub hello: Hello,
    /// Why it refused, if it did.
    pub refused: Option<Refusal>,
}

/// What a side says and expects in a handshake.
#[derive(Clone, Debug)]
pub struct Handshake {
    /// This side's role; the peer must have the other one.
    pub role: Role,
    /// This side's build; the peer must be the same.
    pub build: BuildId,
    /// On a loopback connection: the token the connector presents, or the
    /// one the listener requires.
    pub token: Option<Token>,
    /// How long to wait for the peer's handshake frame.
    pub timeout: Duration,
    /// Compare the whole [`BuildId`] (the default), or only its crate
    /// version (`false`): an attach over loopback, where the peer is
    /// another executable built from the same sources (a game with its own
    /// loop, attached by the `stepframe` editor). The token says the user
    /// chose the peer; the version still refuses a peer of another release.
    pub same_executable: bool,
}

impl Handshake {
    /// `role`'s handshake: this process's build, no token, the default
    /// timeout.
    pub fn new(role: Role) -> Handshake {
        Handshake {
            role,
            build: BuildId::of_this_process(),
            token: None,
            timeout: HANDSHAKE_TIMEOUT,
            same_executable: true,
        }
    }

    /// `role`'s handshake with a peer of build `build`, the one this side
    /// speaks for (see "Build identity" in the module docs): an editor that
    /// started the executable at `path` expects
    /// [`BuildId::of_executable`]`(path)`.
    pub fn expecting(role: Role, build: BuildId) -> Handshake {
        Handshake {
            build,
            ..Handshake::new(role)
        }
    }

    pub(super) fn hello(&self, token: Option<Token>) -> Hello {
        Hello {
            magic: MAGIC,
            protocol: PROTOCOL_VERSION,
            build: self.build.clone(),
            role: self.role,
            token,
        }
    }

    /// Checks a peer's hello against this side; `check_token`: this side
    /// is a listener with a token.
    fn check(&self, peer: &Hello, check_token: bool) -> Result<(), Refusal> {
        if check_token {
            let presented = peer.token.as_ref();
            let ours = self.token.as_ref();
            if !matches!((ours, presented), (Some(a), Some(b)) if a.matches(b)) {
                return Err(Refusal::Token);
            }
        }
        if peer.role != self.role.peer() {
            return Err(Refusal::Role {
                expected: self.role.peer(),
                found: peer.role,
            });
        }
        let same = if self.same_executable {
            peer.build == self.build
        } else {
            peer.build.version == self.build.version
        };
        if !same {
            return Err(Refusal::Build {
                ours: self.build.clone(),
                theirs: peer.build.clone(),
            });
        }
        Ok(())
    }
}

/// The error this side reports for a refusal with this side's values as
/// `ours`.
fn refusal_error(r: Refusal) -> WireError {
    match r {
        Refusal::Version { ours, theirs } => WireError::Version { ours, theirs },
        Refusal::Build { ours, theirs } => WireError::Build { ours, theirs },
        Refusal::Role { expected, found } => WireError::Role { expected, found },
        Refusal::Token => WireError::Token,
    }
}

/// The refusal as the peer sees it: `ours` and `theirs` swap sides.
fn as_seen_by_peer(r: Refusal) -> WireError {
    match r {
        Refusal::Version { ours, theirs } => WireError::Version {
            ours: theirs,
            theirs: ours,
        },
        Refusal::Build { ours, theirs } => WireError::Build {
            ours: theirs,
            theirs: ours,
        },
        // The acceptor expected the other role of the connector: to the
        // connector, its own role was wrong for the acceptor it reached.
        Refusal::Role { expected, found } => WireError::Role {
            expected: found.peer(),
            found: expected.peer(),
        },
        Refusal::Token => WireError::Token,
    }
}

/// The magic and version that open every handshake frame, read before
/// the rest is decoded (the rest may have another shape in another
/// version).
fn preamble(payload: &[u8]) -> Result<u32, WireError> {
    let mut found = [0u8; 8];
    let n = payload.len().min(8);
    found[..n].copy_from_slice(&payload[..n]);
    if found != MAGIC {
        return Err(WireError::NotStepframe { found });
    }
    let ((_, protocol), _) =
        postcard::take_from_bytes::<([u8; 8], u32)>(payload).map_err(|e| WireError::Malformed {
            len: payload.len(),
            reason: format!("handshake without a protocol version: {e}"),
        })?;
    Ok(protocol)
}

/// The accepting side: reads the connector's hello, checks it, answers.
/// A stranger (no magic) gets no answer; a stepframe peer that is refused
/// is told why. Returns the connector's hello.
pub(super) fn accept<R: Read, W: Write>(
    reader: &mut Reader<R>,
    writer: &mut Writer<W>,
    ours: &Handshake,
) -> Result<Hello, WireError> {
    let (protocol, hello) = reader.with_frame(|payload| {
        let protocol = preamble(payload)?;
        let hello = if protocol == PROTOCOL_VERSION {
            Some(decode::<Hello>(payload)?)
        } else {
            None
        };
        Ok((protocol, hello))
    })?;
    let verdict = match hello {
        None => Err(Refusal::Version {
            ours: PROTOCOL_VERSION,
            theirs: protocol,
        }),
        Some(hello) => ours.check(&hello, ours.token.is_some()).map(|()| hello),
    };
    let refused = verdict.as_ref().err().cloned();
    writer.send(&Reply {
        hello: ours.hello(None),
        refused,
    })?;
    verdict.map_err(refusal_error)
}

/// The connecting side: sends its hello, reads the acceptor's reply and
/// checks it. Returns the acceptor's hello.
pub(super) fn initiate<R: Read, W: Write>(
    reader: &mut Reader<R>,
    writer: &mut Writer<W>,
    ours: &Handshake,
) -> Result<Hello, WireError> {
    writer.send(&ours.hello(ours.token.clone()))?;
    read_reply(reader, ours)
}

/// The second half of [`initiate`]: the acceptor's reply, checked.
pub(super) fn read_reply<R: Read>(
    reader: &mut Reader<R>,
    ours: &Handshake,
) -> Result<Hello, WireError> {
    let reply = reader.with_frame(|payload| {
        let protocol = preamble(payload)?;
        if protocol != PROTOCOL_VERSION {
            return Err(WireError::Version {
                ours: PROTOCOL_VERSION,
                theirs: protocol,
            });
        }
        decode::<Reply>(payload)
    })?;
    if let Some(refusal) = reply.refused {
        return Err(as_seen_by_peer(refusal));
    }
    ours.check(&reply.hello, false).map_err(refusal_error)?;
    Ok(reply.hello)
}
