//! Devices, action maps, and the two snapshots of the input contract.
//!
//! Update reads the *outer-frame* snapshot: the edges of events that arrived since
//! the previous frame. FixedUpdate reads a separate *simulation* snapshot over the
//! same bindings, built at the start of every tick:
//!
//! - edges that arrived since the previous tick are pending until a tick runs, so a
//!   press in a frame with zero ticks survives and is seen exactly once, on the
//!   next tick (the bug Bevy still has open as bevy#6183);
//! - the first tick of a frame takes every pending edge; a second catch-up tick in
//!   the same frame starts from an empty list, so an edge is consumed once;
//! - a press and a release inside one frame are two edges: the tick sees
//!   `just_pressed` and `just_released` both true while `pressed` is false;
//! - hold time in fixed code is measured in simulation milliseconds from the tick
//!   that saw the press, so a debugger pause (which runs no tick) never counts;
//! - [`Input::reset_simulation`] forgets all of that for a new physics session.
//!
//! Worked example at 60 Hz: a press at frame 1 (0 ticks) and its release at
//! frame 2 (0 ticks) are both pending; frame 3 runs 4 ticks: tick 1 sees the press
//! and the release, ticks 2-4 see no edge.

use serde::{Deserialize, Serialize};

use crate::hash::StableHasher;

pub mod keys;

/// One physical input, device-agnostic.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum InputSource {
    /// A keyboard key by name: `"Space"`, `"A"`, `"ArrowLeft"`,
    /// `"ShiftLeft"` (egui's key names, [`keys::KEYS`]); in a binding also
    /// `"Shift"`, `"Ctrl"` or `"Alt"`, either side ([`keys::EITHER_SIDE`]).
    Key(String),
    /// A mouse button: 0 primary, 1 secondary, 2 middle.
    MouseButton(u8),
    /// A gamepad button by name: `"South"`, `"East"`, `"Start"`...
    /// ([`keys::GAMEPAD_BUTTONS`]).
    GamepadButton(String),
    /// A gamepad axis by name: `"LeftStickX"`, `"RightZ"`... (-1 to 1,
    /// [`keys::GAMEPAD_AXES`]).
    GamepadAxis(String),
}

/// A change of one source: 1.0 pressed, 0.0 released, or an axis value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputEvent {
    /// What changed.
    pub source: InputSource,
    /// New value.
    pub value: f32,
}

impl InputEvent {
    /// A button or key press.
    pub fn press(source: InputSource) -> InputEvent {
        InputEvent { source, value: 1.0 }
    }

    /// A button or key release.
    pub fn release(source: InputSource) -> InputEvent {
        InputEvent { source, value: 0.0 }
    }
}

/// A named action and the sources bound to it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionBinding {
    /// Name hooks ask for (`"jump"`).
    pub name: String,
    /// Any of these drives the action; the strongest value wins.
    pub sources: Vec<InputSource>,
}

/// The action map of a game, authored in RON.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionMap {
    /// The actions, in the order their ids are given.
    pub actions: Vec<ActionBinding>,
}

/// Values above this count as pressed (for axes and analogue triggers).
const PRESS_THRESHOLD: f32 = 0.5;

/// The state of one action in one snapshot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ActionState {
    /// Held at the end of the events this snapshot covers.
    pub pressed: bool,
    /// Strongest source value (axes keep their sign).
    pub value: f32,
    /// Press edges covered by this snapshot.
    pub presses: u16,
    /// Release edges covered by this snapshot.
    pub releases: u16,
    /// When the current hold began, in this snapshot's clock (milliseconds).
    pub held_since_ms: Option<f64>,
}

/// What one reader (Update, or FixedUpdate) sees of every action.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ActionSnapshot {
    /// Action names, in id order (shared with the map).
    names: Vec<String>,
    /// States in id order.
    states: Vec<ActionState>,
    /// This snapshot's clock: frame time for Update, simulation time for fixed.
    now_ms: f64,
}

impl ActionSnapshot {
    fn state(&self, action: &str) -> Option<&ActionState> {
        let at = self.names.iter().position(|n| n == action)?;
        self.states.get(at)
    }

