//! The faults no process survives, through the real binary: an abort, a
//! stack overflow, an allocation that fails under `--memory-limit-mib`, and a
//! hook that never returns under `--stuck-hook-limit`. `play`, `check`,
//! `soak` and `bench` each end (every wait here is bounded), with exit 4 for
//! a death and 3 for a stuck hook (`check`: 1, the run's case failed), and a
//! line naming the object (id and name), the behaviour, the hook and the tick.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::support::{assert_contains, code, path_str, root, scratch, stderr, stdout};

/// Longest any one run here may take before the test fails instead of
/// waiting on: a supervisor that does its job ends each in a few seconds.
const BOUND: Duration = Duration::from_secs(120);

/// A scene whose object 7, `Bomb`, carries a `Faulty` firing `fault` in
/// `hook` from `tick`, beside a plain object 1.
fn fault_scene(dir: &Path, hook: &str, tick: u64, fault: &str) -> PathBuf {
    let scene = dir.join(format!("{}-{hook}.ron", fault.to_lowercase()));
    std::fs::write(
        &scene,
        format!(
            "(objects: [\n  (id: 1, name: \"Ground\"),\n  (id: 7, name: \"Bomb\", behaviours: [(name: \"Faulty\", params: (hook: {hook}, tick: {tick}, fault: {fault}))]),\n])\n"
        ),
    )
    .expect("write the scene");
    scene
}

/// Runs the binary from the workspace root and waits for it, at most
/// [`BOUND`]: the test fails (and the process is killed) past that.
fn run(args: &[&str]) -> Output {
    let t0 = Instant::now();
    let out = crate::support::stepframe_within(args, BOUND.as_secs());
    let out = out.unwrap_or_else(|| panic!("{args:?} still running after {BOUND:?}"));
    assert!(t0.elapsed() < BOUND);
    out
}

#[test]
fn play_names_an_abort_with_object_behaviour_hook_and_tick() {
    let dir = scratch("fatal-abort");
    let scene = fault_scene(&dir, "Update", 5, "Abort");
    let out = run(&["play", path_str(&scene), "--frames", "30"]);
    assert_eq!(code(&out), 4, "{}", stderr(&out));
    // Update sees the completed ticks: the fault fires in frame 6, after 5.
    assert_contains(
        &stderr(&out),
        "stepframe play: abort in Update of #7 `Bomb` (Faulty) at tick 5: the process aborted (SIGABRT)",
    );
}

#[test]
fn play_names_a_stack_overflow_with_what_the_process_said() {
    let dir = scratch("fatal-overflow");
    let scene = fault_scene(&dir, "FixedUpdate", 10, "StackOverflow");
    let out = run(&["play", path_str(&scene), "--frames", "30"]);
    assert_eq!(code(&out), 4, "{}", stderr(&out));
    let err = stderr(&out);
    assert_contains(
        &err,
        "stepframe play: stack overflow in FixedUpdate of #7 `Bomb` (Faulty) at tick 10: thread 'main'",
    );
    let named = err
        .lines()
        .find(|l| l.starts_with("stepframe play: "))
        .expect("the fault line");
    assert!(named.ends_with("has overflowed its stack"), "{err}");
}

#[test]
fn play_under_a_memory_limit_names_the_allocation_that_failed() {
    let dir = scratch("fatal-oom");
    let scene = fault_scene(&dir, "FixedUpdate", 10, "Allocate");
    let out = run(&[
        "play",
        path_str(&scene),
        "--frames",
        "30",
        "--memory-limit-mib",
        "256",
    ]);
    assert_eq!(code(&out), 4, "{}", stderr(&out));
    assert_contains(
        &stderr(&out),
        "stepframe play: out of memory in FixedUpdate of #7 `Bomb` (Faulty) at tick 10: memory allocation of 16777216 bytes failed (memory limit 256 MiB)",
    );
}

