//! The rapier2d physics stage: the real engine behind the fixed tick.
//!
//! # Where it runs in a tick
//!
//! The pipeline drives one fixed tick as (docs/contract.md, "The timing contract", step 3):
//!
//! 1. FixedUpdate for the whole cohort, in priority order: hooks read committed
//!    poses and queue [`BodyCommand`]s, spawn and remove objects;
//! 2. [`PhysicsStage::reconcile`]: bodies of new objects enter rapier (in id order,
//!    at the world pose `World::spawn` composed), bodies of removed objects leave it,
//!    then the queued commands are applied in the order they were written;
//! 3. [`PhysicsStage::step`]: `substeps` rapier steps of `fixed_dt / substeps` each;
//!    collision events are collected while rapier runs; when objects have
//!    mid-step hooks, [`PhysicsStage::step_mid_step`] instead, in which rapier
//!    calls them back for their contact pairs inside each of those steps,
//!    between its collision detection and its solver (see `mid_step`);
//! 4. [`PhysicsStage::commit`]: for every body, in id order, the committed pose
//!    becomes the previous pose and rapier's pose becomes the committed one
//!    (the stage visits only the bodies for which that changes something:
//!    rapier's awake set, what reconcile touched, and bodies not yet settled);
//! 5. the pipeline sorts the tick's contact events and delivers the contact
//!    callbacks (still in the fixed phase, clock on the completed tick, poses
//!    the ones this tick committed: the tick's live post-step state).
//!
//! So FixedUpdate comes immediately before each rapier step, as the contract asks,
//! and what it wrote is integrated by that very step.
//!
//! # Force versus impulse
//!
//! As in s&box's step-counting FixedUpdate, a force is a rate and an
//! impulse is not. `BodyCommand::Force { force: F }` acts for the whole tick: it is
//! added before the step and cleared after it (rapier keeps user forces until told
//! otherwise), so a body of mass `m` gains `Δv = F / m × fixed_dt`. At 60 Hz a
//! 10 N push on a 2 kg body gives 10 / 2 / 60 = 0.0833 m/s per tick; at 120 Hz each
//! tick gives half of that, and one second of ticks gives 5 m/s at either rate.
//! Hooks never multiply by dt. `BodyCommand::Impulse { impulse: J }` is applied once,
//! unscaled: `Δv = J / m` whatever the tick rate, which is what a jump or a hit wants.
//!
//! # Substeps
//!
//! A tick with `substeps = n` runs `n` rapier steps of `fixed_dt / n`
//! (rapier's `IntegrationParameters::dt`), so the tick still advances exactly
//! `fixed_dt` of simulated time; only the resolution changes. A force stays applied through all `n` steps, so its total
//! impulse is still `F × fixed_dt`; an impulse is applied once, before the first.
//! A kinematic target is where the body must be at the END of the tick: each
//! substep `k` aims at `lerp(start, target, k / n)` (angle on the shortest arc), so
//! the body sweeps the path at a constant speed instead of jumping on substep one.
//!
//! # Why events are collected and delivered after the step
//!
//! Rapier reports collision starts and stops synchronously, from inside `step`,
//! through an `EventHandler` that must be `Sync`, while it holds every body and
//! collider set borrowed (rapier's API). A hook cannot run there: it could not read
//! the world, and a spawn or removal mid-solve would change the step under itself.
//! So the handler only pushes events into a mutex-guarded list; after the last
//! substep they are turned into object-pair [`ContactEvent`]s and handed to the
//! pipeline, which sorts them (never trusting engine order) and calls `on_contact`
//! with the clock on the completed tick.
//!
//! Which tick a contact belongs to: rapier runs collision detection at the start of
//! each step, on the poses the previous tick committed, and resolves what it finds
//! in that same step. So `Started` is reported in the first tick whose step felt the
//! contact. Worked numbers (`core/tests/physics/`): a ball of radius 0.5 m
//! dropped from 3 m under g = 10 m/s² at 60 Hz is still clear of the ground after
//! tick 37, ends tick 38 1.9 cm into it (6.3 m/s covers 10.5 cm per tick, more than
//! the 8.6 cm gap), and is reported and pushed out during tick 39. A contact closer
//! than rapier's prediction distance (0.02 m) is found one step earlier, before the
//! bodies overlap.
//!
//! A pair of objects may touch through several collider pairs (bodies with several
//! shapes); the stage counts touching collider pairs per object pair and reports
//! `Started` when the count leaves zero and `Stopped` when it returns to zero.
//! A removed body's colliders are remembered until the step after their removal, so
//! the surviving partner still hears `Stopped` when rapier reports it.
//!
//! # Snapshots
//!
//! [`PhysicsStage::clone_box`] copies the whole engine state: bodies, colliders,
//! islands, broad phase, narrow phase (with its warm-start impulses), joints, CCD
//! solver, integration parameters, and the stage's own id maps and contact counts.
//! Only rapier's `PhysicsPipeline` and `CollisionPipeline`, which hold nothing but
//! scratch buffers between steps, are created fresh. A restored session continues
//! bit-identically (`core/tests/physics/` checks it on a settling pile).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use rapier2d::prelude::{
    ActiveEvents, ColliderBuilder, ColliderHandle, CollisionEvent, CollisionPipeline,
    PhysicsPipeline, PhysicsWorld, Real, RigidBodyBuilder, RigidBodyHandle,
};

