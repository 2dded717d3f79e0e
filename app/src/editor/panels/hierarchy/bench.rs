//! The `hierarchy_ui_ms` measurement that `stepframe bench` reports: what
//! the hierarchy panel costs the UI thread per frame in a world of 10,000
//! objects, with the view the real worker publishes for such a scene.
//!
//! The worst case is measured: 10,000 roots (nothing folds away) and a new
//! view every frame, as while the session plays (the worker publishes after
//! every frame), so the lines are worked out again each frame and nothing
//! cached can help. Drawing is headless (`Context::run_ui` + `tessellate`)
//! in a 320 x 800 point panel, about the hierarchy's tile in the default
//! layout; the figure is the median of the frames' wall times.

use std::path::Path;
use std::time::Instant;

use super::HierarchyPanel;
use crate::editor::shared::Panel;
use crate::editor::{Editor, EditorConfig, Published, Reading};

/// The hierarchy's median ms per UI frame over `frames` frames in a world of
/// `objects` objects ("Crate 1" … as roots, one in seven with a Script), the
/// Filter field holding `filter` (empty: the whole tree).
pub fn bench_hierarchy_ms(objects: usize, frames: usize, filter: &str) -> anyhow::Result<f64> {
    let dir =
        std::env::temp_dir().join(format!("stepframe-hierarchy-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let scene = dir.join("crates.ron");
    std::fs::write(&scene, scene_text(objects, &dir)?)?;
    std::fs::write(dir.join("idle.rhai"), "fn fixed_update(ctx) {}\n")?;
    let published = published_view(&scene);
    let _ = std::fs::remove_dir_all(&dir);
    let mut published = published?;
    let loaded = published.live.as_ref().map_or(0, |v| v.world.objects.len());
    anyhow::ensure!(loaded == objects, "{loaded} objects loaded, not {objects}");
    let mut panel = HierarchyPanel {
        filter: filter.to_string(),
        ..HierarchyPanel::default()
    };
    let (tx, _rx) = crossbeam_channel::unbounded();
    let mut cmd = crate::editor::Commands::new(tx);
    let log = crate::editor::LogBook::default();
    let ctx = egui::Context::default();
    let mut times = Vec::with_capacity(frames);
    for _ in 0..frames.max(1) {
        if let Some(live) = &mut published.live {
            // A new view, as while playing: nothing carries over.
            live.world.revision += 1;
        }
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(320.0, 800.0),
            )),
            ..Default::default()
        };
        let t0 = Instant::now();
        let bookmarks = crate::editor::bookmarks::Bookmarks::default();
        let reading = Reading::new(&published, &Default::default(), &bookmarks, &log, false);
        let mut out = ctx.run_ui(input, |ui| {
            egui::CentralPanel::default().show(ui, |ui| panel.ui(ui, &reading, &mut cmd));
        });
        // Nobody uploads textures headless: mark the font atlas handled.
        out.textures_delta.clear();
        let _ = ctx.tessellate(out.shapes, out.pixels_per_point);
        times.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

/// A scene of `objects` bodiless roots; every seventh runs an empty script
/// (so the behaviour names are there to filter on).
fn scene_text(objects: usize, dir: &Path) -> anyhow::Result<String> {
    use std::fmt::Write;
    let script = dir.join("idle.rhai");
    let script = script
        .to_str()
        .ok_or_else(|| anyhow::anyhow!("temporary folder {} is not UTF-8", dir.display()))?;
    let mut text = String::from("#![enable(implicit_some)]\n(\n    objects: [\n");
    for id in 1..=objects {
        write!(text, "        (id: {id}, name: \"Crate {id}\"")?;
        if id % 7 == 0 {
            write!(
                text,
                ", behaviours: [(name: \"Script\", params: (path: {script:?}))]"
            )?;
        }
        text.push_str("),\n");
    }
    text.push_str("    ],\n)\n");
    Ok(text)
}

/// What the real editor's worker publishes for `scene`, once it has loaded it.
fn published_view(scene: &Path) -> anyhow::Result<Published> {
    let ctx = egui::Context::default();
    let cc = eframe::CreationContext::_new_kittest(ctx.clone());
    let mut frame = eframe::Frame::_new_kittest();
    let mut app = Editor::new(&cc, EditorConfig::driven(scene.to_path_buf(), 1.0 / 60.0))?;
    for _ in 0..60 {
        let mut out = ctx.run_ui(egui::RawInput::default(), |ui| {
            eframe::App::ui(&mut app, ui, &mut frame)
        });
        out.textures_delta.clear();
        if app
            .published()
            .live
            .as_ref()
            .is_some_and(|v| !v.world.objects.is_empty())
        {
            break;
        }
    }
    let live = app.published().live.clone();
    anyhow::ensure!(
        live.as_ref().is_some_and(|v| !v.world.objects.is_empty()),
        "the editor did not load {}: {}",
        scene.display(),
        app.feedback().error.as_deref().unwrap_or("no error shown")
    );
    Ok(Published {
        live,
        ..Published::default()
    })
}
