//! `check --junit`: the runs as JUnit XML, which CI services (GitHub Actions
//! reporters, GitLab, Jenkins, Buildkite) render as test results.
//!
//! ```xml
//! <?xml version="1.0" encoding="UTF-8"?>
//! <testsuites name="stepframe check" tests="18" failures="1" errors="0" time="4.210">
//!   <testsuite name="push.ron" tests="18" failures="1" errors="0" skipped="0" time="4.210">
//!     <testcase name="60 Hz / accumulator" classname="push.ron" time="0.231"/>
//!     <testcase name="30 Hz / accumulator" classname="push.ron" time="0.120">
//!       <failure message="first difference at tick 2 (line 2): ..." type="divergence">first difference at tick 2 ...
//!   #2: x 0.015915496 vs 0.011494526 (9377526 ulps)</failure>
//!     </testcase>
//!     ...
//! ```
//!
//! One `<testsuite>` per scene (named after the scene and its recording), one
//! `<testcase>` per run of the shard, named after its pacing and strategy. A
//! run that does not match its reference is a `<failure type="divergence">`
//! whose message is the report's headline and whose text is the whole report;
//! a run that matched but logged errors is a `<failure type="logged-error">`
//! whose message is the first error line and whose text is every one; a run
//! that could not run at all (no progress, or its process aborted, overflowed
//! its stack, ran out of memory or was stopped stuck in a hook) is an
//! `<error>` whose message says why. Times are wall-clock seconds.

use std::io::{self, Write};

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};

/// How one test case ended.
#[derive(Clone, Debug, PartialEq)]
pub enum CaseResult {
    /// It matched (or it is the reference and it ran).
    Passed,
    /// It ran and did not match.
    Failure {
        /// One line: the report's headline.
        message: String,
        /// The whole report.
        report: String,
    },
    /// It ran, matched, and logged errors (a hook panic, a rejected
    /// write): a `<failure type="logged-error">`.
    Logged {
        /// One line: the first error line.
        message: String,
        /// Every error line.
        report: String,
    },
    /// It could not run.
    Error {
        /// Why.
        message: String,
    },
}

/// One `<testcase>`.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// `30 Hz / accumulator`.
    pub name: String,
    /// The suite's name again, as JUnit readers expect.
    pub classname: String,
    /// Wall time, seconds.
    pub seconds: f64,
    /// Outcome.
    pub result: CaseResult,
}

/// One `<testsuite>`: a scene.
#[derive(Clone, Debug, PartialEq)]
pub struct Suite {
    /// `demo.ron with demo-rec.ron`.
    pub name: String,
    /// Its cases, in matrix order.
    pub cases: Vec<Case>,
}

impl Suite {
    fn count(&self, f: impl Fn(&CaseResult) -> bool) -> usize {
        self.cases.iter().filter(|c| f(&c.result)).count()
    }

    fn failures(&self) -> usize {
        self.count(|r| matches!(r, CaseResult::Failure { .. } | CaseResult::Logged { .. }))
    }

    fn errors(&self) -> usize {
        self.count(|r| matches!(r, CaseResult::Error { .. }))
    }

    fn seconds(&self) -> f64 {
        self.cases.iter().map(|c| c.seconds).sum()
    }
}

/// XML 1.0 cannot carry most control characters, even escaped: replace them.
fn xml_text(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => c,
            c if u32::from(c) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => '\u{fffd}',
            c => c,
        })
        .collect()
}

fn secs(s: f64) -> String {
    format!("{s:.3}")
}

/// Writes the JUnit document (module docs).
pub fn write_junit(out: impl Write, suites: &[Suite]) -> io::Result<()> {
    let mut w = Writer::new_with_indent(out, b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let tests = suites
        .iter()
        .map(|s| s.cases.len())
        .sum::<usize>()
        .to_string();
    let failures = suites
        .iter()
        .map(Suite::failures)
        .sum::<usize>()
        .to_string();
    let errors = suites.iter().map(Suite::errors).sum::<usize>().to_string();
    let time = secs(suites.iter().map(Suite::seconds).sum());
    w.create_element("testsuites")
        .with_attributes([
            ("name", "stepframe check"),
            ("tests", tests.as_str()),
            ("failures", failures.as_str()),
            ("errors", errors.as_str()),
            ("time", time.as_str()),
        ])
        .write_inner_content(|w| {
            for suite in suites {
                write_suite(w, suite)?;
            }
            Ok(())
        })?;
    let mut out = w.into_inner();
    out.write_all(b"\n")?;
    out.flush()
}

fn write_suite<W: Write>(w: &mut Writer<W>, suite: &Suite) -> io::Result<()> {
    let name = xml_text(&suite.name);
    let tests = suite.cases.len().to_string();
    let failures = suite.failures().to_string();
    let errors = suite.errors().to_string();
    let time = secs(suite.seconds());
    w.create_element("testsuite")
        .with_attributes([
            ("name", name.as_str()),
            ("tests", tests.as_str()),
            ("failures", failures.as_str()),
            ("errors", errors.as_str()),
            ("skipped", "0"),
            ("time", time.as_str()),
        ])
        .write_inner_content(|w| {
            for case in &suite.cases {
                let name = xml_text(&case.name);
                let classname = xml_text(&case.classname);
                let time = secs(case.seconds);
                let element = w.create_element("testcase").with_attributes([
                    ("name", name.as_str()),
                    ("classname", classname.as_str()),
                    ("time", time.as_str()),
                ]);
                match &case.result {
                    CaseResult::Passed => {
                        element.write_empty()?;
                    }
                    CaseResult::Failure { message, report }
                    | CaseResult::Logged { message, report } => {
                        let kind = match &case.result {
                            CaseResult::Logged { .. } => "logged-error",
                            _ => "divergence",
                        };
                        let message = xml_text(message);
                        let report = xml_text(report);
                        element.write_inner_content(|w| {
                            w.create_element("failure")
                                .with_attributes([("message", message.as_str()), ("type", kind)])
                                .write_text_content(BytesText::new(&report))?;
                            Ok(())
                        })?;
                    }
                    CaseResult::Error { message } => {
                        let message = xml_text(message);
                        element.write_inner_content(|w| {
                            w.create_element("error")
                                .with_attributes([("message", message.as_str()), ("type", "run")])
                                .write_text_content(BytesText::new(&message))?;
                            Ok(())
                        })?;
                    }
                }
            }
            Ok(())
        })?;
    Ok(())
}
