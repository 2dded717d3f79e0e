//! What the panels see of a session: a [`WorldView`] built from a pipeline,
//! the live one after every frame or command, or a scratch one rebuilt at a
//! past tick for the time cursor. Both go through [`build`], so the viewport,
//! hierarchy, inspector and clock panel read a past tick exactly as they read
//! the live session.

use std::sync::Arc;

use stepframe_core::{InputSource, ObjectId, Pipeline, Pose, Recording, Replay, SoftState};

use super::Worker;
use crate::editor::protocol::{BodyView, ObjectView, SelectedView, SoftView, WorldView};

/// What a view says besides the pipeline's own state: the worker's facts
/// (its selection, settings, tapes, run B, breakpoint book, rewind reach),
/// read from the worker itself in [`build`] so each of the view's fields is
/// filled in one place, and what differs between the live view and a past
/// tick's.
pub(super) struct ViewFacts<'a> {
    /// The worker whose facts the view carries.
    pub worker: &'a Worker,
    /// `Some(T)` for a view of the end of past tick T; `None` for the live
    /// session (which alone shows the inspector edits queued for its next
    /// tick).
    pub at_tick: Option<u64>,
    /// Hash of the committed state after the last tick.
    pub state_hash: u64,
    /// What the ticks of the branch received.
    pub tape: Arc<Recording>,
}

/// The view of `pipeline` now. While suspended every pose shown is the
/// committed pose of the completed tick, exactly, and interpolation alpha is
/// the accumulator over the fixed dt of the state it stopped in (what the
/// next presentation would use).
pub(super) fn build(pipeline: &Pipeline, facts: ViewFacts<'_>) -> WorldView {
    let world = pipeline.world();
    // While suspended the pipeline itself sets alpha to the accumulator over
    // the fixed dt (exact in flicks), so the clock is shown as it is.
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
            }
        })
        .collect();
    let selected = facts.worker.selected.and_then(|id| {
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
            // Queued for the live session's next tick: not in a past view.
            pending_edits: if facts.at_tick.is_none() {
                facts.worker.pending_edits.clone()
            } else {
                Vec::new()
            },
        })
    });
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
    let mut contacts = Vec::new();
    pipeline.physics().touching_pairs(&mut contacts);
    let w = facts.worker;
    WorldView {
        revision: w.revision,
        at_tick: facts.at_tick,
        clock,
        settings: w.settings(),
        pacing: w.pacing,
        suspension: pipeline.suspension().cloned(),
        scene_path: w.scene.as_ref().map(|s| s.path.clone()),
        objects,
        contacts,
        camera: world.camera,
        breakpoints: w.book.views(pipeline),
        clock_breakpoints: pipeline.debugger().clock_breakpoints().to_vec(),
        hits: w.book.hits(),
        selection: w.selected,
        selected,
        state_hash: facts.state_hash,
        actions,
        worker_fps: w.worker_fps(),
        tape: facts.tape,
        tape_in_force: w.session.history().tape().map(Replay::shared),
        scripts: w.scripts_view(),
        // The live session's reach, also in a past tick's view.
        rewind: w.session.reach(),
        run_b: w.run_b.clone(),
        tape_draft: w.tape_draft.clone(),
        undo: w.undo_view(),
    }
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
