//! [`Ctx`], what a hook reads and writes: its object, the clock, the
//! input, the world's committed poses, body commands, the random stream,
//! routines, the log and break requests; and what a hook asks of the
//! pipeline ([`HookRequests`]), drained after it returns.

use super::{Rng, Routine, RoutineBody, RoutineSlot};
use crate::body::BodyCommand;
use crate::clock::{Clock, Flicks};
use crate::geometry::{Pose, Vec2, Velocity};
use crate::ids::{HookKind, ObjectId, TimeGroup};
use crate::input::ActionSnapshot;
use crate::object::Object;
use crate::world::{LogEntry, LogLevel, World};

/// Requests a hook made of the pipeline (break, new routine): drained after the hook.
#[derive(Debug, Default)]
pub(crate) struct HookRequests {
    /// Set with any request below: dispatch checks this one flag per call.
    pub(crate) any: bool,
    /// `Ctx::request_break` message.
    pub(crate) break_request: Option<String>,
    /// Set by `Ctx::request_break_and_rerun`: an update-phase hook undid its own
    /// effects and must run again when the session resumes.
    pub(crate) rerun: bool,
    /// Routines started by the hook.
    pub(crate) routines: Vec<RoutineSlot>,
    /// Set by `Ctx::hooks_changed`: some behaviour's
    /// [`Behaviour::hooks`](super::Behaviour::hooks) now answers differently
    /// (a script reloaded with other hook functions).
    pub(crate) hooks_changed: bool,
}

/// Everything a hook can read and write.
pub struct Ctx<'a> {
    pub(crate) world: &'a mut World,
    pub(crate) clock: &'a Clock,
    pub(crate) input: &'a ActionSnapshot,
    pub(crate) rng: &'a mut Rng,
    pub(crate) requests: &'a mut HookRequests,
    pub(crate) caller: Caller,
    pub(crate) hook: HookKind,
}

/// Whose code a [`Ctx`] runs: the object, and the sequence number of the
/// scheduler entry (0: none, as in a boxed routine), which is where a named
/// routine comes back to. One 16-byte value, so the FixedUpdate pass sets
/// both with one copy from its packed call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Caller {
    pub(crate) object: ObjectId,
    pub(crate) seq: u64,
}

