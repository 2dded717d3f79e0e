//! What the worker says, taken in stream order: each event updates what the
//! UI keeps of it (run B's streams, the feedback, the time cursor) and the
//! panels that keep their own state (timeline markers and lanes, the
//! watches, bookmarks, the code pane).

use std::sync::Arc;

use stepframe_core::LogLevel;

use super::EditorApp;
use crate::compare::poses::TracePoses;
use crate::editor::panels::tape::TapeState;
use crate::editor::protocol::Event;
use crate::editor::shared::{MAX_FORK_TICKS, RunBStreams};
use crate::editor::workspace::Pane;

impl EditorApp {
    /// Takes one worker event (after the timeline and the Watches tab saw it).
    pub(super) fn on_event(&mut self, event: Event) {
        let feedback = &mut self.feedback;
        let run_b = &mut self.published.run_b;
        match event {
            // The timeline and the Watches tab took these in `drain`.
            Event::Frames(_)
            | Event::Watch(_)
            | Event::WatchHistory(_)
            | Event::WatchFound { .. } => {}
            Event::FrameReplayed(replayed) => self.panels.flame.on_replayed(*replayed),
            Event::Rewound(tick) => {
                self.follow_live();
                self.panels.flame.forget();
                // What A measured after the tick is being run again.
                let run_b = &mut self.published.run_b;
                run_b.samples.split_off(&(tick + 1));
                self.feedback
                    .log
                    .info(format!("rewound to tick {tick}: Play continues from here"));
            }
            Event::Restarted { tick, frame } => {
                self.follow_live();
                self.feedback.log.info(format!(
                    "worker restarted from the snapshot at tick {tick} (frame {frame}), paused \
                     there: Play continues"
                ));
            }
            Event::Comparing { name, trace } => {
                let (first, last) = trace.range().unwrap_or_default();
                feedback.notify(
                    LogLevel::Info,
                    format!(
                        "comparing with {name} (ticks {first}–{last}): A is the live session, \
                         B the trace"
                    ),
                );
                *run_b = RunBStreams {
                    trace,
                    ..RunBStreams::default()
                };
            }
            Event::Divergence(batch) => {
                let before = first_parting(run_b).map(|f| f.tick);
                for d in &batch {
                    run_b.samples.insert(d.tick, *d);
                }
                if let Some(f) = first_parting(run_b).filter(|f| Some(f.tick) != before) {
                    feedback.log.info(format!(
                        "A and B part at tick {}: {} objects differ (first {}), up to {:.6} m apart",
                        f.tick,
                        f.objects,
                        f.first_object
                            .map_or_else(String::new, |id| format!("#{id}")),
                        f.distance
                    ));
                }
            }
            Event::CompareStopped => {
                *run_b = RunBStreams::default();
                feedback.log.info("comparison stopped".to_string());
            }
            Event::Forked(at) => {
                *run_b = RunBStreams {
                    trace: Arc::new(TracePoses::default()),
                    ..RunBStreams::default()
                };
                feedback.notify(
                    LogLevel::Info,
                    format!(
                        "forked at tick {at}: change B (Input tab: Apply to B; inspector: edit B, Set in \
                         B; code pane: Run in B), then Play runs A and B side by side"
                    ),
                );
                self.follow_live();
            }
            Event::ForkTicks(batch) => {
                let trace = Arc::make_mut(&mut run_b.trace);
                for t in batch {
                    trace.push(t);
                }
                trace.keep_last(MAX_FORK_TICKS);
            }
            Event::Suspended(s) => {
                let live = self.published.live.as_ref();
                let text = crate::editor::panels::toolbar::suspension_text(&s, live);
                self.feedback.log.info(text);
                if self.panels.code.wants_to_show(&s) {
                    self.workspace.set_open(Pane::Code, true);
                }
            }
            // The live session moves on: every panel back to it.
            Event::Resumed => self.follow_live(),
            Event::Loaded { path, objects, .. } => {
                self.follow_live();
                self.panels.hierarchy.on_loaded(&path);
                self.panels.flame.forget();
                // Measured ticks belong to the old world; B stays.
                self.published.run_b.samples.clear();
                self.panels.tape = TapeState::default();
                if let Some(why) = self.panels.bookmarks.load_for(&path) {
                    self.feedback
                        .notify(LogLevel::Error, format!("bookmarks not read: {why}"));
                }
                self.panels.viewport.needs_fit = true;
                self.feedback.error = None;
                self.feedback.log.info(format!(
                    "loaded {} ({}): a new physics world, simulation time \
                     restarts at 0 while frame time continues",
                    path.display(),
                    crate::editor::panels::count(objects as u64, "object", "objects")
                ));
            }
            Event::Saved(path) => {
                // After Save As the scene is the new file: its bookmarks go
                // with it (written beside it at the next change).
                self.panels.bookmarks.follow_save_as(&path);
                feedback.notify(LogLevel::Info, format!("saved {}", path.display()))
            }
            Event::ConfirmSave { path, reason, what } => self.panels.files.ask(path, reason, what),
            Event::Done(text) => feedback.notify(LogLevel::Info, text),
            Event::Notice(text) => feedback.notify(LogLevel::Warning, text),
            Event::ScriptReloaded(path) => {
                let text = format!("reloaded {}", path.display());
                if feedback
                    .error
                    .as_ref()
                    .is_some_and(|e| e.contains(&path.display().to_string()))
                {
                    feedback.error = None;
                }
                feedback.log.info(text);
            }
            Event::Error(message) => feedback.error(message),
            Event::Log(entries) => {
                for entry in entries {
                    feedback.log.entry(&entry);
                }
            }
        }
    }
}

/// The first measured tick where A and B differ.
fn first_parting(run_b: &RunBStreams) -> Option<crate::compare::poses::TickDivergence> {
    run_b.samples.values().find(|d| d.objects > 0).copied()
}
