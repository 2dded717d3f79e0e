//! The names a scene may bind: every key the editor sends, every gamepad
//! button and axis, and the side-less modifier names.
//!
//! A binding is a name, and a name nobody sends is a binding that never
//! fires, silently. The editor's viewport sends a key by the name of
//! egui's `Key` variant (`Space`, `ArrowLeft`, `A`, `Num1`, `ShiftLeft`),
//! so [`KEYS`] is that list, in egui's order (a test in the editor checks
//! the two against each other); gamepad names are the standard layout's,
//! as gilrs names them. A scene naming anything else is refused at load
//! with the name's line and column and the nearest valid names
//! ([`check_source`]).
//!
//! egui sends each side of a modifier on its own (`ShiftLeft`,
//! `ShiftRight`): there is no `Shift` key event. A person writing
//! `Key("Shift")` means either side, so [`EITHER_SIDE`] makes `Shift`,
//! `Ctrl` and `Alt` bindings of both: `Key("Shift")` is held while either
//! shift key is, as if the binding listed both.

use super::InputSource;

/// Every key name the editor sends, in egui's order (the `Debug` names of
/// egui 0.37's `Key::ALL`).
pub const KEYS: &[&str] = &[
    "ArrowDown",
    "ArrowLeft",
    "ArrowRight",
    "ArrowUp",
    "Escape",
    "Tab",
    "Backspace",
    "Enter",
    "Insert",
    "Delete",
    "Home",
    "End",
    "PageUp",
    "PageDown",
    "Copy",
    "Cut",
    "Paste",
    "Space",
    "Colon",
    "Comma",
    "Minus",
    "Period",
    "Plus",
    "Equals",
    "Semicolon",
    "OpenBracket",
    "CloseBracket",
    "OpenCurlyBracket",
    "CloseCurlyBracket",
    "Backtick",
    "Backslash",
    "Slash",
    "Pipe",
    "Questionmark",
    "Exclamationmark",
    "Quote",
    "Num0",
    "Num1",
    "Num2",
    "Num3",
    "Num4",
    "Num5",
    "Num6",
    "Num7",
    "Num8",
    "Num9",
    "A",
    "B",
    "C",
    "D",
    "E",
    "F",
    "G",
    "H",
    "I",
    "J",
    "K",
    "L",
    "M",
    "N",
    "O",
    "P",
    "Q",
    "R",
    "S",
    "T",
    "U",
    "V",
    "W",
    "X",
    "Y",
    "Z",
    "F1",
    "F2",
    "F3",
    "F4",
    "F5",
    "F6",
    "F7",
    "F8",
    "F9",
    "F10",
    "F11",
    "F12",
    "F13",
    "F14",
    "F15",
    "F16",
    "F17",
    "F18",
    "F19",
    "F20",
    "F21",
    "F22",
    "F23",
    "F24",
    "F25",
    "F26",
    "F27",
    "F28",
    "F29",
    "F30",
    "F31",
    "F32",
    "F33",
    "F34",
    "F35",
    "BrowserBack",
    "BrowserForward",
    "BrowserRefresh",
    "BrowserSearch",
    "BrowserHome",
    "BrowserFavorites",
    "BrowserStop",
    "MediaPlayPause",
    "MediaTrackNext",
    "MediaTrackPrevious",
    "MediaStop",
    "AudioVolumeMute",
    "AudioVolumeDown",
    "AudioVolumeUp",
    "LaunchMail",
    "LaunchApp1",
    "LaunchApp2",
    "ShiftLeft",
    "ShiftRight",
    "ControlLeft",
    "ControlRight",
    "AltLeft",
    "AltRight",
    "SuperLeft",
    "SuperRight",
    "IntlBackslash",
    "CapsLock",
    "NumLock",
    "ScrollLock",
    "PrintScreen",
    "Pause",
    "Menu",
    "Fn",
    "Eject",
    "Help",
    "Power",
    "Sleep",
    "Clear",
];

/// The side-less modifier names a scene may bind, each standing for the
/// two keys the editor sends (module docs).
pub const EITHER_SIDE: [(&str, [&str; 2]); 3] = [
    ("Shift", ["ShiftLeft", "ShiftRight"]),
    ("Ctrl", ["ControlLeft", "ControlRight"]),
    ("Alt", ["AltLeft", "AltRight"]),
];

/// Gamepad buttons, the standard layout by position (gilrs's names):
/// `South` is A on an Xbox pad and Cross on a PlayStation one.
pub const GAMEPAD_BUTTONS: &[&str] = &[
    "South",
    "East",
    "North",
    "West",
    "C",
    "Z",
    "LeftTrigger",
    "LeftTrigger2",
    "RightTrigger",
    "RightTrigger2",
    "Select",
    "Start",
    "Mode",
    "LeftThumb",
    "RightThumb",
    "DPadUp",
    "DPadDown",
    "DPadLeft",
    "DPadRight",
];

/// Gamepad axes, -1 to 1 (gilrs's names): the sticks, the analogue
/// triggers (`LeftZ`, `RightZ`) and a d-pad reported as axes.
pub const GAMEPAD_AXES: &[&str] = &[
    "LeftStickX",
    "LeftStickY",
    "LeftZ",
    "RightStickX",
    "RightStickY",
    "RightZ",
    "DPadX",
    "DPadY",
];

