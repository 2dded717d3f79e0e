//! `editor_frame_ms`: the UI thread's own CPU per frame with the whole
//! default workspace drawn (every tile of the real [`EditorApp`], the
//! timeline included) while stress.ron (2,164 objects) plays live on the
//! worker thread. Headless: a plain `egui::Context` runs the app's `ui` at
//! 1600 x 1000 points and tessellates its shapes, with no GPU and no
//! window, which is the UI's whole CPU share bar the upload and the paint
//! (under Xvfb the software renderer hides it otherwise).
//!
//! Frames are paced at 60 Hz like the real editor, so the worker plays at
//! real time and the timeline grows as it does for a user. The CPU is the
//! UI thread's own (`/proc/thread-self/schedstat`), so the worker on the
//! other core does not count; the frame's CPU is split between `run_ui`
//! (our panels and egui's layout) and tessellation.

use std::time::{Duration, Instant};

use crate::editor::{EditorApp, EditorConfig};

use super::{Figure, Scenes};

/// CPU seconds this thread has run (Linux schedstat: its first field, ns).
fn thread_cpu() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

pub(super) fn editor_frame(scale: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    let scene = scenes.join("stress.ron");
    let ctx = egui::Context::default();
    let cc = eframe::CreationContext::_new_kittest(ctx.clone());
    let mut frame = eframe::Frame::_new_kittest();
    let mut app = EditorApp::new(&cc, EditorConfig::threaded(scene))?;
    let input = || egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1600.0, 1000.0),
        )),
        ..Default::default()
    };
    let mut run = |app: &mut EditorApp| -> (f64, f64) {
        let t0 = thread_cpu().unwrap_or(0.0);
        let mut out = ctx.run_ui(input(), |ui| eframe::App::ui(app, ui, &mut frame));
        let t1 = thread_cpu().unwrap_or(0.0);
        // Nobody uploads textures headless: mark the font atlas handled.
        out.textures_delta.clear();
        let _ = ctx.tessellate(out.shapes, out.pixels_per_point);
        let t2 = thread_cpu().unwrap_or(0.0);
        (t1 - t0, t2 - t1)
    };
    let paced = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        if let Some(rest) = Duration::from_secs_f64(1.0 / 60.0).checked_sub(start.elapsed()) {
            std::thread::sleep(rest);
        }
    };
    // Until the worker has published the playing scene (and 2 s of it).
    let mut warm = 0;
    loop {
        paced(&mut || {
            run(&mut app);
        });
        warm += 1;
        let loaded = app
            .published()
            .live
            .as_ref()
            .is_some_and(|v| v.world.objects.len() > 2_000);
        if (loaded && warm >= 120) || warm > 1_200 {
            break;
        }
    }
    let objects = app
        .published()
        .live
        .as_ref()
        .map_or(0, |v| v.world.objects.len());
    anyhow::ensure!(objects > 2_000, "stress.ron never played in the editor");
    let frames = ((240.0 * scale) as usize).max(60);
    let (mut layout, mut tessellate) = (Vec::new(), Vec::new());
    for _ in 0..frames {
        paced(&mut || {
            let (a, b) = run(&mut app);
            layout.push(a);
            tessellate.push(b);
        });
    }
    let ms = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64 * 1000.0;
    let (layout_ms, tess_ms) = (ms(&layout), ms(&tessellate));
    let tick = app
        .published()
        .live
        .as_ref()
        .map_or(0, |v| v.world.clock.simulation_tick);
    Ok(vec![
        Figure::value(
            "editor_frame_ms",
            layout_ms + tess_ms,
            "ms UI CPU per frame",
            format!(
                "the default workspace at 1600x1000 while stress.ron ({objects} objects) plays live, {frames} frames at 60 Hz (live tick {tick}): {layout_ms:.2} ms in run_ui (our panels and egui's layout), {tess_ms:.2} ms tessellating"
            ),
        )
        .at_most(8.0),
    ])
}