use crate::behaviour::mid_step::MidStepCalls;
use crate::body::{BodyCommand, BodyKind, ContactEvent, ContactKind, Shape};
use crate::geometry::{Pose, Vec2};
use crate::hash::StableHasher;
use crate::ids::ObjectId;
use crate::limits::{BodyError, command_overflow};
use crate::physics::{EngineBytesError, PhysicsStage};
use crate::world::{LogLevel, QueuedCommand, World};

mod bodies;
mod commit;
mod engine_bytes;
mod events;
mod link;
mod mid_step;
mod soft;
mod step;
use events::EventCollector;
use link::BodyLink;
use soft::{SoftLink, soft_key};

/// Heap bytes a copy of rapier 0.36.1's sets takes per byte of their
/// serialisation: padding, spare capacity, allocator blocks. Measured on
/// bincode's varint form, which is within 1% of postcard's size on
/// demo.ron and 6% above it on the 10,000-ball pile (docs/protocol.md; after
/// the switch to postcard the figure below read 1.04, 1.06, 0.97). Measured with
/// the counting allocator (`stepframe bench`, `snapshot_heap_vs_estimate`,
/// docs/performance.md): a snapshot's heap was 1.88x, 2.06x and 1.94x the estimate
/// counting the sets at 1.0 on demo.ron, stress.ron and soft.ron, and
/// 1.19x, 1.18x, 1.13x at 2.25; with the other parts counted within ~10%
/// (10,000 behaviours and no bodies: 1.09x), that puts the sets at 2.7-2.8x.
const RAPIER_HEAP_PER_SERIALISED_BYTE: f64 = 2.75;

/// A collider handle as an ordered key (rapier handles are not `Ord`).
type ColliderKey = (u32, u32);

fn collider_key(handle: ColliderHandle) -> ColliderKey {
    handle.0.into_raw_parts()
}

fn to_rapier_vec(v: Vec2) -> rapier2d::math::Vector {
    rapier2d::math::Vector::new(v.x, v.y)
}

fn to_rapier_pose(p: Pose) -> rapier2d::math::Pose {
    rapier2d::math::Pose::new(rapier2d::math::Vector::new(p.x, p.y), p.angle)
}

fn from_rapier_pose(p: &rapier2d::math::Pose) -> Pose {
    Pose::new(p.translation.x, p.translation.y, p.rotation.angle())
}

