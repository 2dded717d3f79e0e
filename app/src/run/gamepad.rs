//! Gamepads in the player window: gilrs's events, read once per frame,
//! become the pipeline's input events, which the scene's action map reads
//! by gilrs's own names (`GamepadButton("South")`,
//! `GamepadAxis("LeftStickX")`; core's `input::keys` lists them).
//!
//! | gilrs says | the session gets |
//! |---|---|
//! | `ButtonPressed(South)` | `GamepadButton("South")` pressed (1.0) |
//! | `ButtonReleased(South)` | released (0.0) |
//! | `AxisChanged(LeftStickX, -0.8)` | `GamepadAxis("LeftStickX")` = -0.8 |
//! | `Disconnected` | a release of every button that pad held, and 0.0 on every axis it moved |
//!
//! A source has no pad in its name, so two pads share it: a button counts
//! as held while any pad holds it (the second pad's press and the first
//! one's release are no edges), and an axis reads the pad that pushes it
//! furthest from rest. Repeats are dropped, as the window drops key
//! repeats, and so is `ButtonChanged`: an analogue trigger's travel comes
//! as its axis (`LeftZ`, `RightZ`), its press and release as the button.
//! Buttons and axes gilrs cannot name (`Unknown`) are dropped.
//!
//! A gamepad drives the game whether or not the window has focus (the
//! editor's window may have it while attached); keys, which the window only
//! gets while focused, are released when it loses focus.
//!
//! No gamepad costs one non-blocking look at gilrs's queue a frame; a
//! machine where gilrs cannot start (no udev, a platform it does not
//! support) has no gamepads and says so once on stderr, and the game runs
//! on keys.

use std::collections::BTreeMap;
use std::collections::BTreeSet;

use gilrs::{Axis, Button, EventType};
use stepframe_core::{InputEvent, InputSource};

/// The name a scene binds for gilrs's `button`, if it has one.
pub fn button_name(button: Button) -> Option<&'static str> {
    Some(match button {
        Button::South => "South",
        Button::East => "East",
        Button::North => "North",
        Button::West => "West",
        Button::C => "C",
        Button::Z => "Z",
        Button::LeftTrigger => "LeftTrigger",
        Button::LeftTrigger2 => "LeftTrigger2",
        Button::RightTrigger => "RightTrigger",
        Button::RightTrigger2 => "RightTrigger2",
        Button::Select => "Select",
        Button::Start => "Start",
        Button::Mode => "Mode",
        Button::LeftThumb => "LeftThumb",
        Button::RightThumb => "RightThumb",
        Button::DPadUp => "DPadUp",
        Button::DPadDown => "DPadDown",
        Button::DPadLeft => "DPadLeft",
        Button::DPadRight => "DPadRight",
        Button::Unknown => return None,
    })
}

/// The name a scene binds for gilrs's `axis`, if it has one.
pub fn axis_name(axis: Axis) -> Option<&'static str> {
    Some(match axis {
        Axis::LeftStickX => "LeftStickX",
        Axis::LeftStickY => "LeftStickY",
        Axis::LeftZ => "LeftZ",
        Axis::RightStickX => "RightStickX",
        Axis::RightStickY => "RightStickY",
        Axis::RightZ => "RightZ",
        Axis::DPadX => "DPadX",
        Axis::DPadY => "DPadY",
        Axis::Unknown => return None,
    })
}

/// What one pad did that the session hears of (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PadChange {
    /// A button went down.
    Pressed(Button),
    /// A button came up.
    Released(Button),
    /// An axis moved to this value (-1 to 1).
    Axis(Axis, f32),
    /// The pad is gone.
    Disconnected,
}

impl PadChange {
    /// The change gilrs's `event` is, if the session hears of it.
    pub fn of(event: &EventType) -> Option<PadChange> {
        match *event {
            EventType::ButtonPressed(b, _) => Some(PadChange::Pressed(b)),
            EventType::ButtonReleased(b, _) => Some(PadChange::Released(b)),
            EventType::AxisChanged(a, v, _) => Some(PadChange::Axis(a, v)),
            EventType::Disconnected => Some(PadChange::Disconnected),
            _ => None,
        }
    }
}

/// Which pads hold which buttons and move which axes: what makes several
/// pads' changes one stream of input events (module docs).
#[derive(Debug, Default)]
pub struct Pads {
    /// For each button held, the pads holding it.
    held: BTreeMap<&'static str, BTreeSet<usize>>,
    /// For each axis away from rest, each pad's value.
    axes: BTreeMap<&'static str, BTreeMap<usize, f32>>,
}

