//! `stepframe check` for people and for CI: the divergence report of a
//! frame-rate dependent scene, several scenes with their recordings, shards
//! of the scene × pacing matrix, JUnit XML, and no progress drawing when
//! stderr is not a terminal. Runs are kept short (10 to 30 ticks).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use stepframe_app::tools::cases::{CheckTarget, pair_inputs};
use stepframe_app::tools::matrix::{MatrixRun, Shard, check_matrix};

mod support;
use support::{
    assert_contains, code, path_str, scratch, stderr, stdout, stepframe, stepframe_saying,
    stepframe_writing,
};

/// A scene with one ball (#2) driven by a script, in zero gravity above a
/// ground (#1).
fn script_scene(dir: &Path, name: &str, script: &str) -> PathBuf {
    let path = dir.join(format!("{name}.rhai"));
    std::fs::write(&path, script).expect("write");
    let scene = dir.join(format!("{name}.ron"));
    std::fs::write(
        &scene,
        format!(
            r#"#![enable(implicit_some)]
(
    settings: (gravity: (x: 0.0, y: 0.0)),
    objects: [
        (id: 1, name: "Ground", transform: (x: 0.0, y: -5.0), body: (kind: Fixed, shapes: [Cuboid(hx: 1.0, hy: 0.5)])),
        (id: 2, name: "Ball", body: (shapes: [Circle(radius: 0.5)]),
         behaviours: [(name: "Script", params: (path: "{}"))]),
    ],
)
"#,
            path_str(&path)
        ),
    )
    .expect("write");
    scene
}

/// Counts its `update` calls (state) and pushes the ball from `update`: the
/// frame-rate dependent behaviour of the docs' walkthrough.
/// What `stepframe check` of `scene` for `ticks` ticks prints, once it has
/// exited with `expected` (both streams shown when not).
fn check_saying(scene: &Path, ticks: &str, expected: i32) -> String {
    let out = stepframe(&["check", path_str(scene), "--ticks", ticks]);
    assert_eq!(code(&out), expected, "{}{}", stdout(&out), stderr(&out));
    stdout(&out)
}

/// The verdict table's row of the accumulator at 30 Hz.
fn accumulator_row_at_30_hz(table: &str) -> &str {
    table
        .lines()
        .find(|l| l.starts_with("30 Hz ") && l.contains("accumulator"))
        .expect("30 Hz row")
}

const PUSH_PER_FRAME: &str =
    "let pushes = 0;\nfn update(dt) { pushes += 1; apply_force(20.0, 0.0); }\n";

