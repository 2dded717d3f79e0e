//! stepframe-host: the session host, with no GUI.
//!
//! The host owns a session (the pipeline, its history, the scene it came
//! from, the scripts) and speaks one protocol of plain data: commands in, an
//! ordered stream of events and latest-wins views out. The editor is one
//! front end; a standalone player and a game that owns its loop are others.
//!
//! # Why a crate of its own, under `app/`
//!
//! - **No eframe.** A game with its own loop and renderer (winit, wgpu,
//!   macroquad) depends on the host to be debugged, and must not pull in
//!   the editor's GUI stack to do it. So nothing here names egui or eframe,
//!   and a repaint wake-up is the UI side's business.
//! - **Not in `core`.** `core` is the runtime (`step_frame` and what it
//!   needs) and knows no behaviour by name; the host needs the plugins (the
//!   session's script host, watches) and a session's files. The layering
//!   stays core ← plugins ← host ← app.
//! - **Under `app/`**, because the top level of the repository is fixed
//!   (core, plugins, app, assets, tests) and the host is the editor's back
//!   end: `app/host/` sits beside the editor that is its first front end,
//!   as `core/macros/` sits beside the runtime it derives for.
//!
//! | module | what |
//! |---|---|
//! | [`protocol`] | commands, events, views and the session journal: plain serde data |
//! | [`worker`] | the session's only owner, split by feature, and the thread that paces it |
//! | [`traced`] | a run's pose records by tick, and a tick of run A measured against run B |
//! | [`supervise`] | a session in a child process: the fault marker, the memory and stuck-hook limits, and an abort, a stack overflow, an allocation failure or a stuck hook named from outside |
//! | [`debug`] | a session driven once per frame by a game's own loop (or the player's), that an editor attaches to over loopback |
//! | [`link`] | a worker's channels carried over a wire connection (the host's side and the front end's) |
//! | [`wire`] | frames, the handshake and the transports (a child's socket, one in this process, loopback) that carry the protocol |

pub mod debug;
pub mod link;
pub mod protocol;
pub mod supervise;
pub mod traced;
pub mod wire;
pub mod worker;

pub use worker::{Registries, Worker};
