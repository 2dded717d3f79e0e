//! The Input tab: the input tape, every press and release stamped with the
//! fixed tick that received it, listed around the time cursor. While the
//! session is suspended the user inserts, moves or deletes edges; **Resume
//! from here** then rewinds to the end of the tick before the first change
//! (or to the cursor, if that is earlier) and replays the edited tape from
//! there, so "what if I had pressed jump at tick 412" is: put the cursor
//! before 412, insert a press of Space at 412 (and its release), Resume from
//! here, Play. Every pacing delivers the edge to tick 412 (tests/tape.rs).
//!
//! The list shows what the ticks up to the live tick received, then the edges
//! of a tape in force that are still to come (marked "to come"). The first
//! edit copies that into a draft; Revert drops it. The tape saves to and
//! loads from the recording format (`stepframe play --input` reads the same
//! file); a loaded tape is a draft until Resume from here. Saving never
//! replaces a file without asking, and writes atomically.
//!
//! Nothing moves under the pointer: every row is there whether or not an
//! edge is selected or the session runs (what cannot be used is disabled),
//! the buttons of a row come first and the texts that change width (an
//! edge, a key, a tick) after them or in fixed-width fields, the question
//! before replacing a file takes the file row's place, and the list of
//! edges gets what the fixed rows leave of the tile.

use crate::editor::protocol::{EditCommand, RecordingCommand, Target};
use crate::editor::shared::Panel;
use std::path::{Path, PathBuf};

use stepframe_core::{InputSource, RecordedEvent, Recording};

use crate::editor::protocol::{Command, Event, LiveView};
use crate::editor::shared::{Commands, Published, Reading};

mod rows;
use rows::{file_row_ui, insert_row_ui, move_row_ui};

/// Ticks either side of the cursor the list shows by default: 5 s at 60 Hz.
const DEFAULT_SPAN: u64 = 300;
/// Rows of edges the list keeps at least; a tile shorter than the tab's
/// other rows and these scrolls as a whole.
const MIN_LIST_ROWS: f32 = 2.0;
/// Rows besides the list: the status, the actions, "around tick", the
/// move/delete row, the insert row and the file row.
const OTHER_ROWS: f32 = 6.0;

/// The tab's own state.
#[derive(Debug)]
pub struct InputPanel {
    /// Ticks either side of the cursor the list shows.
    pub span: u64,
    /// The selected edge (index in the shown tape).
    pub selected: Option<usize>,
    /// Where the selected edge moves to.
    pub move_tick: u64,
    /// The insert form: the tick (the one after the cursor until the user
    /// picks another).
    pub insert_tick: u64,
    /// The user picked the insert form's tick (it stops following the cursor).
    pub insert_tick_picked: bool,
    /// The insert form: the key.
    pub insert_key: String,
    /// The insert form: press (or release).
    pub insert_press: bool,
    /// The file field (empty until first shown: then beside the scene).
    pub path: String,
    /// The default the file field was last given: while the field still
    /// holds it (the user typed no path of their own), it follows the
    /// session's scene (a File → Open, a Detach whose first view had no
    /// scene yet).
    pub path_default: String,
    /// A Save that would replace this existing file, waiting for the user.
    pub confirm_replace: Option<PathBuf>,
}

impl Default for InputPanel {
    fn default() -> InputPanel {
        InputPanel {
            span: DEFAULT_SPAN,
            selected: None,
            move_tick: 0,
            insert_tick: 0,
            insert_tick_picked: false,
            insert_key: String::new(),
            insert_press: true,
            path: String::new(),
            path_default: String::new(),
            confirm_replace: None,
        }
    }
}

/// The tape the session is playing: what the ticks up to `live_tick`
/// received, then the edges still to come of the tape in force.
pub fn session_tape(published: &Published, live_tick: u64) -> Recording {
    let mut tape = published.recording.clone();
    tape.truncate_after(live_tick);
    tape.ticks = live_tick;
    if let Some(in_force) = &published.tape_in_force {
        for e in in_force.events.iter().filter(|e| e.tick > live_tick) {
            tape.insert(e.clone());
        }
    }
    tape
}

