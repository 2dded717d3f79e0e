//! stepframe-core: the game-loop runtime behind the stepframe editor and player.
//!
//! One function, [`Pipeline::step_frame`], runs an outer frame: the update phase
//! (Start, Update, frame routines), the fixed phase (zero or more ticks, each
//! FixedUpdate in priority order immediately before a physics step, with a
//! capped accumulator that reports dropped time), Flow Tick (on the update
//! phase's frame clock, after the fixed phase, so a fixed breakpoint skips it
//! with the rest of its frame) and the presentation phase (interpolated poses). The contract it implements is restated in each
//! module's docs, with worked numbers.
//!
//! # Module map, bottom up
//!
//! The modules form layers: each one uses only modules in rows above its
//! own in this table, never one below it (the test `tests/structure/layering.rs`
//! checks this order against the sources). A reader can learn
//! the crate from the top of the table down; a change to a module can only
//! break the modules after it.
//!
//! | module | concept | its files under `module/` |
//! |---|---|---|
//! | **0: leaves** | | |
//! | [`ids`] | the names everything refers to: object ids, priorities, hook kinds, time groups | |
//! | [`geometry`] | vectors, poses and velocities in the plane | |
//! | [`clock`] | exact integer time ([`Flicks`]) and the eight clock fields | |
//! | [`hash`] | the fixed-seed hasher behind every state hash | |
//! | [`atomic_file`] | writing a file so it is always the old or the new one | |
//! | [`binary_form`] | which form a value is serialized in: a file a person reads, or a binary frame that keeps every field | |
//! | [`file_error`] | why a recording or a trace file could not be read, written or understood | |
//! | **1: descriptions and rules** | | |
//! | [`stepper`] | accumulator and step-counting strategies, the step cap | |
//! | [`input`] | devices, action maps, frame and simulation snapshots; the key and button names a scene may bind | `keys` |
//! | [`condition`] | what every breakpoint shares: id, clock condition, hit count | |
//! | [`clock_breakpoint`] | breakpoints on the shape of a frame or a tick | |
//! | [`debugger`] | breakpoints and where the session suspends | |
//! | [`hook_beacon`] | which hook runs now, read from another thread (a stuck hook's watchdog) | |
//! | [`report`] | what one call did, and the wall time of each phase | |
//! | [`flame`] | where one call's wall time went, as nested zones (coarse live, fine in replays) | |
//! | [`soft_body`] | authored soft bodies: rest shapes, materials, their checks | `check` |
//! | [`body`] | body descriptions, body commands, contacts | |
//! | [`soft_pose`](mod@soft_pose) | a soft body's committed particles and the pose read from them | |
//! | [`limits`] | what physics can take: the `f32` limits bodies and commands stay within | `command` |
//! | **2: the world** | | |
//! | [`object`] | what an object is made of | |
//! | [`world`] | objects, the hierarchy, committed poses, the queues hooks write into | `log` |
//! | [`trace`] | tick records and the stable state hash | |
//! | **3: user code and physics on the world** | | |
//! | [`behaviour`](mod@behaviour) | the hooks user code implements and their context; the inspector's field table; the derived name, state hash and parameter adoption; the mid-step hook's pair and its dispatcher | `ctx`, `derived`, `fields`, `mid_step` |
//! | [`physics`] | the physics stage slot of the fixed tick | |
//! | [`spawn`] | object descriptions and spawning: the world's data, the scheduler's behaviours | |
//! | [`schedule`] | the frozen cohort, dispatch lists, registration handles | |
//! | [`rapier_stage`] | the rapier2d engine in that slot: bodies, substeps, contacts, the mid-step hooks, the commit, snapshots | `bodies`, `commit`, `engine_bytes`, `events`, `link`, `mid_step`, `soft`, `step` |
//! | [`pacing`] | frame deltas for headless runs: a rate, a seeded irregular sequence, a file, stalls | |
//! | **4: the pipeline** | | |
//! | [`pipeline`] | `step_frame`, suspension, snapshots, reading and reaching into behaviours | `dispatch`, `drive`, `inspect`, `mid_step`, `params`, `settings`, `snapshot` |
//! | **5: what drives, records and reads a pipeline** | | |
//! | [`headless`] | a frame with nobody at the controls, run to its end (resumed as needed, its reports merged); a run to a tick | |
//! | [`telemetry`] | per-frame records in a bounded ring (the timeline's data) | |
//! | [`trace_writer`] | the JSON Lines trace and the per-frame telemetry (JSONL, CSV) | `telemetry_file` |
//! | [`scene`] | RON scenes, the behaviour registry, loading a session, parameter edits and what each parameter is, saving edits into the file in place | `io`, `params`, `param_kinds`, `registry`, `spans`, `text`, `rewrite`, `validate` |
//! | [`edit`] | changes made from outside the hooks, as data: poses, velocities, enabling, parameters, spawns, removals, settings; folding them into a scene for Save | `fold` |
//! | [`recording`] | tick-stamped input recordings and session recordings (input and edits): record, save, load, replay, edit as a tape | `file`, `replay`, `tape` |
//! | [`history`] | the session that owns a pipeline and its history, the only way to drive one that rewinds; keyframes, the call log and exact rewind; undo and redo of edits; a past frame replayed with flame zones; per-tick pose history | `bounds`, `calls`, `compact`, `frame_replay`, `poses`, `reach`, `rewind`, `session`, `undo` |
//! | [`sync_test`] | a session that rolls back and re-simulates as it advances, as GGRS's does: proof a snapshot holds all state | |
//! | [`export`] | a telemetry range as a Chrome trace (Perfetto) or CSV | `chrome`, `csv` |
//!
//! Each item has one path: the module that owns it (and, for the items
//! every user needs, the crate root).

