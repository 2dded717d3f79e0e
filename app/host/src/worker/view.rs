//! What the panels see of a session: a [`WorldView`] built from a pipeline,
//! the live one after every frame or command, or a scratch one rebuilt at a
//! past tick for the time cursor. Both go through [`world`], so the
//! viewport, hierarchy, inspector and clock panel read a past tick exactly
//! as they read the live session; [`Worker::live_view`] adds what the
//! features hold beside it.

use stepframe_core::{InputSource, ObjectId, Pipeline, Pose, SoftState};

use super::Worker;
use crate::protocol::{
    BodyView, LiveView, ObjectView, QueuedEdit, SelectedView, SoftView, WorldView,
};
use crate::traced::TracedTick;

/// What a world view says besides the pipeline's own state.
pub(super) struct Moment<'r> {
    /// The view's revision.
    pub revision: u64,
    /// `Some(T)` for the end of past tick T; `None` for the live session.
    pub at_tick: Option<u64>,
    /// Hash of the committed state after the last tick.
    pub state_hash: u64,
    /// The inspector's object.
    pub selection: Option<ObjectId>,
    /// Branch B at this tick, if B holds it.
    pub b: Option<TracedTick>,
    /// The session's behaviour registry: what each parameter is.
    pub registry: &'r stepframe_core::Registry,
}

/// The view of `pipeline` now. While suspended every pose shown is the
/// committed pose of the completed tick, exactly, and interpolation alpha is
/// the accumulator over the fixed dt of the state it stopped in (what the
/// next presentation would use).
pub(super) fn world(pipeline: &Pipeline, moment: Moment<'_>) -> WorldView {
    let world = pipeline.world();
    let clock = *pipeline.clock();
    let suspended = pipeline.suspension().is_some();
    let pose_now = |id: ObjectId| {
        if suspended {
            world.physics_simulation_pose(id)
        } else {
            world.presentation_pose(id, clock.interpolation_alpha, clock.fixed_delta_time)
        }
    };
    // The last teleport queued for each body (a later one replaces it).
    let moved: std::collections::BTreeMap<ObjectId, Pose> = world
        .queued_commands()
        .filter_map(|q| match q.command {
            stepframe_core::BodyCommand::SetPose { target, pose } => Some((target, pose)),
            _ => None,
        })
        .collect();
    let objects: Vec<ObjectView> = world
        .objects()
        .map(|o| {
            let committed = world.physics_simulation_pose(o.id).unwrap_or(o.local);
            ObjectView {
                id: o.id,
                name: o.name.clone(),
                parent: o.parent,
                enabled: o.is_enabled(),
                presentation: pose_now(o.id).unwrap_or(committed),
                committed,
                moved_to: moved.get(&o.id).copied(),
                body: o.body.as_ref().map(|b| BodyView {
                    kind: b.desc.kind,
                    shapes: b.desc.shapes.clone(),
                    sensor: b.desc.sensor,
                    soft: b
                        .soft
                        .as_ref()
                        .map(|s| soft_view(s, suspended, clock.interpolation_alpha)),
                }),
                behaviours: o.behaviours.iter().map(|b| b.name.clone()).collect(),
                cohort: pipeline.cohort_behaviours(o.id),
            }
        })
        .collect();
    let selected = moment.selection.and_then(|id| {
        let o = world.get(id)?;
        let committed = world.physics_simulation_pose(id)?;
        Some(SelectedView {
            id,
            name: o.name.clone(),
            enabled: o.is_enabled(),
            committed,
            presentation: pose_now(id).unwrap_or(committed),
            previous: o.body.as_ref().map(|b| b.previous),
            velocity: o.body.as_ref().map(|b| b.velocity),
            body: o.body.as_ref().map(|b| (*b.desc).clone()),
            behaviours: o.behaviours.clone(),
            states: pipeline.behaviour_states(id),
            queued: queued_edits(world, id, clock.simulation_tick + 1),
            param_kinds: o
                .behaviours
                .iter()
                .filter_map(|b| {
                    let kinds = moment.registry.param_kinds(&b.name)?;
                    Some((b.name.clone(), kinds.clone()))
                })
                .collect(),
        })
    });
    let mut contacts = Vec::new();
    pipeline.physics().touching_pairs(&mut contacts);
    WorldView {
        revision: moment.revision,
        at_tick: moment.at_tick,
        clock,
        settings: *pipeline.settings(),
        suspension: pipeline.suspension().cloned(),
        objects,
        contacts,
        camera: world.camera,
        selected,
        state_hash: moment.state_hash,
        b: moment.b,
    }
}

