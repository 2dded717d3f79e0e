//! Objects, their committed poses, and the queues hooks write into.
//!
//! The world is plain data (cloneable, so a snapshot is a copy). Objects live in a
//! vector sorted by [`ObjectId`]: scene ids are sorted on load and spawned ids are
//! always larger than every existing one, so lookups are a binary search and every
//! iteration is in id order (never a hash order, so traces are stable).
//!
//! Removal takes effect at once for callbacks (the object is marked dead, and the
//! scheduler checks that flag before every call), while the slot itself is
//! reclaimed at the next outer frame boundary, when the cohort is rebuilt.
//!
//! # Enabled, and active in the hierarchy
//!
//! Each object has its own `enabled` flag (Unity's `activeSelf`), and is
//! *active* (Unity's `activeInHierarchy`) while it and every ancestor are
//! enabled. Only active objects get callbacks, and only active objects' bodies
//! simulate: disabling a parent takes its whole subtree out, hooks and bodies,
//! until it is enabled again, and each child then goes back to its own flag (a
//! child disabled on its own stays disabled). A body taken out keeps its pose
//! and velocity and is not in the physics engine's broad phase (its contacts
//! stop; the partner hears `Stopped`); it simulates on from the same state when
//! its subtree is enabled again. It is still in the trace's `poses`, frozen,
//! because the object and its body still exist. The change takes effect for
//! the very next callback, and for bodies at the next reconcile (before the
//! next physics step).

use crate::body::{BodyCommand, Interpolation};
use crate::geometry::Pose;
use crate::ids::HookKind;
use crate::ids::ObjectId;
use crate::limits::BodyError;

mod log;
use crate::object::{BehaviourInfo, Object};
use crate::soft_pose::SoftState;
pub use log::{LogEntry, LogLevel};

/// The hot part of an object's slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key {
    id: ObjectId,
    /// Not removed.
    alive: bool,
    /// Alive and enabled.
    active: bool,
}

/// A body command waiting for the next reconcile, with the hook that wrote it,
/// so a physics stage that refuses it (its result would not be finite) can
/// report it the way a non-finite write is reported: object, hook, tick.
#[derive(Clone, Debug, PartialEq)]
pub struct QueuedCommand {
    /// The command.
    pub command: BodyCommand,
    /// The hook that queued it (`None` for editor edits and host code).
    pub hook: Option<HookKind>,
}

/// A behaviour of an object spawned since the last frame boundary, waiting
/// for the scheduler to admit it into the cohort. The world holds it and
/// never calls it, so it sees no more of it than this: a copy for a
/// snapshot, and a way back to what it is. The one implementation is
/// `spawn::Joining` (a behaviour, its object and its priority), which the
/// layer above reads back with a downcast: the world sits below the
/// behaviour API (whose context borrows the world), so it cannot name it.
pub(crate) trait Waiting: std::any::Any + Send + std::fmt::Debug {
    /// A boxed copy with the behaviour's current state.
    fn clone_waiting(&self) -> Box<dyn Waiting>;
}

/// The objects and the per-tick queues between hooks and physics.
#[derive(Default, Debug)]
pub struct World {
    /// Sorted by id; dead objects linger until the next frame boundary.
    objects: Vec<Object>,
    /// Parallel to `objects`: id and "callable" flag only, 16 bytes a slot, so
    /// the per-callback gate check and id lookups stay in cache (an `Object` is
    /// ~190 bytes; walking those for 10,000 callbacks cost 5x the dispatch).
    keys: Vec<Key>,
    /// Next id handed to an object spawned without one.
    next_id: u64,
    /// Body commands queued by hooks since the last reconcile.
    pub(crate) commands: Vec<QueuedCommand>,
    /// Objects whose body physics must create at the next reconcile.
    pub(crate) added_bodies: Vec<ObjectId>,
    /// Objects whose body physics must drop at the next reconcile.
    pub(crate) removed_bodies: Vec<ObjectId>,
    /// Objects with a body whose activity (in the hierarchy) changed since the
    /// last reconcile: physics takes their bodies out of, or back into, the
    /// simulation.
    pub(crate) toggled_bodies: Vec<ObjectId>,
    /// Behaviours of objects created since the last frame boundary.
    pub(crate) pending: Vec<Box<dyn Waiting>>,
    /// Log lines not yet drained by the host.
    pub(crate) log: Vec<LogEntry>,
    /// Objects removed since the last frame boundary (slots to reclaim).
    removed_count: usize,
    /// Slots holding a body (dead ones until compaction included).
    bodies: usize,
    /// Camera centre set by a presentation hook (FollowCamera), if any.
    pub camera: Option<crate::geometry::Vec2>,
    /// `(tick, frame)` of the pipeline's clock as of its last phase change,
    /// for lines written where no clock is at hand ([`World::log_now`]).
    pub(crate) stamp: (u64, u64),
    /// Set whenever an object's "callable" flag may have changed (a removal,
    /// an activity change in the hierarchy), and by every new or cloned
    /// world; cleared by the scheduler once it has re-read the gates. While
    /// it stays clear, FixedUpdate dispatch skips the per-call gate check
    /// (see `Scheduler::fixed_gates`).
    pub(crate) gates_changed: GatesChanged,
}

