//! Soft bodies through the public API: authored in RON, stepped by rapier2d's
//! soft-body solver, posed by their committed particle centroid.
//!
//! Expected numbers are computed here by hand from the authored rest shape and
//! from the committed particle positions the stage copied out of rapier, never
//! by calling the pose code under test.

use std::path::Path;

use stepframe_core::{
    Behaviour, BodyDesc, BodyKind, Ctx, ObjectDesc, ObjectId, Pipeline, Pose, RapierStage,
    Registry, Scene, Shape, SoftBodyDesc, SoftShape, TimeSettings, Vec2,
};

const TICK: f64 = 1.0 / 60.0;

fn session(world: stepframe_core::World, gravity: Vec2) -> Pipeline {
    let mut pipeline = Pipeline::new(TimeSettings::default());
    pipeline.load_session(world, Box::new(RapierStage::new(gravity)), 7);
    pipeline
}

fn soft(pipeline: &Pipeline, id: ObjectId) -> stepframe_core::SoftState {
    pipeline
        .world()
        .get(id)
        .and_then(|o| o.body.as_ref())
        .and_then(|b| b.soft.as_deref().cloned())
        .expect("a soft body")
}

fn ground() -> ObjectDesc {
    ObjectDesc::new("ground", Pose::new(0.0, -0.5, 0.0)).with_body(BodyDesc::with_kind(
        BodyKind::Fixed,
        Shape::Cuboid { hx: 10.0, hy: 0.5 },
    ))
}

/// A rope from (0, 5) to (4, 5), 9 particles, pinned at particle 0: it swings
/// down under gravity, deforming and turning about its pinned end.
fn pinned_rope() -> ObjectDesc {
    let mut rope = SoftBodyDesc::new(SoftShape::Rope {
        to: Vec2::new(4.0, 0.0),
        particles: 9,
    });
    rope.pinned = vec![0];
    rope.mass = 0.9;
    ObjectDesc::new("rope", Pose::new(0.0, 5.0, 0.0))
        .with_id(ObjectId(2))
        .with_body(BodyDesc::soft(rope))
}