/// The physics stage backed by rapier2d (see the module docs for the tick order,
/// force and impulse scaling, substeps and contact delivery).
pub struct RapierStage {
    /// Every rapier set, plus gravity and integration parameters.
    physics: PhysicsWorld,
    /// Object → rapier body and colliders, iterated in id order.
    links: BTreeMap<ObjectId, BodyLink>,
    /// Object → its rapier soft bodies (see `soft`), iterated in id order.
    soft_links: BTreeMap<ObjectId, SoftLink>,
    /// Soft body → owning object, for the tear events.
    soft_owner: BTreeMap<(u32, u32), ObjectId>,
    /// Tears of the last step, for the pipeline's tear callbacks.
    tears: Vec<crate::soft_body::SoftTear>,
    /// Collider → owning object, for turning collider events into object pairs.
    collider_owner: BTreeMap<ColliderKey, ObjectId>,
    /// Colliders removed at this tick's reconcile: kept in `collider_owner` until
    /// the step has reported their last `Stopped` events.
    retired_colliders: Vec<ColliderKey>,
    /// Touching collider pairs per object pair (`a < b`), for Started/Stopped at
    /// the object level.
    touching: BTreeMap<(ObjectId, ObjectId), u32>,
    /// Kinematic targets of this tick: where each body must be at its end.
    kinematic_targets: BTreeMap<ObjectId, Pose>,
    /// Bodies pushed by a force this tick; their forces are cleared after the step.
    forced: BTreeSet<ObjectId>,
    /// Ticks committed so far (shown by `Debug`).
    ticks: u64,
    /// Wall time of the last step, ms.
    last_step_ms: f64,
    /// Scratch: commands taken from the world.
    commands: Vec<QueuedCommand>,
    /// Scratch: ids taken from the world.
    ids: Vec<ObjectId>,
    /// Scratch: events collected during a step.
    events: Vec<CollisionEvent>,
    /// Objects whose commit may not be a no-op next tick, in id order: the
    /// bodies rapier had awake at the last commit, and those whose previous
    /// pose differed from their committed one. Every other body is settled
    /// (asleep, fixed or disabled, and committed twice since it last moved),
    /// so the commit skips it (see the `commit` module).
    unsettled: Vec<ObjectId>,
    /// Whether the last commit did not record rapier's awake set in
    /// `unsettled` (it was large): the next commit then walks every body.
    awake_unknown: bool,
    /// Objects reconcile touched this tick (added, toggled, commanded):
    /// committed this tick whether or not rapier has them awake.
    touched: Vec<ObjectId>,
    /// Scratch: the objects the commit visits.
    due: Vec<ObjectId>,
    /// Whether the commit may visit only the bodies that can change (off in
    /// [`RapierStage::walking_every_body`]).
    sparse_commits: bool,
    /// Ticks whose commit visited only the bodies that could change (shown
    /// by `Debug`, so a test can see the sparse path ran).
    sparse_ticks: u64,
    /// Objects whose colliders have rapier call the mid-step hooks back
    /// (see `mid_step`), in id order; empty in a scene without such hooks.
    mid_step: BTreeSet<ObjectId>,
}

impl std::fmt::Debug for RapierStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RapierStage")
            .field("gravity", &self.gravity())
            .field("bodies", &self.links.len())
            .field("soft_bodies", &self.soft_links.len())
            .field("touching_pairs", &self.touching.len())
            .field("ticks", &self.ticks)
            .field("sparse_ticks", &self.sparse_ticks)
            .finish_non_exhaustive()
    }
}

impl Clone for RapierStage {
    fn clone(&self) -> RapierStage {
        self.copy_with(self.rapier_world())
    }
}

