//! Scripts that ask for too much: memory (strings, arrays and maps doubled
//! or grown in a loop, map keys, a flood of log lines), operations and call
//! depth. Each is stopped with `path:line:column` in the log, never 0:0, and
//! only its own hooks stop: the object stays, later ticks run, and another
//! script beside it runs every tick (docs/scripts.md, "Limits").
//!
//! Every hostile script here is a file of its own, with `fn fixed_update(dt) {`
//! on line 2, so the body of the hook opens at 2:21 (column of the `{`): the
//! place rhai's position-less errors are reported at.

use std::path::{Path, PathBuf};

use stepframe_core::{LogLevel, ObjectId, Pipeline, Scene, TickWatch};
use stepframe_plugins::{ScriptHost, WatchAction, WatchEvent, WatchSet, WatchSpec};

const DT: f64 = 1.0 / 60.0;

/// Ticks each scene runs (one per frame at 60 Hz).
const TICKS: u64 = 10;

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stepframe-limits-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A counter beside the hostile object: it must keep counting.
const COUNTER: &str = "let n = 0;\nfn fixed_update(dt) {\n    n += 1;\n}\n";

/// Runs `script` on object 2 (with a ball body) next to the counter on
/// object 3 for [`TICKS`] ticks; returns the session and the error lines.
fn run(tag: &str, script: &str) -> (Pipeline, PathBuf, Vec<String>) {
    let dir = temp_dir(tag);
    let path = dir.join(format!("{tag}.rhai"));
    std::fs::write(&path, script).expect("write script");
    let counter = dir.join("counter.rhai");
    std::fs::write(&counter, COUNTER).expect("write counter");
    let text = format!(
        r#"(
    settings: (gravity: (x: 0.0, y: -9.81), seed: 3),
    objects: [
        (id: 1, name: "Floor", transform: (x: 0.0, y: -0.5), body: (kind: Fixed, shapes: [Cuboid(hx: 20.0, hy: 0.5)])),
        (id: 2, name: "Hostile", transform: (x: 0.0, y: 2.0), body: (shapes: [Circle(radius: 0.25)], can_sleep: false),
         behaviours: [(name: "Script", params: (path: {path:?}))]),
        (id: 3, name: "Counter", behaviours: [(name: "Script", params: (path: {counter:?}))]),
    ],
)"#,
        path = path.to_string_lossy(),
        counter = counter.to_string_lossy(),
    );
    let host = ScriptHost::new();
    let registry = stepframe_plugins::registry_for(&host, Path::new("."));
    let scene =
        Scene::parse(&text, Path::new("limits.ron"), &registry).unwrap_or_else(|e| panic!("{e}"));
    let mut pipeline = Pipeline::new(scene.settings.time);
    pipeline
        .load_scene(&scene, &registry)
        .unwrap_or_else(|e| panic!("{e}"));
    for _ in 0..TICKS {
        pipeline.step_frame(DT);
    }
    let errors = pipeline
        .drain_log()
        .into_iter()
        .filter(|l| l.level == LogLevel::Error)
        .map(|l| l.message)
        .collect();
    std::fs::remove_dir_all(&dir).ok();
    (pipeline, path, errors)
}

