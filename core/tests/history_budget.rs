//! A rewind history bounded by bytes: it stays under its budget, doubles its
//! keyframe spacing (keeping its reach) before it drops old keyframes, still
//! rewinds bit-identically, and says how far back it reaches.

use stepframe_core::{
    BodyDesc, History, ObjectDesc, ObjectId, Pipeline, Pose, RapierStage, RewindReach, Session,
    Shape, TimeSettings, Vec2, World,
};

/// Twenty balls dropping onto a floor: a world whose keyframes cost bytes.
fn world() -> World {
    let mut w = World::new();
    w.spawn(
        ObjectDesc::new("floor", Pose::new(0.0, -0.5, 0.0))
            .with_id(ObjectId(1))
            .with_body(BodyDesc::with_kind(
                stepframe_core::BodyKind::Fixed,
                Shape::Cuboid { hx: 20.0, hy: 0.5 },
            )),
    );
    for i in 0..20u64 {
        let x = (i % 10) as f32 * 1.1 - 5.0;
        let y = 1.0 + (i / 10) as f32 * 1.1;
        w.spawn(
            ObjectDesc::new(format!("ball{i}"), Pose::new(x, y, 0.0))
                .with_id(ObjectId(10 + i))
                .with_body(BodyDesc::dynamic(Shape::Circle { radius: 0.5 })),
        );
    }
    w
}

fn session() -> Pipeline {
    let mut p = Pipeline::new(TimeSettings::default());
    p.load_session(
        world(),
        Box::new(RapierStage::new(Vec2::new(0.0, -10.0))),
        3,
    );
    p
}

const DT: f64 = 1.0 / 60.0;

/// The bytes of a keyframe once the balls have landed (contacts cost bytes:
/// a keyframe at the start, before any, is smaller).
fn settled_keyframe_bytes() -> usize {
    let mut p = session();
    for _ in 0..120 {
        p.step_frame(DT);
    }
    p.snapshot().memory_bytes()
}

/// What an unbounded history of the landed balls holds with eight
/// keyframes 10 frames apart: keyframes are packed (delta-encoded and
/// compressed), so their bytes are the history's to say.
fn eight_settled_keyframes_bytes() -> usize {
    let mut p = session();
    for _ in 0..120 {
        p.step_frame(DT);
    }
    let mut h = Session::new(p, History::with_budget(10, usize::MAX));
    for _ in 0..80 {
        h.step_frame(DT, &[]);
    }
    assert_eq!(h.history().keyframes(), 8);
    h.history().memory_bytes()
}

#[test]
fn a_history_over_its_budget_doubles_its_spacing_keeps_its_reach_and_stays_under_it() {
    let keyframe = settled_keyframe_bytes();
    assert!(
        keyframe > 20 * 100,
        "a 21-body keyframe counts its bodies: {keyframe} B"
    );
    // Room for about eight keyframes (and the call log).
    let budget = eight_settled_keyframes_bytes() + 16 * 1024;
    let mut h = Session::new(session(), History::with_budget(10, budget));
    // The same run without a history: the state hash of every tick.
    let mut twin = session();
    let mut hashes = vec![twin.state_hash()];
    let mut spacings = vec![h.history().keyframe_every()];
    for _ in 0..600 {
        h.step_frame(DT, &[]);
        twin.step_frame(DT);
        hashes.push(twin.state_hash());
        assert!(
            h.history().memory_bytes() <= budget,
            "{} > {budget}",
            h.history().memory_bytes()
        );
        if spacings.last() != Some(&h.history().keyframe_every()) {
            spacings.push(h.history().keyframe_every());
        }
    }
    // 600 frames at 10 apart would be 60 keyframes: the spacing doubled
    // twice (the limit), then old keyframes went.
    assert_eq!(spacings, vec![10, 20, 40]);
    let oldest = h.history().oldest_tick().unwrap_or(u64::MAX);
    assert!(oldest > 0, "after the doublings, the oldest keyframes go");
    assert!(
        h.history().keyframes() >= 4,
        "{} keyframes",
        h.history().keyframes()
    );
    // Rewinds anywhere in reach land on the very state of that tick.
    for target in [oldest, oldest + 17, 555, 599] {
        h.rewind_to_tick(target).expect("in reach");
        assert_eq!(
            h.pipeline().state_hash(),
            hashes[target as usize],
            "tick {target}"
        );
    }
}