impl RapierStage {
    /// A copy of the stage around `physics` (the whole engine for a clone,
    /// an emptied one for a compact keyframe), with empty scratch.
    fn copy_with(&self, physics: PhysicsWorld) -> RapierStage {
        RapierStage {
            physics,
            links: self.links.clone(),
            soft_links: self.soft_links.clone(),
            soft_owner: self.soft_owner.clone(),
            tears: self.tears.clone(),
            collider_owner: self.collider_owner.clone(),
            retired_colliders: self.retired_colliders.clone(),
            touching: self.touching.clone(),
            kinematic_targets: self.kinematic_targets.clone(),
            forced: self.forced.clone(),
            ticks: self.ticks,
            last_step_ms: self.last_step_ms,
            commands: Vec::new(),
            ids: Vec::new(),
            events: Vec::new(),
            unsettled: self.unsettled.clone(),
            awake_unknown: self.awake_unknown,
            touched: self.touched.clone(),
            due: Vec::new(),
            sparse_commits: self.sparse_commits,
            sparse_ticks: self.sparse_ticks,
            mid_step: self.mid_step.clone(),
        }
    }
}

impl RapierStage {
    /// A stage with an empty rapier world and the given gravity (m/s², up positive:
    /// `Vec2::new(0.0, -9.81)` for Earth).
    pub fn new(gravity: Vec2) -> RapierStage {
        let physics = PhysicsWorld {
            gravity: to_rapier_vec(gravity),
            ..PhysicsWorld::default()
        };
        RapierStage {
            physics,
            links: BTreeMap::new(),
            soft_links: BTreeMap::new(),
            soft_owner: BTreeMap::new(),
            tears: Vec::new(),
            collider_owner: BTreeMap::new(),
            retired_colliders: Vec::new(),
            touching: BTreeMap::new(),
            kinematic_targets: BTreeMap::new(),
            forced: BTreeSet::new(),
            ticks: 0,
            last_step_ms: 0.0,
            commands: Vec::new(),
            ids: Vec::new(),
            events: Vec::new(),
            unsettled: Vec::new(),
            awake_unknown: true,
            touched: Vec::new(),
            due: Vec::new(),
            sparse_commits: true,
            sparse_ticks: 0,
            mid_step: BTreeSet::new(),
        }
    }

    /// The same stage, committing by walking every object every tick: the
    /// reference the visit of only the bodies that can change is checked
    /// against (`core/tests/physics/sleeping_commits.rs`). Its results are
    /// the same bits; it is only slower on a world that sleeps.
    pub fn walking_every_body(mut self) -> RapierStage {
        self.sparse_commits = false;
        self
    }

    /// A copy of the whole rapier world (every set, the broad and narrow
    /// phases, soft bodies, parameters), with fresh pipelines, which hold only
    /// scratch buffers between steps (rapier's own docs). Snapshots copy the
    /// stage with it; `stepframe bench` steps such a copy in a bare rapier loop
    /// to compare the pipeline's cost against rapier's own on the same world.
    pub fn rapier_world(&self) -> PhysicsWorld {
        let p = &self.physics;
        PhysicsWorld {
            gravity: p.gravity,
            integration_parameters: p.integration_parameters,
            physics_pipeline: PhysicsPipeline::new(),
            collision_pipeline: CollisionPipeline::new(),
            islands: p.islands.clone(),
            broad_phase: p.broad_phase.clone(),
            narrow_phase: p.narrow_phase.clone(),
            bodies: p.bodies.clone(),
            colliders: p.colliders.clone(),
            impulse_joints: p.impulse_joints.clone(),
            multibody_joints: p.multibody_joints.clone(),
            soft_bodies: p.soft_bodies.clone(),
            ccd_solver: p.ccd_solver.clone(),
        }
    }

    /// The gravity the stage was built with.
    pub fn gravity(&self) -> Vec2 {
        Vec2::new(self.physics.gravity.x, self.physics.gravity.y)
    }

