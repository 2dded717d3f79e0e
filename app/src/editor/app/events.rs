//! What the worker says, taken in stream order: each event updates the shared
//! facts ([`Session`]) and the panels that keep their own state (timeline
//! markers and lanes, the watches, bookmarks, the code pane, the comparison).

use stepframe_core::LogLevel;

use super::EditorApp;
use crate::editor::protocol::Event;
use crate::editor::tape::TapeState;
use crate::editor::workspace::Pane;
use crate::tools::trace_poses::TracePoses;

impl EditorApp {
    /// Takes one worker event (after the timeline and the Watches tab saw it).
    pub(super) fn on_event(&mut self, event: Event) {
        let session = &mut self.session;
        match event {
            // The timeline and the Watches tab took these in `drain`.
            Event::Frames(_) | Event::Watch(_) | Event::WatchFound { .. } => {}
            Event::Rewound(tick) => {
                session.back_to_live();
                if let Some(c) = session.compare.as_mut() {
                    c.rewound(tick);
                }
                session
                    .log
                    .info(format!("rewound to tick {tick}: Play continues from here"));
            }
            Event::Restarted { tick, frame } => {
                session.back_to_live();
                session.log.info(format!(
                    "worker restarted from the snapshot at tick {tick} (frame {frame}), paused \
                     there: Play continues"
                ));
            }
            Event::Comparing { name, trace } => {
                let (first, last) = trace.range().unwrap_or_default();
                session.notify(
                    LogLevel::Info,
                    format!("comparing with {name} (ticks {first}–{last}): A is the live session, B the trace"),
                );
                session.compare = Some(crate::editor::compare::Comparison::new(name, trace));
            }
            Event::Divergence(batch) => {
                if let Some(c) = session.compare.as_mut() {
                    let before = c.first.map(|f| f.tick);
                    c.add(&batch);
                    if let Some(f) = c.first.filter(|f| Some(f.tick) != before) {
                        session.log.info(format!(
                            "A and B part at tick {}: {} objects differ (first {}), up to {:.6} m apart",
                            f.tick,
                            f.objects,
                            f.first_object.map_or_else(String::new, |id| format!("#{id}")),
                            f.distance
                        ));
                    }
                }
            }
            Event::CompareStopped => {
                session.compare = None;
                session.fork = None;
                session.log.info("comparison stopped".to_string());
            }
            Event::Forked(at) => {
                session.back_to_live();
                session.fork = Some(at);
                session.compare = Some(crate::editor::compare::Comparison::new(
                    format!("branch B, forked at tick {at}"),
                    std::sync::Arc::new(TracePoses::default()),
                ));
                session.notify(
                    LogLevel::Info,
                    format!(
                        "forked at tick {at}: change B (Input tab: Apply to B; inspector: edit B, Set in \
                         B; code pane: Run in B), then Play runs A and B side by side"
                    ),
                );
            }
            Event::ForkTicks(batch) => {
                if let Some(c) = session.compare.as_mut() {
                    let trace = std::sync::Arc::make_mut(&mut c.trace);
                    for t in batch {
                        trace.push(t);
                    }
                    trace.keep_last(crate::editor::compare::MAX_FORK_TICKS);
                }
            }
            Event::Suspended(s) => {
                let text = crate::editor::toolbar::suspension_text(&s, session.live.as_ref());
                session.log.info(text);
                if self.panels.code.wants_to_show(&s) {
                    self.workspace.set_open(Pane::Code, true);
                }
            }
            // The live session moves on: every panel back to it.
            Event::Resumed => session.back_to_live(),
            Event::Loaded { path, objects, .. } => {
                session.back_to_live();
                // A draft tape belongs to the session it was edited in.
                session.tape_draft = None;
                if let Some(c) = session.compare.as_mut() {
                    c.restart();
                }
                self.panels.tape = TapeState::default();
                if let Some(why) = self.panels.bookmarks.load_for(&path) {
                    session.notify(LogLevel::Error, format!("bookmarks not read: {why}"));
                }
                self.panels.viewport.needs_fit = true;
                session.error = None;
                session.log.info(format!(
                    "loaded {} ({objects} objects): a new physics world, simulation time \
                     restarts at 0 while frame time continues",
                    path.display()
                ));
            }
            Event::Saved(path) => {
                // After Save As the scene is the new file: its bookmarks go
                // with it (written beside it at the next change).
                self.panels.bookmarks.follow_save_as(&path);
                session.notify(LogLevel::Info, format!("saved {}", path.display()))
            }
            Event::ConfirmSave { path, reason, what } => self.panels.files.ask(path, reason, what),
            Event::Done(text) => session.notify(LogLevel::Info, text),
            Event::Notice(text) => session.notify(LogLevel::Warning, text),
            Event::ScriptReloaded(path) => {
                let text = format!("reloaded {}", path.display());
                if session
                    .error
                    .as_ref()
                    .is_some_and(|e| e.contains(&path.display().to_string()))
                {
                    session.error = None;
                }
                session.log.info(text);
            }
            Event::Error(message) => {
                session.log.push(LogLevel::Error, None, message.clone());
                session.error = Some(message);
            }
            Event::Log(entries) => {
                for entry in entries {
                    session.log.entry(&entry);
                }
            }
        }
    }
}
