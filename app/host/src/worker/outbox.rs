//! What the worker sends, in the order it happened: telemetry first, then
//! the events it belongs before, then (latest wins, one in flight) the view.
//!
//! The two ends are channels of plain data ([`channels`]): a front end in
//! the same process reads them directly; a host in another process puts a
//! transport between (`crate::wire`), through which the same values pass.

use crossbeam_channel::{Receiver, Sender, TryRecvError};
use stepframe_core::Suspension;

use crate::protocol::{
    Command, Event, FrameTelemetry, HostError, JournalEntry, LiveView, Notice, Outbound, WorldView,
};

/// Most log lines sent per publish: a frame with more errors than that
/// drops the oldest of them (a runaway hook must not flood the front end).
pub(super) const MAX_LOG_BATCH: usize = 4096;

/// Most frames of telemetry a journal done again keeps before sending
/// them. Live, a publish sends its frame's telemetry and journal entry at
/// once, two messages a frame, which a front end drawing at 60 Hz takes
/// in stride. A replay runs flat out, ~4,500 frames a second of demo.ron:
/// two messages a frame there were ~9,000 encodes, socket writes, reads,
/// decodes and wake-ups a second, across two processes on two cores
/// (docs/performance.md, "Fix, rebuild, replay"). Held back, they go out
/// with the next event (the progress, four times a second, so about
/// 1,100 frames a message) or at this many, whichever comes first: 1,024
/// frames of demo.ron's telemetry are ~0.55 MB of postcard (~540 bytes a
/// frame with its flame zones), under the 1 MiB a wire reader keeps its
/// buffer at and far inside a frame's 64 MiB cap, and the front end holds
/// a replay's messages until it ends anyway.
pub(super) const REPLAY_BATCH_FRAMES: usize = 1024;

/// Called after something is sent, so a front end that sleeps until there
/// is news (an egui app between repaints) wakes. The host knows no UI: a
/// front end hands it whatever wakes it.
pub type Waker = std::sync::Arc<dyn Fn() + Send + Sync>;

/// The worker's end: commands in, everything it sends out.
pub struct HostEnd {
    /// Commands from the front end.
    commands: Receiver<Command>,
    /// Everything sent, in order.
    out: Sender<Outbound>,
    /// Woken after each send.
    waker: Option<Waker>,
}

impl std::fmt::Debug for HostEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostEnd").finish_non_exhaustive()
    }
}

impl HostEnd {
    /// An end on channels a transport fills and drains (`crate::link`).
    pub fn new(commands: Receiver<Command>, out: Sender<Outbound>) -> HostEnd {
        HostEnd {
            commands,
            out,
            waker: None,
        }
    }

    /// This end, waking `waker` after each send.
    pub fn with_waker(mut self, waker: Waker) -> HostEnd {
        self.waker = Some(waker);
        self
    }

    /// The command receiver and the sender of everything sent: a relay
    /// that stands between a worker and this end (`crate::debug`).
    pub(crate) fn into_parts(self) -> (Receiver<Command>, Sender<Outbound>) {
        (self.commands, self.out)
    }

    /// The command receiver (the paced thread waits on it).
    pub(super) fn commands(&self) -> &Receiver<Command> {
        &self.commands
    }
}

/// The front end's end: commands out (unbounded: sending never blocks the
/// UI), and everything the host sends, in order.
#[derive(Debug)]
pub struct FrontEnd {
    /// Commands to the host.
    pub commands: Sender<Command>,
    /// Everything the host sends, in order.
    pub inbound: Receiver<Outbound>,
}

/// What a front end took from the host in one drain: the events in order,
/// and the newest live and past views.
#[derive(Debug, Default)]
pub struct Taken {
    /// Every event, in order.
    pub events: Vec<Event>,
    /// The newest live view, if one came.
    pub live: Option<LiveView>,
    /// The newest past view, if one came.
    pub past: Option<WorldView>,
}

impl FrontEnd {
    /// Sends a command (a closed channel, a host gone, drops it).
    pub fn send(&self, command: Command) {
        let _ = self.commands.send(command);
    }

