//! The editor's keyboard shortcuts (the table in docs/editor.md).

use egui::{Key, KeyboardShortcut, Modifiers};

use super::EditorApp;
use crate::editor::protocol::Command;
use crate::editor::shared::{Action, View};

impl EditorApp {
    /// The editor's shortcuts. Space and `.` go to the game while the viewport
    /// has focus and to text while a field has; F-keys and Ctrl combos always
    /// reach the editor. Esc leaves a viewed tick for the live session.
    pub(super) fn shortcuts(&mut self, ctx: &egui::Context) {
        let free = !self.panels.viewport.focused && !ctx.text_edit_focused();
        let modal = self.panels.files.is_open();
        let shift_f10 = KeyboardShortcut::new(Modifiers::SHIFT, Key::F10);
        let save_as = KeyboardShortcut::new(Modifiers::COMMAND | Modifiers::SHIFT, Key::S);
        let mut commands = Vec::new();
        let (mut toggle_bp, mut save, mut open, mut saving_as, mut escape, mut resume) =
            (false, false, false, false, false, false);
        ctx.input_mut(|i| {
            if modal {
                return;
            }
            if i.consume_shortcut(&shift_f10) {
                commands.push(Command::StepFrame);
            }
            if i.consume_key(Modifiers::NONE, Key::F10) {
                commands.push(Command::StepTick);
            }
            if i.consume_key(Modifiers::NONE, Key::F5) {
                commands.push(Command::Play);
            }
            if i.consume_key(Modifiers::NONE, Key::F9) {
                toggle_bp = true;
            }
            if i.consume_key(Modifiers::COMMAND, Key::R) {
                commands.push(Command::Reload);
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
            if free {
                if i.consume_key(Modifiers::NONE, Key::Space) {
                    commands.push(Command::TogglePlay);
                }
                if i.consume_key(Modifiers::NONE, Key::Period) {
                    commands.push(Command::StepTick);
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
        if escape {
            self.commands.act(Action::BackToLive);
        }
        if resume {
            self.commands.act(Action::ResumeFromCursor);
        }
        if toggle_bp {
            match self.view().selection() {
                Some(id) => self.commands.send(Command::ToggleFixedBreakpoint(id)),
                None => self
                    .commands
                    .error("F9: select an object first (viewport or hierarchy)"),
            }
        }
        if save {
            self.commands.send(Command::Save { replace: false });
        }
        let view = View::new(
            &self.published,
            self.cursor.tick,
            &self.feedback.log,
            self.driven,
        );
        if saving_as {
            self.panels.files.start_save_as(&view);
        }
        if open {
            self.panels.files.start_open(&view);
        }
    }
}
