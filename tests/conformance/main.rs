//! Conformance to the timing and debugger contracts (docs/contract.md).
//! One test per sentence, named after it. Physics is the stand-in stage of
//! `support.rs`, which logs its calls and integrates velocities, so every number
//! here can be checked by hand.
//!
//! One file per part of the contract: `outer_frame` (the phases, the clocks,
//! exact time), `cohort_lifecycle` (who gets called when objects come and
//! go), `scheduler` (priority order), `routines` (time groups), `debugger`
//! (where a breakpoint stops, stepping, resuming), `faults`,
//! `physics_world_time` (simulation time restarts only with its world) and
//! `mid_step` (hooks inside the physics step keep the trace independent of
//! the display; on rapier, with the built-in one-way platform and conveyor).

mod cohort_lifecycle;
mod debugger;
mod faults;
mod mid_step;
mod outer_frame;
mod physics_world_time;
mod routines;
mod scheduler;

use stepframe_core::{
    ActionBinding, ActionMap, Breakpoint, BreakpointId, Condition, ContactKind, Edit, Flicks,
    FrameKind, HitCount, HookKind, InputEvent, InputSource, ObjectDesc, ObjectId, Phase, Pipeline,
    Pose, PreparedEdit, Priority, StepStrategy, SuspendReason, TickInputSource, TimeSettings,
    World,
};
use stepframe_tests::{Actions, Event, Log, StandIn, count, hooks, new_log, probe_object, take};

const TICK: f64 = 1.0 / 60.0;

fn session_with(
    log: &Log,
    objects: Vec<ObjectDesc>,
    settings: TimeSettings,
    stage: StandIn,
) -> Pipeline {
    let mut world = World::new();
    for o in objects {
        world.spawn(o);
    }
    let mut p = Pipeline::new(settings);
    p.set_action_map(ActionMap {
        actions: vec![ActionBinding {
            name: "jump".into(),
            sources: vec![InputSource::Key("Space".into())],
        }],
    });
    p.load_session(world, Box::new(stage), 7);
    let _ = log;
    p
}

fn session(log: &Log, objects: Vec<ObjectDesc>) -> Pipeline {
    session_with(log, objects, TimeSettings::default(), StandIn::new(log))
}

/// Enables or disables an object as the editor's hierarchy does: an edit.
fn enable(p: &mut Pipeline, object: ObjectId, enabled: bool) {
    p.apply_edit(&Edit::Enabled { object, enabled }.into())
        .expect("a live object");
}

fn probes(log: &Log, n: u64) -> Vec<ObjectDesc> {
    (1..=n)
        .map(|id| probe_object(log, id, 0, Actions::default()))
        .collect()
}

fn space(pressed: bool) -> InputEvent {
    let source = InputSource::Key("Space".into());
    if pressed {
        InputEvent::press(source)
    } else {
        InputEvent::release(source)
    }
}
