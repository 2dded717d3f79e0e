//! The pictures of "the state now" the worker publishes: a [`WorldView`] of
//! the live session or of a past tick, with its objects, the selected
//! object's inspector data and what the code pane reads of the scripts.
//! Latest wins on their channels (see the parent module's table).

use std::path::PathBuf;
use std::sync::Arc;

use stepframe_core::{
    BehaviourInfo, BehaviourState, BodyDesc, BodyKind, Breakpoint, Clock, ClockBreakpoint,
    ObjectId, Pose, Recording, RewindReach, Shape, Suspension, TimeSettings, Vec2, Velocity,
};
use stepframe_plugins::script::{HookEngine, LineBreakpoint, ScriptError, ScriptHit};

use super::Pacing;
use crate::compare::poses::TickDivergence;

/// A hook breakpoint as the Breakpoints tab lists it: ids are the scene
/// file's, so its object is named by the id and the name it had when the
/// breakpoint was set (`JellyDisk #6`), never by what has the id now.
#[derive(Clone, Debug, PartialEq)]
pub struct BreakpointView {
    /// The breakpoint, with its match count.
    pub breakpoint: Breakpoint,
    /// Its object as named when set, and whether the world has that object
    /// (id and name) now; `None` for a breakpoint on any object.
    pub object: Option<(String, bool)>,
}

/// A breakpoint hit as the Breakpoints tab lists it, labelled when it was
/// recorded: a later scene whose object of that id is another never
/// relabels it.
#[derive(Clone, Debug, PartialEq)]
pub struct HitEntry {
    /// Which breakpoint.
    pub breakpoint: stepframe_core::BreakpointId,
    /// The tick it hit at (pending tick for fixed hooks, as the debugger
    /// records it; completed ticks for a clock rule).
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

/// One object as the viewport and hierarchy need it.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectView {
    /// Stable id.
    pub id: ObjectId,
    /// Display name.
    pub name: String,
    /// Parent in the hierarchy.
    pub parent: Option<ObjectId>,
    /// Whether callbacks run for it.
    pub enabled: bool,
    /// The pose to draw: interpolated while running, exactly the committed pose
    /// while suspended.
    pub presentation: Pose,
    /// `physics_simulation_pose`: the committed world pose of the completed tick.
    pub committed: Pose,
    /// Where an edit queued since the tick (a drag in the viewport, the
    /// inspector's pose) puts the body at the next reconcile: the viewport
    /// draws it there while suspended, so a dropped body stays where it
    /// was dropped instead of jumping back until the session steps.
    pub moved_to: Option<Pose>,
    /// Body kind and shapes, if it has a body.
    pub body: Option<BodyView>,
    /// Its behaviours' registered names, in dispatch order: the hierarchy's
    /// filter finds "every Script" without asking the worker for each
    /// object's inspector data.
    pub behaviours: Vec<String>,
}

/// What the viewport draws of a body.
#[derive(Clone, Debug, PartialEq)]
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
#[derive(Clone, Debug, PartialEq)]
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
#[derive(Clone, Debug, PartialEq)]
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
    /// The same behaviours as they are now (at the viewed tick): hooks,
    /// whether started or faulted, and their state.
    pub states: Vec<BehaviourState>,
    /// Inspector edits queued since the last tick, waiting for its reconcile.
    pub pending_edits: Vec<String>,
}

