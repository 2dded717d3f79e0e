//! Frames: a 4-byte little-endian payload length, then the payload, one
//! message in postcard ([`encode`], [`decode`]).
//!
//! The reader is a small state machine that keeps what has arrived between
//! calls, so a read timeout at any point (between frames or inside one)
//! loses nothing: the next [`Reader::recv`] carries on. It reads the
//! length, checks it against the cap, and only then reserves the payload's
//! bytes, exactly that many: no input makes it allocate more than the cap.
//! Errors after which the stream is out of step (a cut frame, an oversized
//! length, an I/O error) leave the reader [`WireError::Broken`]; a
//! malformed payload does not, since its frame was read whole and the next
//! one starts right after it.
//!
//! The writer encodes into one buffer with room for the header, checks the
//! length against the cap before writing anything, and writes header and
//! payload with one `write_all`: a frame over the cap is an error at the
//! sender, never a truncated frame on the wire.

use std::io::{self, Read, Write};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::WireError;

/// Bytes of the length header.
const HEADER: usize = 4;

/// A buffer kept between frames is shrunk back to this after a bigger
/// frame (a multi-megabyte recovery point), so one big message does not
/// pin its size for the rest of the session.
const KEEP_BYTES: usize = 1 << 20;

/// `msg` in the wire's codec, appended to `out`: every field written, the
/// ones a file leaves out too (`stepframe_core::binary_form`).
pub fn encode<T: Serialize + ?Sized>(msg: &T, out: Vec<u8>) -> Result<Vec<u8>, WireError> {
    stepframe_core::binary_form::binary(|| postcard::to_extend(msg, out)).map_err(|e| {
        WireError::Encode {
            reason: e.to_string(),
        }
    })
}

/// One message decoded from the whole of `payload`: bytes left over after
/// the message make it malformed too, so a payload means one thing.
pub fn decode<T: DeserializeOwned>(payload: &[u8]) -> Result<T, WireError> {
    let malformed = |reason: String| WireError::Malformed {
        len: payload.len(),
        reason,
    };
    match postcard::take_from_bytes::<T>(payload) {
        Ok((msg, [])) => Ok(msg),
        Ok((_, rest)) => Err(malformed(format!(
            "{} bytes left over after the message",
            rest.len()
        ))),
        Err(e) => Err(malformed(e.to_string())),
    }
}

/// The receiving half of a connection: frames in, messages out.
#[derive(Debug)]
pub struct Reader<R> {
    /// The byte stream frames arrive on.
    stream: R,
    /// Largest payload accepted, bytes.
    cap: u32,
    /// The length header as it arrives.
    header: [u8; HEADER],
    /// Header bytes read so far (0..=4).
    header_got: usize,
    /// The payload as it arrives; its length once the header is whole is
    /// the bytes read so far, its capacity the frame's length.
    payload: Vec<u8>,
    /// The frame's payload length, once the header is whole.
    expected: Option<usize>,
    /// The error that put the stream out of step, if one did.
    broken: Option<String>,
}

impl<R: Read> Reader<R> {
    /// A reader of `stream` taking payloads of at most `cap` bytes.
    pub fn new(stream: R, cap: u32) -> Self {
        Reader {
            stream,
            cap,
            header: [0; HEADER],
            header_got: 0,
            payload: Vec::new(),
            expected: None,
            broken: None,
        }
    }

    /// The next message, decoded as a `T`.
    pub fn recv<T: DeserializeOwned>(&mut self) -> Result<T, WireError> {
        self.with_frame(decode)
    }

    /// Runs `f` on the next frame's payload.
    pub(super) fn with_frame<T>(
        &mut self,
        f: impl FnOnce(&[u8]) -> Result<T, WireError>,
    ) -> Result<T, WireError> {
        self.next_frame()?;
        let result = f(&self.payload);
        self.payload.clear();
        if self.payload.capacity() > KEEP_BYTES {
            self.payload = Vec::new();
        }
        result
    }

    /// The stream underneath (to set its timeout).
    pub fn get_ref(&self) -> &R {
        &self.stream
    }

    /// The payload cap, bytes.
    pub fn cap(&self) -> u32 {
        self.cap
    }

    /// Changes the payload cap (the handshake's small cap gives way to the
    /// session's once the peer is known).
    pub fn set_cap(&mut self, cap: u32) {
        self.cap = cap;
    }

