//! A connection: a byte stream with the handshake done, split into a
//! reader half and a writer half that two threads can own.
//!
//! Three transports make one: a socket pair with one end in a child
//! process ([`super::child`]), the same pair inside one process
//! ([`in_process`], for a host on a thread: same frames, same codec, so one
//! protocol with two transports), and a loopback TCP port
//! ([`super::loopback`]).

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::handshake::{self, HANDSHAKE_MAX_BYTES, Handshake, Hello};
use super::{MAX_FRAME_BYTES, Reader, WireError, Writer};

/// The byte stream under a connection.
#[derive(Debug)]
pub enum Stream {
    /// One end of a Unix socket pair (a child host, or one on a thread).
    Unix(UnixStream),
    /// A loopback TCP connection.
    Tcp(TcpStream),
}

impl Stream {
    /// A second handle on the same stream, for the other half.
    pub fn try_clone(&self) -> io::Result<Stream> {
        Ok(match self {
            Stream::Unix(s) => Stream::Unix(s.try_clone()?),
            Stream::Tcp(s) => Stream::Tcp(s.try_clone()?),
        })
    }

    /// How long a read waits before [`WireError::TimedOut`] (`None`: for
    /// ever). Shared by every handle on the stream.
    pub fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        match self {
            Stream::Unix(s) => s.set_read_timeout(timeout),
            Stream::Tcp(s) => s.set_read_timeout(timeout),
        }
    }

    /// Ends both directions: a reader blocked on either side wakes with
    /// [`WireError::Closed`].
    pub fn shutdown(&self) -> io::Result<()> {
        let r = match self {
            Stream::Unix(s) => s.shutdown(Shutdown::Both),
            Stream::Tcp(s) => s.shutdown(Shutdown::Both),
        };
        // Already shut down by the peer: nothing left to end.
        match r {
            Err(e) if e.kind() == io::ErrorKind::NotConnected => Ok(()),
            r => r,
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Unix(s) => s.read(buf),
            Stream::Tcp(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Unix(s) => s.write(buf),
            Stream::Tcp(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::Unix(s) => s.flush(),
            Stream::Tcp(s) => s.flush(),
        }
    }
}

impl Reader<Stream> {
    /// How long [`Reader::recv`] waits for a whole frame (`None`: for
    /// ever). A timeout loses nothing.
    pub fn set_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        self.get_ref().set_read_timeout(timeout)
    }
}

impl Writer<Stream> {
    /// Ends the connection both ways (a reader half blocked in `recv`, on
    /// either side, wakes with [`WireError::Closed`]).
    pub fn shutdown(&self) -> io::Result<()> {
        self.get_ref().shutdown()
    }
}

/// Which side of the handshake a stream takes.
#[derive(Clone, Copy, Debug)]
pub(super) enum Side {
    /// Sends its hello first: a child host, a loopback connector.
    Initiate,
    /// Answers: the parent, the listener.
    Accept,
}

/// Both halves of a stream whose handshake is done, and who is at the
/// other end.
#[derive(Debug)]
pub struct Connection {
    /// Frames in.
    reader: Reader<Stream>,
    /// Frames out.
    writer: Writer<Stream>,
    /// The peer's hello.
    peer: Hello,
}

impl Connection {
    /// Runs the handshake on `stream` as `side`, under `ours.timeout`
    /// and the handshake's small frame cap; then lifts both.
    pub(super) fn handshake(
        stream: Stream,
        side: Side,
        ours: &Handshake,
    ) -> Result<Connection, WireError> {
        let writer_stream = stream.try_clone()?;
        stream.set_read_timeout(Some(ours.timeout))?;
        let mut reader = Reader::new(stream, HANDSHAKE_MAX_BYTES);
        let mut writer = Writer::new(writer_stream, HANDSHAKE_MAX_BYTES);
        let peer = match side {
            Side::Initiate => handshake::initiate(&mut reader, &mut writer, ours),
            Side::Accept => handshake::accept(&mut reader, &mut writer, ours),
        }?;
        reader.set_timeout(None)?;
        reader.set_cap(MAX_FRAME_BYTES);
        writer.set_cap(MAX_FRAME_BYTES);
        Ok(Connection {
            reader,
            writer,
            peer,
        })
    }

    /// What the peer said in the handshake (its role and build).
    pub fn peer(&self) -> &Hello {
        &self.peer
    }

    /// Sends `msg` as one frame.
    pub fn send<T: Serialize + ?Sized>(&mut self, msg: &T) -> Result<(), WireError> {
        self.writer.send(msg)
    }

    /// The next message, as a `T`.
    pub fn recv<T: DeserializeOwned>(&mut self) -> Result<T, WireError> {
        self.reader.recv()
    }

    /// How long `recv` waits for a whole frame (`None`: for ever).
    pub fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        self.reader.set_timeout(timeout)
    }

    /// The two halves, for a reading thread and a writing one.
    pub fn split(self) -> (Reader<Stream>, Writer<Stream>) {
        (self.reader, self.writer)
    }
}

/// Both ends of a socket pair in this process, handshake done: the
/// editor's end and the host's (a host on a thread of the editor, for a
/// native debugger attached to one process, and for fast tests). The
/// frames and the codec are the child process's.
pub fn in_process(
    editor: &Handshake,
    host: &Handshake,
) -> Result<(Connection, Connection), WireError> {
    let (a, b) = UnixStream::pair()?;
    let (a, b) = (Stream::Unix(a), Stream::Unix(b));
    // The host's hello fits in the socket's buffer, so one thread can play
    // both sides in turn: the host's hello goes out before the editor's
    // side reads it, the editor's reply before the host's side reads that.
    let host_writer = b.try_clone()?;
    b.set_read_timeout(Some(host.timeout))?;
    let mut host_reader = Reader::new(b, HANDSHAKE_MAX_BYTES);
    let mut host_writer = Writer::new(host_writer, HANDSHAKE_MAX_BYTES);
    host_writer.send(&host.hello(host.token.clone()))?;
    let editor = Connection::handshake(a, Side::Accept, editor)?;
    let peer = handshake::read_reply(&mut host_reader, host)?;
    host_reader.set_timeout(None)?;
    host_reader.set_cap(MAX_FRAME_BYTES);
    host_writer.set_cap(MAX_FRAME_BYTES);
    let host = Connection {
        reader: host_reader,
        writer: host_writer,
        peer,
    };
    Ok((editor, host))
}
