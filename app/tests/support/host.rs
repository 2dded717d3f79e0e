//! The session host driven synchronously, as a front end without a UI reads
//! it: one worker frame per [`Host::pump`], and everything the host sent
//! taken right after it. Taking says the live view was taken, so the next
//! pump publishes a new one (at most one is in flight): the live view held
//! here is always the newest. Events are kept, in order, until the test
//! reads them ([`Host::events`]), and what a front end keeps of them (the
//! session recording, the scripts, the tapes, the journal) is kept here as
//! the editor keeps it.

use stepframe_app::Behaviours;
use stepframe_app::editor::protocol::{
    Command, DisplayRate, Event, JournalEntry, LiveView, RecordingChange, SceneCommand,
    ScriptsView, WorldView,
};
use stepframe_app::editor::worker::{self, FrontEnd, Worker};
use stepframe_core::Recording;

/// A worker and the front end's end of its channels (module docs).
pub struct Host {
    /// The worker, pumped by the test.
    pub worker: Worker,
    /// The front end's end of the channels.
    pub front: FrontEnd,
    /// Events taken and not yet read by the test, in order.
    unread: Vec<Event>,
    /// The newest live view.
    pub live: Option<LiveView>,
    /// The newest past view.
    pub past: Option<WorldView>,
    /// The session recording, as the events built it.
    pub recording: Recording,
    /// The scripts as the code pane would show them.
    pub scripts: ScriptsView,
    /// The input tape in force.
    pub tape_in_force: Option<Recording>,
    /// The Input tab's draft, as the host keeps it.
    pub tape_draft: Option<Recording>,
    /// The session's journal, as the host sent it.
    pub journal: Vec<JournalEntry>,
}

impl Host {
    /// A host at `rate` with the built-in behaviours, nothing loaded.
    pub fn new(rate: DisplayRate) -> Host {
        Host::with_behaviours(rate, &Behaviours::built_in())
    }

    /// A host at `rate` whose scenes can name `behaviours`.
    pub fn with_behaviours(rate: DisplayRate, behaviours: &Behaviours) -> Host {
        let (front, end) = worker::channels();
        Host {
            worker: Worker::new(end, rate, behaviours.registries()),
            front,
            unread: Vec::new(),
            live: None,
            past: None,
            recording: Recording::new(60),
            scripts: ScriptsView::default(),
            tape_in_force: None,
            tape_draft: None,
            journal: Vec::new(),
        }
    }

    /// A host at `rate` told to load `scene` (playing it, or as a preview).
    pub fn loading(rate: DisplayRate, scene: &std::path::Path, play: bool) -> Host {
        let host = Host::new(rate);
        host.send(Command::Scene(SceneCommand::Load {
            path: scene.to_path_buf(),
            play,
        }));
        host
    }

    /// Sends a command (applied at the next pump), once through the wire's
    /// codec as it would cross to a host process.
    pub fn send(&self, command: Command) {
        self.front.send(crossed(command));
    }

    /// One worker frame of `dt`, then takes what the host sent. False once
    /// the worker has ended.
    pub fn pump(&mut self, dt: f64) -> bool {
        let alive = self.worker.pump(dt);
        self.take();
        alive
    }

    /// `frames` worker frames of `dt`.
    pub fn pump_n(&mut self, frames: usize, dt: f64) {
        for _ in 0..frames {
            self.pump(dt);
        }
    }

    /// Takes what the host sent so far.
    pub fn take(&mut self) {
        let taken = self.front.take();
        for event in taken.events {
            let event = crossed(event);
            self.keep(&event);
            self.unread.push(event);
        }
        if let Some(live) = taken.live {
            self.live = Some(crossed(live));
        }
        if let Some(past) = taken.past {
            self.past = Some(crossed(past));
        }
    }

    /// What a front end keeps of an event.
    fn keep(&mut self, event: &Event) {
        match event {
            Event::Journal(entries) => self.journal.extend(entries.iter().cloned()),
            Event::Scripts(scripts) => self.scripts = scripts.clone(),
            Event::TapeInForce(tape) => self.tape_in_force = tape.clone(),
            Event::TapeDraft(tape) => self.tape_draft = tape.clone(),
            Event::Recording(change) => match change.clone() {
                RecordingChange::Reset(all) => self.recording = all,
                RecordingChange::Ticks(ticks) => {
                    for (tick, inputs) in ticks {
                        self.recording.record_tick(tick, &inputs);
                    }
                }
                RecordingChange::Edit(e) => self.recording.record_edit(e.tick, e.edit),
                RecordingChange::Unedit(e) => {
                    self.recording.remove_edit(e.tick, &e.edit);
                }
                RecordingChange::CutAfter(tick) => {
                    self.recording.truncate_after(tick);
                }
            },
            _ => {}
        }
    }

    /// The events taken since the last call, in order.
    pub fn events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.unread)
    }

    /// The newest live view.
    pub fn live(&self) -> &LiveView {
        self.live.as_ref().expect("a live view")
    }

    /// The live session in the newest live view.
    pub fn view(&self) -> &WorldView {
        &self.live().world
    }

    /// The live session's completed tick in the newest live view (0 before
    /// any view).
    pub fn tick(&self) -> u64 {
        self.live
            .as_ref()
            .map_or(0, |l| l.world.clock.simulation_tick)
    }

    /// The newest past view, taken (so the next one read is a new answer).
    pub fn take_past(&mut self) -> Option<WorldView> {
        self.past.take()
    }
}

/// `message` once through the wire's codec, as it crosses between the
/// editor and a host process: every worker test is also a test that what
/// it sends and receives can cross. Panics naming the message otherwise.
pub fn crossed<T>(message: T) -> T
where
    T: serde::Serialize + serde::de::DeserializeOwned + std::fmt::Debug,
{
    let what = || {
        let text = format!("{message:?}");
        text.chars().take(400).collect::<String>()
    };
    let bytes = stepframe_host::wire::encode(&message, Vec::new())
        .unwrap_or_else(|e| panic!("does not encode: {e}: {}", what()));
    stepframe_host::wire::decode(&bytes)
        .unwrap_or_else(|e| panic!("does not cross the wire: {e}: {}", what()))
}
