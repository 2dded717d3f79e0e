//! Shared fixtures for the integration tests: a probe behaviour that records every
//! hook call with the clock it saw, and a stand-in physics stage that logs its
//! calls and integrates velocities, so the contract can be tested without rapier.

use std::sync::{Arc, Mutex};

use stepframe_core::{
    Behaviour, BodyCommand, BodyDesc, Clock, ContactEvent, ContactKind, Ctx, HookKind, ObjectDesc,
    ObjectId, PhysicsStage, Pose, Priority, Shape, Vec2, World,
};

/// One recorded event: a hook call (with the clock it saw) or a physics call.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A behaviour hook ran.
    Hook {
        /// Which probe.
        object: ObjectId,
        /// Which hook.
        hook: HookKind,
        /// The clock the hook saw.
        clock: Clock,
        /// Committed pose of the probe's object as the hook saw it.
        pose: Option<Pose>,
        /// Fixed input edges seen (`"jump+"`, `"jump-"`), fixed hooks only.
        edges: Vec<String>,
        /// `held_ms("jump")` as seen by the hook's snapshot.
        held_ms: f64,
        /// Contact partner and kind, contact hooks only.
        contact: Option<(ObjectId, ContactKind)>,
    },
    /// The stand-in physics stage reconciled; `added` bodies were created.
    Reconcile {
        /// Bodies created.
        added: Vec<ObjectId>,
        /// Commands applied.
        commands: usize,
    },
    /// The stand-in physics stage stepped.
    Step {
        /// Substeps requested.
        substeps: u32,
        /// dt requested.
        dt: f64,
    },
    /// The stand-in physics stage committed.
    Commit,
}

/// The shared event log.
pub type Log = Arc<Mutex<Vec<Event>>>;

/// A new empty log.
pub fn new_log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

/// Takes every event recorded so far.
pub fn take(log: &Log) -> Vec<Event> {
    std::mem::take(&mut *log.lock().expect("log lock"))
}

/// What a probe does besides recording.
#[derive(Clone, Debug, Default)]
pub struct Actions {
    /// In FixedUpdate at this pending tick, remove this object.
    pub remove_at_tick: Option<(u64, ObjectId)>,
    /// In FixedUpdate at this pending tick, spawn a probe (with a body) with this id.
    pub spawn_at_tick: Option<(u64, ObjectId)>,
    /// In FixedUpdate, push this force on self every tick.
    pub force: Option<Vec2>,
    /// Request a debugger break in FixedUpdate at this pending tick.
    pub break_at_tick: Option<u64>,
    /// In a contact callback, remove the other object.
    pub remove_on_contact: bool,
}

/// Records every hook call into the log.
#[derive(Clone, Debug)]
pub struct Probe {
    /// Shared log.
    pub log: Log,
    /// Extra actions.
    pub actions: Actions,
}

impl Probe {
    fn record(&self, ctx: &Ctx, hook: HookKind, contact: Option<(ObjectId, ContactKind)>) {
        let input = ctx.input();
        let edges = input
            .edges()
            .flat_map(|(name, p, r)| {
                std::iter::repeat_n(format!("{name}+"), p as usize)
                    .chain(std::iter::repeat_n(format!("{name}-"), r as usize))
            })
            .collect();
        self.log.lock().expect("log lock").push(Event::Hook {
            object: ctx.me(),
            hook,
            clock: *ctx.clock(),
            pose: ctx.physics_simulation_pose(ctx.me()),
            edges,
            held_ms: input.held_ms("jump"),
            contact,
        });
    }
}

impl Behaviour for Probe {
    fn name(&self) -> &str {
        "Probe"
    }
    fn start(&mut self, ctx: &mut Ctx) {
        self.record(ctx, HookKind::Start, None);
    }
    fn update(&mut self, ctx: &mut Ctx, _dt: f64) {
        self.record(ctx, HookKind::Update, None);
    }
    fn flow_tick(&mut self, ctx: &mut Ctx, _dt: f64) {
        self.record(ctx, HookKind::FlowTick, None);
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        self.record(ctx, HookKind::FixedUpdate, None);
        let tick = ctx.clock().simulation_tick;
        if let Some((t, victim)) = self.actions.remove_at_tick
            && t == tick
        {
            ctx.remove(victim);
        }
        if let Some((t, id)) = self.actions.spawn_at_tick
            && t == tick
        {
            let probe = Probe {
                log: self.log.clone(),
                actions: Actions::default(),
            };
            ctx.spawn(
                ObjectDesc::new("spawned", Pose::new(0.0, 10.0, 0.0))
                    .with_id(id)
                    .with_body(BodyDesc::dynamic(Shape::Circle { radius: 0.5 }))
                    .with_behaviour(Box::new(probe), Priority::DEFAULT),
            );
        }
        if let Some(f) = self.actions.force {
            ctx.apply_force(ctx.me(), f);
        }
        if self.actions.break_at_tick == Some(tick) {
            ctx.request_break("probe asked");
        }
    }
    fn on_contact(&mut self, ctx: &mut Ctx, other: ObjectId, kind: ContactKind) {
        self.record(ctx, HookKind::Contact, Some((other, kind)));
        if self.actions.remove_on_contact {
            ctx.remove(other);
        }
    }
    fn present(&mut self, ctx: &mut Ctx) {
        self.record(ctx, HookKind::Present, None);
    }
}