#[test]
fn soft_bodies_read_the_committed_particle_centroid_with_the_authored_origin_offset() {
    let mut world = stepframe_core::World::new();
    let rope = world.spawn(pinned_rope());
    // A bodyless child half a metre along the rope from its origin.
    let child = world.spawn(
        ObjectDesc::new("tag", Pose::new(0.5, 0.0, 0.0))
            .with_id(ObjectId(3))
            .with_parent(rope),
    );
    let mut pipeline = session(world, Vec2::new(0.0, -10.0));
    for _ in 0..30 {
        assert_eq!(pipeline.step_frame(TICK).ticks, 1);
    }

    // By hand. Rest shape: particle i at (0.5 i, 5), i = 0..8, equal masses,
    // so the rest centroid is (2, 5), the rest positions about it are
    // q_i = (0.5 i − 2, 0) and the authored-origin offset is
    // (0, 5) − (2, 5) = (−2, 0).
    let p: Vec<(f64, f64)> = soft(&pipeline, rope)
        .particles
        .iter()
        .map(|v| (f64::from(v.x), f64::from(v.y)))
        .collect();
    assert_eq!(p.len(), 9);
    let q: Vec<(f64, f64)> = (0..9).map(|i| (0.5 * i as f64 - 2.0, 0.0)).collect();
    let cx = p.iter().map(|v| v.0).sum::<f64>() / 9.0;
    let cy = p.iter().map(|v| v.1).sum::<f64>() / 9.0;
    let (mut cross, mut dot) = (0.0, 0.0);
    for (pi, qi) in p.iter().zip(&q) {
        let (px, py) = (pi.0 - cx, pi.1 - cy);
        cross += py * qi.0 - px * qi.1;
        dot += px * qi.0 + py * qi.1;
    }
    let theta = cross.atan2(dot);
    let (ox, oy) = (-2.0, 0.0);
    let expected = (
        cx + theta.cos() * ox - theta.sin() * oy,
        cy + theta.sin() * ox + theta.cos() * oy,
    );

    let pose = pipeline
        .world()
        .physics_simulation_pose(rope)
        .expect("alive");
    let close = |a: f32, b: f64| (f64::from(a) - b).abs() < 1e-4;
    assert!(
        close(pose.x, expected.0) && close(pose.y, expected.1) && close(pose.angle, theta),
        "pose {pose:?}, by hand ({:.5}, {:.5}, {theta:.5})",
        expected.0,
        expected.1
    );
    // The rope swung down (clockwise) and the deformed body is not where the
    // rest shape would be: this is not the trivial case.
    assert!(theta < -0.3, "the rope should have swung down, θ = {theta}");
    assert!(cy < 4.5, "the centroid should have dropped, y = {cy}");
    // The origin was the pinned end, and the offset turned with the rope:
    // the pose sits near the pin, not at the centroid.
    // (The rope sags into a curve, so its best-fit line passes a little
    // below the pin: within half a metre of it, against 2 m to the centroid.)
    assert!(
        (f64::from(pose.x)).hypot(f64::from(pose.y) - 5.0) < 0.5,
        "pose {pose:?} should be near the pin at (0, 5)"
    );
    assert!(cx.hypot(cy - 5.0) > 1.5, "centroid ({cx}, {cy})");

    // The bodyless child inherits it: pose ∘ (0.5, 0).
    let c = pipeline
        .world()
        .physics_simulation_pose(child)
        .expect("alive");
    let want = (
        f64::from(pose.x) + 0.5 * f64::from(pose.angle).cos(),
        f64::from(pose.y) + 0.5 * f64::from(pose.angle).sin(),
    );
    assert!(
        close(c.x, want.0) && close(c.y, want.1) && close(c.angle, f64::from(pose.angle)),
        "child {c:?}, by hand {want:?}"
    );
}

/// Pushes the object it is on with a constant force in FixedUpdate.
#[derive(Clone, Debug, stepframe_core::Inspect)]
struct Push(Vec2);

#[stepframe_core::behaviour]
impl Behaviour for Push {
    fn name(&self) -> &str {
        "Push"
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        let me = ctx.me();
        assert!(ctx.soft_particles(me).is_some());
        ctx.apply_force(me, self.0);
    }
}

#[test]
fn a_force_on_a_soft_body_moves_its_centroid_by_f_dt_over_m_on_the_first_tick() {
    // A 2 kg jelly disk of 12 particles, no gravity, pushed by 10 N along x:
    // its centroid gains 10 / 2 × (1/60) = 0.083333 m/s in the first tick,
    // whatever its particles do to each other (internal forces cancel).
    let mut disk = SoftBodyDesc::new(SoftShape::Disk {
        radius: 0.5,
        particles: 12,
    });
    disk.mass = 2.0;
    let mut world = stepframe_core::World::new();
    let id = world.spawn(
        ObjectDesc::new("jelly", Pose::new(1.0, 2.0, 0.0))
            .with_body(BodyDesc::soft(disk))
            .with_behaviour(
                Box::new(Push(Vec2::new(10.0, 0.0))),
                stepframe_core::Priority(0),
            ),
    );
    let mut pipeline = session(world, Vec2::ZERO);
    let before = soft(&pipeline, id);
    assert_eq!(pipeline.step_frame(TICK).ticks, 1);
    let after = soft(&pipeline, id);
    let mean = |v: &[Vec2]| {
        let n = v.len() as f64;
        (
            v.iter().map(|p| f64::from(p.x)).sum::<f64>() / n,
            v.iter().map(|p| f64::from(p.y)).sum::<f64>() / n,
        )
    };
    let (vx, vy) = mean(&after.velocities);
    let a = 10.0 / 2.0;
    assert!((vx - a * TICK).abs() < 1e-5, "centroid vx {vx}");
    assert!(vy.abs() < 1e-6, "centroid vy {vy}");
    // It moved by between ½ a dt² (exact integration) and a dt² (explicit
    // Euler on the whole tick): semi-implicit Euler on substeps lands between.
    let (x0, _) = mean(&before.particles);
    let (x1, _) = mean(&after.particles);
    let dx = x1 - x0;
    assert!(
        dx > 0.5 * a * TICK * TICK - 1e-6 && dx < a * TICK * TICK + 1e-6,
        "centroid moved {dx}"
    );
    let v = pipeline
        .world()
        .get(id)
        .and_then(|o| o.body.as_ref())
        .map(|b| b.velocity)
        .expect("body");
    assert!((f64::from(v.linear.x) - a * TICK).abs() < 1e-5, "{v:?}");
}

