//! stepframe-app: the editor and the headless tools behind the `stepframe`
//! binary, and [`Game`], the one call that gives a game's own binary all of
//! them with its behaviours registered beside the built-ins
//! (docs/embedding.md walks through it).
//!
//! | module | sub-command | inside (each opens with its own map) |
//! |---|---|---|
//! | [`game`] | every sub-command as one call, [`Game`]; the behaviours a binary's sessions name, [`Behaviours`] | |
//! | [`editor`] | (default) the eframe editor; its session host in a child process (or a thread) | `protocol`, `worker`, `app`, `timeline` and one file per panel |
//! | [`host_process`] | `stepframe host`: the editor's session host in a child process of this executable | |
//! | [`player`] | `play`: the headless player, traces, telemetry, sync test | `args`, `run` (the loop `check` shares), `summary` |
//! | [`run`](mod@run) | `run`: the scene in a window of its own (or `--headless`); `--debug` lets an editor attach | `window` |
//! | [`tools`] | `trace-diff`, `check` | `trace_diff`, `report`, `matrix`, `check`, `junit` |
//! | [`compare`] | (shared) two runs' ticks compared: what `trace-diff`, `check` and the editor's Compare with… all report | `poses`, `tick` |
//! | [`bench`](mod@bench) | `bench`: the performance figures | `figure`, `physics`, `dispatch`, `scenes`, `rewind`, `fork`, `scaling` |
//! | [`soak`] | `soak`: a long run with the editor's buffers, memory checked flat | `modes`, `meter`, `panics` |

pub mod bench;
pub mod compare;
pub mod editor;
pub mod game;
pub mod host_process;
pub mod player;
pub mod run;
pub mod soak;
pub mod tools;

use std::path::PathBuf;

pub use game::{Behaviours, Game};

/// The bundled demo scene: `assets/scenes/demo.ron` under the current directory
/// if it exists there (a fresh clone's root), else beside the source tree.
pub fn default_scene() -> PathBuf {
    let local = PathBuf::from("assets/scenes/demo.ron");
    if local.exists() {
        return local;
    }
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../assets/scenes/demo.ron"
    ))
}
