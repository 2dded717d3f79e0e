//! The timeline through the real editor, headless, one test binary:
//! `lanes` (reading them: decimation, fit, the wheel, the tooltip, pan and
//! zoom), `cursor` (the tick every panel follows, resume from here),
//! `markers` (faults, new worlds, Open), `export`, `layout` (one x axis for
//! every lane, nothing clipped at the default size) and `session` (the live
//! edge: Esc, restarts, export names that follow the scene). The helpers
//! they share are here.

#[path = "../support/mod.rs"]
mod support;

mod cursor;
mod export;
mod lanes;
mod layout;
mod markers;
mod session;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use stepframe_app::editor::Editor;
use stepframe_app::editor::timeline::{LaneId, TimelineState};

/// The timeline panel's state, read-only, as the app lends it.
fn timeline<'a>(h: &'a Harness<'_, Editor>) -> &'a TimelineState {
    h.state().timeline()
}

/// The recorded frames the timeline draws, as the host published them.
fn frames<'a>(h: &'a Harness<'_, Editor>) -> &'a stepframe_app::editor::frames::Frames {
    &h.state().published().frames
}

/// The data rectangle of a lane's plot.
fn lane_rect(h: &Harness<'_, Editor>, lane: LaneId) -> egui::Rect {
    h.get_by_label(&format!("lane {}", lane.title())).rect()
}

/// A wheel event over the pointer with `modifiers` held down across the
/// frames that follow, as a hand holds them (the harness's `event_modifiers`
/// releases them within the same frame), long enough for egui's smoothed
/// scrolling to settle.
fn wheel(h: &mut Harness<'_, Editor>, dy: f32, modifiers: egui::Modifiers) {
    h.event(egui::Event::ModifiersChanged(modifiers));
    h.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, dy),
        modifiers,
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Unknown,
    });
    h.run_steps(20);
    h.event(egui::Event::ModifiersChanged(egui::Modifiers::NONE));
    h.run_steps(1);
}

/// A press at `from`, moves to `to`, a release, with `modifiers` held down
/// throughout.
fn drag(h: &mut Harness<'_, Editor>, from: egui::Pos2, to: egui::Pos2, modifiers: egui::Modifiers) {
    h.event(egui::Event::ModifiersChanged(modifiers));
    h.hover_at(from);
    h.run_steps(1);
    h.event(egui::Event::PointerButton {
        pos: from,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers,
    });
    h.run_steps(1);
    for k in 1..=5 {
        let p = from + (to - from) * (k as f32 / 5.0);
        h.event(egui::Event::PointerMoved(p));
        h.run_steps(1);
    }
    h.event(egui::Event::PointerButton {
        pos: to,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers,
    });
    h.run_steps(1);
    h.event(egui::Event::ModifiersChanged(egui::Modifiers::NONE));
    h.run_steps(1);
}
