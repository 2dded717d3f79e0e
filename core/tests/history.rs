//! Rewind through keyframes and re-simulation lands bit-identically on any kept
//! tick, and the continuation with the same input is bit-identical to the original.

use std::sync::{Arc, Mutex};

mod support;

use stepframe_core::{
    ActionBinding, ActionMap, Behaviour, BodyDesc, Breakpoint, Condition, Ctx, Edit, History,
    HookKind, InputEvent, InputSource, ObjectDesc, ObjectId, Pipeline, Pose, PoseHistory, Priority,
    RapierStage, RewindError, Session, Shape, TickObserver, TickRecord, TimeSettings, Vec2, World,
};
use support::Hashes;

/// Pushes its body on the fixed jump edge and with a random sideways nudge.
#[derive(Clone, Debug)]
struct Pusher;

impl Behaviour for Pusher {
    fn name(&self) -> &str {
        "Pusher"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        if ctx.input().just_pressed("jump") {
            ctx.apply_impulse(ctx.me(), Vec2::new(0.0, 6.0));
        }
        support::nudge(ctx, 3.0);
    }
}

fn world() -> World {
    let mut w = World::new();
    w.spawn(support::ground(20.0));
    for i in 0..24u64 {
        let x = (i % 6) as f32 * 1.1 - 3.0;
        let y = 1.0 + (i / 6) as f32 * 1.1;
        let mut o = ObjectDesc::new(format!("ball{i}"), Pose::new(x, y, 0.0))
            .with_id(ObjectId(10 + i))
            .with_body(BodyDesc::dynamic(Shape::Circle { radius: 0.5 }));
        if i % 4 == 0 {
            o = o.with_behaviour(Box::new(Pusher), Priority::DEFAULT);
        }
        w.spawn(o);
    }
    w
}

fn pipeline() -> Pipeline {
    let mut p = Pipeline::new(TimeSettings::default());
    p.set_action_map(ActionMap {
        actions: vec![ActionBinding {
            name: "jump".into(),
            sources: vec![InputSource::Key("Space".into())],
        }],
    });
    p.load_session(
        world(),
        Box::new(RapierStage::new(Vec2::new(0.0, -9.81))),
        42,
    );
    p
}

/// One call of the script a host makes.
#[derive(Clone, Debug)]
enum HostCall {
    Frame(f64, Vec<InputEvent>),
    StepTick,
    Resume,
}

/// Irregular pacing with input every 23rd frame and a debugger detour.
fn script() -> Vec<HostCall> {
    let mut steps = Vec::new();
    let mut seed = 7u64;
    for f in 0..700u64 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let dt = 0.004 + (seed >> 33) as f64 / (1u64 << 31) as f64 * 0.04;
        let inputs = match f % 23 {
            0 => vec![InputEvent::press(InputSource::Key("Space".into()))],
            3 => vec![InputEvent::release(InputSource::Key("Space".into()))],
            _ => vec![],
        };
        steps.push(HostCall::Frame(dt, inputs));
        if f == 300 {
            steps.extend([HostCall::StepTick, HostCall::StepTick, HostCall::Resume]);
        }
    }
    steps
}

/// Per-tick hashes and the index of the script call that ran each tick.
#[derive(Clone, Default)]
struct Ticks(Arc<Mutex<Vec<(u64, u64, usize)>>>, Arc<Mutex<usize>>);

impl TickObserver for Ticks {
    fn on_tick(&mut self, r: &TickRecord<'_>) {
        let call = *self.1.lock().expect("lock");
        self.0
            .lock()
            .expect("lock")
            .push((r.clock.simulation_tick, r.hash, call));
    }
}

fn run(s: &mut Session, steps: &[HostCall], ticks: &Ticks, first_call: usize) {
    for (i, step) in steps.iter().enumerate() {
        *ticks.1.lock().expect("lock") = first_call + i;
        match step {
            HostCall::Frame(dt, inputs) => {
                s.step_frame(*dt, inputs);
            }
            HostCall::StepTick => {
                s.step_tick(&[]);
            }
            HostCall::Resume => {
                s.resume(&[]);
            }
        }
    }
}

/// Makes the calls of `steps` from index `first` on, as the original host
/// does: a breakpoint suspends mid-frame, and the host resumes on the next
/// call unless that call is a step or a resume of its own.
fn run_as_a_host(s: &mut Session, steps: &[HostCall], ticks: &Ticks, first: usize) {
    for i in first..steps.len() {
        run(s, &steps[i..i + 1], ticks, i);
        if s.pipeline().suspension().is_some()
            && !matches!(
                steps.get(i + 1),
                Some(HostCall::StepTick | HostCall::Resume)
            )
        {
            s.resume(&[]);
        }
    }
}