/// [`World::gates_changed`]: true until the scheduler has read the gates, so
/// a world made any way (new, default, cloned) starts out "changed".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GatesChanged(pub(crate) bool);

impl Default for GatesChanged {
    fn default() -> GatesChanged {
        GatesChanged(true)
    }
}

impl Clone for World {
    fn clone(&self) -> World {
        World {
            objects: self.objects.clone(),
            keys: self.keys.clone(),
            next_id: self.next_id,
            commands: self.commands.clone(),
            added_bodies: self.added_bodies.clone(),
            removed_bodies: self.removed_bodies.clone(),
            toggled_bodies: self.toggled_bodies.clone(),
            pending: self.pending.iter().map(|p| p.clone_waiting()).collect(),
            log: self.log.clone(),
            removed_count: self.removed_count,
            bodies: self.bodies,
            camera: self.camera,
            stamp: self.stamp,
            // A copy may be paired with any scheduler: it makes it re-read.
            gates_changed: GatesChanged(true),
        }
    }
}

impl World {
    /// An empty world.
    pub fn new() -> World {
        World {
            next_id: 1,
            ..World::default()
        }
    }

    /// Puts `object` into the world under the id it asks for (`wanted`, if
    /// free) or the next free one, and queues its body for the next
    /// reconcile; [`World::spawn`] (in [`crate::spawn`]) is the public way in
    /// and queues the behaviours. A body physics cannot build
    /// ([`BodyDesc`](crate::BodyDesc)`::check`: an absurd size, a non-finite
    /// material) or whose world pose (the spawn pose composed with the
    /// parent's) does not fit in `f32` is refused: the error is logged and
    /// the object is created **without a body**, so it is not in the trace's
    /// `poses`, not in the hash's body state and never in the physics engine;
    /// its [`World::physics_simulation_pose`] is its authored transform (on
    /// its parent, if any). The alternative, keeping a body frozen at a
    /// finite authored pose, would put a body into every trace that physics
    /// never moves and that no command reaches.
    pub(crate) fn insert(&mut self, wanted: Option<ObjectId>, mut object: Object) -> ObjectId {
        let id = match wanted {
            // u64::MAX is reserved: the next free id must stay representable.
            Some(id) if id.0 < u64::MAX && self.slot(id).is_none() => id,
            _ => ObjectId(self.next_id),
        };
        self.next_id = self.next_id.max(id.0 + 1);
        object.id = id;
        if let Some(body) = object.body.as_mut() {
            // A body's spawn pose is world space: compose with a parent if there is one.
            let world_pose = match object.parent.and_then(|p| self.physics_simulation_pose(p)) {
                Some(parent) => parent.compose(object.local),
                None => object.local,
            };
            let refusal = match body.desc.check() {
                Err(reason) => Some(reason),
                Ok(()) if !world_pose.is_finite() => Some(BodyError::Placement(format!(
                    "its world pose does not fit in f32: {world_pose:?}"
                ))),
                Ok(()) => body.desc.check_placement(world_pose).err(),
            };
            if let Some(reason) = refusal {
                let message = format!(
                    "body not created: {reason}; object {id} `{}` lives on without a body",
                    object.name
                );
                self.log_now(LogLevel::Error, Some(id), None, message);
                object.body = None;
            } else {
                body.committed = world_pose;
                body.previous = world_pose;
                body.soft =
                    body.desc.soft.as_ref().map(|soft| {
                        Box::new(SoftState::at_rest(soft, world_pose, body.desc.velocity))
                    });
                self.added_bodies.push(id);
                self.bodies += 1;
            }
        }
        // Active in the hierarchy: enabled, under an active parent (or none).
        let parent_active = object.parent.is_none_or(|p| self.is_active(p));
        let key = Key {
            id,
            alive: true,
            active: object.enabled && parent_active,
        };
        match self.keys.binary_search_by_key(&id, |k| k.id) {
            Ok(_) => unreachable!("spawn picked a free id"),
            Err(at) => {
                self.objects.insert(at, object);
                self.keys.insert(at, key);
            }
        }
        id
    }