/// The script's variables as the inspector shows them.
fn state_of(pipeline: &Pipeline, id: u64) -> String {
    pipeline
        .behaviour_states(ObjectId(id))
        .into_iter()
        .map(|s| s.state)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs `script`, and checks that it failed once, at `place` (`line:column`)
/// with `what` in the message, and that everything else went on.
fn stopped_at(tag: &str, script: &str, place: &str, what: &str) {
    let (pipeline, path, errors) = run(tag, script);
    assert_eq!(
        errors.len(),
        1,
        "{tag}: one error, logged once: {errors:#?}"
    );
    let expected = format!("{}:{place}: fixed_update failed: ", path.to_string_lossy());
    assert!(
        errors[0].contains(&expected) && errors[0].contains(what),
        "{tag}: wanted `{expected}...{what}`, got {}",
        errors[0]
    );
    assert!(!errors[0].contains(":0:0"), "{tag}: {}", errors[0]);
    assert_eq!(
        pipeline.clock().simulation_tick,
        TICKS,
        "{tag}: the session goes on"
    );
    assert!(
        pipeline.world().get(ObjectId(2)).is_some(),
        "{tag}: the object stays"
    );
    assert!(
        state_of(&pipeline, 3).contains(&format!("n = {TICKS}")),
        "{tag}: the other script ran every tick: {}",
        state_of(&pipeline, 3)
    );
}

/// Where the hook's body opens in every hostile script below.
const HOOK: &str = "2:21";

#[test]
fn a_string_doubled_in_a_loop_stops_the_hook_before_it_allocates() {
    // 2 bytes doubled 40 times is 2 TiB; the limit (64 KiB) is passed at the
    // 16th doubling, checked before the string is built.
    let doubled = "let s = \"\";\nfn fixed_update(dt) {\n    let t = \"ab\";\n    for i in 0..40 {\n        t += t;\n    }\n    s = t;\n}\n";
    stopped_at(
        "string-plus-eq",
        doubled,
        HOOK,
        "Length of string too large",
    );
    let added = "let s = \"\";\nfn fixed_update(dt) {\n    let t = \"ab\";\n    for i in 0..40 {\n        t = t + t;\n    }\n    s = t;\n}\n";
    stopped_at("string-plus", added, HOOK, "Length of string too large");
}

#[test]
fn an_array_doubled_in_a_loop_stops_the_hook() {
    let doubled = "let a = [];\nfn fixed_update(dt) {\n    let b = [1];\n    for i in 0..40 {\n        b += b;\n    }\n    a = b;\n}\n";
    stopped_at(
        "array-plus-eq",
        doubled,
        HOOK,
        "Size of array/BLOB too large",
    );
    let nested = "let a = [];\nfn fixed_update(dt) {\n    let b = [1];\n    for i in 0..40 {\n        b = [b, b];\n    }\n    a = b;\n}\n";
    stopped_at("array-nested", nested, HOOK, "Size of array/BLOB too large");
}

#[test]
fn a_map_doubled_in_a_loop_stops_the_hook() {
    let nested = "let m = #{};\nfn fixed_update(dt) {\n    let x = #{a: 1};\n    for i in 0..40 {\n        x = #{a: x, b: x};\n    }\n    m = x;\n}\n";
    stopped_at("map-nested", nested, HOOK, "Size of object map too large");
}

#[test]
fn growth_by_plus_eq_and_push_a_step_at_a_time_stops_the_hook() {
    // 8 bytes a step: 64 KiB is passed at step 8,193, inside the operation limit.
    let string = "let s = \"\";\nfn fixed_update(dt) {\n    for i in 0..200000 {\n        s += \"abcdefgh\";\n    }\n}\n";
    stopped_at("string-steps", string, HOOK, "Length of string too large");
    let array =
        "let a = [];\nfn fixed_update(dt) {\n    for i in 0..200000 {\n        a += i;\n    }\n}\n";
    stopped_at("array-steps", array, HOOK, "Size of array/BLOB too large");
    let push = "let a = [];\nfn fixed_update(dt) {\n    for i in 0..200000 {\n        a.push(i);\n    }\n}\n";
    stopped_at("array-push", push, HOOK, "Size of array/BLOB too large");
}

#[test]
fn map_keys_added_by_index_count_against_the_script_budget() {
    // rhai checks neither a key's bytes nor `m[key] = v` itself: 32 KiB keys
    // added 200,000 times would be 6 GiB. The hook's variables are measured
    // every 4,096 reads, so this stops past 64 MiB (about 2,000 keys).
    let keys = "let m = #{};\nfn fixed_update(dt) {\n    let s = \"x\";\n    for i in 0..15 {\n        s += s;\n    }\n    for j in 0..200000 {\n        m[s + j] = 1;\n    }\n}\n";
    stopped_at("map-keys", keys, HOOK, "Memory of the script's variables");
    // Short keys, a few a tick, into the state: measured after each call.
    let slow = "let m = #{};\nlet k = 0;\nfn fixed_update(dt) {\n    let s = \"x\";\n    for i in 0..15 {\n        s += s;\n    }\n    for j in 0..700 {\n        m[s + k] = 1;\n        k += 1;\n    }\n}\n";
    let (_, path, errors) = run("map-keys-state", slow);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0].contains(&format!("{}:3:21:", path.to_string_lossy()))
            && errors[0].contains("Memory of the script's variables"),
        "{}",
        errors[0]
    );
}

