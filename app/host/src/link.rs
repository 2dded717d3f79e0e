//! The worker's channels carried over a [`Connection`]: the same
//! [`FrontEnd`] and [`HostEnd`] a host on a thread uses, with two bridge
//! threads on each side that encode and decode every message through the
//! wire. So a front end does not know whether its host is a thread in its
//! own process, a child process, or a player it attached to: one protocol,
//! whatever carries it.
//!
//! | side | reader thread | writer thread |
//! |---|---|---|
//! | host ([`serve`]) | frames → [`Command`]s for the worker | the worker's [`Outbound`]s → frames |
//! | front end ([`connect`]) | frames → [`Outbound`]s (and a wake-up) | [`Command`]s → frames |
//!
//! Delivery keeps the protocol's rules: one ordered stream each way, and
//! the live view's one-in-flight credit travels as a command like any
//! other ([`Command::ViewTaken`]), so a host never pushes views at a front
//! end that is not drawing them. When either side closes or the stream
//! breaks, the bridges end and drop their channel ends: the worker sees its
//! commands end (and stops), the front end sees its inbound end (and, for a
//! child, asks the process why).

use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};

use crate::protocol::{Command, Outbound};
use crate::wire::{Connection, Reader, Stream, WireError, Writer};
use crate::worker::{FrontEnd, HostEnd, Waker};

/// The bridge threads of one side, and why the stream ended, once it has.
#[derive(Debug)]
pub struct Bridge {
    /// The reader and writer threads.
    threads: Vec<JoinHandle<()>>,
    /// Why the reader stopped: the first error it met (`Closed` for an
    /// orderly end).
    ended: Receiver<WireError>,
}

impl Bridge {
    /// Why the stream ended, once it has (never blocks).
    pub fn ended(&self) -> Option<WireError> {
        self.ended.try_recv().ok()
    }

    /// Waits for the bridge threads (after both ends closed).
    pub fn join(self) {
        for t in self.threads {
            let _ = t.join();
        }
    }
}

/// The host's side: a [`HostEnd`] for a worker, whose commands come from
/// `connection` and whose output goes to it.
pub fn serve(connection: Connection) -> std::io::Result<(HostEnd, Bridge)> {
    let (reader, writer) = connection.split();
    let (cmd_tx, cmd_rx) = crossbeam_channel::unbounded();
    let (out_tx, out_rx) = crossbeam_channel::unbounded();
    let (ended_tx, ended) = crossbeam_channel::bounded(1);
    let threads = vec![
        spawn("stepframe-host-reader", move || {
            read_into::<Command>(reader, &cmd_tx, None, &ended_tx);
        })?,
        spawn("stepframe-host-writer", move || {
            write_from::<Outbound>(writer, &out_rx);
        })?,
    ];
    Ok((HostEnd::new(cmd_rx, out_tx), Bridge { threads, ended }))
}

/// The front end's side: a [`FrontEnd`] whose commands go to `connection`
/// and whose inbound comes from it; `waker` is called after each message
/// arrives (the UI's repaint).
pub fn connect(
    connection: Connection,
    waker: Option<Waker>,
) -> std::io::Result<(FrontEnd, Bridge)> {
    let (reader, writer) = connection.split();
    let (cmd_tx, cmd_rx) = crossbeam_channel::unbounded();
    let (in_tx, in_rx) = crossbeam_channel::unbounded();
    let (ended_tx, ended) = crossbeam_channel::bounded(1);
    let threads = vec![
        spawn("stepframe-front-reader", move || {
            read_into::<Outbound>(reader, &in_tx, waker.as_ref(), &ended_tx);
        })?,
        spawn("stepframe-front-writer", move || {
            write_from::<Command>(writer, &cmd_rx);
        })?,
    ];
    let front = FrontEnd {
        commands: cmd_tx,
        inbound: in_rx,
    };
    Ok((front, Bridge { threads, ended }))
}

fn spawn(name: &str, f: impl FnOnce() + Send + 'static) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new().name(name.to_string()).spawn(f)
}

/// Decodes frames into `to` until the stream ends, then says why.
fn read_into<T: serde::de::DeserializeOwned>(
    mut reader: Reader<Stream>,
    to: &Sender<T>,
    waker: Option<&Waker>,
    ended: &Sender<WireError>,
) {
    let why = loop {
        match reader.recv::<T>() {
            Ok(message) => {
                if to.send(message).is_err() {
                    // Nobody reads any more: the side that owned `to` ended.
                    break WireError::Closed;
                }
                if let Some(wake) = waker {
                    wake();
                }
            }
            Err(e) => break e,
        }
    };
    let _ = ended.send(why);
    if let Some(wake) = waker {
        wake();
    }
}

/// Encodes what arrives on `from` until its senders are gone or the stream
/// breaks; then ends the stream, so the other side's reader wakes.
fn write_from<T: serde::Serialize>(mut writer: Writer<Stream>, from: &Receiver<T>) {
    for message in from.iter() {
        if writer.send(&message).is_err() {
            break;
        }
    }
    let _ = writer.shutdown();
}

/// A host on a thread of this process, reached through the same codec as
/// a child process (`edit --in-process`: one process for a native
/// debugger, and the proof that everything crosses the wire): the
/// worker's end and the front end, each behind its bridges.
pub fn in_process(waker: Option<Waker>) -> Result<(FrontEnd, HostEnd, [Bridge; 2]), WireError> {
    use crate::wire::{Handshake, Role};
    let (editor, host) =
        crate::wire::in_process(&Handshake::new(Role::Editor), &Handshake::new(Role::Host))?;
    let (end, host_bridge) = serve(host)?;
    let (front, front_bridge) = connect(editor, waker)?;
    Ok((front, end, [front_bridge, host_bridge]))
}