#[test]
fn play_stops_a_hook_that_never_returns_after_the_stuck_hook_limit() {
    let dir = scratch("fatal-spin");
    let scene = fault_scene(&dir, "FixedUpdate", 10, "Spin");
    let out = run(&[
        "play",
        path_str(&scene),
        "--frames",
        "30",
        "--stuck-hook-limit",
        "1",
    ]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert_contains(
        &stderr(&out),
        "stepframe play: stuck hook in FixedUpdate of #7 `Bomb` (Faulty) at tick 10: it did not return within 1 s (the stuck-hook limit); the process was stopped",
    );
}

#[test]
fn in_process_runs_without_a_supervisor_and_an_abort_ends_it_unnamed() {
    use std::os::unix::process::ExitStatusExt;
    let dir = scratch("fatal-in-process");
    let scene = fault_scene(&dir, "FixedUpdate", 10, "Abort");
    let out = run(&["play", path_str(&scene), "--frames", "30", "--in-process"]);
    assert_eq!(out.status.signal(), Some(6), "the process itself aborted");
    assert!(
        !stderr(&out).contains("stepframe play: abort"),
        "{}",
        stderr(&out)
    );
}

/// The JUnit `<testcase>`s of `path`: name, and the message of its
/// `<error>` if it has one.
fn junit_errors(path: &Path) -> Vec<(String, Option<String>)> {
    let text = std::fs::read_to_string(path).expect("the JUnit file");
    let doc = roxmltree::Document::parse(&text).expect("JUnit XML");
    doc.descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|case| {
            let error = case
                .children()
                .find(|c| c.has_tag_name("error"))
                .and_then(|e| e.attribute("message"))
                .map(str::to_string);
            (
                case.attribute("name").unwrap_or_default().to_string(),
                error,
            )
        })
        .collect()
}

/// `check` of a scene whose every run meets `fault` at tick 10 of
/// FixedUpdate, with `extra` arguments, making `runs` runs: exit 1, every
/// run of the table `FAILED:` with `named`, and every JUnit case an
/// `<error>` saying so.
fn check_fails_every_run(name: &str, fault: &str, extra: &[&str], runs: usize, named: &str) {
    let dir = scratch(name);
    let scene = fault_scene(&dir, "FixedUpdate", 10, fault);
    let junit = dir.join("junit.xml");
    let mut args = vec![
        "check",
        path_str(&scene),
        "--ticks",
        "20",
        "--jobs",
        "2",
        "--junit",
        path_str(&junit),
    ];
    args.extend_from_slice(extra);
    let out = run(&args);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    let s = stdout(&out);
    assert_eq!(s.matches(&format!("FAILED: {named}")).count(), runs, "{s}");
    assert_contains(&s, &format!("{runs} run(s) could not run"));
    let cases = junit_errors(&junit);
    assert_eq!(cases.len(), runs);
    for (case, error) in cases {
        let error = error.unwrap_or_else(|| panic!("{case}: no <error>"));
        assert!(error.starts_with(named), "{case}: {error}");
    }
}

#[test]
fn check_names_an_abort_in_every_run_and_its_junit_cases() {
    check_fails_every_run(
        "check-abort",
        "Abort",
        &[],
        18,
        "abort in FixedUpdate of #7 `Bomb` (Faulty) at tick 10: the process aborted (SIGABRT)",
    );
}

#[test]
fn check_names_a_stack_overflow_in_every_run_and_its_junit_cases() {
    check_fails_every_run(
        "check-overflow",
        "StackOverflow",
        &[],
        18,
        "stack overflow in FixedUpdate of #7 `Bomb` (Faulty) at tick 10: thread '",
    );
}

#[test]
fn check_names_an_allocation_failure_in_every_run_and_its_junit_cases() {
    check_fails_every_run(
        "check-oom",
        "Allocate",
        // Three runs (a sixth of the matrix): each writes its way through
        // the whole limit, a second or more on a loaded machine.
        &["--memory-limit-mib", "256", "--shard", "1/6"],
        3,
        "out of memory in FixedUpdate of #7 `Bomb` (Faulty) at tick 10: memory allocation of 16777216 bytes failed (memory limit 256 MiB)",
    );
}

#[test]
fn check_stops_a_stuck_hook_in_every_run_and_names_it_in_its_junit_cases() {
    check_fails_every_run(
        "check-spin",
        "Spin",
        &["--stuck-hook-limit", "0.5"],
        18,
        "stuck hook in FixedUpdate of #7 `Bomb` (Faulty) at tick 10: it did not return within 0.5 s",
    );
}