#[test]
fn while_doubling_the_oldest_keyframe_stays_so_rewind_reaches_the_start() {
    let budget = eight_settled_keyframes_bytes() + 16 * 1024;
    let mut h = Session::new(session(), History::with_budget(10, budget));
    let mut twin = session();
    let mut hashes = vec![twin.state_hash()];
    let mut frames = 0;
    while h.history().keyframe_every() < 40 {
        h.step_frame(DT, &[]);
        twin.step_frame(DT);
        hashes.push(twin.state_hash());
        frames += 1;
        assert!(frames < 2000, "the spacing never doubled twice");
        assert_eq!(h.history().oldest_tick(), Some(0), "frame {frames}");
    }
    h.rewind_to_tick(3).expect("the start is in reach");
    assert_eq!(h.pipeline().state_hash(), hashes[3]);
}

#[test]
fn a_lower_budget_applies_at_once_by_doubling_first() {
    let mut h = Session::new(session(), History::with_budget(10, usize::MAX));
    for _ in 0..200 {
        h.step_frame(DT, &[]);
    }
    assert_eq!(h.history().keyframes(), 20);
    // Two thirds of the bytes: one doubling (half the keyframes) fits.
    let lower = h.history().memory_bytes() * 2 / 3;
    h.set_history_budget(Some(lower));
    assert!(h.history().memory_bytes() <= lower);
    assert_eq!(h.history().keyframe_every(), 20);
    assert_eq!(h.history().keyframes(), 10);
    assert_eq!(h.history().oldest_tick(), Some(0));
}

#[test]
fn reach_is_the_simulated_time_back_to_the_oldest_keyframe() {
    let mut h = Session::new(session(), History::with_budget(10, 256 << 20));
    for _ in 0..125 {
        h.step_frame(DT, &[]);
    }
    let reach = h.reach();
    // Keyframes at frames 0, 10, ... (ticks 0, 10, ...), live at tick 125.
    assert!((reach.seconds - 125.0 / 60.0).abs() < 1e-9, "{reach:?}");
    assert_eq!(reach.budget, Some(256 << 20));
    assert_eq!(reach.bytes, h.history().memory_bytes());
}

#[test]
fn reach_reads_as_the_editor_shows_it() {
    let reach = |seconds: f64, budget: Option<usize>| RewindReach {
        seconds,
        oldest_tick: Some(240),
        bytes: 12 << 20,
        budget,
        keyframe_every: 120,
        widest_every: 480,
    };
    // 12 MiB over 580 s, four times wider at the last doubling: 256 MiB
    // reach 256 / 12 × 580 × 4 s = 49,493 s, 13 h 44 min.
    assert_eq!(
        reach(580.0, Some(256 << 20)).to_string(),
        "history holds 9 min 40 s (from tick 240); budget reaches ≈ 13 h 44 min at this rate \
         (256 MiB)"
    );
    assert_eq!(
        reach(42.7, None).to_string(),
        "history holds 42 s (from tick 240); no budget (12.0 MiB held)"
    );
    assert_eq!(
        reach(2.0 * 3600.0 + 5.0 * 60.0, Some(1 << 30)).held_text(),
        "history holds 2 h 5 min (from tick 240)"
    );
}

#[test]
fn keyframes_are_packed_to_a_fraction_of_a_plain_copy_and_still_rewind_exactly() {
    // Sixteen keyframes of the landed balls, ten frames apart: two anchors
    // and fourteen deltas against them (history module docs, "Compact
    // keyframes").
    let mut p = session();
    let mut twin = session();
    let mut hashes = vec![twin.state_hash()];
    for _ in 0..120 {
        p.step_frame(DT);
        twin.step_frame(DT);
        hashes.push(twin.state_hash());
    }
    let plain = p.snapshot().memory_bytes();
    let mut h = Session::new(p, History::with_budget(10, usize::MAX));
    let before = h.history().memory_bytes();
    for _ in 0..160 {
        h.step_frame(DT, &[]);
        twin.step_frame(DT);
        hashes.push(twin.state_hash());
    }
    assert_eq!(h.history().keyframes(), 16);
    let per_keyframe = (h.history().memory_bytes() - before) / 16;
    assert!(
        per_keyframe * 2 < plain,
        "a packed keyframe ({per_keyframe} B with its share of the log and the packer) is not under half a plain copy ({plain} B)"
    );
    // A tick after a delta (135 is 5 past the keyframe at 130) and one after
    // the second anchor (201, after the keyframe at 200).
    for target in [135, 201, 279] {
        h.rewind_to_tick(target).expect("in reach");
        assert_eq!(
            h.pipeline().state_hash(),
            hashes[target as usize],
            "tick {target}"
        );
    }
}