#[test]
fn check_passes_on_the_soft_body_scene() {
    // Two jellies and a rope bridge hitting posts, the ground, a ball and
    // each other: identical traces at 30, 60, 144 Hz, irregular
    // pacing and stalls, with both strategies.
    let out = stepframe(&["check", "assets/scenes/soft.ron", "--ticks", "300"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let s = stdout(&out);
    assert_contains(&s, "all 17 runs match the reference");
}

#[test]
fn check_passes_on_the_demo() {
    let out = stepframe(&[
        "check",
        "assets/scenes/demo.ron",
        "--input",
        "assets/recordings/demo.ron",
        "--ticks",
        "300",
    ]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let s = stdout(&out);
    assert_eq!(s.matches("  match").count(), 17, "{s}");
    assert_eq!(s.matches("  reference").count(), 1, "{s}");
    assert_contains(&s, "all 17 runs match the reference");
}

#[test]
fn check_reports_where_frame_dependent_logic_diverges() {
    // A script pushing its body from Update: one push per frame, so 60 Hz
    // pushes every tick and 30 Hz every other tick. Tick 1 still matches (one
    // push each); at 30 Hz tick 2 runs in frame 1 without a push, so the ball
    // (object 2) is already elsewhere.
    let dir = scratch("check-diverges");
    let scene = script_scene(&dir, "push", "fn update(dt) { apply_force(20.0, 0.0); }\n");
    let s = check_saying(&scene, "30", 1);
    let row = accumulator_row_at_30_hz(&s);
    // The script has no state: the physics world changed first, at the ball.
    assert!(
        row.contains(
            "DIFFERS: first difference at tick 2 (line 2): the physics world changed first: #2.x "
        ),
        "{row}"
    );
    assert_contains(&s, "run(s) do not match the reference");
}

#[test]
fn a_failing_check_names_the_object_subsystem_and_field_that_diverged_first() {
    let dir = scratch("names-first");
    let scene = script_scene(&dir, "push", PUSH_PER_FRAME);
    let s = check_saying(&scene, "30", 1);
    // At 30 Hz frame 1 runs ticks 1 and 2 after one update: at tick 2 the
    // script has counted 1 push where the reference counted 2, and the ball
    // got one push less.
    let row = accumulator_row_at_30_hz(&s);
    assert_contains(
        row,
        "DIFFERS: first difference at tick 2 (line 2): behaviour state of #2 changed first, and ",
    );
    // At 144 Hz three frames (three updates) pass before tick 1: the earliest
    // divergence of the matrix, reported in full under the table.
    let report: Vec<&str> = s
        .lines()
        .skip_while(|l| !l.starts_with("first divergence: "))
        .collect();
    assert_eq!(
        report.first().copied(),
        Some(
            format!(
                "first divergence: {}, 144 Hz / accumulator",
                path_str(&scene)
            )
            .as_str()
        ),
        "{s}"
    );
    assert!(
        report[1].starts_with(
            "first difference at tick 1 (line 1): behaviour state of #2 changed first"
        ),
        "{s}"
    );
    assert!(
        report[2].starts_with("  changed first: behaviour state of #2 ("),
        "{s}"
    );
    assert!(
        report[3].starts_with("  also changed: the physics world ("),
        "{s}"
    );
    assert!(report.iter().any(|l| l.starts_with("  #2: x ")), "{s}");
    assert!(report.iter().any(|l| l.starts_with("  hash ")), "{s}");
    // Of the 17 runs compared, 60 Hz under step counting runs the
    // reference's very frames, and the 60 Hz runs stalled at frame 30 reach
    // tick 30 in that frame with the same 30 updates: those 5 match, 12 differ.
    assert_eq!(
        report.last().copied(),
        Some("12 run(s) do not match the reference")
    );
}

#[test]
fn the_verdict_ignores_state_outside_the_documented_fields() {
    // The session RNG drawn from `update`: frame-dependent, but nothing fixed
    // reads it, so the documented trace (and the verdict) are the same at every
    // pacing while the RNG subsystem hash is not.
    let dir = scratch("rng-only");
    let scene = script_scene(&dir, "dice", "fn update(dt) { let r = rand(); }\n");
    let s = check_saying(&scene, "20", 0);
    assert!(s.contains("all 17 runs match the reference"));

    // trace-diff of traces with subsystem hashes does show it: at 30 Hz tick 2
    // follows one draw, at 60 Hz two.
    let mut traces = Vec::new();
    for hz in ["60", "30"] {
        let trace = dir.join(format!("{hz}.jsonl"));
        let o = stepframe(&[
            "play",
            path_str(&scene),
            "--frames",
            "10",
            "--pacing",
            hz,
            "--trace",
            path_str(&trace),
            "--trace-subsystems",
        ]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        traces.push(trace);
    }
    let out = stepframe(&["trace-diff", path_str(&traces[0]), path_str(&traces[1])]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stdout(&out).lines().next(),
        Some("first difference at tick 2 (line 2): the session RNG changed first")
    );
}

#[test]
fn each_input_belongs_to_the_scene_named_before_it() {
    let p = |s: &str| PathBuf::from(s);
    let target = |scene: &str, input: Option<&str>| CheckTarget {
        scene: p(scene),
        input: input.map(p),
    };
    // check a.ron --input ra b.ron c.ron --input rc
    let scenes = [(0, p("a.ron")), (3, p("b.ron")), (4, p("c.ron"))];
    let inputs = [(2, p("ra")), (6, p("rc"))];
    assert_eq!(
        pair_inputs(&scenes, &inputs),
        Ok(vec![
            target("a.ron", Some("ra")),
            target("b.ron", None),
            target("c.ron", Some("rc")),
        ])
    );
    // check --input ra a.ron: before every scene, it is the first scene's.
    assert_eq!(
        pair_inputs(&[(2, p("a.ron"))], &[(1, p("ra"))]),
        Ok(vec![target("a.ron", Some("ra"))])
    );
    // Two for one scene is an error that names the scene.
    let err = pair_inputs(&[(0, p("a.ron"))], &[(2, p("r1")), (4, p("r2"))]).expect_err("two");
    assert!(
        err.starts_with("a.ron: two recordings (r1 and r2)"),
        "{err}"
    );

    // On the command line: the demo with its recording and a scene without
    // one; a second --input after the demo exits 2.
    let dir = scratch("pairs");
    let still = script_scene(&dir, "still", "fn fixed_update(dt) { }\n");
    let out = stepframe(&[
        "check",
        "assets/scenes/demo.ron",
        "--input",
        "assets/recordings/demo.ron",
        path_str(&still),
        "--ticks",
        "10",
    ]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let s = stdout(&out);
    assert!(
        s.contains(
            "check assets/scenes/demo.ron with assets/recordings/demo.ron: 18 runs, ticks 1..=10"
        ),
        "{s}"
    );
    assert!(
        s.contains(&format!(
            "check {}: 18 runs, ticks 1..=10",
            path_str(&still)
        )),
        "{s}"
    );
    assert_contains(&s, "all 34 runs match the reference");
    let out = stepframe(&[
        "check",
        "assets/scenes/demo.ron",
        "--input",
        "assets/recordings/demo.ron",
        "--input",
        "assets/recordings/demo.ron",
    ]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("two recordings"), "{}", stderr(&out));
}

#[test]
fn shard_slices_cover_the_matrix_exactly_once() {
    let cases = check_matrix().len();
    for scenes in 1..=3 {
        let all: Vec<MatrixRun> = (0..scenes)
            .flat_map(|scene| (0..cases).map(move |case| MatrixRun { scene, case }))
            .collect();
        for count in 1..=(scenes * cases + 2) {
            let joined: Vec<MatrixRun> = (1..=count)
                .flat_map(|index| Shard { index, count }.runs(scenes))
                .collect();
            // In order and complete, so each run is in exactly one shard.
            assert_eq!(joined, all, "{scenes} scene(s), {count} shards");
            let sizes: Vec<usize> = (1..=count)
                .map(|index| Shard { index, count }.runs(scenes).len())
                .collect();
            let (min, max) = (sizes.iter().min(), sizes.iter().max());
            assert!(max.zip(min).is_some_and(|(a, b)| a - b <= 1), "{sizes:?}");
        }
    }
}

/// `(suite, case, failed)` of every test case of a JUnit file, checked
/// against the JUnit shape on the way.
fn junit_cases(path: &Path) -> Vec<(String, String, bool)> {
    let text = std::fs::read_to_string(path).expect("JUnit written");
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let number = |n: roxmltree::Node<'_, '_>, a: &str| -> usize {
        n.attribute(a)
            .unwrap_or_else(|| panic!("{} has {a}", n.tag_name().name()))
            .parse()
            .expect("a count")
    };
    let mut out = Vec::new();
    let (mut tests, mut failures) = (0, 0);
    for suite in root.children().filter(roxmltree::Node::is_element) {
        assert_eq!(suite.tag_name().name(), "testsuite");
        let name = suite.attribute("name").expect("suite name").to_string();
        let cases: Vec<_> = suite
            .children()
            .filter(roxmltree::Node::is_element)
            .collect();
        assert_eq!(number(suite, "tests"), cases.len(), "{name}");
        let mut failed = 0;
        for case in cases {
            assert_eq!(case.tag_name().name(), "testcase");
            assert!(
                case.attribute("time")
                    .is_some_and(|t| t.parse::<f64>().is_ok())
            );
            let children: Vec<_> = case
                .children()
                .filter(roxmltree::Node::is_element)
                .collect();
            let failure = children.iter().find(|c| c.tag_name().name() == "failure");
            if let Some(f) = failure {
                failed += 1;
                let message = f.attribute("message").expect("failure message");
                assert!(
                    message.starts_with("first difference at tick "),
                    "{message}"
                );
                let report = f.text().expect("the report");
                assert!(report.starts_with(message), "{report}");
            }
            out.push((
                name.clone(),
                case.attribute("name").expect("case name").to_string(),
                failure.is_some(),
            ));
        }
        assert_eq!(number(suite, "failures"), failed, "{name}");
        assert_eq!(number(suite, "errors"), 0, "{name}");
        tests += number(suite, "tests");
        failures += failed;
    }
    assert_eq!(number(root, "tests"), tests);
    assert_eq!(number(root, "failures"), failures);
    out
}

#[test]
fn junit_writes_each_run_as_a_test_case_and_a_mismatch_as_a_failure() {
    let dir = scratch("junit");
    let scene = script_scene(&dir, "push", PUSH_PER_FRAME);
    let xml = dir.join("check.xml");
    let out = stepframe(&[
        "check",
        path_str(&scene),
        "--ticks",
        "30",
        "--junit",
        path_str(&xml),
    ]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let cases = junit_cases(&xml);
    // The case count round-trips: the 18 runs of the table, by name.
    let names: Vec<String> = check_matrix().iter().map(|c| c.name()).collect();
    assert_eq!(cases.iter().map(|c| c.1.clone()).collect::<Vec<_>>(), names);
    let differs = stdout(&out)
        .lines()
        .filter(|l| l.contains("  DIFFERS: "))
        .count();
    assert_eq!(cases.iter().filter(|c| c.2).count(), differs);
    // As in the report test: 12 of the 17 compared runs differ.
    assert_eq!(differs, 12);
    assert!(cases.iter().all(|c| c.0 == path_str(&scene)));
    assert!(!cases[0].2, "the reference passes");
}

#[test]
fn three_shards_with_junit_run_every_scene_and_pacing_once() {
    let dir = scratch("shards");
    let push = script_scene(&dir, "push", PUSH_PER_FRAME);
    let still = script_scene(&dir, "still", "fn fixed_update(dt) { }\n");
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut failed = 0;
    for i in 1..=3 {
        let xml = dir.join(format!("shard-{i}.xml"));
        let shard = format!("{i}/3");
        let out = stepframe(&[
            "check",
            path_str(&push),
            path_str(&still),
            "--ticks",
            "10",
            "--shard",
            &shard,
            "--junit",
            path_str(&xml),
        ]);
        let cases = junit_cases(&xml);
        // 36 runs in 3 shards: 0..12, 12..24, 24..36.
        assert_eq!(cases.len(), 12, "shard {shard}");
        let shard_failed = cases.iter().filter(|c| c.2).count();
        assert_eq!(
            code(&out),
            if shard_failed > 0 { 1 } else { 0 },
            "shard {shard}"
        );
        assert!(
            stdout(&out).contains(&format!("shard {shard})")),
            "{}",
            stdout(&out)
        );
        failed += shard_failed;
        for (suite, case, _) in cases {
            *seen.entry((suite, case)).or_default() += 1;
        }
    }
    let names: Vec<String> = check_matrix().iter().map(|c| c.name()).collect();
    let expected: BTreeMap<(String, String), usize> = [&push, &still]
        .iter()
        .flat_map(|s| {
            names
                .iter()
                .map(move |n| ((path_str(s).to_string(), n.clone()), 1))
        })
        .collect();
    assert_eq!(seen, expected);
    // The push scene's 12 mismatches (its stalls at frame 30 come after
    // tick 10 now, so they match), whichever shard ran them; the still scene
    // matches everywhere.
    assert_eq!(failed, 12);
}

#[test]
fn nothing_is_drawn_on_stderr_when_it_is_not_a_terminal() {
    let dir = scratch("quiet");
    let still = script_scene(&dir, "still", "fn fixed_update(dt) { }\n");
    let out = stepframe(&["check", path_str(&still), "--ticks", "10"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert_eq!(stderr(&out), "");
}

#[test]
fn check_passes_on_a_session_recording_with_edits_and_a_rate_change() {
    // Input, a pose, a parameter and a velocity edit, a ball disabled and
    // the fixed rate changed to 50 Hz at tick 302: every pacing and both
    // strategies give the reference's ticks.
    stepframe_saying(
        &[
            "check",
            "assets/scenes/demo.ron",
            "--input",
            "assets/recordings/demo-session.ron",
            "--ticks",
            "720",
        ],
        "all 17 runs match the reference",
    );
}

#[test]
fn play_applies_a_session_recordings_edits_at_their_ticks() {
    let dir = scratch("session-recording");
    let trace = dir.join("t.jsonl");
    let text = stepframe_writing(
        &[
            "play",
            "assets/scenes/demo.ron",
            "--input",
            "assets/recordings/demo-session.ron",
            "--pacing",
            "144",
            "--trace",
            path_str(&trace),
        ],
        &trace,
    );
    let line = |tick: usize| {
        text.lines()
            .nth(tick - 1)
            .expect("the tick's line")
            .to_string()
    };
    let player_y = |l: &str| -> f32 {
        let at = l.find(r#"{"id":20,"#).expect("the player");
        let rest = &l[at..];
        let y = rest.find(r#""y":"#).expect("y") + 4;
        rest[y..]
            .split([',', '}'])
            .next()
            .expect("a number")
            .parse()
            .expect("a float")
    };
    // Lifted to y = 3 before tick 122: tick 121 is on the ground, 122 in the air.
    assert!(player_y(&line(121)) < 1.0, "{}", line(121));
    assert!(player_y(&line(122)) > 2.9, "{}", line(122));
    // Ticks after 302 are 1/50 s long: tick 303 starts at 301/60 + 1/50 s,
    // 301 × 11,760,000 + 14,112,000 flicks.
    let start_303 = (301.0 * 11_760_000.0 + 14_112_000.0) / 705_600_000.0;
    assert!(
        line(303).contains(&format!(r#""sim_time":{start_303}"#)),
        "{}",
        line(303)
    );
}

#[test]
fn a_session_recording_edit_that_does_not_fit_names_its_place() {
    let dir = scratch("bad-session-recording");
    let bad = dir.join("bad.ron");
    std::fs::write(
        &bad,
        "(version: 2, fixed_hz: 60, ticks: 10, events: [],\n edits: [\n  (tick: 5, edit: Pose(object: 20, pose: (x: 1.0, y: inf, angle: 0.0))),\n ])\n",
    )
    .expect("write");
    let out = stepframe(&["play", "assets/scenes/demo.ron", "--input", path_str(&bad)]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let err = stderr(&out);
    assert_contains(&err, "bad.ron:3:4: edit 0: the pose must be finite");
}

/// Each `<failure type="logged-error">` of a JUnit file: case name and
/// message.
fn logged_errors(path: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).expect("JUnit written");
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    doc.descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .filter_map(|case| {
            let failure = case.children().find(|c| {
                c.has_tag_name("failure") && c.attribute("type") == Some("logged-error")
            })?;
            Some((
                case.attribute("name").unwrap_or_default().to_string(),
                failure.attribute("message").unwrap_or_default().to_string(),
            ))
        })
        .collect()
}

#[test]
fn a_run_that_logs_an_error_fails_check_with_the_line_in_the_report_and_junit() {
    // A script whose FixedUpdate throws at tick 10: every run logs it, every
    // run's trace still matches (the script's hooks stop in all of them).
    let dir = scratch("check-logged");
    let scene = script_scene(
        &dir,
        "boom",
        "fn fixed_update(dt) { if clock().simulation_tick == 10 { throw \"boom\"; } }\n",
    );
    let junit = dir.join("junit.xml");
    let out = stepframe(&[
        "check",
        path_str(&scene),
        "--ticks",
        "20",
        "--junit",
        path_str(&junit),
    ]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    let s = stdout(&out);
    let line = "error: tick 10 (frame 10) #2 FixedUpdate: ";
    let report: Vec<&str> = s
        .lines()
        .skip_while(|l| !l.starts_with("first run that logged errors: "))
        .collect();
    assert!(
        report
            .first()
            .is_some_and(|l| l.ends_with("60 Hz / accumulator")),
        "{s}"
    );
    assert_eq!(report.get(1).copied(), Some("logged 1 error(s):"), "{s}");
    assert!(
        report
            .get(2)
            .is_some_and(|l| l.starts_with(&format!("  {line}"))),
        "{s}"
    );
    assert_contains(&s, "18 run(s) logged errors");
    assert!(!s.contains("do not match"), "the traces match: {s}");
    let failures = logged_errors(&junit);
    assert_eq!(failures.len(), 18, "{failures:?}");
    for (case, message) in failures {
        assert!(message.contains("#2 FixedUpdate: "), "{case}: {message}");
        assert!(message.contains("boom"), "{case}: {message}");
    }
}

/// A game's own behaviour whose FixedUpdate panics on every call, written
/// as docs/embedding.md shows one.
#[derive(Clone, Debug, stepframe_core::Inspect)]
struct Boom {
    /// Calls so far (it panics in the first).
    calls: u64,
}

#[stepframe_core::behaviour]
impl stepframe_core::Behaviour for Boom {
    fn fixed_update(&mut self, _ctx: &mut stepframe_core::Ctx, _dt: f64) {
        self.calls += 1;
        panic!("boom in FixedUpdate");
    }
}

#[test]
fn check_fails_a_game_whose_fixed_update_panics_in_every_run() {
    // The game's binary through `Game::run_from`, as a new user's would run.
    let dir = scratch("check-game-panics");
    let scene = dir.join("boom.ron");
    std::fs::write(
        &scene,
        "(objects: [(id: 7, name: \"Bomb\", behaviours: [(name: \"Boom\")])])\n",
    )
    .expect("write");
    let junit = dir.join("junit.xml");
    let behaviours = stepframe_app::Behaviours::built_in()
        .behaviour(|(): ()| Ok::<_, stepframe_core::scene::ParamsError>(Boom { calls: 0 }));
    let code = stepframe_app::Game::new("boomgame")
        .behaviours(behaviours)
        .run_from([
            "boomgame",
            "check",
            path_str(&scene),
            "--ticks",
            "20",
            "--junit",
            path_str(&junit),
        ]);
    assert_eq!(code, std::process::ExitCode::from(1));
    let failures = logged_errors(&junit);
    assert_eq!(failures.len(), 18, "{failures:?}");
    for (case, message) in failures {
        assert!(
            message.contains("FixedUpdate of #7 `Bomb` panicked: boom in FixedUpdate"),
            "{case}: {message}"
        );
    }
}