    /// Turns one collider event into an object-level event, through the counts.
    fn count_event(&mut self, event: CollisionEvent, contacts: &mut Vec<ContactEvent>) {
        let (c1, c2, started) = match event {
            CollisionEvent::Started(a, b, _) => (a, b, true),
            CollisionEvent::Stopped(a, b, _) => (a, b, false),
        };
        let (Some(&o1), Some(&o2)) = (
            self.collider_owner.get(&collider_key(c1)),
            self.collider_owner.get(&collider_key(c2)),
        ) else {
            return;
        };
        if o1 == o2 {
            return;
        }
        let pair = if o1 < o2 { (o1, o2) } else { (o2, o1) };
        if started {
            let count = self.touching.entry(pair).or_insert(0);
            *count += 1;
            if *count == 1 {
                contacts.push(ContactEvent::new(o1, o2, ContactKind::Started));
            }
        } else if let Some(count) = self.touching.get_mut(&pair) {
            *count -= 1;
            if *count == 0 {
                self.touching.remove(&pair);
                contacts.push(ContactEvent::new(o1, o2, ContactKind::Stopped));
            }
        }
    }
}

impl PhysicsStage for RapierStage {
    fn reconcile(&mut self, world: &mut World, fixed_dt: f64) {
        // New bodies first, then removals. Object ids are never reused, so a new
        // body never meets a stale one either way (an object spawned and removed
        // in the same tick is dead by now and gets no body). The order matters
        // to rapier: a collider slot freed here and refilled before the next
        // broad-phase update makes rapier 0.36.1's BVH broad phase lose track
        // of the freed collider's pairs, which then stay in its pair map
        // forever (measured: +1 stale pair every ~280 ticks with one spawn and
        // one removal every 10 ticks; `stepframe soak` showed the demo growing
        // 160 MiB in 1,000,000 ticks through the rewind keyframes that copy
        // that map). Adding first, new colliders only take slots whose
        // removal an earlier step has already processed.
        let mut ids = std::mem::take(&mut self.ids);
        world.take_added_bodies(&mut ids);
        ids.sort_unstable();
        ids.dedup();
        for &id in &ids {
            self.add_body(world, id);
        }
        self.touched.extend_from_slice(&ids);
        ids.clear();

        world.take_removed_bodies(&mut ids);
        ids.sort_unstable();
        ids.dedup();
        for &id in &ids {
            self.remove_body(id);
        }
        ids.clear();

        // Disabled subtrees leave the simulation, enabled ones come back,
        // with the pose and velocity they had.
        world.take_toggled_bodies(&mut ids);
        self.touched.extend_from_slice(&ids);
        for &id in &ids {
            let active = world.is_active(id);
            self.set_soft_enabled(id, active);
            if let Some(body) = self
                .links
                .get(&id)
                .and_then(|l| self.physics.bodies.get_mut(l.body))
            {
                body.set_enabled(active);
                if !active {
                    self.kinematic_targets.remove(&id);
                }
            }
        }
        ids.clear();
        self.ids = ids;

        let mut commands = std::mem::take(&mut self.commands);
        world.take_commands(&mut commands);
        for command in &commands {
            self.touched.push(command.command.target());
            self.apply(world, command, fixed_dt);
        }
        commands.clear();
        self.commands = commands;
    }

    fn step(&mut self, fixed_dt: f64, substeps: u32, contacts: &mut Vec<ContactEvent>) {
        self.step_with(fixed_dt, substeps, contacts, None);
    }

    fn step_mid_step(
        &mut self,
        fixed_dt: f64,
        substeps: u32,
        contacts: &mut Vec<ContactEvent>,
        calls: &MidStepCalls<'_>,
    ) {
        self.sync_mid_step(calls.objects());
        self.step_with(fixed_dt, substeps, contacts, Some(calls));
    }

    fn has_mid_step_objects(&self) -> bool {
        !self.mid_step.is_empty()
    }

    fn commit(&mut self, world: &mut World) {
        self.commit_bodies(world);
        self.ticks += 1;
    }

    fn clone_box(&self) -> Box<dyn PhysicsStage> {
        Box::new(self.clone())
    }

    fn clone_to_bytes(&self, engine: &mut Vec<u8>) -> Option<Box<dyn PhysicsStage>> {
        engine_bytes::write(&self.physics, engine).ok()?;
        Some(Box::new(
            self.copy_with(engine_bytes::emptied(&self.physics)),
        ))
    }