/// The two keys a side-less modifier name stands for, if `name` is one.
pub fn sides(name: &str) -> Option<[&'static str; 2]> {
    EITHER_SIDE
        .iter()
        .find(|(either, _)| *either == name)
        .map(|(_, sides)| *sides)
}

/// Whether a binding to `binding` is driven by a change of `event`: the
/// same source, or a side of a side-less modifier.
pub(super) fn covers(binding: &InputSource, event: &InputSource) -> bool {
    if binding == event {
        return true;
    }
    match (binding, event) {
        (InputSource::Key(either), InputSource::Key(key)) => {
            sides(either).is_some_and(|s| s.contains(&key.as_str()))
        }
        _ => false,
    }
}

/// A name a scene binds that nothing sends.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct UnknownName {
    /// What was written, what kind of name it should be, and the nearest
    /// valid names.
    pub message: String,
}

/// Checks that `source` names something that exists (module docs): a key
/// the editor sends (or `Shift`, `Ctrl`, `Alt`), a gamepad button or axis.
/// Mouse buttons are numbers and always pass.
pub fn check_source(source: &InputSource) -> Result<(), UnknownName> {
    let (name, kind, valid): (&str, &str, Vec<&str>) = match source {
        InputSource::Key(name) => {
            let mut valid = KEYS.to_vec();
            valid.extend(EITHER_SIDE.iter().map(|(either, _)| *either));
            (name, "key", valid)
        }
        InputSource::GamepadButton(name) => (name, "gamepad button", GAMEPAD_BUTTONS.to_vec()),
        InputSource::GamepadAxis(name) => (name, "gamepad axis", GAMEPAD_AXES.to_vec()),
        InputSource::MouseButton(_) => return Ok(()),
    };
    if valid.contains(&name) {
        return Ok(());
    }
    let near = nearest(name, &valid);
    let advice = if near.is_empty() {
        String::new()
    } else {
        let near: Vec<String> = near.iter().map(|n| format!("`{n}`")).collect();
        format!("; did you mean {}?", near.join(", "))
    };
    Err(UnknownName {
        message: format!(
            "unknown {kind} name `{name}`{advice} (docs/scenes.md lists every {kind} name)"
        ),
    })
}

/// Up to three valid names closest to `name`: the same letters in another
/// case, then those a few edits away (`Spcae`, `Space`) or that contain it
/// or that it contains (`Left`, `ArrowLeft`; three letters at least, so
/// `L` is no match for `Left`), nearest first, in list order among equals.
fn nearest<'a>(name: &str, valid: &[&'a str]) -> Vec<&'a str> {
    let lower = name.to_lowercase();
    let mut scored: Vec<(usize, usize, &'a str)> = valid
        .iter()
        .enumerate()
        .filter_map(|(at, &v)| {
            let v_lower = v.to_lowercase();
            let score = if v_lower == lower {
                0
            } else if lower.len().min(v_lower.len()) >= 3
                && (v_lower.contains(&lower) || lower.contains(&v_lower))
            {
                1 + v_lower.len().abs_diff(lower.len())
            } else {
                let d = edit_distance(&lower, &v_lower);
                if d > 2.max(lower.len() / 3) {
                    return None;
                }
                1 + d
            };
            Some((score, at, v))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, _, v)| v).collect()
}

/// Levenshtein distance, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != cb))
                .min(above + 1)
                .min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str) -> InputSource {
        InputSource::Key(name.to_string())
    }

    #[test]
    fn every_listed_name_passes_and_a_misspelt_one_names_the_nearest() {
        for name in KEYS {
            assert_eq!(check_source(&key(name)), Ok(()), "{name}");
        }
        for name in GAMEPAD_BUTTONS {
            assert_eq!(
                check_source(&InputSource::GamepadButton(name.to_string())),
                Ok(())
            );
        }
        let message = |source| check_source(&source).expect_err("refused").message;
        let space = message(key("Spcae"));
        assert!(space.contains("unknown key name `Spcae`"), "{space}");
        assert!(space.contains("did you mean `Space`"), "{space}");
        let lower = message(key("space"));
        assert!(lower.contains("did you mean `Space`"), "{lower}");
        let left = message(key("Left"));
        assert!(left.contains("`ArrowLeft`"), "{left}");
        let pad = message(InputSource::GamepadButton("south".into()));
        assert!(pad.contains("unknown gamepad button name `south`"), "{pad}");
        assert!(pad.contains("`South`"), "{pad}");
        // Far from everything: no guess, still the list's place.
        let far = message(key("Qwertyuiopasdf"));
        assert!(!far.contains("did you mean"), "{far}");
        assert!(far.contains("docs/scenes.md"), "{far}");
    }

    #[test]
    fn shift_ctrl_and_alt_are_either_side() {
        for (either, [left, right]) in EITHER_SIDE {
            assert_eq!(check_source(&key(either)), Ok(()));
            assert!(covers(&key(either), &key(left)));
            assert!(covers(&key(either), &key(right)));
            assert!(!covers(&key(left), &key(right)));
            assert!(KEYS.contains(&left) && KEYS.contains(&right));
        }
        assert!(!covers(&key("Shift"), &key("Space")));
    }
}