#![warn(missing_docs)]

pub mod atomic_file;
pub mod behaviour;
pub mod binary_form;
pub mod body;
pub mod clock;
pub mod clock_breakpoint;
pub mod condition;
pub mod debugger;
pub mod edit;
pub mod export;
pub mod file_error;
pub mod flame;
pub mod geometry;
pub mod hash;
pub mod headless;
pub mod history;
pub mod hook_beacon;
pub mod ids;
pub mod input;
pub mod limits;
pub mod object;
pub mod pacing;
pub mod physics;
pub mod pipeline;
pub mod rapier_stage;
pub mod recording;
pub mod report;
pub mod scene;
pub mod schedule;
pub mod soft_body;
pub mod soft_pose;
pub mod spawn;
pub mod stepper;
pub mod sync_test;
pub mod telemetry;
pub mod trace;
pub mod trace_writer;
pub mod world;

pub use behaviour::mid_step::{MidStepPair, MidStepPoint};
pub use behaviour::{
    Behaviour, BehaviourState, CloneBehaviour, CloneRoutine, Ctx, Field, FieldValue, Fields,
    Inspect, Named, Reload, Rng, Routine, Wait,
};
pub use body::{BodyCommand, BodyDesc, BodyKind, ContactEvent, ContactKind, Interpolation, Shape};
pub use clock::{Clock, FLICKS_PER_SECOND, Flicks, Phase};
pub use clock_breakpoint::{
    ClockBreakpoint, ClockHit, ClockRule, ClockRuleError, ManualTime, WallClock,
};
pub use condition::{BreakpointId, Condition, HitCount};
pub use debugger::{Breakpoint, BreakpointHit, Debugger, SuspendReason, Suspension};
pub use edit::{Edit, EditError, Folded, PreparedEdit};
pub use export::{chrome_trace, frame_range};
pub use file_error::FileError;
pub use flame::{FrameZones, Zone, ZoneDetail, ZoneKind, ZoneRing};
pub use geometry::{Pose, Vec2, Velocity};
pub use hash::StableHasher;
pub use headless::{FrameNeverEnds, WholeFrame, finish_frame, run_frame, run_to_tick};
pub use history::{History, PoseHistory, RewindError, RewindReach, Session, TickPoses, UndoError};
pub use hook_beacon::{HookBeacon, HookCall};
pub use ids::ObjectId;
pub use ids::{HookKind, Hooks, TimeGroup};
pub use ids::{NamedPriority, Priority};
pub use input::{ActionBinding, ActionMap, ActionSnapshot, Input, InputEvent, InputSource};
pub use limits::BodyError;
pub use object::{BehaviourInfo, Object};
pub use pacing::{FramePacer, Pacing, PacingError, PacingSyntax, Stall};
pub use physics::{EngineBytesError, NoPhysics, PhysicsStage};
pub use pipeline::{
    ClockChange, FaultPolicy, FrameKind, FrameReport, PhaseTiming, Pipeline, PriorityTimes,
    SettingsError, Snapshot, TickInputSource, TickWatch, TimeSettings,
};
pub use rapier_stage::RapierStage;
pub use recording::{RecordedEdit, RecordedEvent, Recorder, Recording, Replay};
pub use scene::{
    InPlace, ParamsEditError, ParamsError, Registry, Scene, SceneBehaviour, SceneError,
    SceneErrorKind, SceneObject, WorldSettings,
};
pub use schedule::{Registration, Scheduler};
pub use soft_body::{
    SoftBodyDesc, SoftBodyError, SoftMaterial, SoftPiece, SoftShape, SoftTear, Spring,
};
pub use soft_pose::{SoftOutline, SoftState, soft_pose};
pub use spawn::ObjectDesc;
/// `#[stepframe_core::behaviour]` on an `impl Behaviour for T` block: the
/// hook set and the inspector's table derived from the code (see
/// [`behaviour`](mod@behaviour)).
pub use stepframe_macros::behaviour;
pub use stepper::{Advance, FixedStepper, StepStrategy, UnknownStrategy};
pub use sync_test::{SyncFailure, SyncTest};
pub use telemetry::{FrameRecord, Telemetry};
pub use trace::{SubsystemHashes, SubsystemState, TickObserver, TickRecord};
pub use trace_writer::{
    TelemetryFormat, TelemetryWriter, TraceWriter, write_trace_line,
    write_trace_line_with_subsystems,
};
pub use world::{LogEntry, LogLevel, QueuedCommand, World};