impl Pads {
    /// The input events `change` of pad `pad` makes, in order.
    pub fn apply(&mut self, pad: usize, change: PadChange) -> Vec<InputEvent> {
        let mut out = Vec::new();
        match change {
            PadChange::Pressed(b) => {
                if let Some(name) = button_name(b) {
                    let pads = self.held.entry(name).or_default();
                    if pads.is_empty() {
                        out.push(InputEvent::press(InputSource::GamepadButton(name.into())));
                    }
                    pads.insert(pad);
                }
            }
            PadChange::Released(b) => {
                if let Some(name) = button_name(b) {
                    self.release(name, pad, &mut out);
                }
            }
            PadChange::Axis(a, value) => {
                if let Some(name) = axis_name(a) {
                    self.move_axis(name, pad, value, &mut out);
                }
            }
            PadChange::Disconnected => {
                let buttons: Vec<&'static str> = self
                    .held
                    .iter()
                    .filter(|(_, pads)| pads.contains(&pad))
                    .map(|(name, _)| *name)
                    .collect();
                for name in buttons {
                    self.release(name, pad, &mut out);
                }
                let axes: Vec<&'static str> = self
                    .axes
                    .iter()
                    .filter(|(_, pads)| pads.contains_key(&pad))
                    .map(|(name, _)| *name)
                    .collect();
                for name in axes {
                    self.move_axis(name, pad, 0.0, &mut out);
                }
            }
        }
        out
    }

    /// Pad `pad` let go of button `name`: a release once no pad holds it.
    fn release(&mut self, name: &'static str, pad: usize, out: &mut Vec<InputEvent>) {
        let Some(pads) = self.held.get_mut(name) else {
            return;
        };
        if pads.remove(&pad) && pads.is_empty() {
            self.held.remove(name);
            out.push(InputEvent::release(InputSource::GamepadButton(name.into())));
        }
    }

    /// Pad `pad` moved axis `name` to `value`: the axis reads the pad that
    /// pushes it furthest from rest (0 once none does).
    fn move_axis(&mut self, name: &'static str, pad: usize, value: f32, out: &mut Vec<InputEvent>) {
        let pads = self.axes.entry(name).or_default();
        if value == 0.0 {
            pads.remove(&pad);
        } else {
            pads.insert(pad, value);
        }
        let strongest = pads
            .values()
            .copied()
            .fold(0.0f32, |a, v| if v.abs() > a.abs() { v } else { a });
        if pads.is_empty() {
            self.axes.remove(name);
        }
        out.push(InputEvent {
            source: InputSource::GamepadAxis(name.into()),
            value: strongest,
        });
    }
}

/// The window's gamepads: gilrs, if it started, and what the pads hold.
pub struct Gamepads {
    /// gilrs's context (`None`: no gamepads on this machine).
    gilrs: Option<gilrs::Gilrs>,
    /// What the pads hold.
    pads: Pads,
}

impl std::fmt::Debug for Gamepads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gamepads")
            .field("started", &self.gilrs.is_some())
            .field("pads", &self.pads)
            .finish()
    }
}

impl Gamepads {
    /// Starts gilrs; where it cannot start, no gamepads (said once on
    /// stderr).
    pub fn start() -> Gamepads {
        let gilrs = match gilrs::Gilrs::new() {
            Ok(gilrs) => Some(gilrs),
            // A platform gilrs does not support: its stand-in has no pads.
            Err(gilrs::Error::NotImplemented(_)) => None,
            Err(e) => {
                use std::io::Write as _;
                let _ = writeln!(std::io::stderr(), "stepframe run: no gamepads: {e}");
                None
            }
        };
        Gamepads {
            gilrs,
            pads: Pads::default(),
        }
    }