/// The teleports and velocity overwrites of `id` queued for the next
/// reconcile (the tick `before`): what an edit made while suspended waits
/// as, so the inspector lists exactly what that tick will apply.
fn queued_edits(world: &stepframe_core::World, id: ObjectId, before: u64) -> Vec<QueuedEdit> {
    world
        .queued_commands()
        .filter_map(|q| match q.command {
            stepframe_core::BodyCommand::SetPose { target, pose } if target == id => {
                Some(stepframe_core::Edit::Pose { object: id, pose })
            }
            stepframe_core::BodyCommand::SetVelocity { target, velocity } if target == id => {
                Some(stepframe_core::Edit::Velocity {
                    object: id,
                    velocity,
                })
            }
            _ => None,
        })
        .map(|edit| QueuedEdit { edit, before })
        .collect()
}

/// A soft body as drawn: particles blended by alpha while running (what the
/// presentation shows), the committed ones while suspended.
fn soft_view(s: &SoftState, suspended: bool, alpha: f64) -> SoftView {
    let mut particles = Vec::with_capacity(s.particles.len());
    if suspended {
        particles.extend_from_slice(&s.particles);
    } else {
        s.presentation_particles(alpha, &mut particles);
    }
    SoftView {
        particles,
        committed: s.particles.clone(),
        outlines: s
            .outlines
            .iter()
            .map(|o| (o.particles.clone(), o.closed))
            .collect(),
        radius: s.particle_radius,
        pinned: s.pinned.clone(),
        pieces: s.pieces,
        torn: s.torn(),
    }
}

impl Worker {
    /// The view of the live session now, with what the features hold.
    pub(super) fn live_view(&mut self) -> LiveView {
        let revision = self.out.next_revision();
        let live_tick = self.run.completed_ticks();
        let pipeline = self.run.session.pipeline();
        let world = world(
            pipeline,
            Moment {
                revision,
                at_tick: None,
                state_hash: self.run.state_hash(),
                selection: self.selection,
                b: self.branch.at(live_tick),
                registry: self.scene.registry(),
            },
        );
        let actions = pipeline
            .input()
            .map()
            .actions
            .iter()
            .map(|a| {
                let keys = a
                    .sources
                    .iter()
                    .filter_map(|s| match s {
                        InputSource::Key(k) => Some(k.clone()),
                        _ => None,
                    })
                    .collect();
                (a.name.clone(), keys)
            })
            .collect();
        LiveView {
            world,
            settings: self.run.settings(),
            display_rate: self.run.display_rate(),
            host_fps: self.run.host_fps(),
            scene_path: self.scene.path().map(|p| p.to_path_buf()),
            actions,
            selection: self.selection,
            breakpoints: self.breakpoints.views(pipeline),
            clock_breakpoints: pipeline.debugger().clock_breakpoints().to_vec(),
            hits: self.breakpoints.hits(),
            watches: self.watches.specs().to_vec(),
            plot_units: self.watches.units(pipeline),
            rewind: self.run.session.reach(),
            undo: self.undo_view(),
            branch_b: self.branch.about(),
        }
    }

    /// Sends the log lines, suspension changes, (one in flight) the live
    /// view, if anything changed since the last publish, and the watch
    /// reports.
    ///
    /// The reports come after the view: a report names its watch by its
    /// place in the list, and the front end reads the list from the view
    /// before it. A watch plotted while the session plays is added between
    /// two frames; the next frame's tick is its first live value, and a
    /// report of it read before the view that lists the watch was dropped
    /// (a lane with a gap at that tick, between the history fill and the
    /// live values).
    pub fn publish(&mut self) {
        self.drain_ticks();
        self.drain_branch();
        let mut log = self.run.session.drain_log();
        if !log.is_empty() {
            if log.len() > super::outbox::MAX_LOG_BATCH {
                log.drain(..log.len() - super::outbox::MAX_LOG_BATCH);
            }
            self.out.event(crate::protocol::Event::Log(log));
        }
        // The scripts' view is built (texts copied, keys resolved) only when
        // it can be shown: not at every frame of a journal done again.
        if !self.out.replaying() {
            self.scripts.publish(&mut self.out);
        }
        let now = self.run.session.pipeline().suspension().cloned();
        self.out.suspension(now.as_ref());
        let viewed = self.out.wants_view();
        if viewed {
            let view = self.live_view();
            self.out.live(view);
            self.watches.list_shown();
        }
        let reported = self.watches.send_reports(&mut self.out);
        if !viewed {
            // Batched while a journal is done again (`Outbox::end_publish`).
            self.out.end_publish();
        } else if reported {
            self.out.wake();
        }
    }
}
