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
//! | module | concept |
//! |---|---|
//! | [`clock`] | exact integer time ([`Flicks`]) and the eight clock fields |
//! | [`stepper`] | accumulator and step-counting strategies, the step cap |
//! | [`schedule`] | priorities, the frozen cohort, registration handles |
//! | [`behaviour`] | the hooks user code implements and their context |
//! | [`pipeline`] | `step_frame`, suspension, snapshots, parameter edits |
//! | [`report`] | what one call did, and the wall time of each phase |
//! | [`debugger`] | breakpoints and where the session suspends |
//! | [`clock_breakpoint`] | breakpoints on the shape of a frame or a tick |
//! | [`physics`] | the physics stage slot of the fixed tick |
//! | [`rapier_stage`] | the rapier2d engine in that slot: bodies, substeps, contacts, snapshots |
//! | [`body`] | poses, body descriptions, body commands, contacts |
//! | [`soft_body`] | authored soft bodies: rest shapes, materials, their checks |
//! | [`soft_pose`] | a soft body's committed particles and the pose read from them |
//! | [`limits`] | what physics can take: the `f32` limits bodies and commands stay within |
//! | [`object`] | what an object is made of, and its description |
//! | [`world`] | objects, the hierarchy, committed poses, the queues hooks write into |
//! | [`input`] | devices, action maps, frame and simulation snapshots |
//! | [`trace`] | tick records and the stable state hash |
//! | [`telemetry`] | per-frame records in a bounded ring (the timeline's data) |
//! | [`history`] | keyframes, the call log and exact rewind; per-tick pose history |
//! | [`pacing`] | frame deltas for headless runs: a rate, a seeded irregular sequence, a file, stalls |
//! | [`drive`] | a headless frame run to its end, resumed as needed, its reports merged |
//! | [`sync_test`] | rollback and re-simulation after every frame: proof a snapshot holds all state |
//! | [`scene`] | RON scenes, the behaviour registry, loading a session |
//! | [`trace_writer`] | the JSON Lines trace and the per-frame telemetry (JSONL, CSV) |
//! | [`export`] | a telemetry range as a Chrome trace (Perfetto) or CSV |
//! | [`recording`] | tick-stamped input recordings: record, save, load, replay |
//! | [`atomic_file`] | writing a file so it is always the old or the new one |

pub mod alloc_count;
pub mod atomic_file;
pub mod behaviour;
pub mod body;
pub mod clock;
pub mod clock_breakpoint;
pub mod debugger;
pub mod drive;
pub mod export;
pub mod history;
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
pub mod stepper;
pub mod sync_test;
pub mod telemetry;
pub mod trace;
pub mod trace_writer;
pub mod world;

pub use behaviour::{
    Behaviour, BehaviourState, CloneBehaviour, CloneRoutine, Ctx, HookKind, Hooks, Rng, Routine,
    TimeGroup, Wait,
};
pub use body::{
    BodyCommand, BodyDesc, BodyKind, ContactEvent, ContactKind, Interpolation, Pose, Shape, Vec2,
    Velocity,
};
pub use clock::{Clock, FLICKS_PER_SECOND, Flicks, Phase};
pub use clock_breakpoint::{ClockBreakpoint, ClockHit, ClockRule};
pub use debugger::{
    Breakpoint, BreakpointHit, BreakpointId, Condition, Debugger, HitCount, SuspendReason,
    Suspension,
};
pub use drive::{FrameNeverEnds, WholeFrame, finish_frame, run_frame};
pub use export::{chrome_trace, frame_range};
pub use history::{History, PoseHistory, RewindError, RewindReach, TickPoses};
pub use input::{ActionBinding, ActionMap, ActionSnapshot, Input, InputEvent, InputSource};
pub use pacing::{FramePacer, Pacing, PacingError, Stall};
pub use physics::{NoPhysics, PhysicsStage};
pub use pipeline::{
    FaultPolicy, FrameKind, FrameReport, ParamsEditError, PhaseTiming, Pipeline, PriorityTimes,
    Snapshot, TickInputSource, TickWatch, TimeSettings,
};
pub use rapier_stage::RapierStage;
pub use recording::{RecordedEvent, Recorder, Recording, RecordingError, Replay};
pub use scene::{
    ParamsError, Registry, Scene, SceneBehaviour, SceneError, SceneObject, WorldSettings,
};
pub use schedule::{NamedPriority, Priority, Registration, Scheduler};
pub use soft_body::{SoftBodyDesc, SoftMaterial, SoftPiece, SoftShape, SoftTear, Spring};
pub use soft_pose::{SoftOutline, SoftState, soft_pose};
pub use stepper::{Advance, FixedStepper, StepStrategy};
pub use sync_test::{SyncFailure, SyncTest};
pub use telemetry::{FrameRecord, Telemetry};
pub use trace::{StableHasher, SubsystemHashes, SubsystemState, TickObserver, TickRecord};
pub use trace_writer::{
    TelemetryFormat, TelemetryWriter, TraceWriter, write_trace_line,
    write_trace_line_with_subsystems,
};
pub use world::{
    BehaviourInfo, LogEntry, LogLevel, Object, ObjectDesc, ObjectId, QueuedCommand, World,
};
