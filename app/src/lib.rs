//! stepframe-app: the editor and the headless tools behind the `stepframe` binary.
//!
//! | module | sub-command |
//! |---|---|
//! | [`editor`] | (default) the eframe editor, pipeline on a worker thread |
//! | [`player`] | `play`: the headless player, traces, telemetry, sync test |
//! | [`tools`] | `trace-diff`, `check` |
//! | [`bench`] | `bench`: the performance figures |
//! | [`soak`] | `soak`: a long run with the editor's buffers, memory checked flat |

pub mod bench;
pub mod editor;
pub mod player;
pub mod soak;
pub mod tools;

use std::path::PathBuf;

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
