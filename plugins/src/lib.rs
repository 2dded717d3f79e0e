//! stepframe-plugins: the built-in behaviours, registered by name so scenes can
//! use them.
//!
//! Each behaviour exercises one part of the gameplay time and phase contract:
//!
//! | name | hooks | contract part |
//! |---|---|---|
//! | [`PlayerController`] | FixedUpdate, contact | simulation input snapshot: press edges once per tick, charge in simulation ms |
//! | [`Spawner`] / [`Projectile`] | Start, fixed-time routine, FixedUpdate | timed routines on a time group; the cohort rule for spawned objects; bounded population |
//! | [`KillZone`] | contact | removal: no further callback to a removed object |
//! | [`Attractor`] | FixedUpdate | per-tick forces over the world in id order |
//! | [`KinematicMover`] | FixedUpdate | kinematic targets reconciled before the step |
//! | [`FollowCamera`] | Present | presentation phase only, interpolated poses |
//! | [`OneWayPlatform`] | MidStep | inside the physics step: pass through from below, land from above |
//! | [`Conveyor`] | MidStep | inside the physics step: a surface speed along the contact tangent |
//! | [`Faulty`] | any | fault isolation: panics, NaN writes, slow hooks |
//! | [`Script`] | any | rhai scripts: line breakpoints with the contract's timing, state in snapshots, hot reload |
//!
//! Besides the behaviours, [`watch`] holds the watch expressions the editor's
//! Watches tab asks after every tick (rhai on the sandboxed engine the script
//! conditions use), and [`script`] the rhai host, its compile cache and line
//! breakpoints.
//!
//! | module | what |
//! |---|---|
//! | [`player_controller`] | [`PlayerController`] |
//! | [`spawner`] | [`Spawner`] and its [`Projectile`]s |
//! | [`kill_zone`] | [`KillZone`] |
//! | [`attractor`] | [`Attractor`] |
//! | [`kinematic_mover`] | [`KinematicMover`] |
//! | [`follow_camera`] | [`FollowCamera`] |
//! | [`one_way_platform`] | [`OneWayPlatform`] |
//! | [`conveyor`] | [`Conveyor`] |
//! | [`faulty`] | [`Faulty`], the fault-isolation probe |
//! | [`script`] | [`Script`] and the rhai host: compile cache, typed calls, line breakpoints, the sandbox |
//! | [`watch`] | the editor's watch expressions |
//!
//! [`registry`] returns all of them; a scene names them with typed parameters:
//!
//! ```
//! use std::path::Path;
//! use stepframe_core::{Pipeline, Scene, TimeSettings};
//!
//! let text = r#"(
//!     objects: [
//!         (id: 1, name: "Floor", transform: (x: 0.0, y: -0.5),
//!          body: (kind: Fixed, shapes: [Cuboid(hx: 10.0, hy: 0.5)])),
//!         (id: 2, name: "Hopper", transform: (x: 0.0, y: 0.5),
//!          body: (shapes: [Cuboid(hx: 0.5, hy: 0.5)]),
//!          behaviours: [(name: "PlayerController", priority: Early, params: (jump_impulse: 4.0))]),
//!     ],
//! )"#;
//! let registry = stepframe_plugins::registry();
//! let scene = Scene::parse(text, Path::new("hop.ron"), &registry)?;
//! let mut pipeline = Pipeline::new(TimeSettings::default());
//! pipeline.load_scene(&scene, &registry)?;
//! for _ in 0..60 {
//!     pipeline.step_frame(1.0 / 60.0);
//! }
//! assert_eq!(pipeline.clock().simulation_tick, 60);
//! # Ok::<(), stepframe_core::SceneError>(())
//! ```
//!
//! A misspelt parameter is reported at its position in the scene file:
//!
//! ```
//! use std::path::Path;
//! use stepframe_core::Scene;
//!
//! let text = "(objects: [(id: 1, name: \"A\",\n  behaviours: [(name: \"Attractor\", params: (radius: 2.0, strenght: 5.0))])])";
//! let err = Scene::parse(text, Path::new("a.ron"), &stepframe_plugins::registry()).unwrap_err();
//! assert_eq!((err.line, err.column), (2, 58));
//! assert!(err.message.contains("strenght"));
//! ```
//!
//! Writing a behaviour of your own: implement [`stepframe_core::Behaviour`]
//! with `#[stepframe_core::behaviour]` on the `impl` block (its hook set is
//! then the methods the block defines, so it is never called, timed or hit
//! in a hook it has no code for) and derive `Clone` (snapshots) and
//! `Inspect` (the inspector's table, and with the attribute the state hash
//! over every field, the adoption of edited parameters and the registered
//! name, the type's); take randomness only from `ctx.rng()`, no wall clock,
//! no hash-map iteration. Give it a `Serialize + Deserialize + Default`
//! parameter struct, and register it by type with a factory whose error is
//! a typed error of your own (here core's
//! [`ParamsError`](stepframe_core::scene::ParamsError)).
//! A game's own binary registers it through `stepframe_app::Game` and gets
//! the editor and every sub-command with it (docs/embedding.md):
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use stepframe_core::scene::ParamsError;
//! use stepframe_core::{Behaviour, Ctx, Hooks, Inspect, Vec2};
//!
//! /// Parameters: all optional, unknown fields rejected.
//! #[derive(Clone, Debug, Default, Serialize, Deserialize, Inspect)]
//! #[serde(deny_unknown_fields, default)]
//! struct WindParams {
//!     /// Sideways push, every tick.
//!     #[inspect(unit = "N")]
//!     force: f32,
//! }
//!
//! /// Pushes its body sideways every tick, in fixed code.
//! #[derive(Clone, Debug, Inspect)]
//! struct Wind {
//!     #[inspect(params)]
//!     params: WindParams,
//! }
//!
//! #[stepframe_core::behaviour]
//! impl Behaviour for Wind {
//!     fn fixed_update(&mut self, ctx: &mut Ctx, _dt: f64) {
//!         ctx.apply_force(ctx.me(), Vec2::new(self.params.force, 0.0));
//!     }
//! }
//!
//! let mut registry = stepframe_plugins::registry();
//! registry.register_behaviour(|params: WindParams| {
//!     if !params.force.is_finite() {
//!         return Err(ParamsError::new("force must be finite"));
//!     }
//!     Ok(Wind { params })
//! });
//! // Registered under the type's name, which is also what `name()` says.
//! assert!(registry.names().contains(&"Wind"));
//! let mut wind = registry.create("Wind", "(force: 2.0)")?;
//! assert_eq!((wind.name(), wind.hooks()), ("Wind", Hooks::FIXED_UPDATE));
//! // An edit of its parameters is taken with no code of its own.
//! let stronger = registry.create("Wind", "(force: 5.0)")?;
//! assert!(wind.adopt_params(stronger.as_ref()));
//! # Ok::<(), stepframe_core::scene::CreateError>(())
//! ```