    /// Held now.
    pub fn pressed(&self, action: &str) -> bool {
        self.state(action).is_some_and(|s| s.pressed)
    }

    /// At least one press edge in this snapshot.
    pub fn just_pressed(&self, action: &str) -> bool {
        self.state(action).is_some_and(|s| s.presses > 0)
    }

    /// At least one release edge in this snapshot.
    pub fn just_released(&self, action: &str) -> bool {
        self.state(action).is_some_and(|s| s.releases > 0)
    }

    /// Analogue value (0 or 1 for buttons).
    pub fn value(&self, action: &str) -> f32 {
        self.state(action).map_or(0.0, |s| s.value)
    }

    /// How long the action has been held, in this snapshot's clock: simulation
    /// milliseconds in fixed code, frame milliseconds in Update. 0 when not held.
    pub fn held_ms(&self, action: &str) -> f64 {
        match self.state(action) {
            Some(ActionState {
                pressed: true,
                held_since_ms: Some(since),
                ..
            }) => self.now_ms - since,
            _ => 0.0,
        }
    }

    /// Every (action, presses, releases) with at least one edge, in action order.
    pub fn edges(&self) -> impl Iterator<Item = (&str, u16, u16)> {
        self.names
            .iter()
            .zip(&self.states)
            .filter(|(_, s)| s.presses > 0 || s.releases > 0)
            .map(|(n, s)| (n.as_str(), s.presses, s.releases))
    }

    /// Action names in id order.
    pub fn action_names(&self) -> &[String] {
        &self.names
    }

    fn clear_edges(&mut self) {
        for s in &mut self.states {
            s.presses = 0;
            s.releases = 0;
        }
    }

    /// Applies one source change to every action bound to it (a side of
    /// `Shift` drives a `Shift` binding).
    fn apply(&mut self, map: &ActionMap, raw: &RawDevices, source: &InputSource) {
        for (binding, state) in map.actions.iter().zip(&mut self.states) {
            if !binding.sources.iter().any(|b| keys::covers(b, source)) {
                continue;
            }
            let value = binding
                .sources
                .iter()
                .map(|s| raw.value(s))
                .fold(0.0f32, |acc, v| if v.abs() > acc.abs() { v } else { acc });
            let pressed = value.abs() > PRESS_THRESHOLD;
            if pressed && !state.pressed {
                state.presses = state.presses.saturating_add(1);
                state.held_since_ms = Some(self.now_ms);
            } else if !pressed && state.pressed {
                state.releases = state.releases.saturating_add(1);
                state.held_since_ms = None;
            }
            state.pressed = pressed;
            state.value = value;
        }
    }
}

/// Current value of every source that has ever been touched, sorted by source.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct RawDevices {
    values: Vec<(InputSource, f32)>,
}

impl RawDevices {
    /// The value of a bound source: a side-less modifier (`Shift`) is the
    /// stronger of its two sides.
    fn value(&self, source: &InputSource) -> f32 {
        if let InputSource::Key(name) = source
            && let Some([left, right]) = keys::sides(name)
        {
            let side = |s: &str| self.device_value(&InputSource::Key(s.to_string()));
            let (l, r) = (side(left), side(right));
            return if r.abs() > l.abs() { r } else { l };
        }
        self.device_value(source)
    }

    fn device_value(&self, source: &InputSource) -> f32 {
        self.values
            .binary_search_by(|(s, _)| s.cmp(source))
            .map_or(0.0, |i| self.values[i].1)
    }

    fn set(&mut self, source: &InputSource, value: f32) {
        match self.values.binary_search_by(|(s, _)| s.cmp(source)) {
            Ok(i) => self.values[i].1 = value,
            Err(i) => self.values.insert(i, (source.clone(), value)),
        }
    }
}

/// One reader's view: its own device values and its snapshot.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Layer {
    raw: RawDevices,
    snapshot: ActionSnapshot,
}

