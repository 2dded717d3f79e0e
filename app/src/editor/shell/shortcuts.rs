//! The editor's keyboard shortcuts (the table in docs/editor.md).
//!
//! The app reads every shortcut here, whatever has the keyboard; what a
//! key asks of the session goes out as a command, what it asks of the UI
//! as an action, and what it asks of one panel (focus the hierarchy's
//! filter, bookmark the tick shown, fork here) is handed to every panel as
//! a [`Shortcut`] for the one it is for to take: the app never reaches
//! into a panel's state.

use crate::editor::protocol::{BreakpointCommand, RewindCommand, Run, SceneCommand};
use egui::{Key, KeyboardShortcut, Modifiers};

use super::Editor;
use crate::editor::protocol::Command;
use crate::editor::shared::{Action, Reading, Shortcut};
use crate::editor::workspace::Pane;

/// Ctrl+B (⌘B on a Mac): bookmark the tick every panel shows, as the
/// Bookmarks tab's button does. B for bookmark. A Ctrl combination, so like
/// Ctrl+S it reaches the editor whatever has the keyboard: the viewport (the
/// game never sees Ctrl combinations) or a text field, the bookmark's own
/// Note field included (type the note, press Ctrl+B). Neither the editor nor
/// egui's text fields use it for anything else.
const ADD_BOOKMARK: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::B);

/// Ctrl+Shift+F: Fork here, as the timeline's button does. F for fork; Shift
/// because Ctrl+F is every program's Find, and because a fork, which sends
/// the live session back to the tick, is a heavier act than a bookmark. F8,
/// the other candidate, was rejected: debuggers bind it to resume (browser
/// dev tools) or step over (IntelliJ), so a hand trained there, reaching to
/// go on, would make a branch instead. Free in the table below (Ctrl+Shift+S
/// is Save As), and a Ctrl combination, so it reaches the editor like the
/// others.
const FORK_HERE: KeyboardShortcut =
    KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::F);

/// Ctrl+Z: Edit → Undo, every program's undo. Not while a text field has
/// the keyboard: there Ctrl+Z undoes typing, as the user expects of a field.
const UNDO: KeyboardShortcut = KeyboardShortcut::new(Modifiers::COMMAND, Key::Z);

/// Ctrl+Shift+Z: Edit → Redo (the macOS and Linux convention; Ctrl+Y, the
/// Windows one, stays free). Checked before Ctrl+Z, which would otherwise
/// match it too (egui ignores an unasked-for Shift). Not in text fields
/// either.
const REDO: KeyboardShortcut =
    KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::Z);

