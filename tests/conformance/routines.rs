//! Routines.

use super::*;

#[derive(Clone, Debug)]
struct Ticker {
    log: std::sync::Arc<std::sync::Mutex<Vec<(f64, u64)>>>,
    wait: f64,
}

impl stepframe_core::Routine for Ticker {
    fn resume(&mut self, ctx: &mut stepframe_core::Ctx) -> stepframe_core::Wait {
        self.log
            .lock()
            .expect("lock")
            .push((ctx.clock().frame_time, ctx.clock().simulation_tick));
        stepframe_core::Wait::Seconds(self.wait)
    }
}

#[derive(Clone, Debug)]
struct StartsRoutine {
    group: stepframe_core::TimeGroup,
    routine: Ticker,
    started: bool,
}

impl stepframe_core::Behaviour for StartsRoutine {
    fn name(&self) -> &str {
        "StartsRoutine"
    }
    fn fixed_update(&mut self, ctx: &mut stepframe_core::Ctx, _dt: f64) {
        if !self.started {
            self.started = true;
            ctx.start_routine(self.group, Box::new(self.routine.clone()));
        }
    }
}

/// `(frame_time, simulation_tick)` of every routine slice.
type RoutineLog = std::sync::Arc<std::sync::Mutex<Vec<(f64, u64)>>>;

fn routine_session(group: stepframe_core::TimeGroup) -> (Pipeline, RoutineLog) {
    let rlog = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let b = StartsRoutine {
        group,
        routine: Ticker {
            log: rlog.clone(),
            wait: 0.1,
        },
        started: false,
    };
    let mut world = World::new();
    world
        .spawn(ObjectDesc::new("r", Pose::IDENTITY).with_behaviour(Box::new(b), Priority::DEFAULT));
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(world, Box::new(stepframe_core::NoPhysics), 1);
    (p, rlog)
}

#[test]
fn timed_routines_use_the_frame_clock_by_default_even_when_started_from_fixed_update() {
    let (mut p, rlog) = routine_session(stepframe_core::TimeGroup::Frame);
    // Time scale 0 after the routine starts: the frame clock stops too, but a
    // 0.05 s frame at scale 1 with a 0.1 s wait resumes every second frame.
    for _ in 0..6 {
        p.step_frame(0.05);
    }
    let frame_times: Vec<f64> = rlog.lock().expect("lock").iter().map(|(f, _)| *f).collect();
    // Started in frame 1's fixed phase; first slice in frame 2's update phase
    // (frame_time 0.1), then every 0.1 s of frame time: 0.2, 0.3.
    let expected: Vec<f64> = [2u64, 4, 6]
        .iter()
        .map(|k| Flicks::from_secs_f64(0.05).0 * k)
        .map(|f| Flicks(f).as_secs_f64())
        .collect();
    assert_eq!(frame_times, expected);
}

#[test]
fn a_fixed_clock_group_exists_for_routines_that_must_wait_in_simulation_time() {
    let (mut p, rlog) = routine_session(stepframe_core::TimeGroup::Fixed);
    for _ in 0..30 {
        p.step_frame(1.0 / 60.0);
    }
    let ticks: Vec<u64> = rlog.lock().expect("lock").iter().map(|(_, t)| *t).collect();
    // Started by FixedUpdate of tick 1: its first slice runs in the fixed routine
    // pass of that same tick (after FixedUpdate), then every 0.1 s = 6 ticks of
    // simulation time, measured from tick starts: ticks 7, 13, 19, 25.
    assert_eq!(ticks, vec![1, 7, 13, 19, 25]);
}

/// `(object, name, frame_time, simulation_tick, phase)` of every named routine slice.
type NamedLog = std::sync::Arc<std::sync::Mutex<Vec<(u64, String, f64, u64, Phase)>>>;

/// Starts a named routine from its first FixedUpdate; the routine runs three
/// times, 0.1 s apart on its object's time group. Its count is behaviour
/// state, so snapshots carry it.
#[derive(Clone, Debug)]
struct Named {
    log: NamedLog,
    started: bool,
    count: u32,
}

impl stepframe_core::Behaviour for Named {
    fn name(&self) -> &str {
        "Named"
    }
    fn fixed_update(&mut self, ctx: &mut stepframe_core::Ctx, _dt: f64) {
        if !self.started {
            self.started = true;
            ctx.start_named_routine("blink", 0.1);
        }
    }
    fn routine(&mut self, ctx: &mut stepframe_core::Ctx, name: &str) -> stepframe_core::Wait {
        assert_eq!(ctx.hook(), HookKind::Routine);
        let c = ctx.clock();
        self.log.lock().expect("lock").push((
            ctx.me().0,
            name.to_string(),
            c.frame_time,
            c.simulation_tick,
            c.phase,
        ));
        self.count += 1;
        if self.count < 3 {
            stepframe_core::Wait::Seconds(0.1)
        } else {
            stepframe_core::Wait::Done
        }
    }
}

#[test]
fn timed_routines_use_their_objects_time_group_and_come_back_to_the_behaviour_that_started_them() {
    let log: NamedLog = Default::default();
    let named = |id: u64, group: stepframe_core::TimeGroup| {
        let b = Named {
            log: log.clone(),
            started: false,
            count: 0,
        };
        ObjectDesc::new(format!("n{id}"), Pose::IDENTITY)
            .with_id(ObjectId(id))
            .with_time_group(group)
            .with_behaviour(Box::new(b), Priority::DEFAULT)
    };
    let mut world = World::new();
    world.spawn(named(1, stepframe_core::TimeGroup::Frame));
    world.spawn(named(2, stepframe_core::TimeGroup::Fixed));
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(world, Box::new(stepframe_core::NoPhysics), 1);
    // Frames of 0.05 s run three 60 Hz ticks each. Frame 3 ends at a frame
    // time of 0.15 s; snapshot there, and check the rest replays the same.
    for _ in 0..3 {
        p.step_frame(0.05);
    }
    let snapshot = p.snapshot();
    let at_snapshot = log.lock().expect("lock").len();
    for _ in 0..5 {
        p.step_frame(0.05);
    }
    let first: Vec<_> = log.lock().expect("lock").clone();
    let f = |frames: u64| Flicks(Flicks::from_secs_f64(0.05).0 * frames).as_secs_f64();
    let blink = |object: u64, frame_time: f64, tick: u64, phase: Phase| {
        (object, "blink".to_string(), frame_time, tick, phase)
    };
    // Object 1 (frame clock): started in frame 1's fixed phase at frame time
    // 0.05, due at 0.15, 0.25, 0.35: the update phases of frames 3, 5 and 7
    // (after 6, 12 and 18 ticks). Object 2 (fixed clock): started in tick 1,
    // which starts at 0, due at simulation time 0.1, 0.2, 0.3: the fixed
    // routine passes of ticks 7, 13 and 19 (pending tick, frames 3, 5, 7).
    assert_eq!(
        first,
        [
            blink(1, f(3), 6, Phase::Update),
            blink(2, f(3), 7, Phase::Fixed),
            blink(1, f(5), 12, Phase::Update),
            blink(2, f(5), 13, Phase::Fixed),
            blink(1, f(7), 18, Phase::Update),
            blink(2, f(7), 19, Phase::Fixed),
        ]
    );
    // A restored snapshot carries the routines and the behaviours' counts.
    log.lock().expect("lock").truncate(at_snapshot);
    p.restore(&snapshot);
    for _ in 0..5 {
        p.step_frame(0.05);
    }
    assert_eq!(*log.lock().expect("lock"), first);
}
