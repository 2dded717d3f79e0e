//! `stepframe trace-diff`: `frame` ignored, the first differing tick and field
//! named.

use crate::demo_trace;
use crate::support::{code, path_str, scratch, stderr, stdout, stepframe};

#[test]
fn trace_diff_ignores_frame_and_names_the_first_differing_tick_and_field() {
    let dir = scratch("trace-diff");
    let at60 = dir.join("60.jsonl");
    let at144 = dir.join("144.jsonl");
    std::fs::write(&at60, demo_trace(&dir, "a", &[])).expect("write");
    std::fs::write(&at144, demo_trace(&dir, "b", &["--pacing", "144"])).expect("write");
    // 900 ticks at 144 Hz end exactly on frame 2160 (2160 × 4.9M = 900 × 11.76M flicks).
    let out = stepframe(&["trace-diff", path_str(&at60), path_str(&at144)]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(stdout(&out).trim(), "identical (900 ticks)");

    // Change the player's x (object 20) on tick 120, and the hash of tick 300.
    let text = std::fs::read_to_string(&at144).expect("read");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let line = &lines[119];
    let at = line.find(r#"{"id":20,"x":"#).expect("player pose") + r#"{"id":20,"x":"#.len();
    let end = at + line[at..].find(',').expect("x ends");
    let old_x = line[at..end].to_string();
    lines[119] = format!("{}12345.5{}", &line[..at], &line[end..]);
    let h = lines[299].rfind(r#""hash":""#).expect("hash") + 8;
    lines[299].replace_range(h..h + 16, "0123456789abcdef");
    let modified = dir.join("modified.jsonl");
    std::fs::write(&modified, lines.join("\n") + "\n").expect("write");
    let out = stepframe(&["trace-diff", path_str(&at60), path_str(&modified)]);
    assert_eq!(code(&out), 1);
    // The distance in f32 steps, counted here from the bit patterns: the
    // player is left of the origin, so from its x up to -0.0 (the bits of its
    // magnitude), one step to 0.0, and up to 12345.5 (that value's bits).
    let old: f32 = old_x.parse().expect("an f32");
    assert!(old < 0.0, "the player stands left of the origin: {old}");
    let ulps = u64::from((-old).to_bits()) + 1 + u64::from(12345.5f32.to_bits());
    let report = stdout(&out);
    let report: Vec<&str> = report.lines().collect();
    assert_eq!(
        report[..2],
        [
            format!(
                "first difference at tick 120 (line 120): #20.x {old_x} vs 12345.5 ({ulps} ulps)"
            ),
            format!("  #20: x {old_x} vs 12345.5 ({ulps} ulps)"),
        ]
    );

    // Only the hash differs: the report names it.
    let mut only_hash: Vec<String> = text.lines().map(str::to_string).collect();
    only_hash[299] = lines[299].clone();
    std::fs::write(&modified, only_hash.join("\n") + "\n").expect("write");
    let out = stepframe(&["trace-diff", path_str(&at60), path_str(&modified)]);
    assert_eq!(code(&out), 1);
    let first = stdout(&out).lines().next().unwrap_or_default().to_string();
    assert!(
        first.starts_with("first difference at tick 300 (line 300): hash \""), // value follows
        "{first}"
    );
    assert!(first.ends_with("vs \"0123456789abcdef\""), "{first}");

    // A prefix: same ticks as far as it goes, then the lengths differ.
    let short = dir.join("short.jsonl");
    let first_500: Vec<&str> = text.lines().take(500).collect();
    std::fs::write(&short, first_500.join("\n") + "\n").expect("write");
    let out = stepframe(&["trace-diff", path_str(&at60), path_str(&short)]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stdout(&out).trim(),
        "identical for the first 500 ticks, then the lengths differ: 900 ticks vs 500 ticks"
    );

    // Not a trace: exit 2 with file, line and column.
    let junk = dir.join("junk.jsonl");
    std::fs::write(&junk, "{\"tick\":1,\n").expect("write");
    let out = stepframe(&["trace-diff", path_str(&at60), path_str(&junk)]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("junk.jsonl:1:"), "{}", stderr(&out));
}
