//! A socket pair with one end in a child process, as an inherited file
//! descriptor.
//!
//! Not the child's stdin or stdout: user code prints on stdout (`println!`
//! in a behaviour), and one stray line would corrupt the stream; the
//! supervisor captures stdout and stderr for the Log instead. Not a port:
//! nothing another local user could reach. The parent makes a Unix
//! socket pair, and the child's end crosses `exec` as descriptor `N`
//! named in [`SOCKET_VAR`] as `N:PPID`:
//!
//! - Rust opens every descriptor close-on-exec, so no other descriptor
//!   leaks into the child, and the child's end is made inheritable only
//!   in the forked child, just before `exec` (a `pre_exec` hook clearing
//!   the flag): another thread spawning a process at the same moment
//!   cannot inherit it.
//! - The parent's copy of the child's end is closed once the child is
//!   spawned, so when the child dies (abort, stack overflow, killed) the
//!   parent's reads end in [`WireError::Closed`] at once.
//! - `PPID` is the parent's process id: a grandchild (user code starting a
//!   process) inherits the variable but not the descriptor, sees another
//!   parent id, and does not take a descriptor that is not its socket.
//!   The child sets close-on-exec again when it takes its end.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::fs::FileType;
use rustix::io::FdFlags;

use super::WireError;
use super::handshake::Handshake;
use super::transport::{Connection, Side, Stream};

/// The environment variable that tells a child where its end of the
/// socket is: `N:PPID`, descriptor `N`, left by process `PPID`.
pub const SOCKET_VAR: &str = "STEPFRAME_WIRE_FD";

/// Whether this process took its inherited socket already (a descriptor
/// has one owner: taking it twice would close it twice).
static TAKEN: AtomicBool = AtomicBool::new(false);

/// Spawns `cmd` with one end of a new socket pair inherited as a
/// descriptor ([`SOCKET_VAR`]); returns the child and the parent's end.
/// The command is consumed: it holds the child's end until it is dropped,
/// which this does right after spawning.
pub fn spawn_with_socket(mut cmd: Command) -> io::Result<(Child, UnixStream)> {
    let (parent, child_end) = UnixStream::pair()?;
    let fd = OwnedFd::from(child_end);
    cmd.env(
        SOCKET_VAR,
        format!("{}:{}", fd.as_raw_fd(), std::process::id()),
    );
    // SAFETY: the hook runs in the forked child before `exec`, where only
    // async-signal-safe calls are allowed: `fcntl` is one, and clearing a
    // flag allocates nothing and takes no lock.
    unsafe {
        cmd.pre_exec(move || Ok(rustix::io::fcntl_setfd(&fd, FdFlags::empty())?));
    }
    let child = cmd.spawn()?;
    // Closes the parent's copy of the child's end (the hook owned it).
    drop(cmd);
    Ok((child, parent))
}

/// Spawns `cmd` as a host ([`spawn_with_socket`]) and accepts its
/// handshake. On a failed handshake the child is killed and reaped, and
/// the error says why (a child of another build names both builds).
pub fn spawn_host(cmd: Command, ours: &Handshake) -> Result<(Child, Connection), WireError> {
    let (mut child, stream) = spawn_with_socket(cmd)?;
    match Connection::handshake(Stream::Unix(stream), Side::Accept, ours) {
        Ok(connection) => Ok((child, connection)),
        Err(e) => {
            // Ours to end: it was started here and cannot be used.
            let _ = child.kill();
            let _ = child.wait();
            Err(e)
        }
    }
}

/// In a child started by [`spawn_with_socket`]: its end of the socket.
/// `None` when this process was not started so (no [`SOCKET_VAR`], or one
/// its parent inherited from further up). An error when the variable is
/// there but names no socket, or the socket was taken already.
pub fn inherited_socket() -> Result<Option<UnixStream>, WireError> {
    let value = match std::env::var(SOCKET_VAR) {
        Ok(v) => v,
        Err(std::env::VarError::NotPresent) => return Ok(None),
        Err(std::env::VarError::NotUnicode(v)) => {
            return Err(inherited(&v.to_string_lossy(), "not text".to_string()));
        }
    };
    let bad = |reason: &str| inherited(&value, reason.to_string());
    let (fd, ppid) = value
        .split_once(':')
        .and_then(|(fd, ppid)| Some((fd.parse::<RawFd>().ok()?, ppid.parse::<u32>().ok()?)))
        .ok_or_else(|| bad("expected DESCRIPTOR:PARENT_PID"))?;
    if ppid != std::os::unix::process::parent_id() {
        // Left for our parent by its own parent: not ours.
        return Ok(None);
    }
    if fd <= 2 {
        return Err(bad("standard streams are not the socket"));
    }
    if TAKEN.swap(true, Ordering::SeqCst) {
        return Err(bad("already taken by this process"));
    }
    // SAFETY: the parent left `fd` open for this process (its `N:PPID`
    // names our parent), and nothing else in this process owns it: the
    // flag above lets it be taken once. Before it is owned it is only
    // looked at (`fstat`), which on a descriptor that is not open fails
    // with EBADF and does nothing else.
    let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
    let stat = rustix::fs::fstat(borrowed).map_err(|e| bad(&format!("descriptor {fd}: {e}")))?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::Socket {
        return Err(bad(&format!("descriptor {fd} is not a socket")));
    }
    // Not into this process's own children (user code starting processes).
    rustix::io::fcntl_setfd(borrowed, FdFlags::CLOEXEC)
        .map_err(|e| bad(&format!("descriptor {fd}: {e}")))?;
    // SAFETY: as above: open, a socket, and owned by nothing else here.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    Ok(Some(UnixStream::from(owned)))
}

/// In a child started by [`spawn_host`]: its inherited socket with the
/// handshake done. `None` when this process was not started as a host.
pub fn join_parent(ours: &Handshake) -> Result<Option<Connection>, WireError> {
    let Some(stream) = inherited_socket()? else {
        return Ok(None);
    };
    Connection::handshake(Stream::Unix(stream), Side::Initiate, ours).map(Some)
}

fn inherited(value: &str, reason: String) -> WireError {
    WireError::Inherited {
        var: SOCKET_VAR,
        value: value.to_string(),
        reason,
    }
}