impl Editor {
    /// The editor's shortcuts. Space and `.` go to the game while the viewport
    /// has focus and to text while a field has; F-keys and Ctrl combos always
    /// reach the editor (none while a modal dialog is open). Esc leaves a
    /// viewed tick for the live session.
    pub(super) fn shortcuts(&mut self, ctx: &egui::Context) {
        let typing = ctx.text_edit_focused();
        let free = !self.panels.viewport.focused && !typing;
        let modal = self.panels.dialog_open();
        let shift_f10 = KeyboardShortcut::new(Modifiers::SHIFT, Key::F10);
        let save_as = KeyboardShortcut::new(Modifiers::COMMAND | Modifiers::SHIFT, Key::S);
        let mut commands = Vec::new();
        let (mut toggle_bp, mut save, mut open, mut saving_as, mut escape, mut resume) =
            (false, false, false, false, false, false);
        let (mut bookmark, mut fork) = (false, false);
        let (mut replay_new_build, mut cancel_rebuild, mut help) = (false, false, false);
        let (mut find, mut to_timeline) = (false, false);
        let mut run_in_player = false;
        let rebuilding = self.rebuild.is_some();
        ctx.input_mut(|i| {
            if modal {
                return;
            }
            if i.consume_shortcut(&shift_f10) {
                commands.push(Command::Run(Run::StepFrame));
            }
            if i.consume_key(Modifiers::NONE, Key::F10) {
                commands.push(Command::Run(Run::StepTick));
            }
            if i.consume_key(Modifiers::COMMAND, Key::F5) {
                run_in_player = true;
            }
            if i.consume_key(Modifiers::NONE, Key::F5) {
                commands.push(Command::Run(Run::Play));
            }
            if i.consume_key(Modifiers::NONE, Key::F9) {
                toggle_bp = true;
            }
            if i.consume_key(Modifiers::NONE, Key::F1) {
                help = true;
            }
            // Not Ctrl+Shift+F (fork here), nor Ctrl+Shift+T.
            if !i.modifiers.shift && i.consume_key(Modifiers::COMMAND, Key::F) {
                find = true;
            }
            if !i.modifiers.shift && i.consume_key(Modifiers::COMMAND, Key::T) {
                to_timeline = true;
            }
            if i.consume_key(Modifiers::COMMAND | Modifiers::SHIFT, Key::R) {
                replay_new_build = true;
            }
            if rebuilding && i.consume_key(Modifiers::NONE, Key::Escape) {
                cancel_rebuild = true;
            }
            if i.consume_key(Modifiers::COMMAND, Key::R) {
                commands.push(Command::Scene(SceneCommand::Reload));
            }
            if i.consume_shortcut(&save_as) {
                saving_as = true;
            }
            if i.consume_key(Modifiers::COMMAND, Key::S) {
                save = true;
            }
            if i.consume_key(Modifiers::COMMAND, Key::O) {
                open = true;
            }
            if i.consume_shortcut(&FORK_HERE) {
                fork = true;
            }
            if i.consume_shortcut(&ADD_BOOKMARK) {
                bookmark = true;
            }
            if !typing {
                if i.consume_shortcut(&REDO) {
                    commands.push(Command::Rewind(RewindCommand::Redo));
                }
                if i.consume_shortcut(&UNDO) {
                    commands.push(Command::Rewind(RewindCommand::Undo));
                }
            }
            if free {
                if i.consume_key(Modifiers::NONE, Key::Space) {
                    commands.push(Command::Run(Run::TogglePlay));
                }
                if i.consume_key(Modifiers::NONE, Key::Period) {
                    commands.push(Command::Run(Run::StepTick));
                }
                if self.cursor.tick.is_some() && i.consume_key(Modifiers::NONE, Key::Escape) {
                    escape = true;
                }
                if self.cursor.tick.is_some() && i.consume_key(Modifiers::NONE, Key::Enter) {
                    resume = true;
                }
            }
        });
        for command in commands {
            self.commands.send(command);
        }
        if help {
            self.help_open = !self.help_open;
        }
        // The panes the keys are for come to the front; the panels take
        // the keys below, once the commands above went out.
        if find {
            self.workspace.set_open(Pane::Hierarchy, true);
        }
        if to_timeline {
            self.workspace.set_open(Pane::Timeline, true);
        }
        if run_in_player {
            self.commands.act(Action::RunInPlayer);
        }
        if replay_new_build {
            self.commands.act(Action::ReplayNewBuild);
        }
        if cancel_rebuild {
            self.commands.act(Action::CancelRebuild);
        }
        if escape {
            self.commands.act(Action::BackToLive);
        }
        if resume {
            self.commands.act(Action::ResumeFromCursor);
        }
        if toggle_bp {
            match self.reading().selection() {
                Some(id) => self
                    .commands
                    .send(Command::Breakpoints(BreakpointCommand::ToggleFixed(id))),
                None => self
                    .commands
                    .error("F9: select an object first (viewport or hierarchy)"),
            }
        }
        if save {
            self.commands.send(Command::Scene(SceneCommand::Save {
                replace: false,
                reviewed: false,
            }));
        }
        let reading = reading_of!(self);
        let keys = [
            (find, Shortcut::Find),
            (to_timeline, Shortcut::FocusTimeline),
            (saving_as, Shortcut::SaveAs),
            (fork, Shortcut::ForkHere),
            (bookmark, Shortcut::Bookmark),
            (open, Shortcut::Open),
        ];
        for (_, shortcut) in keys.into_iter().filter(|(pressed, _)| *pressed) {
            self.panels
                .on_shortcut(shortcut, &reading, &mut self.commands);
        }
    }
}
