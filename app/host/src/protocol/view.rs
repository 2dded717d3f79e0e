//! The pictures of "the state now" the host publishes, latest wins: a
//! [`WorldView`] of one moment of the session (live, or a past tick a
//! front end asked for), and beside the live one a [`LiveView`] of what the
//! host's features hold (settings, breakpoints, watches, scripts, branch B,
//! the rewind history's reach).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use stepframe_core::{
    BehaviourInfo, BehaviourState, BodyDesc, BodyKind, Breakpoint, BreakpointId, Clock,
    ClockBreakpoint, ObjectId, Pose, RewindReach, Shape, Suspension, TimeSettings, Vec2, Velocity,
};
use stepframe_plugins::WatchSpec;
use stepframe_plugins::script::{
    HookEngine, LineBreakpoint, ScriptError, ScriptFailure, ScriptHit,
};

use super::DisplayRate;
use super::event::{BName, EditLabel, QueuedEdit};
use crate::traced::{TickDivergence, TracedTick};

/// One moment of a session, as every panel draws it: the live session after
/// a frame or a command, or the end of a past tick (`at_tick`), built by
/// the same code so a past tick reads exactly as the live session does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorldView {
    /// Increases with every view the host builds: tells views apart.
    pub revision: u64,
    /// `None` for the live session; `Some(T)` for the end of completed tick
    /// T (every field then describes that moment).
    pub at_tick: Option<u64>,
    /// The clock after the frame (completed-tick values), with the accumulator.
    pub clock: Clock,
    /// The time settings the session ran this moment with.
    pub settings: TimeSettings,
    /// Why the session is suspended, if it is.
    pub suspension: Option<Suspension>,
    /// Live objects in id order.
    pub objects: Vec<ObjectView>,
    /// Pairs touching at the end of the completed tick, in id order.
    pub contacts: Vec<(ObjectId, ObjectId)>,
    /// Camera centre set by a presentation hook (FollowCamera), if any.
    pub camera: Option<Vec2>,
    /// The inspector's object, if alive at this moment.
    pub selected: Option<SelectedView>,
    /// Stable hash of the committed state after the last tick (0 before the first).
    pub state_hash: u64,
    /// Branch B at this tick, while there is one that holds it: every
    /// object's committed pose and velocity in B (the viewport's B
    /// outlines, the inspector's B column).
    pub b: Option<TracedTick>,
}

/// One object as the viewport and hierarchy need it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ObjectView {
    /// Stable id.
    pub id: ObjectId,
    /// Display name.
    pub name: String,
    /// Parent in the hierarchy.
    pub parent: Option<ObjectId>,
    /// Whether callbacks run for it.
    pub enabled: bool,
    /// The pose to draw: interpolated while running, exactly the committed
    /// pose while suspended.
    pub presentation: Pose,
    /// `physics_simulation_pose`: the committed world pose of the completed tick.
    pub committed: Pose,
    /// Where an edit queued since the tick puts the body at the next
    /// reconcile: the viewport draws it there while suspended, so a
    /// dropped body stays where it was dropped.
    pub moved_to: Option<Pose>,
    /// Body kind and shapes, if it has a body.
    pub body: Option<BodyView>,
    /// Its behaviours' registered names, in dispatch order (the
    /// hierarchy's filter finds "every Script" without asking for each
    /// object's inspector data).
    pub behaviours: Vec<String>,
    /// Its behaviours in the cohort by registration number, with their
    /// names: what a fault marker names a behaviour by, so the editor can
    /// name the behaviour a fault struck in after the host is gone.
    pub cohort: Vec<(u64, String)>,
}

/// What the viewport draws of a body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BodyView {
    /// Dynamic, kinematic or fixed (drawn in different colours).
    pub kind: BodyKind,
    /// Shapes in the body's frame.
    pub shapes: Vec<Shape>,
    /// Sensors are drawn unfilled.
    pub sensor: bool,
    /// A soft body's particles and outline (soft bodies have no shapes).
    pub soft: Option<SoftView>,
}

/// What the viewport draws of a soft body, and the inspector lists.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SoftView {
    /// The particles as drawn now: blended previous → committed by alpha
    /// while running, the committed ones while suspended.
    pub particles: Vec<Vec2>,
    /// The committed particles (the viewport's "Committed poses" overlay).
    pub committed: Vec<Vec2>,
    /// Boundary loops, particle indices in order (`true`: closed, a jelly;
    /// `false`: open, a rope).
    pub outlines: Vec<(Vec<u32>, bool)>,
    /// Particle radius, m.
    pub radius: f32,
    /// Pinned particle indices, ascending.
    pub pinned: Vec<u32>,
    /// Pieces after tears (1 if it never tore).
    pub pieces: u32,
    /// It has torn.
    pub torn: bool,
}