    /// Takes everything the host sent so far, and says the newest live view
    /// was taken (so the host may send the next): what a front end with no
    /// UI of its own (a soak, a bench, a test) does each frame.
    pub fn take(&self) -> Taken {
        let mut taken = Taken::default();
        for message in self.inbound.try_iter() {
            match message {
                Outbound::Event(e) => taken.events.push(*e),
                Outbound::Live(v) => taken.live = Some(*v),
                Outbound::Past(v) => taken.past = Some(*v),
            }
        }
        if taken.live.is_some() {
            self.send(Command::ViewTaken);
        }
        taken
    }
}

/// Creates the channels between a front end and a worker.
pub fn channels() -> (FrontEnd, HostEnd) {
    let (cmd_tx, cmd_rx) = crossbeam_channel::unbounded();
    let (out_tx, out_rx) = crossbeam_channel::unbounded();
    (
        FrontEnd {
            commands: cmd_tx,
            inbound: out_rx,
        },
        HostEnd {
            commands: cmd_rx,
            out: out_tx,
            waker: None,
        },
    )
}

/// The worker's sending side (module docs).
pub(super) struct Outbox {
    /// The channels.
    end: HostEnd,
    /// Telemetry not yet sent (flushed before every event, so order holds).
    batch: Vec<FrameTelemetry>,
    /// Journal entries not yet sent (flushed before everything else).
    journal: Vec<JournalEntry>,
    /// Views built so far.
    revision: u64,
    /// Something changed since the last live view.
    dirty: bool,
    /// The front end took the last live view: the next may go.
    credit: bool,
    /// The suspension last announced, to send suspended/resumed once.
    last_suspension: Option<Suspension>,
    /// A journal is being done again: no live view goes out (the front end
    /// would show a moment the replay passes through) and no notice (the
    /// user was told each once, live); progress goes instead.
    replaying: bool,
    /// The completed tick a journal being done again has reached.
    replay_tick: u64,
    /// Something was sent since the front end was last woken.
    unwoken: bool,
    /// Journal entries made so far (sent or not).
    journaled: u64,
    /// Where the count and the newest frame's delta are said as they are
    /// made, for a front end to find after this process died
    /// ([`stepframe_core::HookBeacon::note_journal`]).
    beacon: Option<stepframe_core::HookBeacon>,
}

impl Outbox {
    /// The sending side of `end`, for a session suspended as `initial`
    /// says (not news).
    pub(super) fn new(end: HostEnd, initial: Option<Suspension>) -> Outbox {
        Outbox {
            end,
            batch: Vec::new(),
            journal: Vec::new(),
            revision: 0,
            dirty: true,
            credit: true,
            last_suspension: initial,
            replaying: false,
            journaled: 0,
            beacon: None,
            replay_tick: 0,
            unwoken: false,
        }
    }

    /// The next command, if one waits; `Err` once the front end is gone.
    pub(super) fn try_command(&self) -> Result<Option<Command>, ()> {
        match self.end.commands.try_recv() {
            Ok(command) => Ok(Some(command)),
            Err(TryRecvError::Empty) => Ok(None),
            Err(TryRecvError::Disconnected) => Err(()),
        }
    }

    /// The command receiver.
    pub(super) fn commands(&self) -> &Receiver<Command> {
        self.end.commands()
    }

    /// Something changed: the next publish sends a live view.
    pub(super) fn touch(&mut self) {
        self.dirty = true;
    }

    /// The front end took the last live view.
    pub(super) fn view_taken(&mut self) {
        self.credit = true;
    }

    /// A journal entry (module docs of `protocol::journal`).
    pub(super) fn journal(&mut self, entry: JournalEntry) {
        self.journaled += 1;
        if let Some(beacon) = &self.beacon {
            let dt = match &entry {
                JournalEntry::Frame { dt } => Some(*dt),
                _ => None,
            };
            beacon.note_journal(self.journaled, dt);
        }
        self.journal.push(entry);
    }

    /// Says every journal entry's count on `beacon` from now on.
    pub(super) fn set_beacon(&mut self, beacon: stepframe_core::HookBeacon) {
        self.beacon = Some(beacon);
    }

    /// A frame's telemetry, sent before the next event.
    pub(super) fn frame(&mut self, telemetry: FrameTelemetry) {
        self.batch.push(telemetry);
    }

