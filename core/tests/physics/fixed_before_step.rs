//! FixedUpdate comes immediately before each rapier step.

use super::*;

/// Delegates to a real `RapierStage` and writes each call into the shared log.
#[derive(Debug)]
struct LoggingStage {
    inner: RapierStage,
    log: Log,
    /// Ticks committed so far (the pending tick is this + 1).
    ticks: u64,
}

impl PhysicsStage for LoggingStage {
    fn reconcile(&mut self, world: &mut World, fixed_dt: f64) {
        push(&self.log, format!("reconcile tick {}", self.ticks + 1));
        self.inner.reconcile(world, fixed_dt);
    }

    fn step(&mut self, fixed_dt: f64, substeps: u32, contacts: &mut Vec<ContactEvent>) {
        push(
            &self.log,
            format!("step tick {} substeps {substeps}", self.ticks + 1),
        );
        self.inner.step(fixed_dt, substeps, contacts);
    }

    fn commit(&mut self, world: &mut World) {
        self.ticks += 1;
        push(&self.log, format!("commit tick {}", self.ticks));
        self.inner.commit(world);
    }

    fn clone_box(&self) -> Box<dyn PhysicsStage> {
        Box::new(LoggingStage {
            inner: self.inner.clone(),
            log: self.log.clone(),
            ticks: self.ticks,
        })
    }
}

/// Logs Update and FixedUpdate calls with the clock they saw.
#[derive(Clone, Debug)]
pub(crate) struct Tracer {
    pub(crate) label: &'static str,
    pub(crate) log: Log,
}

impl Behaviour for Tracer {
    fn name(&self) -> &str {
        "Tracer"
    }
    fn update(&mut self, ctx: &mut Ctx, _dt: f64) {
        push(
            &self.log,
            format!("update {} frame {}", self.label, ctx.clock().frame_index),
        );
    }
    fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
        push(
            &self.log,
            format!("fixed {} tick {}", self.label, ctx.clock().simulation_tick),
        );
    }
}

#[test]
fn fixed_update_comes_immediately_before_each_rapier_step() {
    let log = new_log();
    let mut world = World::new();
    world.spawn(ground());
    let tracer = |label| Tracer {
        label,
        log: log.clone(),
    };
    // "late" has the higher priority value, so it runs after "early" although it
    // was spawned first.
    let late = world
        .spawn(ball("late", 0.0, 5.0, 0.5).with_behaviour(Box::new(tracer("late")), Priority(10)));
    world.spawn(
        ObjectDesc::new("early", Pose::IDENTITY)
            .with_behaviour(Box::new(tracer("early")), Priority(-5)),
    );
    let mut pipeline = Pipeline::new(TimeSettings::default());
    pipeline.load_session(
        world,
        Box::new(LoggingStage {
            inner: RapierStage::new(Vec2::new(0.0, -G)),
            log: log.clone(),
            ticks: 0,
        }),
        1,
    );

    // 60 Hz ticks: half a tick (0 ticks), half a tick (1 tick), three ticks.
    let reports: Vec<u32> = [0.5 / 60.0, 0.5 / 60.0, 3.0 / 60.0]
        .into_iter()
        .map(|dt| pipeline.step_frame(dt).ticks)
        .collect();
    assert_eq!(reports, vec![0, 1, 3]);

    let tick = |n: u64| {
        vec![
            format!("fixed early tick {n}"),
            format!("fixed late tick {n}"),
            format!("reconcile tick {n}"),
            format!("step tick {n} substeps 1"),
            format!("commit tick {n}"),
        ]
    };
    let mut expected = vec![
        "update early frame 1".to_string(),
        "update late frame 1".into(),
    ];
    expected.extend([
        "update early frame 2".to_string(),
        "update late frame 2".into(),
    ]);
    expected.extend(tick(1));
    expected.extend([
        "update early frame 3".to_string(),
        "update late frame 3".into(),
    ]);
    expected.extend(tick(2));
    expected.extend(tick(3));
    expected.extend(tick(4));
    assert_eq!(lines(&log), expected);

    // Those were real rapier steps: 4 ticks of free fall moved the ball down.
    assert!(pose_of(&pipeline, late).y < 5.0);
}