impl Layer {
    fn new(map: &ActionMap) -> Layer {
        Layer {
            raw: RawDevices::default(),
            snapshot: ActionSnapshot {
                names: map.actions.iter().map(|a| a.name.clone()).collect(),
                states: vec![ActionState::default(); map.actions.len()],
                now_ms: 0.0,
            },
        }
    }

    fn deliver(&mut self, map: &ActionMap, event: &InputEvent) {
        if !event.value.is_finite() {
            return;
        }
        self.raw.set(&event.source, event.value);
        self.snapshot.apply(map, &self.raw, &event.source);
    }
}

/// Devices, the action map, and the outer-frame and simulation snapshots.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Input {
    map: ActionMap,
    /// Events pushed since the last frame began (Update has not seen them).
    frame_queue: Vec<InputEvent>,
    /// Events Update has seen that no tick has delivered yet.
    fixed_pending: Vec<InputEvent>,
    /// Events delivered to the current tick (for traces and recordings).
    delivered: Vec<InputEvent>,
    /// Events a tick already received (or is sure to receive, see
    /// [`Input::push_to_next_tick`]) that Update has not seen yet: they go to
    /// the outer-frame side only, never back to the simulation side.
    #[serde(default)]
    replayed_for_frame: Vec<InputEvent>,
    frame: Layer,
    fixed: Layer,
}

impl Input {
    /// Input over an action map, with nothing pressed.
    pub fn new(map: ActionMap) -> Input {
        Input {
            frame: Layer::new(&map),
            fixed: Layer::new(&map),
            map,
            ..Input::default()
        }
    }

    /// The action map.
    pub fn map(&self) -> &ActionMap {
        &self.map
    }

    /// Queues a device event; Update sees it next frame, fixed code next tick.
    pub fn push(&mut self, event: InputEvent) {
        self.frame_queue.push(event);
    }

    /// Queues a device event for the next tick to begin, whether or not an
    /// outer frame begins first: the input a user types while the session is
    /// suspended and then steps a single tick (which begins no frame) belongs to
    /// that tick (godot-proposals #14522). Update sees it at the next frame.
    pub fn push_to_next_tick(&mut self, event: InputEvent) {
        self.fixed_pending.push(event.clone());
        self.replayed_for_frame.push(event);
    }

    /// Builds the outer-frame snapshot from the events queued since the last
    /// frame, and hands those events on to the simulation side.
    pub fn begin_frame(&mut self, frame_time_ms: f64) {
        self.frame.snapshot.clear_edges();
        self.frame.snapshot.now_ms = frame_time_ms;
        for event in self.replayed_for_frame.drain(..) {
            self.frame.deliver(&self.map, &event);
        }
        for event in &self.frame_queue {
            self.frame.deliver(&self.map, event);
        }
        self.fixed_pending.append(&mut self.frame_queue);
    }

    /// Builds the simulation snapshot for a tick starting at `sim_time_ms`: every
    /// pending edge is delivered now, exactly once.
    pub fn begin_tick(&mut self, sim_time_ms: f64) {
        self.fixed.snapshot.clear_edges();
        self.fixed.snapshot.now_ms = sim_time_ms;
        self.delivered.clear();
        for event in &self.fixed_pending {
            self.fixed.deliver(&self.map, event);
        }
        std::mem::swap(&mut self.delivered, &mut self.fixed_pending);
    }

    /// Delivers an event straight to the simulation side (replay of a recording
    /// stamped with this tick). Call between [`Input::begin_tick`] and the hooks.
    pub fn deliver_to_tick(&mut self, event: InputEvent) {
        self.fixed.deliver(&self.map, &event);
        self.replayed_for_frame.push(event.clone());
        self.delivered.push(event);
    }

    /// What Update reads.
    pub fn frame_snapshot(&self) -> &ActionSnapshot {
        &self.frame.snapshot
    }

    /// What FixedUpdate and contact hooks read.
    pub fn fixed_snapshot(&self) -> &ActionSnapshot {
        &self.fixed.snapshot
    }

    /// The raw events the current tick received, in arrival order.
    pub fn delivered_this_tick(&self) -> &[InputEvent] {
        &self.delivered
    }