#[test]
fn a_flood_of_log_lines_fails_at_the_line_of_the_log_call() {
    // A 64 KiB line logged 100,000 times would copy 6 GiB into the log; one
    // call may log 1 MiB, so the 17th line fails, at its own line.
    let flood = "let s = \"\";\nfn fixed_update(dt) {\n    let t = \"x\";\n    for i in 0..15 { t += t; }\n    for i in 0..100000 {\n        log(t);\n    }\n}\n";
    stopped_at("log-flood", flood, "6:9", "may log at most 1024 KiB");
}

#[test]
fn too_many_operations_and_a_stack_overflow_name_a_line() {
    let spin = "let n = 0;\nfn fixed_update(dt) {\n    loop {\n        n += 1;\n    }\n}\n";
    stopped_at("spin", spin, HOOK, "Too many operations");
    let helper = "let n = 0;\nfn fixed_update(dt) {\n    spin();\n}\nfn spin() {\n    loop {}\n}\n";
    stopped_at("spin-helper", helper, HOOK, "Too many operations");
    let deep =
        "let n = 0;\nfn fixed_update(dt) {\n    down(0);\n}\nfn down(k) {\n    down(k + 1)\n}\n";
    stopped_at("recursion", deep, HOOK, "Stack overflow");
}

#[test]
fn a_type_error_keeps_the_line_rhai_knows() {
    let typed = "let n = 0;\nfn fixed_update(dt) {\n    n += 1;\n    let x = \"a\" * 2;\n}\n";
    let (_, path, errors) = run("type-error", typed);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0].contains(&format!("{}:4:", path.to_string_lossy())),
        "{}",
        errors[0]
    );
    assert!(!errors[0].contains("rhai does not say"), "{}", errors[0]);
}

#[test]
fn a_top_level_that_asks_for_too_much_is_a_load_error_with_a_line() {
    let dir = temp_dir("top-level");
    let path = dir.join("top.rhai");
    std::fs::write(&path, "let s = \"ab\";\nfor i in 0..40 {\n    s += s;\n}\n").expect("write");
    let host = ScriptHost::new();
    let text = format!(
        "(objects: [(id: 1, name: \"Top\", behaviours: [(name: \"Script\", params: (path: {:?}))])])",
        path.to_string_lossy()
    );
    let registry = stepframe_plugins::registry_for(&host, Path::new("."));
    let err = Scene::parse(&text, Path::new("top.ron"), &registry)
        .map(|_| ())
        .expect_err("the top level fails");
    let message = err.to_string();
    assert!(
        message.contains(&format!("{}:3:", path.to_string_lossy()))
            && message.contains("Length of string too large"),
        "{message}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_watch_that_builds_a_huge_string_fails_and_the_session_goes_on() {
    let mut set = WatchSet::new(&[WatchSpec {
        expr: "\"x\".pad(1 << 40, \"y\").len() > 0".into(),
        action: WatchAction::Mark,
        enabled: true,
    }])
    .expect("compiles");
    let events = set.events();
    let mut p = Pipeline::new(Default::default());
    for _ in 0..3 {
        p.step_frame(DT);
        assert_eq!(set.after_tick(&p), None);
    }
    let events = events.lock().expect("events");
    assert_eq!(events.len(), 1, "reported once: {events:#?}");
    assert!(
        matches!(&events[0], WatchEvent::Failed { message, .. } if message.contains("Length of string too large")),
        "{events:#?}"
    );
}