/// Where the edited tape's replay starts: the end of the tick before its
/// first change, or `cursor` if that is earlier. `None` when the draft
/// changes nothing.
pub fn resume_tick(draft: &Recording, playing: &Recording, cursor: u64) -> Option<u64> {
    let first = draft.first_difference(playing)?;
    Some(cursor.min(first - 1))
}

/// The default tape file of a scene: `level.ron` → `level.tape.ron` beside it.
pub fn default_tape_path(scene: Option<&Path>) -> PathBuf {
    match scene {
        Some(scene) => {
            let stem = scene
                .file_stem()
                .map_or_else(|| "scene".into(), |s| s.to_string_lossy().into_owned());
            scene.with_file_name(format!("{stem}.tape.ron"))
        }
        None => PathBuf::from("tape.ron"),
    }
}

fn edge_text(e: &RecordedEvent) -> String {
    let source = match &e.source {
        InputSource::Key(k) => k.clone(),
        other => format!("{other:?}"),
    };
    let what = if e.value == 1.0 {
        "press".to_string()
    } else if e.value == 0.0 {
        "release".to_string()
    } else {
        format!("value {}", e.value)
    };
    format!("{what} {source}")
}

/// The keys the scene's actions are bound to, with the action, for the
/// insert form.
fn bound_keys(view: &LiveView) -> Vec<(String, String)> {
    let mut keys = Vec::new();
    for (action, bound) in &view.actions {
        for k in bound {
            if !keys.iter().any(|(key, _)| key == k) {
                keys.push((k.clone(), action.clone()));
            }
        }
    }
    keys
}

impl InputPanel {
    /// The file field beside `scene`, unless the user typed a path of
    /// their own (see [`InputPanel::path_default`]).
    fn default_path_for(&mut self, scene: Option<&Path>) {
        if self.path.is_empty() || self.path == self.path_default {
            self.path = default_tape_path(scene).display().to_string();
            self.path_default.clone_from(&self.path);
        }
    }
}

impl Panel for InputPanel {
    /// A new world starts with a fresh tab: the old tape's rows, picks and
    /// fields were the old world's.
    fn on_event(&mut self, event: &Event, _reading: &Reading<'_>, _cmd: &mut Commands) {
        if let Event::Loaded { .. } = event {
            *self = InputPanel::default();
        }
    }

    /// Draws the Input tab: its rows fill the tile, the list of edges in
    /// the middle; a tile too short for them scrolls as a whole.
    fn ui(&mut self, ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands) {
        let row = ui.spacing().interact_size.y + ui.spacing().item_spacing.y;
        let least = row * (OTHER_ROWS + MIN_LIST_ROWS) + ui.spacing().item_spacing.y * 4.0;
        egui::ScrollArea::vertical()
            .id_salt("tape_tab")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                let size = egui::vec2(ui.available_width(), ui.available_height().max(least));
                ui.allocate_ui_with_layout(size, egui::Layout::top_down(egui::Align::Min), |ui| {
                    ui.set_min_size(size);
                    tab_ui(ui, reading, cmd, self);
                });
            });
    }
}