    /// Removes an object and its children. They get no further callback, even
    /// later in the current tick; their bodies go at the next reconcile.
    pub fn remove(&mut self, id: ObjectId) {
        let Some(slot) = self.slot(id) else { return };
        if !self.objects[slot].alive {
            return;
        }
        self.objects[slot].alive = false;
        self.keys[slot].active = false;
        self.keys[slot].alive = false;
        self.gates_changed = GatesChanged(true);
        self.removed_count += 1;
        if self.objects[slot].body.is_some() {
            self.removed_bodies.push(id);
        }
        // Children: scan is fine, removal is rare next to dispatch.
        let children: Vec<ObjectId> = self
            .objects
            .iter()
            .filter(|o| o.alive && o.parent == Some(id))
            .map(|o| o.id)
            .collect();
        for child in children {
            self.remove(child);
        }
    }

    /// Enables or disables an object (its own flag). Its subtree is active
    /// while it and every ancestor are enabled (see the module docs): takes
    /// effect for the very next callback, and for bodies at the next reconcile.
    pub fn set_enabled(&mut self, id: ObjectId, enabled: bool) {
        if let Some(slot) = self.slot(id)
            && self.objects[slot].alive
        {
            self.objects[slot].enabled = enabled;
            self.refresh_activity(slot);
        }
    }

