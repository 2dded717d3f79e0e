//! `editor_frame_ms`: the UI thread's own CPU per frame with the whole
//! default workspace drawn (every tile of the real [`Editor`], the
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
//!
//! The measurement takes the editor's configuration ([`stress_frame_cost`]),
//! so the host figures (`super::host`) time the same frames with the host
//! in a child process, and draw the same headless editor ([`Headless`]) for
//! their memory figure.

use std::time::{Duration, Instant};

use crate::editor::{Editor, EditorConfig};

use super::{Figure, Scenes};

/// CPU seconds this thread has run (Linux schedstat: its first field, ns).
fn thread_cpu() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// The real editor drawn headless at 1600 x 1000 points (module docs).
pub(super) struct Headless {
    /// The context every frame runs in.
    ctx: egui::Context,
    /// The eframe frame handed to the app (kittest's, with no window).
    frame: eframe::Frame,
    /// The editor.
    app: Editor,
}

impl Headless {
    /// The editor `config` describes, started (its host too) but not yet
    /// drawn.
    pub(super) fn start(config: EditorConfig) -> anyhow::Result<Headless> {
        let ctx = egui::Context::default();
        let cc = eframe::CreationContext::_new_kittest(ctx.clone());
        let app = Editor::new(&cc, config)?;
        Ok(Headless {
            ctx,
            frame: eframe::Frame::_new_kittest(),
            app,
        })
    }

    /// The editor.
    pub(super) fn app(&self) -> &Editor {
        &self.app
    }

    /// One frame drawn and tessellated: the UI thread's CPU seconds in
    /// `run_ui` and in tessellation.
    fn frame(&mut self) -> (f64, f64) {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(1600.0, 1000.0),
            )),
            ..Default::default()
        };
        let t0 = thread_cpu().unwrap_or(0.0);
        let (app, frame) = (&mut self.app, &mut self.frame);
        let mut out = self.ctx.run_ui(input, |ui| eframe::App::ui(app, ui, frame));
        let t1 = thread_cpu().unwrap_or(0.0);
        // Nobody uploads textures headless: mark the font atlas handled.
        out.textures_delta.clear();
        let _ = self.ctx.tessellate(out.shapes, out.pixels_per_point);
        let t2 = thread_cpu().unwrap_or(0.0);
        (t1 - t0, t2 - t1)
    }

    /// One frame, then a sleep to the end of its 60 Hz slot, as a display
    /// would pace it: the same split of CPU as [`Headless::frame`].
    pub(super) fn paced_frame(&mut self) -> (f64, f64) {
        let start = Instant::now();
        let cpu = self.frame();
        if let Some(rest) = Duration::from_secs_f64(1.0 / 60.0).checked_sub(start.elapsed()) {
            std::thread::sleep(rest);
        }
        cpu
    }

    /// The live tick and the live world's object count, if the host has
    /// published a live view.
    pub(super) fn live(&self) -> Option<(u64, usize)> {
        let v = self.app.published().live.as_ref()?;
        Some((v.world.clock.simulation_tick, v.world.objects.len()))
    }
}

/// What [`stress_frame_cost`] measured.
pub(super) struct FrameCost {
    /// Mean UI-thread CPU per frame in `run_ui` (our panels and egui's
    /// layout), ms.
    pub(super) layout_ms: f64,
    /// Mean UI-thread CPU per frame tessellating, ms.
    pub(super) tessellate_ms: f64,
    /// Objects in the live world.
    pub(super) objects: usize,
    /// Frames measured.
    pub(super) frames: usize,
    /// The live tick at the end.
    pub(super) tick: u64,
}

impl FrameCost {
    /// The whole frame's UI CPU, ms.
    pub(super) fn total_ms(&self) -> f64 {
        self.layout_ms + self.tessellate_ms
    }
}

/// The UI thread's CPU per frame of the editor `config` describes (its
/// scene: stress.ron), drawn headless at 60 Hz once the scene has played
/// for 2 s; `240 × scale` frames (at least 60).
pub(super) fn stress_frame_cost(config: EditorConfig, scale: f64) -> anyhow::Result<FrameCost> {
    let mut editor = Headless::start(config)?;
    // Until the worker has published the playing scene (and 2 s of it).
    let mut warm = 0;
    loop {
        editor.paced_frame();
        warm += 1;
        let loaded = editor.live().is_some_and(|(_, objects)| objects > 2_000);
        if (loaded && warm >= 120) || warm > 1_200 {
            break;
        }
    }
    let objects = editor.live().map_or(0, |(_, objects)| objects);
    anyhow::ensure!(objects > 2_000, "stress.ron never played in the editor");
    let frames = ((240.0 * scale) as usize).max(60);
    let (mut layout, mut tessellate) = (Vec::new(), Vec::new());
    for _ in 0..frames {
        let (a, b) = editor.paced_frame();
        layout.push(a);
        tessellate.push(b);
    }
    let ms = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64 * 1000.0;
    Ok(FrameCost {
        layout_ms: ms(&layout),
        tessellate_ms: ms(&tessellate),
        objects,
        frames,
        tick: editor.live().map_or(0, |(tick, _)| tick),
    })
}

pub(super) fn editor_frame(scale: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    let cost = stress_frame_cost(EditorConfig::threaded(scenes.join("stress.ron")), scale)?;
    let FrameCost {
        layout_ms,
        tessellate_ms,
        objects,
        frames,
        tick,
    } = cost;
    Ok(vec![
        Figure::value(
            "editor_frame_ms",
            layout_ms + tessellate_ms,
            "ms UI CPU per frame",
            format!(
                "the default workspace at 1600x1000 while stress.ron ({objects} objects) plays live, {frames} frames at 60 Hz (live tick {tick}): {layout_ms:.2} ms in run_ui (our panels and egui's layout), {tessellate_ms:.2} ms tessellating"
            ),
        )
        .at_most(8.0),
    ])
}
