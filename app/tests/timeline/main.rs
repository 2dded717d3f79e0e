//! The timeline through the real editor, headless: `panel` (lanes, hover,
//! the cursor, markers, export, persistence), `layout` (one x axis for every
//! lane, nothing clipped at the default size) and `session` (the live edge:
//! Esc, restarts, export names that follow the scene). One test binary.

#[path = "../support/mod.rs"]
mod support;

mod layout;
mod panel;
mod session;
