//! The worker's stream into the timeline, in stream order: markers on the
//! outer frame they belong to (stalls on the frame whose dt reached
//! `max_delta`, breakpoints, clock breakpoints, held watches, faults, error
//! lines), fresh lanes for a new physics world, and the abandoned branch's
//! markers and values dropped after a rewind. The records themselves are
//! [`Frames`]'s, which took the event first.

use stepframe_core::{FrameRecord, LogLevel, SuspendReason};

use super::blocks::Blocks;
use super::watch_lanes::plotted;
use super::{Marker, MarkerKind, TimelineState};
use crate::editor::frames::Frames;
use crate::editor::protocol::{BranchEvent, Event, FrameTelemetry, LiveView};

/// Most markers kept (stalls in a long irregular run would otherwise grow
/// without bound).
const MAX_MARKERS: usize = 10_000;

impl TimelineState {
    /// Marks a stall on a record from the worker whose dt reached
    /// `max_delta`.
    pub fn mark_stall(&mut self, record: &FrameRecord) {
        if record.delta_time >= self.max_delta && self.max_delta > 0.0 {
            self.mark(
                record.frame_index,
                MarkerKind::Stall,
                format!(
                    "stall: frame {} dt {:.1} ms",
                    record.frame_index,
                    record.delta_time * 1000.0
                ),
            );
        }
    }

    /// A watch held at `tick`: a marker at the first tick of each run of
    /// consecutive ticks it holds, its text saying how long the run is. A
    /// mark watch that holds for a second puts one marker, not sixty.
    fn watch_held(&mut self, watch: usize, tick: u64, frame: u64) {
        if let Some((first, last)) = self.watch_runs.get_mut(&watch)
            && tick == *last + 1
            && let Some(m) = self
                .markers
                .iter_mut()
                .rev()
                .find(|m| m.kind == MarkerKind::Watch && m.watch_run == Some((watch, *first)))
        {
            *last = tick;
            m.text = format!(
                "watch #{} held at ticks {first}–{tick} ({} ticks)",
                watch + 1,
                tick - *first + 1
            );
            return;
        }
        self.watch_runs.insert(watch, (tick, tick));
        self.mark(
            frame,
            MarkerKind::Watch,
            format!("watch #{} held at tick {tick}", watch + 1),
        );
        if let Some(m) = self.markers.back_mut() {
            m.watch_run = Some((watch, tick));
        }
    }

    fn mark(&mut self, frame: u64, kind: MarkerKind, text: String) {
        if self.markers.len() == MAX_MARKERS {
            self.markers.pop_front();
        }
        self.markers.push_back(Marker {
            frame,
            kind,
            text,
            watch_run: None,
        });
    }