/// The state of the session, published after every worker frame or command
/// (the live view), or rebuilt for a past tick ([`Command::ViewTick`](super::Command::ViewTick)). Latest
/// wins: the UI may skip views, never telemetry or events.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldView {
    /// Increases with every publish; the UI uses it to tell views apart.
    pub revision: u64,
    /// `None` for the live session; `Some(T)` for the session as it was at the
    /// end of completed tick T (every field then describes that moment).
    pub at_tick: Option<u64>,
    /// The clock after the frame (completed-tick values), with the accumulator.
    pub clock: Clock,
    /// Time settings as chosen (they apply at the next frame boundary).
    pub settings: TimeSettings,
    /// The worker's display rate.
    pub pacing: Pacing,
    /// Why the session is suspended, if it is.
    pub suspension: Option<Suspension>,
    /// The scene file of the session, if it came from one.
    pub scene_path: Option<PathBuf>,
    /// Live objects in id order.
    pub objects: Vec<ObjectView>,
    /// Pairs touching at the end of the completed tick, in id order.
    pub contacts: Vec<(ObjectId, ObjectId)>,
    /// Camera centre set by a presentation hook (FollowCamera), if any.
    pub camera: Option<stepframe_core::Vec2>,
    /// Breakpoints with their match counts and their objects' names.
    pub breakpoints: Vec<BreakpointView>,
    /// The clock breakpoints, in creation order (ids shared with the above).
    pub clock_breakpoints: Vec<ClockBreakpoint>,
    /// The most recent breakpoint hits (hook and clock), oldest first, each
    /// labelled as it was recorded.
    pub hits: Vec<HitEntry>,
    /// The object the inspector shows (the worker's selection), whether or
    /// not it is alive at this view's tick.
    pub selection: Option<ObjectId>,
    /// The inspector's object, if alive at this view's tick.
    pub selected: Option<SelectedView>,
    /// Stable hash of the committed state after the last tick (0 before the first).
    pub state_hash: u64,
    /// Action names and the keys bound to them, for the viewport's help line.
    pub actions: Vec<(String, Vec<String>)>,
    /// Outer frames per second the worker ran over its last 60 frames (its own
    /// pacing, independent of the UI's repaints); `None` before any frame.
    pub worker_fps: Option<f64>,
    /// The input tape: what every tick of the session's branch received, tick
    /// by tick (shared, not copied, from view to view). Its `ticks` may lag
    /// the clock: ticks without input are not written into it.
    pub tape: Arc<Recording>,
    /// The input tape in force (Resume from here with an edited tape), whose
    /// edges after the current tick are still to be replayed.
    pub tape_in_force: Option<Arc<Recording>>,
    /// The session's scripts as the code pane shows them.
    pub scripts: ScriptsView,
    /// How far back rewind reaches now, and how far its budget reaches
    /// ("history holds 26 s; budget reaches ≈ 9 min at this rate").
    pub rewind: RewindReach,
    /// Run B of a comparison or a what-if fork, while there is one.
    pub run_b: Option<RunB>,
    /// The Input tab's edited tape, waiting for Resume from here (the
    /// worker keeps it, so every Resume from here replays it).
    pub tape_draft: Option<Arc<Recording>>,
    /// What Edit → Undo and Redo would do now (the worker's history holds
    /// the stacks; the menu only shows them).
    pub undo: UndoView,
}

/// The next undo and redo of the live session, in words ("pose of Ball
/// (#1)"), for the Edit menu's items and their tooltips.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UndoView {
    /// The edit Undo takes out, if one was made where the session stands.
    pub undo: Option<String>,
    /// The edit Redo applies again, if one was undone there.
    pub redo: Option<String>,
}

/// Run B as the worker holds it: what it is and where A and B first part.
/// B's records and every measured tick arrive as events
/// ([`Event::Comparing`](super::Event::Comparing),
/// [`Event::ForkTicks`](super::Event::ForkTicks),
/// [`Event::Divergence`](super::Event::Divergence)).
#[derive(Clone, Debug, PartialEq)]
pub struct RunB {
    /// The file name, "this run, ticks 1–600", or "branch B, forked at tick 423".
    pub name: String,
    /// The tick a what-if fork was made at; `None` for a comparison.
    pub forked_at: Option<u64>,
    /// The first measured tick where something differs.
    pub first: Option<TickDivergence>,
}

/// What the code pane reads of the session's scripts (the worker's
/// [`stepframe_plugins::ScriptHost`]), published with every view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScriptsView {
    /// Line breakpoints of every script, by key, in key order.
    pub breakpoints: Vec<(String, Vec<LineBreakpoint>)>,
    /// The newest script breakpoint hit (what a script-breakpoint suspension
    /// stopped at).
    pub last_hit: Option<ScriptHit>,
    /// Every script the session has loaded, in key order.
    pub loaded: Vec<LoadedScript>,
    /// The last [`ScriptCommand::Edit`](super::ScriptCommand::Edit) that was rejected, if no edit of that
    /// line succeeded since: (key, line, why).
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
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedScript {
    /// Its key.
    pub key: String,
    /// The text of the program in force (what its line numbers refer to).
    pub text: Arc<str>,
    /// The last failed compile, if no good one came after it.
    pub compile_error: Option<ScriptError>,
    /// Which engine each hook function runs on.
    pub engines: Vec<HookEngine>,
}
