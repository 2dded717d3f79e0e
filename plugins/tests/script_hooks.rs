//! A Script is called only for the hooks its file defines (so a FixedUpdate
//! breakpoint on an object whose script has no `fixed_update` never fires),
//! and a hot reload that adds or drops a hook function changes that at once.

use std::path::{Path, PathBuf};

use stepframe_core::{Breakpoint, HookKind, Hooks, ObjectId, Pipeline, Scene};

const DT: f64 = 1.0 / 60.0;

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "stepframe-script-hooks-{tag}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn load(host: &stepframe_plugins::ScriptHost, script: &Path) -> Pipeline {
    let text = format!(
        r#"(
    objects: [
        (id: 2, name: "Scripted", behaviours: [(name: "Script", params: (path: {:?}))]),
    ],
)"#,
        script.to_string_lossy()
    );
    let registry = stepframe_plugins::registry_for(host, Path::new("."));
    let scene =
        Scene::parse(&text, Path::new("hooks.ron"), &registry).unwrap_or_else(|e| panic!("{e}"));
    let mut p = Pipeline::new(scene.settings.time);
    p.load_scene(&scene, &registry)
        .unwrap_or_else(|e| panic!("{e}"));
    p
}

#[test]
fn a_script_declares_only_the_hooks_it_defines_and_a_reload_updates_them() {
    let dir = temp_dir("reload");
    let path = dir.join("only_update.rhai");
    std::fs::write(&path, "let n = 0;\nfn update(dt) {\n    n += 1;\n}\n").expect("write");
    let host = stepframe_plugins::ScriptHost::new();
    let mut p = load(&host, &path);
    let me = ObjectId(2);
    p.add_breakpoint(Breakpoint::on(HookKind::FixedUpdate, me));
    for _ in 0..3 {
        let r = p.step_frame(DT);
        assert_eq!(r.ticks, 1);
        assert!(r.suspended.is_none(), "no fixed_update function, no hit");
    }
    assert!(!p.hooks_of(me).contains(Hooks::FIXED_UPDATE));
    assert_eq!(p.debugger().breakpoints()[0].matches, 0);

    // The reload adds fixed_update: from this frame's fixed phase on it runs
    // and the breakpoint hits, at the end of the tick.
    let v2 =
        "let n = 0;\nfn update(dt) {\n    n += 1;\n}\nfn fixed_update(dt) {\n    n += 100;\n}\n";
    std::fs::write(&path, v2).expect("write v2");
    host.reload(&path).expect("v2 compiles");
    let r = p.step_frame(DT);
    let s = r.suspended.expect("the new fixed_update is hit");
    assert!(s.end_of_tick);
    assert_eq!(s.tick, 4);
    assert!(p.hooks_of(me).contains(Hooks::FIXED_UPDATE));
    p.resume();

    // And dropping it again stops the calls.
    std::fs::write(&path, "let n = 0;\nfn update(dt) {\n    n += 2;\n}\n").expect("write v3");
    host.reload(&path).expect("v3 compiles");
    let matches = p.debugger().breakpoints()[0].matches;
    for _ in 0..3 {
        let r = p.step_frame(DT);
        assert!(r.suspended.is_none());
    }
    assert_eq!(p.debugger().breakpoints()[0].matches, matches);
    std::fs::remove_dir_all(&dir).ok();
}
