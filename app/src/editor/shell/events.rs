//! What the host says, taken in stream order, the app's own part: each
//! event updates what the UI keeps of it
//! ([`Published`](crate::editor::shared::Published): the scripts, the
//! recording, the tapes, run B's measured ticks, the journal), the
//! feedback and the time cursor. The panels took it before, each its own
//! part ([`Panel::on_event`](crate::editor::shared::Panel::on_event), handed
//! on by `take` in `app`), so no panel's state is written here: a panel
//! that needs a new event adds it in its own file.

use stepframe_core::LogLevel;
use stepframe_host::protocol::{BranchEvent, Notice, RecordingChange};

use super::Editor;
use crate::editor::protocol::Event;
use crate::editor::words;

/// How a script's run-time failure ends its log line
/// (`stepframe_plugins`' script behaviour writes it).
const SCRIPT_STOPPED: &str = "the script's hooks stop until it is reloaded";

impl Editor {
    /// Takes one host event (after every panel took it).
    pub(super) fn on_event(&mut self, event: Event) {
        let feedback = &mut self.feedback;
        let published = &mut self.published;
        match event {
            // The recorded frames and the panels took these.
            Event::Frames(_)
            | Event::Watch(_)
            | Event::WatchHistory(_)
            | Event::WatchFound { .. }
            | Event::FrameReplayed(_) => {}
            Event::Journal(entries) => published.journal.extend(entries),
            Event::Scripts(scripts) => published.scripts = scripts,
            Event::TapeInForce(tape) => published.tape_in_force = tape,
            Event::TapeDraft(tape) => published.tape_draft = tape,
            Event::Recording(change) => apply_recording(&mut published.recording, change),
            Event::Rewound(tick) => {
                self.follow_live();
                // What A measured after the tick is being run again.
                self.published.samples.split_off(&(tick + 1));
                self.feedback
                    .log
                    .info(format!("rewound to tick {tick}: Play continues from here"));
            }
            Event::Replaying { done, of, tick } => {
                self.published.replaying = Some((done, of, tick));
            }
            Event::ReplayError { tick, error } => feedback.error(format!(
                "doing the session again, at tick {tick}: {}",
                words::error(&error)
            )),
            Event::Restored { tick, asked } => {
                self.published.replaying = None;
                self.follow_live();
                let text = match asked {
                    Some(t) if t == tick => format!(
                        "a new session host did the session again up to tick {tick} and stands \
                         there, suspended: Play continues"
                    ),
                    _ => format!(
                        "a new session host did the session again and stands at tick {tick}, \
                         suspended: Play continues"
                    ),
                };
                self.feedback.notify(LogLevel::Info, text);
            }
            Event::BranchB(b) => self.on_branch_event(b),
            Event::Suspended(s) => {
                let live = self.published.live.as_ref().map(|l| &l.world);
                let text = crate::editor::panels::toolbar::suspension_text(&s, live);
                self.feedback.log.info(text);
            }
            // The live session moves on: every panel back to it.
            Event::Resumed => self.follow_live(),
            Event::Loaded { path, objects, .. } => {
                self.follow_live();
                // Measured ticks belong to the old world (and B, which the
                // host ended with it).
                self.published.samples.clear();
                self.feedback.error = None;
                self.feedback.log.info(format!(
                    "loaded {} ({}): a new physics world, simulation time \
                     restarts at 0 while frame time continues",
                    path.display(),
                    words::count(objects as u64, "object", "objects")
                ));
            }
            Event::Saved(path) => {
                feedback.notify(LogLevel::Info, format!("saved {}", path.display()))
            }
            // The File dialogs took it: the question is theirs.
            Event::ConfirmSave { .. } => {}
            Event::Notice(notice) => {
                let level = notice_level(&notice);
                if let Notice::ScriptReloaded(key) = &notice
                    && feedback
                        .error
                        .as_ref()
                        .is_some_and(|e| e.contains(key.as_str()))
                {
                    feedback.error = None;
                }
                let text = words::notice(&notice);
                match notice {
                    Notice::ScriptReloaded(_) => feedback.log.info(text),
                    _ => feedback.notify(level, text),
                }
            }
            Event::Error(error) => feedback.error(words::error(&error)),
            Event::Log(entries) => {
                for entry in entries {
                    feedback.log.entry(&entry);
                    // A script that failed at run time stops its hooks: as
                    // visible as a syntax error, its object named.
                    if entry.level == LogLevel::Error && entry.message.ends_with(SCRIPT_STOPPED) {
                        let object = entry.object.map(|id| {
                            let name = published
                                .live
                                .as_ref()
                                .and_then(|l| l.world.objects.iter().find(|o| o.id == id))
                                .map(|o| o.name.clone())
                                .unwrap_or_default();
                            format!("{name} {id}")
                        });
                        feedback.error(format!(
                            "{}, tick {}: {}",
                            object.unwrap_or_else(|| "a script".to_string()),
                            entry.tick,
                            entry.message
                        ));
                    }
                }
            }
        }
    }