#![warn(missing_docs)]

pub mod attractor;
pub mod conveyor;
pub mod faulty;
pub mod follow_camera;
pub mod kill_zone;
pub mod kinematic_mover;
pub mod one_way_platform;
pub mod player_controller;
pub mod script;
pub mod spawner;
pub mod watch;

pub use attractor::{Attractor, AttractorParams};
pub use conveyor::{Conveyor, ConveyorParams};
pub use faulty::{Fault, FaultHook, Faulty, FaultyParams};
pub use follow_camera::{FollowCamera, FollowCameraParams};
pub use kill_zone::{KillZone, KillZoneParams};
pub use kinematic_mover::{KinematicMover, KinematicMoverParams, PathMode};
pub use one_way_platform::{OneWayPlatform, OneWayPlatformParams};
pub use player_controller::{PlayerController, PlayerControllerParams};
pub use script::{Script, ScriptContext, ScriptHost, ScriptParams};
pub use spawner::{Projectile, ProjectileParams, Spawner, SpawnerParams};
pub use watch::{WatchAction, WatchError, WatchEvent, WatchSet, WatchSpec};

use std::path::Path;

use stepframe_core::scene::Registry;

/// Why a built-in behaviour rejected parameters that parsed: a value out of
/// range or not finite, in words that name the field (`radius must be > 0,
/// got -1`). The scene loader places it at the behaviour's parameters.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct InvalidParams {
    /// What is wrong, naming the field.
    pub message: String,
}

impl InvalidParams {
    pub(crate) fn new(message: impl Into<String>) -> InvalidParams {
        InvalidParams {
            message: message.into(),
        }
    }
}

/// Every built-in behaviour, by the name scenes use, for a session with its
/// own fresh [`ScriptHost`] and scenes in the working directory: enough for
/// scenes without scripts, or whose script paths are absolute. A session that
/// loads a scene file uses [`registry_for`].
pub fn registry() -> Registry {
    registry_for(&ScriptHost::new(), Path::new("."))
}

/// Every built-in behaviour, by the name scenes use, for the session whose
/// scripts `host` holds and a scene in `scene_dir` (relative script paths are
/// looked up from there; see [`script::host`]). The `Script` factory captures
/// both, so nothing about the session lives in a global. Build one per scene
/// directory; keep the host for the session's life (its breakpoints and
/// compiled scripts outlive a scene reload).
pub fn registry_for(host: &ScriptHost, scene_dir: &Path) -> Registry {
    let mut r = Registry::new();
    r.register_behaviour(Attractor::new);
    r.register_behaviour(Conveyor::new);
    r.register_behaviour(Faulty::new);
    r.register_behaviour(FollowCamera::new);
    r.register_behaviour(KillZone::new);
    r.register_behaviour(KinematicMover::new);
    r.register_behaviour(OneWayPlatform::new);
    r.register_behaviour(PlayerController::new);
    r.register_behaviour(Projectile::new);
    let cx = ScriptContext::new(host, scene_dir);
    r.register_behaviour(move |p| Script::new(p, &cx));
    r.register_behaviour(Spawner::new);
    r
}