#[test]
fn a_soft_body_scene_loads_and_round_trips() {
    let text = r#"(
    objects: [
        (id: 1, name: "Jelly", transform: (x: 0.0, y: 3.0), body: (kind: Soft, friction: 0.7, soft: (
            shape: Disk(radius: 0.8, particles: 24),
            material: (edge: (frequency: 20.0, damping: 0.5), tear_strain: 0.8),
            particle_radius: 0.05,
            pinned: [],
            volume_preservation: true,
        ))),
        (id: 2, name: "Bridge", body: (kind: Soft, soft: (shape: Rope(to: (x: 6.0, y: 0.0), particles: 13), pinned: [0, 12]))),
        (id: 3, name: "Slab", body: (kind: Soft, soft: (shape: Grid(hx: 0.5, hy: 0.25, nx: 5, ny: 3)))),
        (id: 4, name: "Wedge", body: (kind: Soft, soft: (shape: Polygon(points: [(x: 0.0, y: 0.0), (x: 1.0, y: 0.0), (x: 0.0, y: 1.0)])))),
    ],
)"#;
    let registry = Registry::new();
    let scene = Scene::parse(text, Path::new("soft.ron"), &registry).expect("loads");
    let body = scene.objects[0].body.as_ref().expect("body");
    assert_eq!(body.kind, BodyKind::Soft);
    let soft = body.soft.as_ref().expect("soft");
    assert_eq!(
        soft.shape,
        SoftShape::Disk {
            radius: 0.8,
            particles: 24
        }
    );
    assert_eq!(soft.material.edge.frequency, 20.0);
    assert_eq!(soft.material.tear_strain, Some(0.8));
    assert_eq!(soft.material.bend.frequency, 10.0, "rapier's default");
    let again = Scene::parse(
        &scene.to_ron().expect("saves"),
        Path::new("soft.ron"),
        &registry,
    )
    .expect("reloads");
    assert_eq!(again.objects, scene.objects);
}

/// A jelly disk of 16 particles dropped from 1.2 m onto the ground.
fn dropped_jelly(world: &mut stepframe_core::World) -> ObjectId {
    world.spawn(ground().with_id(ObjectId(1)));
    let mut disk = SoftBodyDesc::new(SoftShape::Disk {
        radius: 0.5,
        particles: 16,
    });
    disk.material.edge = stepframe_core::Spring::new(8.0, 0.3);
    world.spawn(
        ObjectDesc::new("jelly", Pose::new(0.0, 1.2, 0.3))
            .with_id(ObjectId(2))
            .with_body(BodyDesc::soft(disk)),
    )
}

fn touching(pipeline: &Pipeline) -> Vec<(ObjectId, ObjectId)> {
    let mut out = Vec::new();
    pipeline.physics().touching_pairs(&mut out);
    out
}