    /// Recomputes whether the object in `slot` and its descendants are active
    /// in the hierarchy, noting the bodies whose activity changed. A scan per
    /// level of the subtree: toggling is rare next to dispatch.
    fn refresh_activity(&mut self, slot: usize) {
        let mut work = vec![slot];
        // Bounded by the number of objects, so a parent cycle (possible only
        // through direct edits of `Object::parent`) cannot loop forever.
        let mut budget = self.objects.len();
        while let Some(s) = work.pop() {
            if budget == 0 {
                break;
            }
            budget -= 1;
            let object = &self.objects[s];
            let parent_active = object.parent.is_none_or(|p| self.is_active(p));
            let active = object.alive && object.enabled && parent_active;
            if self.keys[s].active == active {
                continue;
            }
            self.keys[s].active = active;
            self.gates_changed = GatesChanged(true);
            if object.body.is_some() {
                self.toggled_bodies.push(object.id);
            }
            let id = object.id;
            work.extend(
                self.objects
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| o.alive && o.parent == Some(id))
                    .map(|(i, _)| i),
            );
        }
    }

    /// Whether the object is active in the hierarchy: alive, enabled, and
    /// every ancestor enabled (Unity's `activeInHierarchy`). Only active
    /// objects get callbacks and only their bodies simulate.
    pub fn is_active_in_hierarchy(&self, id: ObjectId) -> bool {
        self.is_active(id)
    }

    /// Bodies whose activity changed since the last reconcile (for the
    /// physics stage: take them out of the simulation, or put them back).
    pub fn take_toggled_bodies(&mut self, into: &mut Vec<ObjectId>) {
        into.append(&mut self.toggled_bodies);
    }

    /// Whether `id` names no object, live or removed this frame (a spawn
    /// asking for it gets it).
    pub fn id_is_free(&self, id: ObjectId) -> bool {
        id.0 != 0 && id.0 < u64::MAX && self.slot(id).is_none()
    }

    /// A live object.
    pub fn get(&self, id: ObjectId) -> Option<&Object> {
        self.slot(id).map(|s| &self.objects[s]).filter(|o| o.alive)
    }

    /// A live object, mutably (for physics commits and editor edits).
    pub fn get_mut(&mut self, id: ObjectId) -> Option<&mut Object> {
        let slot = self.slot(id)?;
        Some(&mut self.objects[slot]).filter(|o| o.alive)
    }

    /// Live objects in id order.
    pub fn objects(&self) -> impl Iterator<Item = &Object> {
        self.objects.iter().filter(|o| o.alive)
    }

    /// Live objects in id order, mutably.
    pub fn objects_mut(&mut self) -> impl Iterator<Item = &mut Object> {
        self.objects.iter_mut().filter(|o| o.alive)
    }

    /// Number of live objects.
    pub fn len(&self) -> usize {
        self.objects.len() - self.removed_count
    }

    /// Whether any object (alive, or removed this frame) has a body.
    pub fn has_bodies(&self) -> bool {
        self.bodies > 0
    }

    /// True when no object is alive.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether callbacks may run for this object right now, trying the slot
    /// `hint` first (the scheduler caches each entry's slot at the frame
    /// boundary; slots only move when the cohort is rebuilt).
    #[inline]
    pub(crate) fn is_active_hinted(&self, id: ObjectId, hint: usize) -> bool {
        match self.keys.get(hint) {
            Some(k) if k.id == id => k.active,
            _ => self.is_active(id),
        }
    }

    /// Whether the object is alive (enabled or not), trying the slot `hint` first.
    #[inline]
    pub(crate) fn is_alive_hinted(&self, id: ObjectId, hint: usize) -> bool {
        match self.keys.get(hint) {
            Some(k) if k.id == id => k.alive,
            _ => self.get(id).is_some(),
        }
    }

    /// The slot of an object (dead or alive), for scheduler hints.
    pub(crate) fn slot_of(&self, id: ObjectId) -> usize {
        self.slot(id).unwrap_or(usize::MAX)
    }

    /// Whether callbacks may run for this object right now.
    pub(crate) fn is_active(&self, id: ObjectId) -> bool {
        self.slot(id).is_some_and(|s| self.keys[s].active)
    }

    /// A copy of the committed world pose (contract: `physicsSimulationPose`).
    /// Bodies give their committed pose; a bodyless child composes its nearest
    /// physics ancestor's committed pose with the local offsets in between; an
    /// object with no physics ancestor gives its authored world transform.
    pub fn physics_simulation_pose(&self, id: ObjectId) -> Option<Pose> {
        let object = self.get(id)?;
        if let Some(body) = &object.body {
            return Some(body.committed);
        }
        Some(match object.parent {
            Some(parent) => match self.physics_simulation_pose(parent) {
                Some(p) => p.compose(object.local),
                None => object.local,
            },
            None => object.local,
        })
    }

    /// The committed particle positions of a soft body, `None` for an
    /// object without one (see [`crate::SoftState`] for the rest of what a
    /// soft body commits: previous particles, outline, pins, pieces).
    pub fn soft_particles(&self, id: ObjectId) -> Option<&[crate::geometry::Vec2]> {
        let soft = self.get(id)?.body.as_ref()?.soft.as_ref()?;
        Some(&soft.particles)
    }

    /// The pose presentation draws: bodies blend previous → committed by `alpha`
    /// (or extrapolate, or snap, per their interpolation mode); children follow
    /// their parent's presentation pose.
    pub fn presentation_pose(&self, id: ObjectId, alpha: f64, fixed_dt: f64) -> Option<Pose> {
        let object = self.get(id)?;
        if let Some(body) = &object.body {
            return Some(match body.desc.interpolation {
                Interpolation::None => body.committed,
                Interpolation::Interpolate => body.previous.lerp(body.committed, alpha as f32),
                Interpolation::Extrapolate => {
                    let t = (alpha * fixed_dt) as f32;
                    Pose {
                        x: body.committed.x + body.velocity.linear.x * t,
                        y: body.committed.y + body.velocity.linear.y * t,
                        angle: body.committed.angle + body.velocity.angular * t,
                    }
                }
            });
        }
        Some(match object.parent {
            Some(parent) => match self.presentation_pose(parent, alpha, fixed_dt) {
                Some(p) => p.compose(object.local),
                None => object.local,
            },
            None => object.local,
        })
    }

    /// Queues a behaviour for the scheduler's next frame boundary.
    pub(crate) fn hold(&mut self, waiting: Box<dyn Waiting>) {
        self.pending.push(waiting);
    }

    /// Queues a body command for the next reconcile. A command with a NaN or
    /// infinite number is rejected here, logged, and never reaches physics.
    /// (One whose *result* would not be finite, a huge impulse on a light
    /// body, is refused by the physics stage at the reconcile, which knows the
    /// body's mass and velocity.)
    pub fn command(&mut self, command: BodyCommand, tick: u64, frame: u64) -> bool {
        self.command_from(command, None, tick, frame)
    }

    /// [`World::command`] for a command written by `hook`.
    pub(crate) fn command_from(
        &mut self,
        command: BodyCommand,
        hook: Option<HookKind>,
        tick: u64,
        frame: u64,
    ) -> bool {
        if !command.is_finite() {
            self.log.push(LogEntry {
                level: LogLevel::Error,
                object: Some(command.target()),
                hook,
                tick,
                frame,
                message: format!("rejected non-finite body command: {command:?}"),
            });
            return false;
        }
        self.commands.push(QueuedCommand { command, hook });
        true
    }

    /// Appends a log line.
    pub fn log(&mut self, entry: LogEntry) {
        self.log.push(entry);
    }

    /// Appends a log line stamped with the tick and frame the pipeline is in
    /// (the pending tick during a tick's reconcile): for code that runs with no
    /// clock at hand, such as a physics stage refusing a body or a command.
    pub fn log_now(
        &mut self,
        level: LogLevel,
        object: Option<ObjectId>,
        hook: Option<HookKind>,
        message: String,
    ) {
        let (tick, frame) = self.stamp;
        self.log.push(LogEntry {
            level,
            object,
            hook,
            tick,
            frame,
            message,
        });
    }

    /// Takes the log lines written since the last drain.
    pub fn drain_log(&mut self) -> Vec<LogEntry> {
        std::mem::take(&mut self.log)
    }

    /// Body commands queued and not yet reconciled, in the order they were
    /// written, left in place: what a debugger shows as pending while the
    /// session is suspended (a body moved in the editor lands at the next
    /// reconcile, and is drawn there meanwhile).
    pub fn queued_commands(&self) -> impl Iterator<Item = &QueuedCommand> {
        self.commands.iter()
    }

    /// Body commands queued and not yet reconciled, in the order they were
    /// written (for the physics stage).
    pub fn take_commands(&mut self, into: &mut Vec<QueuedCommand>) {
        into.append(&mut self.commands);
    }

    /// Bodies to create at this reconcile, in id order.
    pub fn take_added_bodies(&mut self, into: &mut Vec<ObjectId>) {
        into.append(&mut self.added_bodies);
    }

    /// Bodies to drop at this reconcile.
    pub fn take_removed_bodies(&mut self, into: &mut Vec<ObjectId>) {
        into.append(&mut self.removed_bodies);
    }

    /// Takes the body away from an object whose body the physics stage
    /// refused to create (see [`World::spawn`] for what that object is then).
    pub fn refuse_body(&mut self, id: ObjectId) {
        if let Some(slot) = self.slot(id)
            && self.objects[slot].body.take().is_some()
        {
            self.bodies = self.bodies.saturating_sub(1);
        }
    }

    /// Reclaims the slots of removed objects; returns whether anything changed.
    pub(crate) fn compact(&mut self) -> bool {
        if self.removed_count == 0 {
            return false;
        }
        // Keys mirror objects slot for slot (and keep their activity: a
        // removed object takes its whole subtree with it).
        self.keys.retain(|k| k.alive);
        self.objects.retain(|o| o.alive);
        self.bodies = self.objects.iter().filter(|o| o.body.is_some()).count();
        self.removed_count = 0;
        true
    }

    /// About how many bytes the world holds (for snapshot budgets): the
    /// object and key slots and each object's heap parts (name, behaviour
    /// labels, the boxed body description and shapes, soft-body state and
    /// particles), plus the queues.
    pub fn memory_bytes(&self) -> usize {
        let slots =
            self.objects.capacity() * size_of::<Object>() + self.keys.capacity() * size_of::<Key>();
        let heap: usize = self
            .objects
            .iter()
            .map(|o| {
                let infos: usize = o
                    .behaviours
                    .iter()
                    .map(|b| size_of::<BehaviourInfo>() + b.name.capacity() + b.params.capacity())
                    .sum();
                // The authored description and a soft body's state are
                // boxed (see `BodyState`): count their boxes too.
                let body = o.body.as_ref().map_or(0, |b| {
                    let desc = size_of::<crate::body::BodyDesc>()
                        + b.desc.shapes.capacity() * size_of::<crate::body::Shape>();
                    let soft = b.soft.as_ref().map_or(0, |s| {
                        size_of::<crate::soft_pose::SoftState>()
                            + (s.particles.capacity() + s.velocities.capacity())
                                * size_of::<crate::geometry::Vec2>()
                    });
                    desc + soft
                });
                o.name.capacity() + infos + body
            })
            .sum();
        let queues = self.commands.capacity() * size_of::<QueuedCommand>()
            + (self.added_bodies.capacity()
                + self.removed_bodies.capacity()
                + self.toggled_bodies.capacity())
                * size_of::<ObjectId>()
            + self.log.capacity() * size_of::<LogEntry>();
        slots + heap + queues
    }

    fn slot(&self, id: ObjectId) -> Option<usize> {
        self.keys.binary_search_by_key(&id, |k| k.id).ok()
    }
}
