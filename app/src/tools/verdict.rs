//! What `check` says once its runs are in: the progress line while they
//! run, one table per scene, the report of the first failure of each kind,
//! the closing counts and the exit code, and the runs as JUnit suites.
//!
//! A run fails in one of three ways, each with its own report:
//!
//! | how | table cell | report after the tables | JUnit |
//! |---|---|---|---|
//! | could not run (no progress, an abort, a stuck hook, ...) | `FAILED: <why>` | `first run that could not run: ...` | `<error>` |
//! | logged an error (a hook panic, a rejected write) | `ERRORS (n): <first line>` | `first run that logged errors: ...` and its lines | `<failure type="logged-error">` |
//! | does not match its reference | `DIFFERS: <headline>` | `first divergence: ...` (the earliest tick) and the full report | `<failure type="divergence">` |
//!
//! Errors of objects that carry a `Faulty` behaviour are injected on
//! purpose and fail nothing, as in `stepframe play`.

use std::process::ExitCode;

use super::cases::{CaseOutcome, SceneCheck};
use super::junit;
use super::matrix::Shard;
use super::report::Sides;
use super::trace_diff::TraceDiff;

/// The progress line: drawn on stderr only when it is a terminal.
pub(super) fn progress_bar(total: usize) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(total as u64),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("check [{bar:30}] {pos}/{len} runs {elapsed} {msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// The table cell of a run.
fn result_cell(o: &CaseOutcome) -> String {
    let errors = o.errors();
    let logged = match errors.first() {
        Some(first) => format!("ERRORS ({}): {first}", errors.len()),
        None => String::new(),
    };
    let joined = |head: String| {
        if logged.is_empty() {
            head
        } else {
            format!("{head}; {logged}")
        }
    };
    match (&o.run, &o.diff) {
        (Err(e), _) => format!("FAILED: {e}"),
        (Ok(_), None) if !logged.is_empty() => format!("reference; {logged}"),
        (Ok(_), None) => "reference".to_string(),
        (Ok(_), Some(TraceDiff::Identical { .. })) if !logged.is_empty() => logged,
        (Ok(_), Some(TraceDiff::Identical { .. })) => "match".to_string(),
        (Ok(_), Some(TraceDiff::Differs(d))) => {
            joined(format!("DIFFERS: {}", d.first.headline(Sides::CHECK)))
        }
        (Ok(_), Some(d)) => joined(format!("DIFFERS: {d}")),
    }
}

/// The divergence report of a run that does not match.
fn divergence_report(o: &CaseOutcome) -> Option<String> {
    match (&o.run, &o.diff) {
        (Ok(_), Some(TraceDiff::Differs(d))) => Some(d.first.report(Sides::CHECK)),
        (Ok(_), Some(d @ TraceDiff::Length { .. })) => Some(d.to_string()),
        _ => None,
    }
}

/// The error lines of a run that logged errors, one per line, indented.
fn errors_report(o: &CaseOutcome) -> Option<String> {
    let errors = o.errors();
    if errors.is_empty() {
        return None;
    }
    let mut report = format!("logged {} error(s):", errors.len());
    for line in errors {
        report.push_str("\n  ");
        report.push_str(line);
    }
    Some(report)
}

pub(super) fn print_tables(
    scenes: &[SceneCheck],
    outcomes: &[CaseOutcome],
    shard: Option<Shard>,
    jobs: usize,
) {
    for (k, scene) in scenes.iter().enumerate() {
        let rows: Vec<&CaseOutcome> = outcomes.iter().filter(|o| o.at.scene == k).collect();
        if rows.is_empty() {
            continue;
        }
        if k > 0 && outcomes.iter().any(|o| o.at.scene < k) {
            println!();
        }
        let shard = shard.map(|s| format!(", shard {s}")).unwrap_or_default();
        println!(
            "check {}: {} runs, ticks 1..={} compared with 60 Hz / accumulator ({jobs} jobs{shard})",
            scene.label(),
            rows.len(),
            scene.ticks
        );
        println!(
            "{:<36} {:<14} {:>7} {:>9} {:>6}  result",
            "pacing", "strategy", "frames", "dropped", "errors"
        );
        for o in rows {
            let (frames, dropped, errors) = match &o.run {
                Ok(r) => (
                    r.frames.to_string(),
                    format!("{:.3}", r.dropped_time),
                    r.errors.len().to_string(),
                ),
                Err(_) => ("-".into(), "-".into(), "-".into()),
            };
            println!(
                "{:<36} {:<14} {:>7} {:>9} {:>6}  {}",
                o.case.label(),
                o.case.strategy.name(),
                frames,
                dropped,
                errors,
                result_cell(o)
            );
        }
    }
}

/// After the tables: the first run that could not run, the first that
/// logged errors (matrix order), the run that parts from its reference
/// earliest (ties to matrix order), then one count per kind of failure.
/// Returns the exit code: 0 when no run failed, 1 otherwise.
pub(super) fn print_verdict(scenes: &[SceneCheck], outcomes: &[CaseOutcome]) -> ExitCode {
    let place = |o: &CaseOutcome| format!("{}, {}", scenes[o.at.scene].label(), o.case.name());
    let could_not: Vec<&CaseOutcome> = outcomes.iter().filter(|o| o.run.is_err()).collect();
    let logged: Vec<&CaseOutcome> = outcomes.iter().filter(|o| !o.errors().is_empty()).collect();
    let diverged: Vec<&CaseOutcome> = outcomes.iter().filter(|o| o.diverged()).collect();
    if let Some(o) = could_not.first()
        && let Err(e) = &o.run
    {
        println!("\nfirst run that could not run: {}\n{e}", place(o));
    }
    if let Some(o) = logged.first()
        && let Some(report) = errors_report(o)
    {
        println!("\nfirst run that logged errors: {}\n{report}", place(o));
    }
    let earliest = diverged.iter().min_by_key(|o| match &o.diff {
        Some(TraceDiff::Differs(d)) => d.first.tick,
        Some(TraceDiff::Length { common, .. }) => *common as u64 + 1,
        _ => 0,
    });
    if let Some(o) = earliest
        && let Some(report) = divergence_report(o)
    {
        println!("\nfirst divergence: {}\n{report}", place(o));
    }
    let failed = outcomes.iter().filter(|o| o.failed()).count();
    if failed == 0 {
        let compared = outcomes.iter().filter(|o| o.at.case != 0).count();
        if compared == 0 {
            println!("no run to compare with its reference in this shard");
        } else {
            println!(
                "all {compared} runs match the reference: the fixed logic is frame-rate independent"
            );
        }
        return ExitCode::SUCCESS;
    }
    if !could_not.is_empty() {
        println!("{} run(s) could not run", could_not.len());
    }
    if !logged.is_empty() {
        println!(
            "{} run(s) logged errors (a panic or a rejected write in the game's code fails the check)",
            logged.len()
        );
    }
    if !diverged.is_empty() {
        println!("{} run(s) do not match the reference", diverged.len());
    }
    ExitCode::from(1)
}

/// The JUnit suites: one per scene the shard touched.
pub(super) fn junit_suites(scenes: &[SceneCheck], outcomes: &[CaseOutcome]) -> Vec<junit::Suite> {
    let mut suites: Vec<junit::Suite> = Vec::new();
    for o in outcomes {
        let name = scenes[o.at.scene].label();
        if suites.last().is_none_or(|s| s.name != name) {
            suites.push(junit::Suite {
                name: name.clone(),
                cases: Vec::new(),
            });
        }
        let errors = errors_report(o);
        let result = match (&o.run, divergence_report(o), errors) {
            (Err(e), _, _) => junit::CaseResult::Error { message: e.clone() },
            (Ok(_), Some(report), errors) => junit::CaseResult::Failure {
                message: report.lines().next().unwrap_or_default().to_string(),
                report: match errors {
                    Some(e) => format!("{report}\n{e}"),
                    None => report,
                },
            },
            (Ok(_), None, Some(report)) => junit::CaseResult::Logged {
                message: o.errors().first().copied().unwrap_or_default().to_string(),
                report,
            },
            (Ok(_), None, None) => junit::CaseResult::Passed,
        };
        if let Some(suite) = suites.last_mut() {
            suite.cases.push(junit::Case {
                name: o.case.name(),
                classname: name,
                seconds: o.seconds,
                result,
            });
        }
    }
    suites
}