#[test]
fn a_soft_body_touching_the_ground_is_reported_as_a_contact() {
    let mut world = stepframe_core::World::new();
    let jelly = dropped_jelly(&mut world);
    let mut pipeline = session(world, Vec2::new(0.0, -10.0));
    let mut first = None;
    for tick in 1..=90 {
        pipeline.step_frame(TICK);
        if first.is_none() && touching(&pipeline) == [(ObjectId(1), jelly)] {
            first = Some(tick);
        }
    }
    // Free fall of 0.7 m (bottom at 0.7 m) under 10 m/s²: √(2 × 0.7 / 10) =
    // 0.37 s, tick 22 or so; the particle radius and prediction distance
    // find it a little earlier.
    let first = first.expect("the jelly never touched the ground");
    assert!((15..=25).contains(&first), "first contact at tick {first}");
    assert_eq!(
        touching(&pipeline),
        [(ObjectId(1), jelly)],
        "it rests on it"
    );
    let pose = pipeline
        .world()
        .physics_simulation_pose(jelly)
        .expect("alive");
    assert!(pose.y > 0.3 && pose.y < 0.6, "resting centre {pose:?}");
}

#[test]
fn a_snapshot_mid_deformation_in_contact_continues_bit_identically() {
    let mut world = stepframe_core::World::new();
    let jelly = dropped_jelly(&mut world);
    let mut pipeline = session(world, Vec2::new(0.0, -10.0));
    // Run until it has hit the ground and is squashed: touching, and its
    // particles no longer a circle (radii spread by more than 1 cm).
    let mut ticks = 0;
    loop {
        pipeline.step_frame(TICK);
        ticks += 1;
        assert!(ticks < 120, "never squashed in contact");
        let state = soft(&pipeline, jelly);
        let c = state.centroid();
        let radii: Vec<f32> = state.particles.iter().map(|p| (*p - c).length()).collect();
        let spread = radii.iter().cloned().fold(0.0, f32::max)
            - radii.iter().cloned().fold(f32::MAX, f32::min);
        if !touching(&pipeline).is_empty() && spread > 0.01 {
            break;
        }
    }
    let snapshot = pipeline.snapshot();
    let run = |pipeline: &mut Pipeline| {
        (0..40)
            .map(|_| {
                pipeline.step_frame(TICK);
                let s = soft(pipeline, jelly);
                let bits: Vec<(u32, u32)> = s
                    .particles
                    .iter()
                    .map(|p| (p.x.to_bits(), p.y.to_bits()))
                    .collect();
                (pipeline.state_hash(), bits, touching(pipeline))
            })
            .collect::<Vec<_>>()
    };
    let first = run(&mut pipeline);
    pipeline.restore(&snapshot);
    let second = run(&mut pipeline);
    for (k, (a, b)) in first.iter().zip(&second).enumerate() {
        assert_eq!(
            a,
            b,
            "diverged {} ticks after the restore at tick {ticks}",
            k + 1
        );
    }
}

#[test]
fn the_tick_hash_covers_every_particle() {
    let make = || {
        let mut world = stepframe_core::World::new();
        let id = dropped_jelly(&mut world);
        let mut pipeline = session(world, Vec2::new(0.0, -10.0));
        pipeline.step_frame(TICK);
        (pipeline, id)
    };
    let (a, _) = make();
    let (mut b, id) = make();
    assert_eq!(a.state_hash(), b.state_hash());
    // One particle moved by one ulp, pose rounded the same: the hash differs.
    let state = b
        .world_mut_for_tests()
        .get_mut(id)
        .and_then(|o| o.body.as_mut())
        .and_then(|s| s.soft.as_mut())
        .expect("soft");
    let p = &mut state.particles[5];
    p.x = f32::from_bits(p.x.to_bits() + 1);
    assert_ne!(a.state_hash(), b.state_hash());
}