/// A probe object description with a body (so it has committed poses).
pub fn probe_object(log: &Log, id: u64, priority: i32, actions: Actions) -> ObjectDesc {
    ObjectDesc::new(format!("probe{id}"), Pose::new(id as f32, 0.0, 0.0))
        .with_id(ObjectId(id))
        .with_body(BodyDesc::dynamic(Shape::Circle { radius: 0.5 }))
        .with_behaviour(
            Box::new(Probe {
                log: log.clone(),
                actions,
            }),
            Priority(priority),
        )
}

/// A stand-in physics stage: logs reconcile/step/commit, applies forces to a unit
/// mass velocity (v += F·dt) and impulses (v += J), moves bodies by v·dt, and emits
/// scripted contacts at chosen ticks.
#[derive(Clone, Debug)]
pub struct StandIn {
    /// Shared log.
    pub log: Log,
    /// `(tick, a, b, kind)` contacts to emit after that tick's step.
    pub contacts: Vec<(u64, ObjectId, ObjectId, ContactKind)>,
    /// Velocity of every body, by id.
    velocities: std::collections::BTreeMap<ObjectId, Vec2>,
    /// Ticks stepped.
    ticks: u64,
    /// Poses after the step, by id, to commit.
    poses: std::collections::BTreeMap<ObjectId, Pose>,
    /// Bodies that exist in the stand-in engine.
    bodies: std::collections::BTreeSet<ObjectId>,
}

impl StandIn {
    /// A stand-in writing to `log`.
    pub fn new(log: &Log) -> StandIn {
        StandIn {
            log: log.clone(),
            contacts: Vec::new(),
            velocities: Default::default(),
            ticks: 0,
            poses: Default::default(),
            bodies: Default::default(),
        }
    }

    /// Also emit these contacts.
    pub fn with_contacts(mut self, c: Vec<(u64, ObjectId, ObjectId, ContactKind)>) -> StandIn {
        self.contacts = c;
        self
    }
}

impl PhysicsStage for StandIn {
    fn reconcile(&mut self, world: &mut World, dt: f64) {
        let mut added = Vec::new();
        world.take_added_bodies(&mut added);
        let mut removed = Vec::new();
        world.take_removed_bodies(&mut removed);
        for id in &removed {
            self.bodies.remove(id);
            self.velocities.remove(id);
        }
        for id in &added {
            self.bodies.insert(*id);
        }
        let mut commands = Vec::new();
        world.take_commands(&mut commands);
        for c in commands.iter().map(|q| &q.command) {
            let v = self.velocities.entry(c.target()).or_default();
            match c {
                BodyCommand::Force { force, .. } => *v = *v + *force * dt as f32,
                BodyCommand::Impulse { impulse, .. } => *v = *v + *impulse,
                BodyCommand::SetVelocity { velocity, .. } => *v = velocity.linear,
                _ => {}
            }
        }
        self.poses.clear();
        for id in &self.bodies {
            if let Some(p) = world.physics_simulation_pose(*id) {
                self.poses.insert(*id, p);
            }
        }
        self.log.lock().expect("log lock").push(Event::Reconcile {
            added,
            commands: commands.len(),
        });
    }

    fn step(&mut self, dt: f64, substeps: u32, contacts: &mut Vec<ContactEvent>) {
        self.ticks += 1;
        for (id, pose) in self.poses.iter_mut() {
            let v = self.velocities.get(id).copied().unwrap_or_default();
            pose.x += v.x * dt as f32;
            pose.y += v.y * dt as f32;
        }
        for (t, a, b, kind) in &self.contacts {
            if *t == self.ticks {
                contacts.push(ContactEvent::new(*a, *b, *kind));
            }
        }
        self.log
            .lock()
            .expect("log lock")
            .push(Event::Step { substeps, dt });
    }

    fn commit(&mut self, world: &mut World) {
        for object in world.objects_mut() {
            if let Some(body) = object.body.as_mut() {
                body.previous = body.committed;
                if let Some(p) = self.poses.get(&object.id) {
                    body.committed = *p;
                }
            }
        }
        self.log.lock().expect("log lock").push(Event::Commit);
    }

    fn clone_box(&self) -> Box<dyn PhysicsStage> {
        Box::new(self.clone())
    }
}

/// Hook events only, as `(object, hook, pending-or-completed tick)`.
pub fn hooks(events: &[Event]) -> Vec<(u64, HookKind, u64)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Hook {
                object,
                hook,
                clock,
                ..
            } => Some((object.0, *hook, clock.simulation_tick)),
            _ => None,
        })
        .collect()
}

/// Count of hook calls of one kind.
pub fn count(events: &[Event], kind: HookKind) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, Event::Hook { hook, .. } if *hook == kind))
        .count()
}

/// The counting allocator of the `stepframe` binary's bench, shared as a
/// file (it is test and bench tooling, not the runtime's API).
#[path = "../app/src/bench/alloc_count.rs"]
mod alloc_count;
pub use alloc_count::{CountingAllocator, count_allocations};