impl<'a> Ctx<'a> {
    /// The one place a hook's context is put together (the FixedUpdate pass,
    /// routines and single hook calls all come here), so a new field of the
    /// context is set the same way for every hook.
    pub(crate) fn new(
        world: &'a mut World,
        clock: &'a Clock,
        input: &'a ActionSnapshot,
        rng: &'a mut Rng,
        requests: &'a mut HookRequests,
        caller: Caller,
        hook: HookKind,
    ) -> Ctx<'a> {
        Ctx {
            world,
            clock,
            input,
            rng,
            requests,
            caller,
            hook,
        }
    }

    /// The object this hook belongs to.
    pub fn me(&self) -> ObjectId {
        self.caller.object
    }

    /// The hook that is running.
    pub fn hook(&self) -> HookKind {
        self.hook
    }

    /// The clock as of this phase (see [`crate::clock`] for the per-phase meaning).
    pub fn clock(&self) -> &Clock {
        self.clock
    }

    /// The input snapshot of this phase: simulation snapshot in fixed hooks,
    /// outer-frame snapshot elsewhere.
    pub fn input(&self) -> &ActionSnapshot {
        self.input
    }

    /// Read access to every object.
    pub fn world(&self) -> &World {
        self.world
    }

    /// This object.
    pub fn object(&self) -> Option<&Object> {
        self.world.get(self.caller.object)
    }

    /// A copy of an object's committed world pose ([`World::physics_simulation_pose`]).
    pub fn physics_simulation_pose(&self, id: ObjectId) -> Option<Pose> {
        self.world.physics_simulation_pose(id)
    }

    /// The committed particle positions of a soft body (world space, every
    /// piece, the kept piece first), `None` for an object without one: what
    /// its pose is made from ([`crate::soft_pose()`]). A borrow of the world's
    /// copy, so reading them every tick allocates nothing.
    pub fn soft_particles(&self, id: ObjectId) -> Option<&[Vec2]> {
        self.world.soft_particles(id)
    }

    /// Committed velocity of an object's body.
    pub fn velocity(&self, id: ObjectId) -> Option<Velocity> {
        self.world.get(id)?.body.as_ref().map(|b| b.velocity)
    }

    /// The pose presentation draws for an object ([`World::presentation_pose`]
    /// at this clock's `interpolation_alpha`). Meaningful in the presentation
    /// phase, where alpha has just been set; elsewhere it uses the last frame's.
    pub fn presentation_pose(&self, id: ObjectId) -> Option<Pose> {
        self.world.presentation_pose(
            id,
            self.clock.interpolation_alpha,
            self.clock.fixed_delta_time,
        )
    }

    /// Centres the camera (`World::camera`): what a presentation hook such as a
    /// follow camera writes. Not simulation state, so it never enters the hash.
    pub fn set_camera(&mut self, centre: Vec2) {
        self.world.camera = Some(centre);
    }

    /// The session's deterministic random generator.
    pub fn rng(&mut self) -> &mut Rng {
        self.rng
    }

    fn push(&mut self, command: BodyCommand) -> bool {
        let (tick, frame) = (self.clock.simulation_tick, self.clock.frame_index);
        self.world
            .command_from(command, Some(self.hook), tick, frame)
    }

    /// A continuous force for the coming step, newtons (scaled by dt by physics).
    /// Returns false when rejected (non-finite).
    pub fn apply_force(&mut self, target: ObjectId, force: Vec2) -> bool {
        self.push(BodyCommand::Force { target, force })
    }

    /// An instantaneous impulse, N·s (not scaled by dt).
    pub fn apply_impulse(&mut self, target: ObjectId, impulse: Vec2) -> bool {
        self.push(BodyCommand::Impulse { target, impulse })
    }

    /// Where a kinematic body must be after the coming step.
    pub fn set_kinematic_target(&mut self, target: ObjectId, pose: Pose) -> bool {
        self.push(BodyCommand::KinematicTarget { target, pose })
    }

    /// Teleports a body before the coming step.
    pub fn set_pose(&mut self, target: ObjectId, pose: Pose) -> bool {
        self.push(BodyCommand::SetPose { target, pose })
    }

    /// Overwrites a body's velocity before the coming step.
    pub fn set_velocity(&mut self, target: ObjectId, velocity: Velocity) -> bool {
        self.push(BodyCommand::SetVelocity { target, velocity })
    }

    /// Removes an object: no further callback reaches it, even in this tick.
    pub fn remove(&mut self, id: ObjectId) {
        self.world.remove(id);
    }

    /// Enables or disables an object, effective for the next callback.
    pub fn set_enabled(&mut self, id: ObjectId, enabled: bool) {
        self.world.set_enabled(id, enabled);
    }

    /// This object's time group: the clock its routines wait on (the frame
    /// clock unless the scene says `time_group: Fixed`).
    pub fn time_group(&self) -> TimeGroup {
        self.world
            .get(self.caller.object)
            .map_or_else(TimeGroup::default, |o| o.time_group)
    }

    /// Starts a routine on the given time group (normally [`Ctx::time_group`]).
    /// A routine started from FixedUpdate still waits on the frame clock
    /// unless `group` says otherwise. Its first slice runs when the group's
    /// clock next passes the routines of this phase (the same frame's routine
    /// pass if it has not run yet, else the next).
    pub fn start_routine(&mut self, group: TimeGroup, routine: Box<dyn Routine>) {
        self.requests.any = true;
        self.requests.routines.push(RoutineSlot {
            owner: self.caller.object,
            group,
            wake_at: Flicks::ZERO,
            delay: 0.0,
            routine: RoutineBody::Boxed(routine),
        });
    }

    /// Starts a named routine of the running behaviour on this object's time
    /// group: after `seconds` of that clock (the frame clock by default, even
    /// when started from FixedUpdate), the pipeline calls
    /// [`Behaviour::routine`](super::Behaviour::routine) with `name`, and the
    /// [`Wait`](super::Wait) it returns says when to call it again. Outside a
    /// behaviour's own code (in a boxed
    /// routine) there is no behaviour to call back: the request is logged
    /// and dropped. A negative or non-finite `seconds` counts as 0.
    pub fn start_named_routine(&mut self, name: &str, seconds: f64) {
        if self.caller.seq == 0 {
            self.log_at(
                LogLevel::Warning,
                format!("named routine `{name}` started outside a behaviour's hook: ignored"),
            );
            return;
        }
        let group = self.time_group();
        self.requests.any = true;
        self.requests.routines.push(RoutineSlot {
            owner: self.caller.object,
            group,
            wake_at: Flicks::ZERO,
            delay: seconds,
            routine: RoutineBody::Named {
                entry: self.caller.seq,
                name: std::sync::Arc::from(name),
            },
        });
    }

    /// Tells the pipeline that this behaviour's
    /// [`Behaviour::hooks`](super::Behaviour::hooks) changed (a script
    /// hot-reloaded with a different set of hook functions): dispatch
    /// lists are rebuilt before the fixed phase of this frame (or, from a fixed
    /// or presentation hook, at the next frame boundary), so a hook the
    /// behaviour gained runs and one it lost is no longer called, timed or hit
    /// by breakpoints.
    pub fn hooks_changed(&mut self) {
        self.requests.any = true;
        self.requests.hooks_changed = true;
    }

    /// Writes a line to the log, stamped with object, hook, tick and frame.
    pub fn log(&mut self, message: impl Into<String>) {
        self.log_at(LogLevel::Info, message);
    }

    /// Writes a line at a level.
    pub fn log_at(&mut self, level: LogLevel, message: impl Into<String>) {
        let entry = LogEntry {
            level,
            object: Some(self.caller.object),
            hook: Some(self.hook),
            tick: self.clock.simulation_tick,
            frame: self.clock.frame_index,
            message: message.into(),
        };
        self.world.log(entry);
    }

    /// Asks the debugger to break: in fixed hooks at the end of this tick, in
    /// other hooks right after this hook returns.
    pub fn request_break(&mut self, reason: impl Into<String>) {
        self.requests.break_request = Some(reason.into());
        self.requests.any = true;
    }

    /// Asks the debugger to break BEFORE this hook, as a Start/Update breakpoint
    /// does: in update-phase hooks (Start, Update, Flow Tick) the session
    /// suspends with this call still pending, and resume calls the hook again
    /// (a Start hook is not marked started). The hook must have left no effect
    /// behind (no body command, spawn, log or state change): the pipeline cannot
    /// undo writes. Script behaviours use it to stop at a line breakpoint: they
    /// abort the script, roll its state back, and run it again on resume. In
    /// other hooks it is [`Ctx::request_break`].
    pub fn request_break_and_rerun(&mut self, reason: impl Into<String>) {
        self.requests.break_request = Some(reason.into());
        self.requests.rerun = true;
        self.requests.any = true;
    }
}