    /// Reads until a whole frame's payload is in `self.payload`.
    fn next_frame(&mut self) -> Result<(), WireError> {
        if let Some(first) = &self.broken {
            return Err(WireError::Broken {
                first: first.clone(),
            });
        }
        let result = self.fill();
        if let Err(e) = &result
            && !matches!(e, WireError::TimedOut | WireError::Closed)
        {
            self.broken = Some(e.to_string());
        }
        result
    }

    fn fill(&mut self) -> Result<(), WireError> {
        while self.header_got < HEADER {
            let n = read_some(&mut self.stream, &mut self.header[self.header_got..])?;
            if n == 0 {
                return Err(match self.header_got {
                    0 => WireError::Closed,
                    got => WireError::Truncated {
                        expected: HEADER as u64,
                        got: got as u64,
                    },
                });
            }
            self.header_got += n;
        }
        let len = match self.expected {
            Some(len) => len,
            None => {
                let len = u32::from_le_bytes(self.header);
                if len > self.cap {
                    return Err(WireError::Oversized {
                        len: u64::from(len),
                        cap: self.cap,
                    });
                }
                let len = len as usize;
                self.payload.clear();
                self.payload.try_reserve_exact(len).map_err(|e| {
                    WireError::Io(io::Error::new(io::ErrorKind::OutOfMemory, e.to_string()))
                })?;
                self.expected = Some(len);
                len
            }
        };
        while self.payload.len() < len {
            let want = len - self.payload.len();
            // Read straight into the reserved capacity, a chunk at a time.
            let start = self.payload.len();
            let chunk = want.min(64 * 1024);
            self.payload.resize(start + chunk, 0);
            let n = match read_some(&mut self.stream, &mut self.payload[start..]) {
                Ok(n) => n,
                Err(e) => {
                    self.payload.truncate(start);
                    return Err(e);
                }
            };
            self.payload.truncate(start + n);
            if n == 0 {
                return Err(WireError::Truncated {
                    expected: (HEADER + len) as u64,
                    got: (HEADER + start) as u64,
                });
            }
        }
        self.header_got = 0;
        self.expected = None;
        Ok(())
    }
}

/// One `read`, retried on an interrupt; a timeout becomes
/// [`WireError::TimedOut`].
fn read_some(stream: &mut impl Read, buf: &mut [u8]) -> Result<usize, WireError> {
    loop {
        match stream.read(buf) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Err(WireError::TimedOut);
            }
            Err(e) => return Err(WireError::Io(e)),
        }
    }
}

/// The sending half of a connection: messages in, frames out.
#[derive(Debug)]
pub struct Writer<W> {
    /// The byte stream frames leave on.
    stream: W,
    /// Largest payload sent, bytes.
    cap: u32,
    /// The frame being written, reused between messages.
    buf: Vec<u8>,
    /// The error that cut a frame short, if one did.
    broken: Option<String>,
}

impl<W: Write> Writer<W> {
    /// A writer to `stream` sending payloads of at most `cap` bytes.
    pub fn new(stream: W, cap: u32) -> Self {
        Writer {
            stream,
            cap,
            buf: Vec::new(),
            broken: None,
        }
    }

    /// Sends `msg` as one frame. A message over the cap is
    /// [`WireError::Oversized`] and nothing is written.
    pub fn send<T: Serialize + ?Sized>(&mut self, msg: &T) -> Result<(), WireError> {
        if let Some(first) = &self.broken {
            return Err(WireError::Broken {
                first: first.clone(),
            });
        }
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        buf.extend_from_slice(&[0; HEADER]);
        let mut buf = encode(msg, buf)?;
        let len = buf.len() - HEADER;
        let result = match u32::try_from(len).ok().filter(|&l| l <= self.cap) {
            None => Err(WireError::Oversized {
                len: len as u64,
                cap: self.cap,
            }),
            Some(len) => {
                buf[..HEADER].copy_from_slice(&len.to_le_bytes());
                let written = self
                    .stream
                    .write_all(&buf)
                    .and_then(|()| self.stream.flush());
                written.map_err(|e| {
                    // Part of the frame may be out: the peer can no longer
                    // tell where the next one starts.
                    let e = WireError::Io(e);
                    self.broken = Some(e.to_string());
                    e
                })
            }
        };
        if buf.capacity() <= KEEP_BYTES {
            buf.clear();
            self.buf = buf;
        }
        result
    }

    /// The stream underneath (to shut it down).
    pub fn get_ref(&self) -> &W {
        &self.stream
    }

    /// Changes the payload cap (see [`Reader::set_cap`]).
    pub fn set_cap(&mut self, cap: u32) {
        self.cap = cap;
    }
}
