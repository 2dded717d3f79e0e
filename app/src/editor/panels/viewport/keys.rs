//! Which keys the viewport hands to the game, and which bindings its hint
//! shows: only those that can fire.
//!
//! The game gets a key by the name of its egui `Key` variant (`Space`,
//! `ShiftLeft`); a scene binds those names, or `Shift`, `Ctrl`, `Alt` for
//! either side (core's `input::keys`, whose list the test below holds to
//! egui's). Escape never reaches the game: it gives the keyboard back to
//! the editor, so a binding to it is left out of the hint.

use stepframe_core::input::keys;

/// The key the viewport keeps for itself (focus back to the editor).
const KEPT: &str = "Escape";

/// Whether a key event goes to the game: not a repeat, not Escape, and not
/// part of an editor shortcut (Ctrl+S): a modifier key itself always
/// goes, or a `Ctrl` binding could never fire (its own press already
/// carries the Ctrl modifier).
pub(super) fn reaches_game(key: egui::Key, repeat: bool, modifiers: egui::Modifiers) -> bool {
    let modifier = matches!(
        key,
        egui::Key::ShiftLeft
            | egui::Key::ShiftRight
            | egui::Key::ControlLeft
            | egui::Key::ControlRight
            | egui::Key::AltLeft
            | egui::Key::AltRight
            | egui::Key::SuperLeft
            | egui::Key::SuperRight
    );
    !repeat && key != egui::Key::Escape && (modifier || !modifiers.command)
}

/// Whether a scene's key binding can fire in the viewport: a name the
/// viewport sends (or either side of one), and not the key it keeps.
pub(super) fn binding_fires(name: &str) -> bool {
    name != KEPT && keys::check_source(&stepframe_core::InputSource::Key(name.to_string())).is_ok()
}

/// The name the game gets for an egui key.
pub(super) fn key_name(key: egui::Key) -> String {
    format!("{key:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_scenes_bind_are_the_names_the_viewport_sends() {
        let sent: Vec<String> = egui::Key::ALL.iter().map(|&k| key_name(k)).collect();
        let listed: Vec<String> = keys::KEYS.iter().map(|k| k.to_string()).collect();
        assert_eq!(sent, listed, "core's key list is egui's, in egui's order");
    }

    #[test]
    fn only_bindings_that_can_fire_are_hinted() {
        assert!(binding_fires("Space"));
        assert!(binding_fires("Shift"), "either shift key");
        assert!(binding_fires("ShiftLeft"));
        assert!(!binding_fires("Escape"), "the viewport keeps it");
        assert!(!binding_fires("LeftShift"), "nothing sends it");
    }

    #[test]
    fn a_ctrl_press_reaches_the_game_but_a_shortcut_does_not() {
        let ctrl = egui::Modifiers::COMMAND;
        assert!(reaches_game(egui::Key::ControlLeft, false, ctrl));
        assert!(!reaches_game(egui::Key::S, false, ctrl), "Ctrl+S saves");
        assert!(reaches_game(egui::Key::S, false, egui::Modifiers::NONE));
        assert!(!reaches_game(
            egui::Key::Escape,
            false,
            egui::Modifiers::NONE
        ));
        assert!(!reaches_game(egui::Key::Space, true, egui::Modifiers::NONE));
    }
}