    /// The input events of everything the pads did since the last call.
    pub fn poll(&mut self) -> Vec<InputEvent> {
        let Some(gilrs) = &mut self.gilrs else {
            return Vec::new();
        };
        let mut out = Vec::new();
        while let Some(event) = gilrs.next_event() {
            if let Some(change) = PadChange::of(&event.event) {
                out.extend(self.pads.apply(usize::from(event.id), change));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stepframe_core::input::keys::{GAMEPAD_AXES, GAMEPAD_BUTTONS};

    /// Every button gilrs has, `Unknown` last.
    const BUTTONS: [Button; 20] = [
        Button::South,
        Button::East,
        Button::North,
        Button::West,
        Button::C,
        Button::Z,
        Button::LeftTrigger,
        Button::LeftTrigger2,
        Button::RightTrigger,
        Button::RightTrigger2,
        Button::Select,
        Button::Start,
        Button::Mode,
        Button::LeftThumb,
        Button::RightThumb,
        Button::DPadUp,
        Button::DPadDown,
        Button::DPadLeft,
        Button::DPadRight,
        Button::Unknown,
    ];

    /// Every axis gilrs has, `Unknown` last.
    const AXES: [Axis; 9] = [
        Axis::LeftStickX,
        Axis::LeftStickY,
        Axis::LeftZ,
        Axis::RightStickX,
        Axis::RightStickY,
        Axis::RightZ,
        Axis::DPadX,
        Axis::DPadY,
        Axis::Unknown,
    ];

    fn button(name: &str, value: f32) -> InputEvent {
        InputEvent {
            source: InputSource::GamepadButton(name.into()),
            value,
        }
    }

    fn axis(name: &str, value: f32) -> InputEvent {
        InputEvent {
            source: InputSource::GamepadAxis(name.into()),
            value,
        }
    }

    #[test]
    fn every_button_and_axis_gilrs_names_is_one_a_scene_may_bind_and_back() {
        let buttons: Vec<&str> = BUTTONS.iter().filter_map(|b| button_name(*b)).collect();
        assert_eq!(
            buttons, GAMEPAD_BUTTONS,
            "the same names, in the same order"
        );
        let axes: Vec<&str> = AXES.iter().filter_map(|a| axis_name(*a)).collect();
        assert_eq!(axes, GAMEPAD_AXES);
        // gilrs's own spelling of each (its Debug), so a rename shows here.
        for b in &BUTTONS[..19] {
            assert_eq!(button_name(*b), Some(format!("{b:?}").as_str()));
        }
        for a in &AXES[..8] {
            assert_eq!(axis_name(*a), Some(format!("{a:?}").as_str()));
        }
    }

    #[test]
    fn a_press_and_a_release_are_the_buttons_edges_and_unknown_buttons_are_dropped() {
        let mut pads = Pads::default();
        assert_eq!(
            pads.apply(0, PadChange::Pressed(Button::South)),
            [button("South", 1.0)]
        );
        assert_eq!(
            pads.apply(0, PadChange::Released(Button::South)),
            [button("South", 0.0)]
        );
        // A release of what was never pressed (the pad held it before the
        // window opened) is no edge.
        assert_eq!(pads.apply(0, PadChange::Released(Button::East)), []);
        assert_eq!(pads.apply(0, PadChange::Pressed(Button::Unknown)), []);
        assert_eq!(pads.apply(0, PadChange::Axis(Axis::Unknown, 0.5)), []);
    }

    #[test]
    fn an_axis_passes_its_value_and_two_pads_read_as_the_one_pushed_further() {
        let mut pads = Pads::default();
        assert_eq!(
            pads.apply(0, PadChange::Axis(Axis::LeftStickX, -0.25)),
            [axis("LeftStickX", -0.25)]
        );
        assert_eq!(
            pads.apply(1, PadChange::Axis(Axis::LeftStickX, 0.75)),
            [axis("LeftStickX", 0.75)]
        );
        // Pad 1 back to rest: pad 0's -0.25 is what the axis reads.
        assert_eq!(
            pads.apply(1, PadChange::Axis(Axis::LeftStickX, 0.0)),
            [axis("LeftStickX", -0.25)]
        );
        assert_eq!(
            pads.apply(0, PadChange::Axis(Axis::LeftStickX, 0.0)),
            [axis("LeftStickX", 0.0)]
        );
    }

    #[test]
    fn a_button_two_pads_hold_is_released_when_the_last_lets_go() {
        let mut pads = Pads::default();
        assert_eq!(
            pads.apply(0, PadChange::Pressed(Button::South)),
            [button("South", 1.0)]
        );
        assert_eq!(pads.apply(1, PadChange::Pressed(Button::South)), []);
        assert_eq!(pads.apply(0, PadChange::Released(Button::South)), []);
        assert_eq!(
            pads.apply(1, PadChange::Released(Button::South)),
            [button("South", 0.0)]
        );
    }

    #[test]
    fn a_pad_that_disconnects_lets_go_of_what_it_held_and_its_axes_rest() {
        let mut pads = Pads::default();
        pads.apply(0, PadChange::Pressed(Button::South));
        pads.apply(0, PadChange::Pressed(Button::Start));
        pads.apply(1, PadChange::Pressed(Button::Start));
        pads.apply(0, PadChange::Axis(Axis::RightZ, 0.5));
        pads.apply(1, PadChange::Axis(Axis::LeftStickY, 1.0));
        assert_eq!(
            pads.apply(0, PadChange::Disconnected),
            // Start stays held by pad 1; pad 1's stick is not pad 0's.
            [button("South", 0.0), axis("RightZ", 0.0)]
        );
        assert_eq!(
            pads.apply(1, PadChange::Disconnected),
            [button("Start", 0.0), axis("LeftStickY", 0.0)]
        );
        assert_eq!(pads.apply(1, PadChange::Disconnected), []);
    }

    #[test]
    fn a_machine_without_gamepads_polls_nothing_and_never_fails() {
        let mut pads = Gamepads::start();
        for _ in 0..3 {
            assert_eq!(pads.poll(), []);
        }
    }
}
