//! The worker and its channels without any UI: latest-wins views, one
//! ordered stream of telemetry and events that loses nothing, and a paced
//! thread that keeps running while nobody reads.
//!
//! One file per concern: `channels` (ordering, latest-wins views, the
//! paced thread), `scene_files` (save, reload), `auto_reload` (the scene's
//! file changed on disk), `input_tape` (keys while
//! suspended, edited tapes), `fork` (run B, adopt, scripts and parameters in
//! B), `one_source_of_truth` (what the worker shows happened: edits,
//! rate changes, reloads and recordings through the history), `undo`
//! (undo and redo of those edits) and `restore` (a journal done again:
//! every frame's record, in a few messages).

mod auto_reload;
mod channels;
mod fork;
mod input_tape;
mod one_source_of_truth;
mod restore;
mod save_in_place;
mod scene_files;
mod undo;

#[path = "../../../core/tests/support/lines.rs"]
mod lines;
#[path = "../support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use stepframe_app::editor::protocol::FrameTelemetry;
use stepframe_app::editor::protocol::{Command, DisplayRate, Event};
use stepframe_app::editor::words;
use stepframe_app::editor::worker::{self, Worker};
use stepframe_core::{
    Breakpoint, HookKind, InputEvent, InputSource, ObjectId, RecordedEvent, Recording,
    SuspendReason,
};
use support::host::Host;

/// The telemetry frames among the events.
fn frames_of(events: &[Event]) -> Vec<FrameTelemetry> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Frames(batch) => Some(batch.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

const DT: f64 = 1.0 / 60.0;

fn demo() -> std::path::PathBuf {
    stepframe_app::default_scene()
}

/// No request among them was refused.
fn assert_no_errors(events: &[Event]) {
    let errors: Vec<&Event> = events
        .iter()
        .filter(|e| matches!(e, Event::Error(_)))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

/// What the host told the user among `events`, in the editor's words.
fn notices(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Notice(n) => Some(words::notice(n)),
            _ => None,
        })
        .collect()
}

/// The errors among `events`, in the editor's words.
fn errors(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Error(e) => Some(words::error(e)),
            _ => None,
        })
        .collect()
}

/// `patrol.rhai` walking at twice its speed.
fn fast_patrol(text: &str) -> String {
    let line = "let next = x + dir * speed * dt;";
    assert!(text.contains(line), "patrol.rhai has its step line");
    text.replace(line, "let next = x + dir * speed * 2.0 * dt;")
}

/// The bundled scripts scene: a guard (object 3) walks right at 1.5 m/s
/// from x = -2 (0.025 m a tick at 60 Hz) under `patrol.rhai`.
fn scripts_scene() -> std::path::PathBuf {
    demo().with_file_name("scripts.ron")
}

/// What the events of one kind carried, flattened in order: `pick` says
/// which event kind and gives its batch.
fn batches_in<'e, T: Clone + 'e>(
    events: &'e [Event],
    pick: impl Fn(&'e Event) -> Option<&'e Vec<T>>,
) -> Vec<T> {
    events.iter().filter_map(pick).flatten().cloned().collect()
}

/// A host at 60 Hz that has been told to load and play `scene`.
fn playing(scene: std::path::PathBuf) -> Host {
    playing_paced(scene, DisplayRate::Hz(60))
}

/// Like [`playing`], the host at `rate`.
fn playing_paced(scene: std::path::PathBuf, rate: DisplayRate) -> Host {
    Host::loading(rate, &scene, true)
}

/// Runs `frames` worker frames of [`DT`].
fn pump(h: &mut Host, frames: usize) {
    h.pump_n(frames, DT);
}

/// A host with `scene` open as a preview (suspended at tick 0).
fn preview(scene: &std::path::Path) -> Host {
    let mut h = Host::loading(DisplayRate::Hz(60), scene, false);
    h.pump(DT);
    h
}