    /// Takes an event from the worker, in stream order, after `frames`
    /// took it: markers on the frame they belong to, fresh lanes for a new
    /// physics world, the abandoned branch dropped after a rewind or an
    /// adoption of B, the lane area back at its top for a comparison's
    /// lanes ([`Panel::on_event`](crate::editor::shared::Panel::on_event)
    /// with the reading's frames and the host's live view, whose list says
    /// which expression a watch's value is of).
    pub(super) fn take_event(&mut self, event: &Event, frames: &Frames, live: Option<&LiveView>) {
        match event {
            Event::BranchB(BranchEvent::Comparing { .. } | BranchEvent::Forked(_)) => {
                // The divergence lanes come first: in view, not above it.
                self.scroll_lanes_to_top();
            }
            Event::BranchB(BranchEvent::Adopted { forked_at, .. }) => {
                // The session is B's now: A's frames after the fork never
                // happened in it.
                self.adopted(frames, *forked_at);
            }
            Event::Frames(batch) => {
                for FrameTelemetry { report, clock, .. } in batch {
                    if let Some(change) = report.clock_change {
                        self.mark(report.frame_index, MarkerKind::Rate, change.to_string());
                    }
                    self.mark_stall(&FrameRecord::new(report, clock));
                }
            }
            Event::Suspended(s) => match &s.reason {
                SuspendReason::Breakpoint(hit) => self.mark(
                    s.frame,
                    MarkerKind::Breakpoint,
                    format!(
                        "breakpoint {} hit at tick {} ({} {})",
                        hit.breakpoint.0, s.tick, hit.behaviour, hit.hook
                    ),
                ),
                SuspendReason::Clock(hit) => self.mark(
                    s.frame,
                    MarkerKind::Clock,
                    format!("{hit} at tick {}", s.tick),
                ),
                SuspendReason::Fault { message, .. } => self.mark(
                    s.frame,
                    MarkerKind::Error,
                    format!("fault at tick {}: {message}", s.tick),
                ),
                _ => {}
            },
            Event::Watch(batch) => {
                let plotted = plotted(live);
                for e in batch {
                    match e {
                        stepframe_plugins::WatchEvent::Held { watch, tick, frame } => {
                            self.watch_held(*watch, *tick, *frame)
                        }
                        stepframe_plugins::WatchEvent::Value {
                            watch, tick, value, ..
                        } => {
                            if let Some((_, expr)) = plotted.iter().find(|p| p.0 == *watch) {
                                self.watch_lanes.push(expr, *tick, *value)
                            }
                        }
                        stepframe_plugins::WatchEvent::Failed { .. } => {}
                    }
                }
            }
            Event::WatchHistory(fill) if plotted(live).iter().any(|p| p.1 == fill.expr) => {
                self.watch_lanes.fill(fill)
            }
            Event::Log(entries) => {
                for e in entries.iter().filter(|e| e.level == LogLevel::Error) {
                    self.mark(
                        e.frame,
                        MarkerKind::Error,
                        format!("tick {}: {}", e.tick, e.message),
                    );
                }
            }
            Event::Loaded {
                path,
                frame_index,
                frame_time,
                ..
            } => {
                // Ticks restart with the new world: no run goes on.
                self.watch_runs.clear();
                self.new_session(path, *frame_index, *frame_time)
            }
            Event::Error(error) => {
                if let Some(r) = frames.newest() {
                    let frame = r.frame_index;
                    let text = crate::editor::words::error(error);
                    self.mark(frame, MarkerKind::Error, text);
                }
            }
            // Frames after the tick belong to an abandoned branch.
            Event::Rewound(tick) => self.rewound(frames, *tick),
            _ => {}
        }
    }

    /// A new physics world: a new ring, whose first frame is marked.
    fn new_session(&mut self, path: &std::path::Path, frame_index: u64, frame_time: f64) {
        self.blocks = Blocks::default();
        self.reduced.key = None;
        self.markers.clear();
        // A plotted lane starts again with its world: no value, and no
        // history fill's caption, of the old one.
        self.watch_lanes.restart();
        self.hover_seq = None;
        self.selection = None;
        self.range = None;
        self.follow_live = true;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        self.mark(
            frame_index + 1,
            MarkerKind::Session,
            format!(
                "new physics world ({name}): simulation time restarts at 0; frame time \
                 continues from {frame_time:.3} s (frame {})",
                frame_index + 1
            ),
        );
    }

    /// Branch B, forked at `forked_at`, became the live session: A's frames
    /// after the fork never happened in it (B ran those ticks beside A,
    /// unrecorded here), so they go, as after a rewind, and a marker says
    /// where the session became B's.
    fn adopted(&mut self, frames: &Frames, forked_at: u64) {
        self.rewound(frames, forked_at);
        if let Some(frame) = frames.newest().map(|r| r.frame_index) {
            self.mark(
                frame,
                MarkerKind::Session,
                format!(
                    "branch B (forked at tick {forked_at}) became the live session: its ticks \
                     after {forked_at} ran beside A and are not recorded here"
                ),
            );
        }
    }

    /// The session was replayed with a new build of the game: a marker on
    /// the newest frame, which the new build's host ran.
    pub fn mark_new_build(&mut self, frames: &Frames, text: String) {
        if let Some(frame) = frames.newest().map(|r| r.frame_index) {
            self.mark(frame, MarkerKind::Build, text);
        }
    }