    /// What happened to branch B.
    fn on_branch_event(&mut self, event: BranchEvent) {
        if let BranchEvent::Run { ticks, last } = event {
            // The run this host sent for a replay with a new build.
            return self.on_old_run(ticks, last);
        }
        let feedback = &mut self.feedback;
        let samples = &mut self.published.samples;
        match event {
            BranchEvent::Run { .. } => {}
            BranchEvent::Comparing { name, ticks } => {
                feedback.notify(
                    LogLevel::Info,
                    format!(
                        "comparing with {} (ticks {}–{}): A is the live session, B the trace",
                        words::b_name(&name),
                        ticks.0,
                        ticks.1
                    ),
                );
                samples.clear();
            }
            BranchEvent::Measured(batch) => {
                let before = first_parting(samples);
                for d in &batch {
                    samples.insert(d.tick, *d);
                }
                if let Some(f) =
                    first_parting(samples).filter(|f| Some(f.tick) != before.map(|b| b.tick))
                {
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
            BranchEvent::Ended => {
                samples.clear();
                feedback.log.info("comparison stopped".to_string());
            }
            BranchEvent::Forked(at) => {
                samples.clear();
                feedback.notify(
                    LogLevel::Info,
                    format!(
                        "forked at tick {at}: change B (Input tab: Apply to B; inspector: edit B, Set in \
                         B; code pane: Run in B), then Play runs A and B side by side"
                    ),
                );
                self.follow_live();
            }
            BranchEvent::Adopted { .. } => {
                samples.clear();
                // The session is B's now (the timeline dropped A's frames
                // after the fork): every panel shows the live session.
                self.follow_live();
            }
        }
    }
}

/// Applies a change of the session recording to the UI's copy.
fn apply_recording(recording: &mut stepframe_core::Recording, change: RecordingChange) {
    match change {
        RecordingChange::Reset(all) => *recording = all,
        RecordingChange::Ticks(ticks) => {
            for (tick, inputs) in ticks {
                recording.record_tick(tick, &inputs);
            }
        }
        RecordingChange::Edit(e) => recording.record_edit(e.tick, e.edit),
        RecordingChange::Unedit(e) => {
            recording.remove_edit(e.tick, &e.edit);
        }
        RecordingChange::CutAfter(tick) => {
            recording.truncate_after(tick);
        }
    }
}

/// How loud a notice is: a warning where something the user asked for did
/// not happen as asked, information otherwise.
fn notice_level(notice: &Notice) -> LogLevel {
    match notice {
        Notice::Undone { .. }
        | Notice::Redone { .. }
        | Notice::RecordingSaved { .. }
        | Notice::ScriptReloaded(_) => LogLevel::Info,
        _ => LogLevel::Warning,
    }
}

/// The first measured tick where A and B differ.
fn first_parting(
    samples: &std::collections::BTreeMap<u64, stepframe_host::traced::TickDivergence>,
) -> Option<stepframe_host::traced::TickDivergence> {
    samples.values().find(|d| d.objects > 0).copied()
}