fn original() -> (Vec<(u64, u64, usize)>, Session) {
    let mut p = pipeline();
    let ticks = Ticks::default();
    p.set_tick_observer(Some(Box::new(ticks.clone())));
    // A FixedUpdate breakpoint that stops at tick 150 on a pusher.
    p.add_breakpoint(Breakpoint {
        condition: Condition {
            ticks: Some((150, 150)),
            ..Condition::default()
        },
        ..Breakpoint::on(HookKind::FixedUpdate, ObjectId(14))
    });
    let mut s = Session::new(p, History::new(30, 100_000));
    let steps = script();
    run_as_a_host(&mut s, &steps, &ticks, 0);
    let out = ticks.0.lock().expect("lock").clone();
    (out, s)
}

#[test]
fn rewinding_lands_bit_identically_on_any_kept_tick() {
    let (reference, mut s) = original();
    let last = reference.last().expect("ticks ran").0;
    assert!(last > 900, "{last} ticks");
    for target in [1u64, 149, 150, 151, 302, 303, 517, last - 1, last] {
        s.rewind_to_tick(target).expect("rewind");
        let expected = reference.iter().find(|t| t.0 == target).expect("tick").1;
        let p = s.pipeline();
        assert_eq!(p.stepper().completed_ticks(), target);
        assert_eq!(p.state_hash(), expected, "state at tick {target}");
        assert!(p.suspension().is_some(), "left suspended at the target");
    }
    assert!(matches!(
        s.rewind_to_tick(last + 10),
        Err(RewindError::InTheFuture { .. })
    ));
}

#[test]
fn the_rewound_continuation_with_the_same_input_is_bit_identical() {
    let (reference, _) = original();
    let steps = script();
    for target in [77u64, 149, 151, 420] {
        let (_, mut s) = original();
        s.rewind_to_tick(target).expect("rewind");
        let call = reference.iter().find(|t| t.0 == target).expect("tick").2;
        let ticks = Ticks::default();
        s.set_tick_observer(Some(Box::new(ticks.clone())));
        // Finish the interrupted call (as the original host did, through any
        // breakpoint it meets), then make the same calls as the original.
        while s.pipeline().suspension().is_some() {
            s.resume(&[]);
        }
        run_as_a_host(&mut s, &steps, &ticks, call + 1);
        let continued: Vec<(u64, u64)> = ticks
            .0
            .lock()
            .expect("lock")
            .iter()
            .map(|t| (t.0, t.1))
            .collect();
        let expected: Vec<(u64, u64)> = reference
            .iter()
            .filter(|t| t.0 > target)
            .map(|t| (t.0, t.1))
            .collect();
        assert!(!continued.is_empty());
        assert_eq!(continued, expected, "continuation after tick {target}");
    }
}

#[test]
fn old_ticks_leave_the_history_and_memory_stays_bounded() {
    let mut s = Session::new(pipeline(), History::new(10, 50));
    for _ in 0..500 {
        s.step_frame(1.0 / 60.0, &[]);
    }
    assert_eq!(s.history().keyframes(), 5);
    let oldest = s.history().oldest_tick().expect("keyframes");
    assert!(oldest >= 440, "oldest kept {oldest}");
    assert!(matches!(
        s.rewind_to_tick(10),
        Err(RewindError::TooOld { .. })
    ));
    s.rewind_to_tick(oldest + 3).expect("recent tick");
}

#[test]
fn pose_history_keeps_committed_poses_per_tick_within_its_budget() {
    let mut p = pipeline();
    let poses = Arc::new(Mutex::new(PoseHistory::with_budget(200_000)));
    #[derive(Clone)]
    struct Shared(Arc<Mutex<PoseHistory>>);
    impl TickObserver for Shared {
        fn on_tick(&mut self, r: &TickRecord<'_>) {
            self.0.lock().expect("lock").on_tick(r);
        }
    }
    p.set_tick_observer(Some(Box::new(Shared(poses.clone()))));
    for _ in 0..30 {
        p.step_frame(1.0 / 60.0);
    }
    let at30 = p.world().physics_simulation_pose(ObjectId(10));
    for _ in 0..600 {
        p.step_frame(1.0 / 60.0);
    }
    let ph = poses.lock().expect("lock");
    assert!(ph.memory_bytes() <= 200_000);
    let (first, last) = ph.range().expect("kept");
    assert_eq!(last, 630);
    assert!(first > 1, "old ticks were dropped");
    let recent = ph.at(last).expect("newest kept");
    assert_eq!(
        recent
            .poses
            .iter()
            .find(|(id, _)| *id == ObjectId(10))
            .map(|(_, p)| *p),
        p.world().physics_simulation_pose(ObjectId(10))
    );
    assert!(
        ph.at(30).is_none()
            || ph.at(30).map(|t| t
                .poses
                .iter()
                .find(|(id, _)| *id == ObjectId(10))
                .map(|(_, p)| *p))
                == Some(at30)
    );
}