    /// After a rewind to `tick` (`frames` already cut there): later frames
    /// belong to an abandoned branch.
    fn rewound(&mut self, frames: &Frames, tick: u64) {
        // A run of held ticks does not go on across a rewind.
        self.watch_runs.clear();
        let last_frame = frames.newest().map(|r| r.frame_index);
        self.blocks = Blocks::default();
        self.reduced.key = None;
        self.markers
            .retain(|m| last_frame.is_some_and(|f| m.frame <= f) || m.kind == MarkerKind::Session);
        // Watch values of the abandoned branch go too (the ticks run again).
        self.watch_lanes.drop_after(tick);
        self.selection = None;
        self.follow_live = true;
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use stepframe_core::{LogEntry, LogLevel, ObjectId};

    use super::super::bench::synthetic_record;
    use super::*;

    /// `(frame_index, text)` of every marker of a kind.
    fn markers_of(t: &TimelineState, kind: MarkerKind) -> Vec<(u64, String)> {
        t.markers
            .iter()
            .filter(|m| m.kind == kind)
            .map(|m| (m.frame, m.text.clone()))
            .collect()
    }

    fn log_entry(level: LogLevel, frame: u64, message: &str) -> LogEntry {
        LogEntry {
            level,
            object: Some(ObjectId(7)),
            hook: None,
            tick: frame,
            frame,
            message: message.to_string(),
        }
    }

    #[test]
    fn a_new_physics_world_starts_a_new_ring_whose_first_frame_is_marked() {
        let loaded = |frame_index| Event::Loaded {
            path: PathBuf::from("faults.ron"),
            objects: 1,
            frame_index,
            frame_time: frame_index as f64 / 60.0,
        };
        let indices =
            |f: &Frames| -> Vec<u64> { f.records().iter().map(|r| r.frame_index).collect() };
        // Every event to the recorded frames, then to the timeline, as the
        // app hands them on.
        let take = |t: &mut TimelineState, f: &mut Frames, event: &Event| {
            f.on_event(event);
            t.take_event(event, f, None);
        };
        let mut t = TimelineState::new();
        let mut f = Frames::with_capacity(100);
        take(&mut t, &mut f, &loaded(0));
        for i in 1..=50 {
            f.push(synthetic_record(i));
        }
        // Errors are marked on the frame they name, warnings are not.
        take(
            &mut t,
            &mut f,
            &Event::Log(vec![
                log_entry(LogLevel::Error, 4, "an earlier frame"),
                log_entry(LogLevel::Warning, 5, "a warning is no marker"),
            ]),
        );
        assert_eq!(
            markers_of(&t, MarkerKind::Error),
            vec![(4, "tick 4: an earlier frame".to_string())]
        );
        // Reload after frame 50: the old frames go, the marker waits for
        // frame 51.
        t.follow_live = false;
        t.range = Some((3.0, 9.0));
        take(&mut t, &mut f, &loaded(50));
        assert!(indices(&f).is_empty());
        assert!(
            t.follow_live && t.range.is_none(),
            "the view follows the new session"
        );
        let session = markers_of(&t, MarkerKind::Session);
        assert_eq!(session.len(), 1);
        assert_eq!(session[0].0, 51);
        assert!(
            session[0].1.contains("simulation time restarts at 0")
                && session[0].1.contains("frame time continues"),
            "{}",
            session[0].1
        );
        f.push(synthetic_record(51));
        assert_eq!(indices(&f), vec![51]);
    }

    #[test]
    fn a_mark_watch_holding_tick_after_tick_is_one_marker_for_the_run() {
        let mut t = TimelineState::default();
        let held = |tick: u64| stepframe_plugins::WatchEvent::Held {
            watch: 0,
            tick,
            frame: tick,
        };
        // Ticks 10 to 69 in a row, then 80 on its own.
        let run: Vec<_> = (10..70).map(held).collect();
        let f = Frames::default();
        t.take_event(&Event::Watch(run), &f, None);
        t.take_event(&Event::Watch(vec![held(80)]), &f, None);
        let marks = markers_of(&t, MarkerKind::Watch);
        assert_eq!(
            marks,
            vec![
                (10, "watch #1 held at ticks 10–69 (60 ticks)".to_string()),
                (80, "watch #1 held at tick 80".to_string()),
            ]
        );
    }
}