    fn load_engine(&mut self, engine: &[u8]) -> Result<(), EngineBytesError> {
        engine_bytes::read(&mut self.physics, engine)
    }

    fn hash_state(&self, hasher: &mut StableHasher) {
        // Committed poses are hashed by the pipeline; add what they do not show.
        hasher.write_u64(self.links.len() as u64);
        for (id, link) in &self.links {
            hasher.write_u64(id.0);
            let (index, generation) = link.body.0.into_raw_parts();
            hasher.write_u64(u64::from(index) << 32 | u64::from(generation));
            hasher.write_u8(u8::from(link.sleeping));
        }
        hasher.write_u64(self.soft_links.len() as u64);
        for (id, link) in &self.soft_links {
            hasher.write_u64(id.0);
            hasher.write_u64(u64::from(link.tears));
            for handle in &link.bodies {
                let (index, generation) = soft_key(*handle);
                hasher.write_u64(u64::from(index) << 32 | u64::from(generation));
                let sleeping = self
                    .physics
                    .soft_bodies
                    .get(*handle)
                    .is_some_and(|b| b.is_sleeping());
                hasher.write_u8(u8::from(sleeping));
            }
        }
        hasher.write_u64(self.touching.len() as u64);
        for ((a, b), count) in &self.touching {
            hasher.write_u64(a.0);
            hasher.write_u64(b.0);
            hasher.write_u64(u64::from(*count));
        }
        // Only a scene with mid-step hooks writes this, so every other
        // scene's hash is what it was before they existed.
        if !self.mid_step.is_empty() {
            hasher.write_u64(self.mid_step.len() as u64);
            for id in &self.mid_step {
                hasher.write_u64(id.0);
            }
        }
    }

    fn last_step_ms(&self) -> f64 {
        self.last_step_ms
    }

    /// The rapier sets measured by their postcard size (the bytes their
    /// serialisation writes, counted without writing them) times
    /// `RAPIER_HEAP_PER_SERIALISED_BYTE`, plus
    /// the stage's maps at their element sizes. `stepframe bench`
    /// (`snapshot_heap_vs_estimate`) checks the sum against the heap a
    /// snapshot really allocates.
    fn memory_bytes(&self) -> usize {
        let p = &self.physics;
        let parts = (
            &p.islands,
            &p.broad_phase,
            &p.narrow_phase,
            &p.bodies,
            &p.colliders,
            &p.impulse_joints,
            &p.multibody_joints,
            &p.soft_bodies,
            &p.ccd_solver,
        );
        // Sets that cannot serialise count as nothing (none of rapier's
        // fail; the estimate then undercounts, which the bench would show).
        let size = postcard::ser_flavors::Size::default();
        let serialised = postcard::serialize_with_flavor::<_, _, usize>(&parts, size).unwrap_or(0);
        let entry = |k: usize, v: usize| k + v + 16;
        let maps = self.links.len() * entry(8, std::mem::size_of::<BodyLink>())
            + self
                .links
                .values()
                .map(|l| l.colliders.capacity() * 8)
                .sum::<usize>()
            + self.collider_owner.len() * entry(8, 8)
            + self.touching.len() * entry(16, 4)
            + self.soft_links.len() * entry(8, std::mem::size_of::<SoftLink>())
            + self.soft_owner.len() * entry(8, 8)
            + self.mid_step.len() * entry(8, 0)
            // The sparse commit's lists, copied with the stage.
            + (self.unsettled.len() + self.touched.len()) * std::mem::size_of::<ObjectId>();
        let sets = serialised as f64 * RAPIER_HEAP_PER_SERIALISED_BYTE;
        std::mem::size_of::<RapierStage>() + sets as usize + maps
    }

    fn take_tears(&mut self, out: &mut Vec<crate::soft_body::SoftTear>) {
        out.append(&mut self.tears);
    }

    fn touching_pairs(&self, out: &mut Vec<(ObjectId, ObjectId)>) {
        out.extend(self.touching.keys().copied());
    }
}