/// New time settings are a call like any other: a rewind across the change
/// replays it at the same point, so the ticks after it run at the new pace
/// again (the toolbar's time scale 2 from frame 11 on: two ticks a frame).
/// A keyframe taken between the change and the frame that applies it
/// carries the change.
#[test]
fn a_rewind_across_a_settings_change_runs_the_new_settings_again() {
    let dt = 1.0 / 60.0;
    let faster = TimeSettings {
        time_scale: 2.0,
        ..TimeSettings::default()
    };
    let mut reference = pipeline();
    let mut frame_end = vec![(0, reference.state_hash())];
    for frame in 1..=30u64 {
        if frame == 11 {
            reference.set_settings(faster).expect("valid settings");
        }
        reference.step_frame(dt);
        let tick = reference.stepper().completed_ticks();
        frame_end.push((tick, reference.state_hash()));
    }
    // 10 frames of one tick, then 20 of two.
    assert_eq!(frame_end[30].0, 10 + 20 * 2);

    // Keyframes before frames 1, 11 and 21 (every 10), or before frames 1
    // and 26 (every 25): the first has one right after the change, before
    // the frame that applies it; the second replays across the change.
    for every in [10, 25] {
        let mut s = Session::new(pipeline(), History::new(every, 10_000));
        for frame in 1..=30u64 {
            if frame == 11 {
                s.set_settings(faster).expect("valid settings");
            }
            s.step_frame(dt, &[]);
        }
        assert_eq!(s.pipeline().state_hash(), frame_end[30].1);
        for (frame, scale) in [(29, 2.0), (20, 2.0), (13, 2.0), (11, 2.0), (6, 1.0)] {
            let (tick, hash) = frame_end[frame];
            s.rewind_to_tick(tick).expect("reachable");
            assert_eq!(
                s.pipeline().settings().time_scale,
                scale,
                "every {every}, frame {frame}"
            );
            assert_eq!(
                s.pipeline().state_hash(),
                hash,
                "every {every}, frame {frame}, tick {tick}"
            );
        }
    }
}

#[test]
fn an_edit_is_a_call_of_the_history_that_past_views_and_rewinds_repeat() {
    let mut p = pipeline();
    let live = Hashes::default();
    p.set_tick_observer(Some(Box::new(live.clone())));
    let mut s = Session::new(p, History::new(30, 100_000));
    for _ in 0..200 {
        s.step_frame(1.0 / 60.0, &[]);
    }
    // Paused at the end of tick 200, ball 10 is lifted to y = 8 and ball 14
    // (a pusher) disabled; then the session plays on.
    s.pause();
    let lift = Edit::Pose {
        object: ObjectId(10),
        pose: Pose::new(-3.0, 8.0, 0.0),
    };
    s.edit(lift.into()).expect("ball 10 has a body");
    let disable = Edit::Enabled {
        object: ObjectId(14),
        enabled: false,
    };
    s.edit(disable.into()).expect("ball 14 is alive");
    // An edit the session refuses is an error and changes nothing.
    let bodiless = Edit::Pose {
        object: ObjectId(999),
        pose: Pose::new(0.0, 0.0, 0.0),
    };
    assert!(s.edit(bodiless.into()).is_err());
    s.resume(&[]);
    let y_of = |p: &Pipeline| {
        p.world()
            .physics_simulation_pose(ObjectId(10))
            .expect("ball")
            .y
    };
    for _ in 0..5 {
        s.step_frame(1.0 / 60.0, &[]);
    }
    // Five ticks of free fall from 8 m: about 2 cm lower.
    assert!(
        y_of(s.pipeline()) > 7.9,
        "the lift took effect: y = {}",
        y_of(s.pipeline())
    );
    for _ in 0..95 {
        s.step_frame(1.0 / 60.0, &[]);
    }

    // A past view of any tick after the edit shows it, bit for bit.
    for tick in [201u64, 202, 250, 300] {
        let mut scratch = Pipeline::new(TimeSettings::default());
        s.replay_into(&mut scratch, tick).expect("a kept tick");
        assert_eq!(
            scratch.state_hash(),
            live.at(tick),
            "past view of tick {tick}"
        );
    }
    // So does a rewind to after it.
    s.rewind_to_tick(205).expect("rewind");
    assert_eq!(s.pipeline().state_hash(), live.at(205));
    assert!(
        y_of(s.pipeline()) > 7.9,
        "rewound after the lift: y = {}",
        y_of(s.pipeline())
    );
    s.rewind_to_tick(260).expect("rewind");
    assert_eq!(s.pipeline().state_hash(), live.at(260));

    // A rewind to before the edit and a new future leaves it out: at tick
    // 205 the ball is where the scene put it, on the others.
    s.rewind_to_tick(150).expect("rewind");
    s.set_tick_observer(Some(Box::new(Hashes::default())));
    // The rewind leaves the session suspended at tick 150.
    s.resume(&[]);
    while s.pipeline().stepper().completed_ticks() < 205 {
        s.step_frame(1.0 / 60.0, &[]);
    }
    assert!(
        y_of(s.pipeline()) < 3.0,
        "the new future has no lift: y = {}",
        y_of(s.pipeline())
    );
    assert_ne!(s.pipeline().state_hash(), live.at(205));
}