#[test]
fn one_run_that_aborts_fails_alone_and_every_other_run_still_reports() {
    // Flow Tick runs after a frame's ticks and sees how many are complete.
    // Every run goes on until 21 ticks are; at 60 Hz (and 144 Hz, and after
    // the stalls) a frame completes at most one tick at the end, so no run
    // there reaches 22; at 30 Hz a frame completes two, and the one that
    // reaches 21 completes 22: only such runs abort.
    let dir = scratch("check-one-aborts");
    let scene = fault_scene(&dir, "FlowTick", 22, "Abort");
    let junit = dir.join("junit.xml");
    let out = run(&[
        "check",
        path_str(&scene),
        "--ticks",
        "21",
        "--junit",
        path_str(&junit),
    ]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    let cases = junit_errors(&junit);
    assert_eq!(cases.len(), 18, "every run reported");
    let named = "abort in FlowTick of #7 `Bomb` (Faulty) at tick 22: the process aborted (SIGABRT)";
    let failed: Vec<&str> = cases
        .iter()
        .filter(|(_, e)| e.is_some())
        .map(|(n, _)| n.as_str())
        .collect();
    for must in ["30 Hz / accumulator", "30 Hz / step-counting"] {
        assert!(failed.contains(&must), "{must} aborts: {failed:?}");
    }
    for (case, error) in &cases {
        if let Some(e) = error {
            assert_eq!(e, named, "{case}");
        }
    }
    for passed in [
        "60 Hz / accumulator",
        "144 Hz / accumulator",
        "60 Hz / step-counting",
    ] {
        assert!(
            cases.iter().any(|(n, e)| n == passed && e.is_none()),
            "{passed} ran to the end and reported: {cases:?}"
        );
    }
    let s = stdout(&out);
    assert_eq!(s.matches("  match").count(), 17 - failed.len(), "{s}");
    assert_contains(&s, &format!("{} run(s) could not run", failed.len()));
}

#[test]
fn soak_and_bench_stop_a_stuck_hook_and_name_it() {
    let dir = scratch("soak-bench-spin");
    let scene = fault_scene(&dir, "FixedUpdate", 10, "Spin");
    let named = "stuck hook in FixedUpdate of #7 `Bomb` (Faulty) at tick 10: it did not return within 0.5 s";
    for worker in [false, true] {
        let mut args = vec![
            "soak",
            path_str(&scene),
            "--ticks",
            "100",
            "--warmup",
            "5",
            "--stuck-hook-limit",
            "0.5",
        ];
        if worker {
            args.push("--worker");
        }
        let out = run(&args);
        assert_eq!(code(&out), 3, "{args:?}: {}", stderr(&out));
        assert_contains(&stderr(&out), &format!("stepframe soak: {named}"));
    }
    // A bench whose demo.ron is that scene: the headless figure plays it.
    let scenes = dir.join("scenes");
    std::fs::create_dir_all(&scenes).expect("a scenes directory");
    std::fs::copy(&scene, scenes.join("demo.ron")).expect("demo.ron");
    let out = run(&[
        "bench",
        "--scenes",
        path_str(&scenes),
        "--only",
        "headless_share",
        "--quick",
        "--stuck-hook-limit",
        "0.5",
    ]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert_contains(&stderr(&out), &format!("stepframe bench: {named}"));
}

/// The ids of `pid`'s child processes (Linux procfs).
fn children_of(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return out;
    };
    for task in tasks.flatten() {
        let list = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        out.extend(
            list.split_whitespace()
                .filter_map(|p| p.parse::<u32>().ok()),
        );
    }
    out
}

/// Waits, at most [`BOUND`], until `f` holds; false if it never did.
fn eventually(mut f: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + BOUND;
    while Instant::now() < deadline {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn a_killed_supervisor_takes_its_child_with_it() {
    // A CI job's timeout kills the process it started: the supervisor. Its
    // child, stuck in a hook with an hour's limit, must not spin on.
    let dir = scratch("fatal-orphan");
    let scene = fault_scene(&dir, "FixedUpdate", 1, "Spin");
    let mut parent = Command::new(env!("CARGO_BIN_EXE_stepframe"))
        .args(["play", path_str(&scene), "--stuck-hook-limit", "3600"])
        .current_dir(root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the binary starts");
    let mut child = None;
    assert!(
        eventually(|| {
            child = children_of(parent.id()).first().copied();
            child.is_some()
        }),
        "the supervisor started its child"
    );
    let child = child.expect("a child");
    parent.kill().expect("killed");
    parent.wait().expect("reaped");
    assert!(
        eventually(|| {
            // Gone, or a zombie waiting for init to reap it.
            std::fs::read_to_string(format!("/proc/{child}/stat"))
                .map_or(true, |s| s.split_whitespace().nth(2) == Some("Z"))
        }),
        "child {child} still running after its supervisor was killed"
    );
}
