//! The script API: the native functions scripts call (pose, velocity, body
//! commands, spawn, remove, input, clock, random numbers, routines, log),
//! registered on every engine. Reads come from the call state `engine.rs`
//! copied in at the start of the hook; writes go to its command buffer, in
//! call order (see `engine.rs`, "How a native function reaches the hook's
//! context"). The list for script writers is in `docs/scripts.md`.

use rhai::{Dynamic, Engine, FLOAT, INT, Map};
use stepframe_core::{
    BodyCommand, BodyDesc, BodyKind, Clock, HookKind, LogLevel, ObjectDesc, ObjectId, Pose, Rng,
    Shape, Vec2, Velocity,
};

use super::engine::{CallState, Command, RhaiResult, with_call};
use super::semantics::{finite_component, unit};

fn num(v: &Dynamic, what: &str) -> RhaiResult<FLOAT> {
    if let Ok(f) = v.as_float() {
        return Ok(f);
    }
    if let Ok(i) = v.as_int() {
        return Ok(i as FLOAT);
    }
    Err(format!("{what}: expected a number, got {}", v.type_name()).into())
}

fn finite_f32(v: &Dynamic, what: &str) -> RhaiResult<f32> {
    finite(num(v, what)?, what)
}

fn finite(x: FLOAT, what: &str) -> RhaiResult<f32> {
    finite_component(x).ok_or_else(|| format!("{what}: must be finite, got {x}").into())
}

/// Queues a body command on this object.
fn push_body(
    what: &str,
    make: impl FnOnce(ObjectId, Option<Velocity>) -> BodyCommand,
) -> RhaiResult<()> {
    with_call(what, |c| {
        let command = make(c.me, c.velocity);
        c.push(what, Command::Body(command))
    })?
}

fn force(x: FLOAT, y: FLOAT) -> RhaiResult<()> {
    let force = Vec2::new(finite(x, "apply_force")?, finite(y, "apply_force")?);
    push_body("apply_force", |target, _| BodyCommand::Force {
        target,
        force,
    })
}

fn impulse(x: FLOAT, y: FLOAT) -> RhaiResult<()> {
    let impulse = Vec2::new(finite(x, "apply_impulse")?, finite(y, "apply_impulse")?);
    push_body("apply_impulse", |target, _| BodyCommand::Impulse {
        target,
        impulse,
    })
}

fn kinematic_target(x: FLOAT, y: FLOAT, angle: FLOAT) -> RhaiResult<()> {
    let what = "set_kinematic_target";
    let pose = Pose::new(finite(x, what)?, finite(y, what)?, finite(angle, what)?);
    push_body(what, |target, _| BodyCommand::KinematicTarget {
        target,
        pose,
    })
}

fn velocity(x: FLOAT, y: FLOAT) -> RhaiResult<()> {
    let linear = Vec2::new(finite(x, "set_velocity")?, finite(y, "set_velocity")?);
    push_body("set_velocity", |target, v| BodyCommand::SetVelocity {
        target,
        velocity: Velocity {
            linear,
            angular: v.map_or(0.0, |v| v.angular),
        },
    })
}

fn id_of(v: INT) -> RhaiResult<ObjectId> {
    u64::try_from(v)
        .map(ObjectId)
        .map_err(|_| format!("object ids are positive, got {v}").into())
}

fn map_of(pairs: &[(&str, Dynamic)]) -> Map {
    pairs
        .iter()
        .map(|(k, v)| ((*k).into(), v.clone()))
        .collect()
}

fn pose_map(p: Pose) -> Map {
    map_of(&[
        ("x", Dynamic::from_float(FLOAT::from(p.x))),
        ("y", Dynamic::from_float(FLOAT::from(p.y))),
        ("angle", Dynamic::from_float(FLOAT::from(p.angle))),
    ])
}

fn clock_map(c: &Clock) -> Map {
    map_of(&[
        ("delta_time", Dynamic::from_float(c.delta_time)),
        ("frame_time", Dynamic::from_float(c.frame_time)),
        ("frame_index", Dynamic::from_int(c.frame_index as INT)),
        ("simulation_time", Dynamic::from_float(c.simulation_time)),
        (
            "simulation_tick",
            Dynamic::from_int(c.simulation_tick as INT),
        ),
        ("fixed_delta_time", Dynamic::from_float(c.fixed_delta_time)),
        (
            "interpolation_alpha",
            Dynamic::from_float(c.interpolation_alpha),
        ),
        ("dropped_time", Dynamic::from_float(c.dropped_time)),
    ])
}

fn next_unit(c: &mut CallState) -> FLOAT {
    unit(c.rng.get_or_insert(Rng::new(0)))
}

