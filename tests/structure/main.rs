//! The workspace's structure, read from its sources: no import circles
//! (`imports`), core's modules in layers (`layering`), and module maps in
//! the docs that name exactly the modules there are (`maps`), and docs
//! with no placeholder left unfilled (`docs`). One test binary; `source`
//! is what the others share.

mod docs;
mod imports;
mod layering;
mod maps;
mod source;