    fn send(&mut self, message: Outbound) {
        // A closed channel means the front end is gone; the worker ends at
        // its next receive.
        let _ = self.end.out.send(message);
        self.unwoken = true;
    }

    /// Wakes the front end.
    pub(super) fn wake(&mut self) {
        self.unwoken = false;
        if let Some(waker) = &self.end.waker {
            waker();
        }
    }

    /// The end of a publish: sends the journal and the telemetry queued and
    /// wakes the front end. While a journal is done again they wait for
    /// [`REPLAY_BATCH_FRAMES`] frames or the next event, and a publish that
    /// sent nothing wakes nobody.
    pub(super) fn end_publish(&mut self) {
        if !self.replaying || self.batch.len() >= REPLAY_BATCH_FRAMES {
            self.flush();
        }
        if !self.replaying || self.unwoken {
            self.wake();
        }
    }

    /// Sends the journal and the telemetry queued so far.
    pub(super) fn flush(&mut self) {
        if !self.journal.is_empty() {
            let entries = std::mem::take(&mut self.journal);
            self.send(Outbound::Event(Box::new(Event::Journal(entries))));
        }
        if !self.batch.is_empty() {
            let batch = std::mem::take(&mut self.batch);
            self.send(Outbound::Event(Box::new(Event::Frames(batch))));
        }
    }

    /// Sends an event after what was queued before it (the order the front
    /// end reads them in is the order they happened in).
    pub(super) fn event(&mut self, event: Event) {
        self.flush();
        self.send(Outbound::Event(Box::new(event)));
        self.dirty = true;
    }

    /// Sends an event about the live view just sent (what the watches did
    /// in its ticks): unlike [`Outbox::event`], it asks for no new view.
    pub(super) fn report(&mut self, event: Event) {
        self.flush();
        self.send(Outbound::Event(Box::new(event)));
    }

    /// A notice (none while a journal is done again).
    pub(super) fn notice(&mut self, notice: Notice) {
        if !self.replaying {
            self.event(Event::Notice(notice));
        }
    }

    /// A journal is being done again (`true`) or is done.
    pub(super) fn set_replaying(&mut self, replaying: bool) {
        self.replaying = replaying;
        self.dirty = true;
    }

    /// An error (the session goes on unchanged). While a journal is done
    /// again it is a [`Event::ReplayError`], stamped with the tick the
    /// replay had reached: a front end replaying for a new build refuses
    /// the build on it.
    pub(super) fn error(&mut self, error: HostError) {
        if self.replaying {
            let tick = self.replay_tick;
            self.event(Event::ReplayError { tick, error });
        } else {
            self.event(Event::Error(error));
        }
    }

    /// Whether a journal is being done again.
    pub(super) fn replaying(&self) -> bool {
        self.replaying
    }

    /// The completed tick a journal being done again has reached.
    pub(super) fn replay_at(&mut self, tick: u64) {
        self.replay_tick = tick;
    }

    /// Sends suspended or resumed when the suspension changed.
    pub(super) fn suspension(&mut self, now: Option<&Suspension>) {
        if now == self.last_suspension.as_ref() {
            return;
        }
        self.last_suspension = now.cloned();
        match now {
            Some(s) => self.event(Event::Suspended(s.clone())),
            None => self.event(Event::Resumed),
        }
    }

    /// Whether a live view should be built now: something changed and the
    /// front end took the last one.
    pub(super) fn wants_view(&self) -> bool {
        self.dirty && self.credit && !self.replaying
    }

    /// The next view's revision.
    pub(super) fn next_revision(&mut self) -> u64 {
        self.revision += 1;
        self.revision
    }

    /// Sends the live view (one in flight: the next waits for
    /// [`Outbox::view_taken`]).
    pub(super) fn live(&mut self, view: LiveView) {
        self.flush();
        self.send(Outbound::Live(Box::new(view)));
        self.dirty = false;
        self.credit = false;
        self.wake();
    }

    /// Sends a past view, the answer to a request.
    pub(super) fn past(&mut self, view: WorldView) {
        self.flush();
        self.send(Outbound::Past(Box::new(view)));
        self.wake();
    }
}
