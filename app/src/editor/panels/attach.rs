//! File → Attach…, Run in player and Detach: the editor on a game that
//! runs in a process of its own (`stepframe run --debug`, or a game's own
//! loop with `stepframe_host::debug::Debugger`), over loopback.
//!
//! Attach… asks for the address and the token the game printed
//! (`attach 127.0.0.1:41873 token 9f0c…`); pasting the whole line into
//! the address field fills both. Run in player starts the scene in a
//! player window and attaches to it. Detach lets the game go on by itself
//! and opens the scene in a session host of the editor's own, at tick 0,
//! paused.

use crate::editor::shared::{Action, Commands, Reading};

/// The Attach… dialog's fields.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AttachFields {
    /// `127.0.0.1:PORT`, or a whole attach line.
    pub addr: String,
    /// 32 hex digits.
    pub token: String,
}

impl AttachFields {
    /// The address and token to attach with: a whole attach line pasted
    /// into the address field gives both.
    fn parts(&self) -> (String, String) {
        if let Ok(line) = self
            .addr
            .trim()
            .parse::<stepframe_host::debug::AttachLine>()
        {
            return (line.addr.to_string(), line.token.to_string());
        }
        (self.addr.trim().to_string(), self.token.trim().to_string())
    }
}

/// The File menu's items.
pub fn attach_menu_ui(
    ui: &mut egui::Ui,
    reading: &Reading<'_>,
    cmd: &mut Commands,
    dialog: &mut Option<AttachFields>,
) {
    ui.separator();
    if ui
        .button("Attach…")
        .on_hover_text(
            "Debug a game running in its own process (stepframe run --debug, or a game's own \
             loop): the address and token it printed",
        )
        .clicked()
    {
        *dialog = Some(AttachFields::default());
        ui.close();
    }
    if ui
        .button("Run in player  (Ctrl+F5)")
        .on_hover_text("Start this scene in a player window of its own, attached")
        .clicked()
    {
        cmd.act(Action::RunInPlayer);
        ui.close();
    }
    let detach = ui.add_enabled(reading.attached().is_some(), egui::Button::new("Detach"));
    if detach
        .on_hover_text(
            "Let the game go on by itself (without the editor's breakpoints); the editor opens \
             the scene in a session of its own",
        )
        .clicked()
    {
        cmd.act(Action::Detach);
        ui.close();
    }
}

/// The Attach… dialog, while open.
pub fn attach_dialog_ui(
    ctx: &egui::Context,
    dialog: &mut Option<AttachFields>,
    cmd: &mut Commands,
) {
    let Some(fields) = dialog.as_mut() else {
        return;
    };
    let mut done = None;
    egui::Modal::new(egui::Id::unique("attach_to_game")).show(ctx, |ui| {
        ui.heading("Attach to a game");
        ui.label(
            "What the game printed when it started listening: \
             attach 127.0.0.1:PORT token HEX (paste the whole line into Address, or each part)",
        );
        let label = ui.label("Address");
        ui.add(egui::TextEdit::singleline(&mut fields.addr).desired_width(420.0))
            .labelled_by(label.id);
        let label = ui.label("Token");
        let token = ui
            .add(egui::TextEdit::singleline(&mut fields.token).desired_width(420.0))
            .labelled_by(label.id);
        let enter = token.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        ui.horizontal(|ui| {
            if ui.button("Attach").clicked() || enter {
                done = Some(true);
            }
            if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                done = Some(false);
            }
        });
    });
    if let Some(attach) = done {
        let (addr, token) = fields.parts();
        *dialog = None;
        if attach {
            cmd.act(Action::Attach { addr, token });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_attach_line_in_the_address_field_gives_both_parts() {
        let token = "00112233445566778899aabbccddeeff";
        let fields = AttachFields {
            addr: format!(" attach 127.0.0.1:4000 token {token}\n"),
            token: String::new(),
        };
        assert_eq!(
            fields.parts(),
            ("127.0.0.1:4000".to_string(), token.to_string())
        );
        let typed = AttachFields {
            addr: "127.0.0.1:4001 ".into(),
            token: " abc".into(),
        };
        assert_eq!(typed.parts(), ("127.0.0.1:4001".into(), "abc".into()));
    }
}