/// `spawn_body(#{...})`: a ball (or box) with a body.
fn spawn_desc(spec: &Map) -> RhaiResult<ObjectDesc> {
    let get = |k: &str, default: FLOAT| -> RhaiResult<f32> {
        match spec.get(k) {
            Some(v) => finite_f32(v, &format!("spawn_body: `{k}`")),
            None => Ok(default as f32),
        }
    };
    for key in spec.keys() {
        if !matches!(
            key.as_str(),
            "name"
                | "x"
                | "y"
                | "angle"
                | "radius"
                | "hx"
                | "hy"
                | "vx"
                | "vy"
                | "kind"
                | "density"
                | "restitution"
                | "friction"
        ) {
            return Err(format!("spawn_body: unknown field `{key}`").into());
        }
    }
    let name = match spec.get("name") {
        Some(n) => n.to_string(),
        None => "Spawned".to_string(),
    };
    let kind = match spec.get("kind").map(|k| k.to_string()).as_deref() {
        None | Some("dynamic") => BodyKind::Dynamic,
        Some("kinematic") => BodyKind::Kinematic,
        Some("fixed") => BodyKind::Fixed,
        Some(other) => {
            return Err(format!(
                "spawn_body: kind must be \"dynamic\", \"kinematic\" or \"fixed\", got {other:?}"
            )
            .into());
        }
    };
    let shape = if spec.contains_key("hx") || spec.contains_key("hy") {
        Shape::Cuboid {
            hx: get("hx", 0.5)?,
            hy: get("hy", 0.5)?,
        }
    } else {
        Shape::Circle {
            radius: get("radius", 0.25)?,
        }
    };
    let positive = match &shape {
        Shape::Circle { radius } => *radius > 0.0,
        Shape::Cuboid { hx, hy } => *hx > 0.0 && *hy > 0.0,
        _ => true,
    };
    if !positive {
        return Err("spawn_body: sizes must be > 0".into());
    }
    let mut body = BodyDesc::with_kind(kind, shape);
    body.density = get("density", FLOAT::from(body.density))?;
    body.restitution = get("restitution", FLOAT::from(body.restitution))?;
    body.friction = get("friction", FLOAT::from(body.friction))?;
    body.velocity = Velocity {
        linear: Vec2::new(get("vx", 0.0)?, get("vy", 0.0)?),
        angular: 0.0,
    };
    let pose = Pose::new(get("x", 0.0)?, get("y", 0.0)?, get("angle", 0.0)?);
    Ok(ObjectDesc::new(name, pose).with_body(body))
}