/// Everything the inspector shows of the selected object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SelectedView {
    /// Which object.
    pub id: ObjectId,
    /// Display name.
    pub name: String,
    /// Whether callbacks run for it.
    pub enabled: bool,
    /// `physics_simulation_pose`: committed world pose of the completed tick.
    pub committed: Pose,
    /// The pose presentation draws now.
    pub presentation: Pose,
    /// The committed pose of the tick before (interpolation start), bodies only.
    pub previous: Option<Pose>,
    /// Velocity at the end of the completed tick, bodies only.
    pub velocity: Option<Velocity>,
    /// The authored body, if any.
    pub body: Option<BodyDesc>,
    /// Behaviours with priority and parameters, as authored.
    pub behaviours: Vec<BehaviourInfo>,
    /// The same behaviours as they are at this moment: hooks, whether
    /// started or faulted, and their state.
    pub states: Vec<BehaviourState>,
    /// Pose and velocity edits queued for the next tick's reconcile (live
    /// session only).
    pub queued: Vec<QueuedEdit>,
    /// What each parameter of its behaviours is (a number, a flag, text, a
    /// choice of variants), by behaviour name: from the host's registry,
    /// which holds the parameter types, so the inspector can give each a
    /// typed widget. A behaviour whose type cannot say has no entry.
    pub param_kinds: std::collections::BTreeMap<String, stepframe_core::scene::ParamKinds>,
}

/// What the host's features hold beside the live world: published with
/// every live [`WorldView`] and read by the panels that show or change it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveView {
    /// The live session now.
    pub world: WorldView,
    /// Time settings as chosen (they apply at the next frame boundary).
    pub settings: TimeSettings,
    /// How often the host runs an outer frame.
    pub display_rate: DisplayRate,
    /// Outer frames per second the host ran over its last 60 frames;
    /// `None` before any frame.
    pub host_fps: Option<f64>,
    /// The scene file of the session, if it came from one.
    pub scene_path: Option<PathBuf>,
    /// Action names and the keys bound to them, for the viewport's help line.
    pub actions: Vec<(String, Vec<String>)>,
    /// The object the inspector shows, whether or not it is alive.
    pub selection: Option<ObjectId>,
    /// Breakpoints with their match counts and their objects' names.
    pub breakpoints: Vec<BreakpointView>,
    /// The clock breakpoints, in creation order (ids shared with the above).
    pub clock_breakpoints: Vec<ClockBreakpoint>,
    /// The most recent breakpoint hits, oldest first, each labelled as it
    /// was recorded.
    pub hits: Vec<HitEntry>,
    /// The watches, in list order.
    pub watches: Vec<WatchSpec>,
    /// The unit of each plotted watch that reads one field with a unit, by
    /// expression (`obj(20).y` → `m`): what its timeline lane's title says.
    pub plot_units: BTreeMap<String, String>,
    /// How far back rewind reaches now and how far its budget reaches.
    pub rewind: RewindReach,
    /// What Edit → Undo and Redo would do now.
    pub undo: UndoView,
    /// Branch B, while there is one.
    pub branch_b: Option<RunB>,
}

/// A hook breakpoint as the Breakpoints tab lists it: its object named by
/// id and the name it had when the breakpoint was set (`JellyDisk #6`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BreakpointView {
    /// The breakpoint, with its match count.
    pub breakpoint: Breakpoint,
    /// Its object as named when set, and whether the world has that object
    /// (id and name) now; `None` for a breakpoint on any object.
    pub object: Option<(String, bool)>,
}

/// A breakpoint hit, labelled when it was recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HitEntry {
    /// Which breakpoint.
    pub breakpoint: BreakpointId,
    /// The tick it hit at (pending tick for fixed hooks; completed ticks
    /// for a clock rule).
    pub tick: u64,
    /// The outer frame.
    pub frame: u64,
    /// Whose hook, with its label then (`JellyDisk #6`); `None` for a clock
    /// breakpoint.
    pub object: Option<(ObjectId, String)>,
    /// What hit: `FixedUpdate (Script)`, or the clock rule and what it
    /// measured.
    pub what: String,
}

/// The next undo and redo of the live session.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UndoView {
    /// The edit Undo takes out, if one was made where the session stands.
    pub undo: Option<EditLabel>,
    /// The edit Redo applies again, if one was undone there.
    pub redo: Option<EditLabel>,
}

/// Run B as the host holds it: what it is and where A and B first part.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunB {
    /// What B is.
    pub name: BName,
    /// The tick a what-if fork was made at; `None` for a comparison.
    pub forked_at: Option<u64>,
    /// The first measured tick where something differs.
    pub first: Option<TickDivergence>,
}

/// What the code pane reads of the session's scripts, sent when it changes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScriptsView {
    /// Line breakpoints of every script, by key, in key order.
    pub breakpoints: Vec<(String, Vec<LineBreakpoint>)>,
    /// The newest script breakpoint hit.
    pub last_hit: Option<ScriptHit>,
    /// Every script the session has loaded, in key order.
    pub loaded: Vec<LoadedScript>,
    /// The last rejected breakpoint edit, if no edit of that line
    /// succeeded since: (key, line, why).
    pub rejected: Option<(String, usize, String)>,
}

impl ScriptsView {
    /// The breakpoints of one script, in line order.
    pub fn lines(&self, key: &str) -> &[LineBreakpoint] {
        self.breakpoints
            .iter()
            .find(|(k, _)| k == key)
            .map_or(&[], |(_, lines)| lines.as_slice())
    }

    /// A loaded script, by key.
    pub fn script(&self, key: &str) -> Option<&LoadedScript> {
        self.loaded.iter().find(|s| s.key == key)
    }
}

/// A script the session has compiled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadedScript {
    /// Its key.
    pub key: String,
    /// The text of the program in force (what its line numbers refer to).
    pub text: String,
    /// The last failed compile, if no good one came after it.
    pub compile_error: Option<ScriptError>,
    /// The first hook of the program in force that failed at run time.
    pub failure: Option<ScriptFailure>,
    /// Which engine each hook function runs on.
    pub engines: Vec<HookEngine>,
}
