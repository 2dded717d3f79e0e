//! `Session::replay_into`: the state of any kept tick, rebuilt in a scratch
//! pipeline (what the editor's time cursor shows), equals the live session's
//! state at that tick, and leaves the live session and the log untouched.

use std::sync::{Arc, Mutex};

mod support;
use support::Nudger;

use stepframe_core::{
    BodyDesc, Clock, History, ObjectDesc, ObjectId, Pipeline, Pose, Priority, RapierStage, Session,
    Shape, TickObserver, TickRecord, TimeSettings, Vec2, World,
};

fn pipeline() -> Pipeline {
    let mut w = World::new();
    w.spawn(support::ground(20.0));
    for i in 0..6u64 {
        w.spawn(
            ObjectDesc::new(format!("ball{i}"), Pose::new(i as f32 - 3.0, 2.0, 0.0))
                .with_id(ObjectId(10 + i))
                .with_body(BodyDesc::dynamic(Shape::Circle { radius: 0.4 }))
                .with_behaviour(Box::new(Nudger { most: 4.0 }), Priority::DEFAULT),
        );
    }
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(w, Box::new(RapierStage::new(Vec2::new(0.0, -9.81))), 7);
    p
}

/// Every completed tick's clock and state hash, as the live run saw them.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<(Clock, u64)>>>);

impl TickObserver for Seen {
    fn on_tick(&mut self, record: &TickRecord<'_>) {
        if let Ok(mut v) = self.0.lock() {
            v.push((*record.clock, record.hash));
        }
    }
}

#[test]
fn a_replayed_tick_equals_the_live_tick_and_leaves_the_live_session_alone() {
    let mut live = pipeline();
    let seen = Seen::default();
    live.set_tick_observer(Some(Box::new(seen.clone())));
    // Short keyframe spacing so targets land both on and between keyframes;
    // irregular frames so ticks fall in the middle of multi-tick frames.
    let mut history = Session::new(live, History::new(10, 10_000));
    let dts = [0.004, 0.05, 0.016, 0.033, 0.0, 0.07, 0.011];
    for i in 0..120 {
        history.step_frame(dts[i % dts.len()], &[]);
    }
    let live_tick = history.pipeline().clock().simulation_tick;
    let live_hash = history.pipeline().state_hash();
    let seen = seen.0.lock().expect("lock").clone();
    assert_eq!(seen.len() as u64, live_tick);
    for target in [1, 2, 9, 10, 11, 37, 64, live_tick - 1, live_tick] {
        let mut scratch = Pipeline::new(TimeSettings::default());
        history
            .replay_into(&mut scratch, target)
            .expect("a kept tick replays");
        let (clock, hash) = seen[target as usize - 1];
        assert_eq!(scratch.clock().simulation_tick, target);
        assert_eq!(scratch.state_hash(), hash, "state at tick {target}");
        assert_eq!(scratch.clock().frame_index, clock.frame_index);
        assert_eq!(scratch.clock().frame_time, clock.frame_time);
        assert_eq!(scratch.clock().simulation_time, clock.simulation_time);
        assert_eq!(scratch.clock().dropped_time, clock.dropped_time);
        assert!(scratch.suspension().is_some(), "left suspended at {target}");
    }
    // The live session and the log are as they were: it goes on exactly.
    assert_eq!(history.pipeline().clock().simulation_tick, live_tick);
    assert_eq!(history.pipeline().state_hash(), live_hash);
    assert!(history.pipeline().suspension().is_none());
    let mut twin_history = Session::new(pipeline(), History::new(10, 10_000));
    for i in 0..150 {
        twin_history.step_frame(dts[i % dts.len()], &[]);
        if i >= 120 {
            history.step_frame(dts[i % dts.len()], &[]);
        }
    }
    assert_eq!(
        history.pipeline().state_hash(),
        twin_history.pipeline().state_hash()
    );
    assert!(
        history
            .replay_into(&mut Pipeline::new(TimeSettings::default()), 10_000)
            .is_err(),
        "a tick in the future is refused"
    );
}

/// Every completed tick's hash, from an observer that says it does not
/// want it.
#[derive(Clone, Default)]
struct Blind(Arc<Mutex<Vec<u64>>>);

impl TickObserver for Blind {
    fn on_tick(&mut self, record: &TickRecord<'_>) {
        if let Ok(mut v) = self.0.lock() {
            v.push(record.hash);
        }
    }

    fn wants_hash(&self) -> bool {
        false
    }
}

#[test]
fn an_observer_that_wants_no_hash_gets_0_and_one_beside_it_that_does_gets_it() {
    let blind = Blind::default();
    let seen = Seen::default();
    let mut p = pipeline();
    p.set_tick_observer(Some(Box::new(blind.clone())));
    for _ in 0..20 {
        p.step_frame(1.0 / 60.0);
    }
    let hashes = blind.0.lock().expect("lock").clone();
    assert_eq!(hashes, vec![0; 20]);

    // In one slot with an observer that wants it, both get the real hash.
    let both = Blind::default();
    let mut q = pipeline();
    let slot: Vec<Box<dyn TickObserver>> = vec![Box::new(both.clone()), Box::new(seen.clone())];
    q.set_tick_observer(Some(Box::new(slot)));
    let mut ends = Vec::new();
    for _ in 0..20 {
        q.step_frame(1.0 / 60.0);
        ends.push(q.state_hash());
    }
    let seen: Vec<u64> = seen.0.lock().expect("lock").iter().map(|s| s.1).collect();
    // One tick a frame of 1/60 s at 60 Hz, so the end of each tick is the
    // end of its frame (Nudger changes nothing in the variable update).
    assert_eq!(seen, ends);
    assert_eq!(*both.0.lock().expect("lock"), ends);
}