/// Registers the documented script API (see `docs/scripts.md`).
pub(super) fn register_api(engine: &mut Engine) {
    // Where the hook runs.
    engine.register_fn("me", || with_call("me", |c| c.me.0 as INT));
    engine.register_fn("hook", || {
        with_call("hook", |c| c.hook.map_or("", HookKind::name).to_string())
    });

    // Committed state of this object.
    engine.register_fn("pose", || {
        with_call("pose", |c| c.pose.map_or_else(Map::new, pose_map))
    });
    engine.register_fn("particles", || {
        with_call("particles", |c| {
            c.particles
                .iter()
                .map(|p| {
                    Dynamic::from_map(map_of(&[
                        ("x", Dynamic::from_float(FLOAT::from(p.x))),
                        ("y", Dynamic::from_float(FLOAT::from(p.y))),
                    ]))
                })
                .collect::<rhai::Array>()
        })
    });
    engine.register_fn("velocity", || {
        with_call("velocity", |c| {
            let v = c.velocity.unwrap_or_default();
            map_of(&[
                ("x", Dynamic::from_float(FLOAT::from(v.linear.x))),
                ("y", Dynamic::from_float(FLOAT::from(v.linear.y))),
                ("angular", Dynamic::from_float(FLOAT::from(v.angular))),
            ])
        })
    });

    // Body commands, reconciled before the coming physics step. Each takes
    // FLOATs (the fast, exact match) and, as a fallback, any numbers.
    engine.register_fn("apply_force", force);
    engine.register_fn("apply_force", |x: Dynamic, y: Dynamic| {
        force(num(&x, "apply_force")?, num(&y, "apply_force")?)
    });
    engine.register_fn("apply_impulse", impulse);
    engine.register_fn("apply_impulse", |x: Dynamic, y: Dynamic| {
        impulse(num(&x, "apply_impulse")?, num(&y, "apply_impulse")?)
    });
    engine.register_fn("set_kinematic_target", kinematic_target);
    engine.register_fn(
        "set_kinematic_target",
        |x: Dynamic, y: Dynamic, angle: Dynamic| {
            let what = "set_kinematic_target";
            kinematic_target(num(&x, what)?, num(&y, what)?, num(&angle, what)?)
        },
    );
    engine.register_fn("set_velocity", velocity);
    engine.register_fn("set_velocity", |x: Dynamic, y: Dynamic| {
        velocity(num(&x, "set_velocity")?, num(&y, "set_velocity")?)
    });
    engine.register_fn("spawn_body", |spec: Map| -> RhaiResult<()> {
        let desc = spawn_desc(&spec)?;
        with_call("spawn_body", |c| {
            c.push("spawn_body", Command::Spawn(Box::new(desc)))
        })?
    });
    engine.register_fn("remove", |id: INT| -> RhaiResult<()> {
        let id = id_of(id)?;
        with_call("remove", |c| c.push("remove", Command::Remove(id)))?
    });

    // Input: the snapshot of the phase (simulation snapshot in fixed hooks).
    engine.register_fn("pressed", |a: &str| {
        with_call("pressed", |c| c.input.pressed(a))
    });
    engine.register_fn("just_pressed", |a: &str| {
        with_call("just_pressed", |c| c.input.just_pressed(a))
    });
    engine.register_fn("just_released", |a: &str| {
        with_call("just_released", |c| c.input.just_released(a))
    });
    engine.register_fn("held_ms", |a: &str| {
        with_call("held_ms", |c| c.input.held_ms(a))
    });
    engine.register_fn("axis", |a: &str| {
        with_call("axis", |c| FLOAT::from(c.input.value(a)))
    });

    // The clock, as of this phase.
    engine.register_fn("clock", || with_call("clock", |c| clock_map(&c.clock)));
    engine.register_fn("tick", || {
        with_call("tick", |c| c.clock.simulation_tick as INT)
    });
    engine.register_fn("sim_time", || {
        with_call("sim_time", |c| c.clock.simulation_time)
    });
    engine.register_fn("frame", || {
        with_call("frame", |c| c.clock.frame_index as INT)
    });
    engine.register_fn("fixed_dt", || {
        with_call("fixed_dt", |c| c.clock.fixed_delta_time)
    });

    // The session's deterministic random generator.
    engine.register_fn("rand", || with_call("rand", next_unit));
    engine.register_fn(
        "rand_range",
        |lo: Dynamic, hi: Dynamic| -> RhaiResult<FLOAT> {
            let (lo, hi) = (num(&lo, "rand_range")?, num(&hi, "rand_range")?);
            with_call("rand_range", |c| lo + (hi - lo) * next_unit(c))
        },
    );
    engine.register_fn("rand_int", |lo: INT, hi: INT| -> RhaiResult<INT> {
        if hi <= lo {
            return Err(format!("rand_int: needs lo < hi, got {lo}, {hi}").into());
        }
        let span = hi.abs_diff(lo);
        with_call("rand_int", |c| {
            let rng = c.rng.get_or_insert(Rng::new(0));
            lo.wrapping_add((rng.next_u64() % span) as INT)
        })
    });

    // Timed routines: `name()` is called after `seconds` on the object's time
    // group (the frame clock unless the scene says `time_group: Fixed`).
    engine.register_fn(
        "start_routine",
        |name: &str, seconds: Dynamic| -> RhaiResult<()> {
            let s = num(&seconds, "start_routine")?;
            if !(s.is_finite() && s >= 0.0) {
                return Err(format!(
                    "start_routine: seconds must be a finite number >= 0, got {s}"
                )
                .into());
            }
            if name.is_empty() {
                return Err("start_routine: name the function to call".into());
            }
            with_call("start_routine", |c| {
                c.push("start_routine", Command::Routine(name.to_string(), s))
            })?
        },
    );

    // The log, and breaking from code.
    engine.register_fn("log", |v: Dynamic| -> RhaiResult<()> {
        with_call("log", |c| {
            c.push("log", Command::Log(LogLevel::Info, v.to_string()))
        })?
    });
    engine.register_fn("warn", |v: Dynamic| -> RhaiResult<()> {
        with_call("warn", |c| {
            c.push("warn", Command::Log(LogLevel::Warning, v.to_string()))
        })?
    });
    engine.register_fn("request_break", |v: Dynamic| -> RhaiResult<()> {
        with_call("request_break", |c| {
            c.push("request_break", Command::Break(v.to_string()))
        })?
    });
    engine.on_print(|text| {
        let _ = with_call("print", |c| c.push_line(LogLevel::Info, text.to_string()));
    });
    engine.on_debug(|text, _, _| {
        let _ = with_call("debug", |c| c.push_line(LogLevel::Info, text.to_string()));
    });
}