fn tab_ui(ui: &mut egui::Ui, reading: &Reading<'_>, cmd: &mut Commands, st: &mut InputPanel) {
    let Some(live) = reading.live() else {
        ui.weak("no session");
        return;
    };
    let published = reading.published();
    let live_tick = live.world.clock.simulation_tick;
    let suspended = live.world.suspension.is_some();
    let cursor = reading.cursor().unwrap_or(live_tick);
    let draft = published.tape_draft.as_ref();
    let playing = session_tape(published, live_tick);
    let keys = bound_keys(live);
    let scene = live.scene_path.clone();
    let fixed_hz = live.settings.fixed_hz;
    let in_force = published.tape_in_force.is_some();
    st.default_path_for(scene.as_deref());
    if st.insert_key.is_empty() {
        st.insert_key = keys
            .iter()
            .find(|(k, _)| k == "Space")
            .or(keys.first())
            .map_or_else(|| "Space".to_string(), |(k, _)| k.clone());
    }
    if !st.insert_tick_picked {
        st.insert_tick = cursor + 1;
    }

    let change = draft.and_then(|d| {
        resume_tick(d, &playing, cursor).map(|from| (from, d.first_difference(&playing)))
    });
    let shown = draft.cloned().unwrap_or(playing.clone());

    // What the tape is, in one line.
    let status = match (&change, in_force) {
        (Some((_, Some(first))), _) if reading.fork().is_some() => format!(
            "edited: first change at tick {first}; Apply to B gives branch B the edited tape"
        ),
        (Some((from, Some(first))), _) => format!(
            "edited: first change at tick {first}; Resume from here replays from tick {}",
            from + 1
        ),
        (_, true) => format!(
            "{}; a tape is in force (edges to tick {})",
            crate::editor::words::count(shown.events.len() as u64, "edge", "edges"),
            published
                .tape_in_force
                .as_ref()
                .and_then(|t| t.events.last())
                .map_or(0, |e| e.tick)
        ),
        _ => format!(
            "{}, recorded as the ticks ran",
            crate::editor::words::count(shown.events.len() as u64, "edge", "edges")
        ),
    };
    // One row whatever it says: running or not, long or short.
    let (status, hint) = if suspended {
        (status, "The input tape around the time cursor")
    } else {
        (
            format!("{status} · pause to edit"),
            "Pause to edit; keys typed while paused reach the next tick.",
        )
    };
    ui.add(egui::Label::new(status).truncate())
        .on_hover_text(hint);

    ui.horizontal(|ui| {
        if reading.fork().is_some() {
            // A what-if branch runs: the edits are B's, A keeps its input.
            let apply = ui
                .add_enabled(change.is_some(), egui::Button::new("Apply to B"))
                .on_hover_text(
                    "Branch B receives the edited tape from its next tick on; the live session \
                     (A) keeps its own input",
                );
            if apply.clicked()
                && let Some(tape) = draft
            {
                cmd.send(Command::Edit {
                    target: Target::B,
                    edit: EditCommand::Tape {
                        tape: tape.clone(),
                        recorded_to: live_tick,
                    },
                });
                cmd.send(Command::Recording(RecordingCommand::SetDraft(None)));
                st.selected = None;
            }
        } else {
            let resume = ui
                .add_enabled(change.is_some(), egui::Button::new("Resume from here"))
                .on_hover_text(
                    "Rewind to the tick before the first change and replay the edited tape from \
                     there (live input is merged in)",
                );
            if resume.clicked()
                && let (Some((from, _)), Some(tape)) = (change, draft)
            {
                cmd.send(Command::Recording(RecordingCommand::Apply {
                    tape: tape.clone(),
                    from,
                }));
                cmd.send(Command::Recording(RecordingCommand::SetDraft(None)));
                cmd.back_to_live();
                st.selected = None;
            }
        }
        if ui
            .add_enabled(draft.is_some(), egui::Button::new("Revert"))
            .on_hover_text("Drop the edits: the list shows what the session plays again")
            .clicked()
        {
            cmd.send(Command::Recording(RecordingCommand::SetDraft(None)));
            st.selected = None;
        }
        if ui
            .add_enabled(in_force, egui::Button::new("Stop tape"))
            .on_hover_text("Live input only from the current tick on")
            .clicked()
        {
            cmd.send(Command::Recording(RecordingCommand::StopTape));
        }
    });

    // The edges around the cursor.
    ui.horizontal(|ui| {
        ui.label("around tick");
        ui.monospace(cursor.to_string());
        let label = ui.label("±");
        ui.add(
            egui::DragValue::new(&mut st.span)
                .range(10..=1_000_000)
                .suffix(" ticks"),
        )
        .labelled_by(label.id);
    });
    // The rows under the list, from the bottom up; the list gets the rest.
    ui.with_layout(egui::Layout::bottom_up(egui::Align::Min), |ui| {
        file_row_ui(ui, cmd, st, &shown);
        ui.separator();
        ui.add_enabled_ui(suspended, |ui| {
            // A bottom-up layout: the insert row at the bottom, the
            // move/delete row above it.
            insert_row_ui(ui, cmd, st, &shown, &keys, fixed_hz);
            move_row_ui(ui, cmd, st, &shown);
        });
        ui.with_layout(egui::Layout::top_down(egui::Align::Min), |ui| {
            list_ui(ui, st, &shown, cursor, live_tick);
        });
    });
}