    /// A new physics session: fixed hold/charge/buffer memory and pending edges go.
    pub fn reset_simulation(&mut self) {
        self.fixed = Layer::new(&self.map);
        self.fixed_pending.clear();
        self.delivered.clear();
    }

    /// Feeds the fixed input memory into a hash (the `input` subsystem hash):
    /// the simulation side's device values, every action's state and hold
    /// start, its clock, and edges pending for the next tick. The outer-frame
    /// side is left out: it follows frames, which depend on pacing.
    pub fn hash_simulation_memory(&self, h: &mut StableHasher) {
        let hash_event = |h: &mut StableHasher, source: &InputSource, value: f32| {
            match source {
                InputSource::Key(name) => {
                    h.write_u64(0);
                    h.write(name.as_bytes());
                }
                InputSource::MouseButton(n) => {
                    h.write_u64(1);
                    h.write_u64(u64::from(*n));
                }
                InputSource::GamepadButton(name) => {
                    h.write_u64(2);
                    h.write(name.as_bytes());
                }
                InputSource::GamepadAxis(name) => {
                    h.write_u64(3);
                    h.write(name.as_bytes());
                }
            }
            h.write_f32(value);
        };
        h.write_u64(self.fixed.raw.values.len() as u64);
        for (source, value) in &self.fixed.raw.values {
            hash_event(h, source, *value);
        }
        let snapshot = &self.fixed.snapshot;
        h.write_f64(snapshot.now_ms);
        for state in &snapshot.states {
            h.write_u64(
                u64::from(state.pressed)
                    | u64::from(state.presses) << 8
                    | u64::from(state.releases) << 24,
            );
            h.write_f32(state.value);
            h.write_f64(state.held_since_ms.unwrap_or(f64::NAN));
        }
        h.write_u64(self.fixed_pending.len() as u64);
        for event in &self.fixed_pending {
            hash_event(h, &event.source, event.value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jump_map() -> ActionMap {
        ActionMap {
            actions: vec![ActionBinding {
                name: "jump".into(),
                sources: vec![
                    InputSource::Key("Space".into()),
                    InputSource::GamepadButton("South".into()),
                ],
            }],
        }
    }

    #[test]
    fn both_bindings_drive_the_action_and_the_strongest_wins() {
        let mut input = Input::new(jump_map());
        input.push(InputEvent::press(InputSource::Key("Space".into())));
        input.push(InputEvent::press(InputSource::GamepadButton(
            "South".into(),
        )));
        input.push(InputEvent::release(InputSource::Key("Space".into())));
        input.begin_frame(0.0);
        let s = input.frame_snapshot();
        assert!(s.pressed("jump"), "gamepad still holds it");
        assert_eq!(
            (s.just_pressed("jump"), s.just_released("jump")),
            (true, false)
        );
    }

    #[test]
    fn a_shift_binding_is_held_while_either_shift_key_is() {
        let key = |k: &str| InputSource::Key(k.to_string());
        let mut input = Input::new(ActionMap {
            actions: vec![ActionBinding {
                name: "dash".into(),
                sources: vec![key("Shift")],
            }],
        });
        // Left down, right down, left up: still held; right up: released.
        // One press edge and one release edge for the whole hold.
        input.push(InputEvent::press(key("ShiftLeft")));
        input.begin_frame(0.0);
        assert!(input.frame_snapshot().just_pressed("dash"));
        input.push(InputEvent::press(key("ShiftRight")));
        input.push(InputEvent::release(key("ShiftLeft")));
        input.begin_frame(16.0);
        let s = input.frame_snapshot();
        assert_eq!(
            (
                s.pressed("dash"),
                s.just_pressed("dash"),
                s.just_released("dash")
            ),
            (true, false, false)
        );
        input.push(InputEvent::release(key("ShiftRight")));
        input.begin_frame(32.0);
        let s = input.frame_snapshot();
        assert_eq!((s.pressed("dash"), s.just_released("dash")), (false, true));
    }
}
