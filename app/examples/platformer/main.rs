//! A small platformer of its own on stepframe: `cargo run --release
//! --example platformer` opens the editor on its scene,
//! `cargo run --release --example platformer -- play assets/scenes/platformer.ron`
//! runs it headless, and every other sub-command of `stepframe` is there too.

mod game;

fn main() -> std::process::ExitCode {
    game::build().run()
}