/// The edges within the span around `cursor`, a click selecting one.
fn list_ui(ui: &mut egui::Ui, st: &mut InputPanel, shown: &Recording, cursor: u64, live_tick: u64) {
    let lo = cursor.saturating_sub(st.span);
    let hi = cursor.saturating_add(st.span);
    let before = shown.events.iter().filter(|e| e.tick < lo).count();
    let after = shown.events.iter().filter(|e| e.tick > hi).count();
    let mut select = None;
    egui::ScrollArea::vertical()
        .id_salt("tape_rows")
        .max_height(ui.available_height())
        .auto_shrink([false, false])
        .show(ui, |ui| {
            if before > 0 {
                ui.weak(crate::editor::words::count(
                    before as u64,
                    "earlier edge",
                    "earlier edges",
                ));
            }
            for (i, e) in shown.events.iter().enumerate() {
                if e.tick < lo || e.tick > hi {
                    continue;
                }
                let to_come = e.tick > live_tick;
                let mut text = format!("tick {}: {}", e.tick, edge_text(e));
                if to_come {
                    text.push_str(" (to come)");
                }
                let mut rich = egui::RichText::new(text).monospace();
                if e.tick == cursor {
                    rich = rich.strong();
                }
                if ui.selectable_label(st.selected == Some(i), rich).clicked() {
                    select = Some(i);
                }
            }
            if after > 0 {
                ui.weak(crate::editor::words::count(
                    after as u64,
                    "later edge",
                    "later edges",
                ));
            }
            if shown.events.is_empty() {
                ui.weak("no edges yet: type in the viewport, or Insert");
            }
        });
    if let Some(i) = select {
        st.selected = Some(i);
        st.move_tick = shown.events[i].tick;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(tick: u64, value: f32) -> RecordedEvent {
        RecordedEvent {
            tick,
            source: InputSource::Key("Space".into()),
            value,
        }
    }

    #[test]
    fn the_replay_starts_before_the_first_change_or_at_the_cursor() {
        let mut playing = Recording::new(60);
        playing.insert(ev(100, 1.0));
        let mut draft = playing.clone();
        assert_eq!(resume_tick(&draft, &playing, 50), None, "no change");
        draft.insert(ev(412, 1.0));
        assert_eq!(
            resume_tick(&draft, &playing, 400),
            Some(400),
            "the cursor is earlier"
        );
        assert_eq!(
            resume_tick(&draft, &playing, 500),
            Some(411),
            "the tick before 412"
        );
    }

    #[test]
    fn the_tape_file_sits_beside_the_scene() {
        assert_eq!(
            default_tape_path(Some(Path::new("/p/assets/scenes/demo.ron"))),
            PathBuf::from("/p/assets/scenes/demo.tape.ron")
        );
        assert_eq!(default_tape_path(None), PathBuf::from("tape.ron"));
    }

    #[test]
    fn the_file_field_follows_the_scene_until_the_user_types_a_path() {
        let mut st = InputPanel::default();
        // A new host's first view has no scene yet (after a Detach).
        st.default_path_for(None);
        assert_eq!(st.path, "tape.ron");
        st.default_path_for(Some(Path::new("/p/scenes/demo.ron")));
        assert_eq!(st.path, "/p/scenes/demo.tape.ron");
        st.path = "mine.tape.ron".to_string();
        st.default_path_for(Some(Path::new("/p/scenes/push.ron")));
        assert_eq!(st.path, "mine.tape.ron");
    }
}
