//! The hook beacon through a real pipeline: every call a behaviour sees
//! itself announced in, on FixedUpdate's packed fast loop as on the
//! per-call paths, with its tick; a new session forgets the old label.

use std::sync::{Arc, Mutex};

use stepframe_core::{
    Behaviour, Ctx, HookBeacon, HookKind, NoPhysics, ObjectDesc, ObjectId, Pipeline, Pose,
    Priority, TimeSettings, World,
};

/// What a behaviour read from the beacon inside its own hook:
/// `(object, hook, tick, registration number, call number)`.
type Seen = Arc<Mutex<Vec<(ObjectId, HookKind, u64, u64, u64)>>>;

/// Reads the beacon inside its FixedUpdate and Update.
#[derive(Clone, Debug, stepframe_core::Inspect)]
struct Looker {
    #[inspect(skip)]
    beacon: HookBeacon,
    #[inspect(skip)]
    seen: Seen,
}

impl Looker {
    fn look(&self, ctx: &Ctx) {
        let call = self
            .beacon
            .current()
            .expect("inside a hook, a call is announced");
        assert_eq!(
            call.object,
            ctx.me(),
            "the call names the object it runs for"
        );
        self.seen.lock().expect("not poisoned").push((
            call.object,
            call.hook,
            call.tick,
            call.seq,
            call.call,
        ));
    }
}

#[stepframe_core::behaviour]
impl Behaviour for Looker {
    fn name(&self) -> &str {
        "Looker"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        self.look(ctx);
    }
    fn update(&mut self, ctx: &mut Ctx, _dt: f64) {
        self.look(ctx);
    }
}

fn world(beacon: &HookBeacon, seen: &Seen) -> World {
    let mut w = World::new();
    for i in 1..=3u64 {
        let looker = Looker {
            beacon: beacon.clone(),
            seen: seen.clone(),
        };
        w.spawn(
            ObjectDesc::new(format!("looker {i}"), Pose::IDENTITY)
                .with_id(ObjectId(i))
                // Two priority groups: the fast loop crosses a group border.
                .with_behaviour(Box::new(looker), Priority(i as i32 / 2)),
        );
    }
    w
}

#[test]
fn every_hook_call_sees_its_own_object_and_tick_announced_on_the_fast_loop_too() {
    let beacon = HookBeacon::new();
    let seen: Seen = Arc::default();
    let mut p = Pipeline::new(TimeSettings::default());
    p.set_hook_beacon(Some(beacon.clone()));
    p.load_session(world(&beacon, &seen), Box::new(NoPhysics), 1);
    for _ in 0..3 {
        p.step_frame(1.0 / 60.0);
    }
    let seen = seen.lock().expect("not poisoned").clone();
    let fixed: Vec<(ObjectId, u64)> = seen
        .iter()
        .filter(|s| s.1 == HookKind::FixedUpdate)
        .map(|s| (s.0, s.2))
        .collect();
    // Ticks 1, 2, 3 pending in FixedUpdate; priority order 1, then 2 and 3.
    let mut expected = Vec::new();
    for tick in 1..=3 {
        for id in [1, 2, 3] {
            expected.push((ObjectId(id), tick));
        }
    }
    assert_eq!(fixed, expected);
    // The packed fast loop ran them: one announcement per pass, so the
    // three calls of a tick share a call number, and the next tick has another.
    let numbers: Vec<u64> = seen
        .iter()
        .filter(|s| s.1 == HookKind::FixedUpdate)
        .map(|s| s.4)
        .collect();
    for tick in numbers.chunks(3) {
        assert!(tick.iter().all(|n| *n == tick[0]), "{numbers:?}");
    }
    assert_ne!(numbers[0], numbers[3], "{numbers:?}");
    let updates: Vec<u64> = seen
        .iter()
        .filter(|s| s.1 == HookKind::Update)
        .map(|s| s.2)
        .collect();
    assert_eq!(
        updates,
        vec![0, 0, 0, 1, 1, 1, 2, 2, 2],
        "Update sees the completed ticks"
    );
    let seqs: std::collections::BTreeSet<u64> = seen.iter().map(|s| s.3).collect();
    assert_eq!(seqs.len(), 3, "one registration number per behaviour");
    assert_eq!(beacon.current(), None, "no hook runs between frames");
    assert_eq!(beacon.last_tick(), 3);
}

#[test]
fn a_new_session_forgets_the_label_of_the_last() {
    let beacon = HookBeacon::new();
    let mut p = Pipeline::new(TimeSettings::default());
    p.set_hook_beacon(Some(beacon.clone()));
    p.load_session(World::new(), Box::new(NoPhysics), 1);
    beacon.announce_session("a.ron");
    assert_eq!(beacon.session().as_deref(), Some("a.ron"));
    p.load_session(World::new(), Box::new(NoPhysics), 1);
    assert_eq!(beacon.session(), None);
}