/// Records the tears it hears about.
#[derive(Clone, Debug, Default, stepframe_core::Inspect)]
struct TearLog(#[inspect(skip)] std::sync::Arc<std::sync::Mutex<Vec<stepframe_core::SoftTear>>>);

#[stepframe_core::behaviour]
impl Behaviour for TearLog {
    fn name(&self) -> &str {
        "TearLog"
    }
    fn on_tear(&mut self, ctx: &mut Ctx, tear: &stepframe_core::SoftTear) {
        assert_eq!(ctx.clock().phase, stepframe_core::Phase::Fixed);
        assert_eq!(ctx.clock().simulation_tick, tear.tick);
        self.0.lock().expect("lock").push(tear.clone());
    }
}

#[test]
fn a_tear_calls_back_in_the_fixed_phase_with_the_tick_the_body_and_the_new_pieces() {
    // A rope pinned at its first particle, pulled hard along +x: its free
    // particles all accelerate alike, so the edge at the pin stretches past
    // a 5 % tear strain and the rope comes off it.
    let mut rope = SoftBodyDesc::new(SoftShape::Rope {
        to: Vec2::new(2.0, 0.0),
        particles: 5,
    });
    rope.pinned = vec![0];
    rope.material.tear_strain = Some(0.05);
    rope.material.edge = stepframe_core::Spring::new(5.0, 1.0);
    rope.material.min_piece = Some(1);
    let log = TearLog::default();
    let mut world = stepframe_core::World::new();
    let id = world.spawn(
        ObjectDesc::new("rope", Pose::new(0.0, 1.0, 0.0))
            .with_body(BodyDesc::soft(rope))
            .with_behaviour(
                Box::new(Push(Vec2::new(200.0, 0.0))),
                stepframe_core::Priority(0),
            )
            .with_behaviour(Box::new(log.clone()), stepframe_core::Priority(0)),
    );
    let mut pipeline = session(world, Vec2::ZERO);
    for _ in 0..30 {
        pipeline.step_frame(TICK);
    }
    let tears = log.0.lock().expect("lock").clone();
    let first = tears.first().expect("the rope never tore");
    assert_eq!(first.object, id);
    assert!(first.tick >= 1 && first.tick <= 30);
    let state = soft(&pipeline, id);
    assert!(state.torn());
    assert_eq!(
        state.pieces,
        1 + tears.iter().map(|t| t.new_pieces.len() as u32).sum::<u32>()
    );
    // Every new piece is a run inside the object's particles.
    for piece in tears.iter().flat_map(|t| &t.new_pieces) {
        assert!(piece.count > 0);
        assert!((piece.first + piece.count) as usize <= state.particles.len());
    }
    assert!(!first.new_pieces.is_empty(), "the rope split: {tears:?}");
}

#[test]
fn a_rewind_into_a_jelly_in_contact_replays_every_later_tick_bit_identically() {
    // The jelly lands near tick 23 (0.7 m of free fall); rewinding to tick
    // 40 puts the session back mid-squash, and every tick after it must
    // come out as it did the first time, particle for particle.
    let mut world = stepframe_core::World::new();
    let id = dropped_jelly(&mut world);
    let p = session(world, Vec2::new(0.0, -9.81));
    let mut history = stepframe_core::Session::new(p, stepframe_core::History::new(10, 10_000));
    let mut hashes = Vec::new();
    for _ in 0..90 {
        history.step_frame(TICK, &[]);
        hashes.push(history.pipeline().state_hash());
    }
    assert!(
        !touching(history.pipeline()).is_empty(),
        "the jelly rests on the ground"
    );
    let bits = |s: &stepframe_core::SoftState| -> Vec<(u32, u32)> {
        s.particles
            .iter()
            .map(|q| (q.x.to_bits(), q.y.to_bits()))
            .collect()
    };
    let at_90 = bits(&soft(history.pipeline(), id));
    history.rewind_to_tick(40).expect("tick 40 is kept");
    assert_eq!(
        history.pipeline().state_hash(),
        hashes[39],
        "tick 40 as it was"
    );
    history.resume(&[]);
    for (i, expected) in hashes.iter().enumerate().skip(40) {
        history.step_frame(TICK, &[]);
        assert_eq!(history.pipeline().state_hash(), *expected, "tick {}", i + 1);
    }
    assert_eq!(bits(&soft(history.pipeline(), id)), at_90);
}
