//! Issue acceptance 6: bad input exits 2 with an error naming the file, line and column, the
//! key and what is accepted; no panic, and no result file left behind.

use super::ckptsim;
use std::fs;

const GOOD: &str = r#"[run]
replications = 10
seed = 1

[job]
work = "2e5 s"
checkpoint = "2 min"
restart = "10 min"

[failures]
law = "exponential"
mtbf = "3.1 h"

[policy]
interval = "young"
factor = 1.0
"#;

/// Writes `text` as `bad.toml`, runs `ckptsim run` on it with `extra` arguments, and checks
/// exit code 2, that stderr holds every one of `expected`, and that `--out` stays empty.
fn rejects(text: &str, extra: &[&str], expected: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("bad.toml");
    fs::write(&file, text).unwrap();
    let out = tmp.path().join("out");
    let mut args = vec!["run", file.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = ckptsim(&args);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "exit code for {extra:?}:\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for e in expected {
        assert!(stderr.contains(e), "stderr lacks {e:?}:\n{stderr}");
    }
    let left = super::entries(&out);
    assert!(left.is_empty(), "files left behind: {left:?}");
}

fn with(line: &str, replacement: &str) -> String {
    assert!(GOOD.contains(line), "{line}");
    GOOD.replace(line, replacement)
}

#[test]
fn the_good_scenario_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("good.toml");
    fs::write(&file, GOOD).unwrap();
    let o = ckptsim(&["run", file.to_str().unwrap(), "--out", tmp.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn negative_duration() {
    rejects(
        &with(r#"checkpoint = "2 min""#, r#"checkpoint = "-2 min""#),
        &[],
        &["bad.toml:7:14", "job.checkpoint", "\"-2 min\" is out of range: accepted is a duration ≥ 0"],
    );
    // Shown as written, not converted to seconds ("-60 s").
    rejects(GOOD, &["--set", "job.restart=-1 min"], &["key `job.restart`: \"-1 min\" is out of range"]);
    rejects(
        &with(r#"interval = "young""#, r#"interval = "-5 min""#),
        &[],
        &["bad.toml:15:12", "policy.interval", "\"-5 min\" is out of range: accepted is a duration > 0", "young"],
    );
}

#[test]
fn zero_work() {
    rejects(&with(r#"work = "2e5 s""#, r#"work = "0 s""#), &[], &["bad.toml:6:8", "job.work", "> 0"]);
}

#[test]
fn zero_mtbf() {
    rejects(&with(r#"mtbf = "3.1 h""#, r#"mtbf = "0 h""#), &[], &["bad.toml:12:8", "failures.mtbf", "> 0"]);
}

#[test]
fn nan_factor() {
    rejects(&with("factor = 1.0", "factor = nan"), &[], &["bad.toml:16:10", "policy.factor", "finite number > 0"]);
}

#[test]
fn nan_duration() {
    rejects(&with(r#"restart = "10 min""#, r#"restart = "nan min""#), &[], &["bad.toml:8:11", "job.restart", "finite"]);
}

#[test]
fn bare_number_for_a_duration() {
    rejects(
        &with(r#"checkpoint = "2 min""#, "checkpoint = 120"),
        &[],
        &["bad.toml:7:14", "job.checkpoint", "unit", "120 s"],
    );
}

#[test]
fn unknown_unit() {
    rejects(
        &with(r#"checkpoint = "2 min""#, r#"checkpoint = "2 fortnights""#),
        &[],
        &["bad.toml:7:14", "unknown unit", "ms, s, min, h, d, y"],
    );
}

#[test]
fn unknown_key() {
    rejects(
        &with(r#"checkpoint = "2 min""#, r#"chekpoint = "2 min""#),
        &[],
        &["bad.toml:7:1: key `job.chekpoint`: unknown field `chekpoint`", "checkpoint"],
    );
}

#[test]
fn unknown_table() {
    rejects(&format!("{GOOD}\n[jobs]\nwork = \"1 s\"\n"), &[], &["bad.toml:18:2", "jobs"]);
}

#[test]
fn unknown_law() {
    rejects(
        &with(r#"law = "exponential""#, r#"law = "weibul""#),
        &[],
        &["bad.toml:11:7", "failures.law", "exponential"],
    );
}

#[test]
fn malformed_toml() {
    rejects(&with(r#"mtbf = "3.1 h""#, r#"mtbf = "3.1 h"#), &[], &["bad.toml:12:14", "string"]);
}

#[test]
fn unreadable_file() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing.toml");
    let o = ckptsim(&["run", missing.to_str().unwrap(), "--out", tmp.path().join("out").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("missing.toml") && stderr.contains("cannot read"), "{stderr}");
    assert!(!tmp.path().join("out").exists());
}

#[test]
fn one_replication() {
    rejects(&with("replications = 10", "replications = 1"), &[], &["bad.toml:2:16", "run.replications", "≥ 2"]);
}

#[test]
fn replications_and_precision() {
    rejects(&with("seed = 1", "seed = 1\nprecision = 0.01"), &[], &["bad.toml:4:13", "run.precision", "not both"]);
}

#[test]
fn sweep_over_an_unknown_key() {
    rejects(
        &format!("{GOOD}\n[sweep]\n\"job.chekpoint\" = [\"1 s\", \"2 s\"]\n"),
        &[],
        &["bad.toml:19:20", "job.chekpoint", "unknown field"],
    );
}

#[test]
fn sweep_with_a_bad_value() {
    rejects(
        &format!("{GOOD}\n[sweep]\n\"policy.factor\" = [1, -2]\n"),
        &[],
        &["bad.toml:19:23", "policy.factor", "finite number > 0"],
    );
}

#[test]
fn sweep_with_a_bare_number() {
    rejects(
        &format!("{GOOD}\n[sweep]\n\"job.restart\" = [\"1 s\", 2]\n"),
        &[],
        &["bad.toml:19:25", "job.restart", "unit"],
    );
}

/// A swept key's own value in the file is replaced at every point, but it is checked all the
/// same (a typo beside a sweep is still a typo), at its line in the file; a good one beside
/// the sweep is fine.
#[test]
fn a_swept_keys_value_in_the_file_is_checked() {
    let sweep = "\n[sweep]\n\"policy.factor\" = [1, 2]\n\"job.checkpoint\" = [\"20 s\", \"2 min\"]\n";
    rejects(
        &format!("{}{sweep}", with("factor = 1.0", "factor = -1")),
        &[],
        &["bad.toml:16:10", "key `policy.factor`", "finite number > 0", "which [sweep] replaces at every point"],
    );
    rejects(
        &format!("{}{sweep}", with("checkpoint = \"2 min\"", "checkpoint = \"-5 s\"")),
        &[],
        &["bad.toml:7:14", "key `job.checkpoint`", "duration ≥ 0"],
    );
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("good.toml");
    fs::write(&file, format!("{GOOD}{sweep}")).unwrap();
    let o = ckptsim(&["run", file.to_str().unwrap(), "--reps", "2", "--out", tmp.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // A file value wrong only beside the file's other keys is no point's: `young` with a
    // free checkpoint, where the sweep gives fixed intervals, runs.
    let combination = with("checkpoint = \"2 min\"", "checkpoint = \"0 s\"");
    fs::write(&file, format!("{combination}\n[sweep]\n\"policy.interval\" = [\"1 h\", \"2 h\"]\n")).unwrap();
    let o = ckptsim(&["run", file.to_str().unwrap(), "--reps", "2", "--out", tmp.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A cause listed twice in `job.level2.causes`, and an empty failure-log path (it resolved
/// to the scenario's folder: "Is a directory"), are named.
#[test]
fn repeated_causes_and_an_empty_log_path() {
    let two = "[topology]\nracks = 1\nnodes_per_rack = 1\n[failures.system]\nmtbf = \"30 d\"\n\
               [job.level2]\ncheckpoint = \"10 min\"\nrestart = \"15 min\"\nevery = 4\n";
    let text = format!("{GOOD}{two}causes = [\"system\", \"system\"]\n");
    rejects(&text, &[], &["bad.toml:26:10", "key `job.level2.causes`", "`system` is listed twice"]);
    let trace =
        GOOD.replace("[failures]\nlaw = \"exponential\"\nmtbf = \"3.1 h\"\n", "[failures.trace]\nfile = \"\"\n");
    assert_ne!(trace, GOOD);
    rejects(&trace, &[], &["bad.toml:11:8", "key `failures.trace.file`", "the path is empty"]);
}

/// A correlated cause whose mean makes the job's failure rate overflow is named at its own
/// key (the error pointed at the `[failures]` table's header).
#[test]
fn an_overflowing_domain_rate_names_its_key() {
    let text = format!("{GOOD}[topology]\nracks = 1\nnodes_per_rack = 1\n[failures.system]\nmtbf = \"1e-320 s\"\n");
    rejects(&text, &[], &["bad.toml:21:8", "key `failures.system.mtbf`", "too small to simulate"]);
}

/// Of two `--set` of one key the last is in force, and it is the one blamed.
#[test]
fn the_last_set_of_a_key_is_blamed() {
    rejects(GOOD, &["--set", "job.nodes=2", "--set", "job.nodes=0"], &["--set job.nodes=0: key `job.nodes`"]);
}

/// A key of one table written under another is told where it belongs, in the file and in
/// a `--set`.
#[test]
fn a_key_under_the_wrong_table_is_told_its_table() {
    rejects(
        &with("mtbf = \"3.1 h\"\n", "mtbf = \"3.1 h\"\nfailures_during_checkpoint = false\n"),
        &[],
        &["bad.toml:13:1", "unknown field `failures_during_checkpoint`", "is a key of [job]"],
    );
    rejects(
        GOOD,
        &["--set", "job.mtbf=3 h"],
        &["--set 'job.mtbf=3 h'", "unknown field `mtbf`", "is a key of [failures]"],
    );
    rejects(
        &with("mtbf = \"3.1 h\"\n", "mtbf = \"3.1 h\"\nfile = \"log.csv\"\n"),
        &[],
        &["bad.toml:13:1", "`file` is a key of [failures.trace]"],
    );
    // A near-miss of this table's own key comes first, the other table after: `[failures.racks]`
    // means `rack` (it was told only that `racks` is a key of [topology]).
    rejects(
        &format!("{GOOD}\n[failures.racks]\nmtbf = \"73 d\"\n"),
        &[],
        &["unknown field `racks`", "did you mean `rack`? (`racks` is a key of [topology])"],
    );
    // In a nested table the user is in the right place with a wrong name: no hint (`mtbf` in
    // a class is `node_mtbf`, not a key of [failures]).
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("bad.toml");
    fs::write(&file, format!("{GOOD}\n[[failures.class]]\nshare = 1.0\nmtbf = \"3 h\"\n")).unwrap();
    let o = ckptsim(&["run", file.to_str().unwrap(), "--out", tmp.path().join("out").to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("unknown field `mtbf`") && !stderr.contains("is a key of"), "{stderr}");
}

/// A key that is wrong at one sweep point only (`shape` once `failures.law` is exponential)
/// is located on its line, and the message names the point and its swept values.
#[test]
fn an_error_at_one_sweep_point_names_the_point() {
    rejects(
        &format!(
            "{}\n[sweep]\n\"failures.law\" = [\"weibull\", \"exponential\"]\n",
            with("law = \"exponential\"\n", "law = \"exponential\"\nshape = 0.7\n")
        ),
        &[],
        &["bad.toml:12:9", "failures.shape", "(at sweep point 1: failures.law = exponential)"],
    );
    // Failing at the first point, it is still that point's error when another resolves.
    rejects(
        &format!(
            "{}\n[sweep]\n\"failures.law\" = [\"exponential\", \"weibull\"]\n",
            with("law = \"exponential\"\n", "law = \"exponential\"\nshape = 0.7\n")
        ),
        &[],
        &["bad.toml:12:9", "(at sweep point 0: failures.law = exponential)"],
    );
    // A value wrong at every point says nothing of points.
    let every = format!("{GOOD}\n[sweep]\n\"policy.factor\" = [1, 2]\n");
    rejects(&every, &["--set", "job.nodes=0"], &["--set job.nodes=0", "≥ 1"]);
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("bad.toml"), &every).unwrap();
    let out = tmp.path().join("out");
    let file = tmp.path().join("bad.toml");
    let o = ckptsim(&["run", file.to_str().unwrap(), "--set", "job.nodes=0", "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.code() == Some(2) && !stderr.contains("sweep point"), "{stderr}");
}

/// A swept key whose value is wrong beside its point's other keys only (`failures.law` swept
/// over exponential and weibull without a `shape`) is located on its sweep element, and the
/// message names the point and its swept values, as an unswept key's does; where every value
/// is wrong (weibull and gamma both need a shape) it says nothing of points.
#[test]
fn a_swept_value_wrong_at_one_point_names_the_point() {
    let sweep = |axes: &str| format!("{GOOD}\n[sweep]\n{axes}\n");
    rejects(
        &sweep(r#""failures.law" = ["exponential", "weibull"]"#),
        &[],
        &[
            "bad.toml:19:34",
            "key `failures.law`",
            "weibull needs a shape",
            "(at sweep point 1: failures.law = weibull)",
        ],
    );
    // With a second axis: the first point that fails, with every swept value.
    rejects(
        &sweep("\"failures.law\" = [\"weibull\", \"exponential\"]\n\"job.checkpoint\" = [\"20 s\", \"2 min\"]"),
        &[],
        &["bad.toml:19:19", "(at sweep point 0: failures.law = weibull, job.checkpoint = 20 s)"],
    );
    let every = sweep(r#""failures.law" = ["weibull", "gamma"]"#);
    rejects(&every, &[], &["bad.toml:19:19", "weibull needs a shape"]);
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("bad.toml");
    fs::write(&file, &every).unwrap();
    let o = ckptsim(&["run", file.to_str().unwrap(), "--out", tmp.path().join("out").to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.code() == Some(2) && !stderr.contains("sweep point"), "{stderr}");
}

/// Work less than one checkpoint write (`work = "30 s"`, `checkpoint = "2 min"`) is valid but
/// most likely two values swapped or a unit mistyped: a warning names both keys and values,
/// and the run goes on (exit 0). Equal values and the usual proportions say nothing.
#[test]
fn work_shorter_than_a_checkpoint_is_warned_about() {
    let short = with(r#"work = "2e5 s""#, r#"work = "30 s""#);
    let warnings = super::inline(&short).warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    for part in ["job.work = 30.000 s", "less than one checkpoint write", "job.checkpoint = 2.000 min", "swapped"] {
        assert!(warnings[0].contains(part), "{part:?} missing from {:?}", warnings[0]);
    }
    assert_eq!(super::inline(GOOD).warnings(), Vec::<String>::new());
    assert_eq!(super::inline(&with(r#"work = "2e5 s""#, r#"work = "2 min""#)).warnings(), Vec::<String>::new());
    // Just under one write warns too.
    assert_eq!(super::inline(&with(r#"work = "2e5 s""#, r#"work = "119 s""#)).warnings().len(), 1);
    // In a sweep, the warning names the point it concerns.
    let swept = super::inline(&format!("{GOOD}\n[sweep]\n\"job.work\" = [\"2e5 s\", \"30 s\"]\n")).warnings();
    assert_eq!(swept.len(), 1, "{swept:?}");
    assert!(swept[0].starts_with("point 1: job.work = 30.000 s"), "{swept:?}");
    // The binary says it on stderr and runs.
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("short.toml");
    fs::write(&file, &short).unwrap();
    let o = ckptsim(&["run", file.to_str().unwrap(), "--out", tmp.path().join("out").to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("warning: ") && stderr.contains("job.checkpoint = 2.000 min"), "{stderr}");
}

/// `policy.factor = [...]` unquoted is a table `policy` to TOML: the error names the key the
/// user meant and says to quote it.
#[test]
fn sweep_over_an_unquoted_dotted_key() {
    rejects(
        &format!("{GOOD}\n[sweep]\npolicy.factor = [1, 2]\n"),
        &[],
        &["bad.toml:19:1", "policy.factor", "must be quoted", "\"policy.factor\" = [...]"],
    );
    // An empty table is no dotted key: it is told what a sweep entry is.
    rejects(&format!("{GOOD}\n[sweep]\npolicy = {{}}\n"), &[], &["bad.toml:19", "must be an array of values"]);
}

#[test]
fn empty_sweep() {
    rejects(
        &format!("{GOOD}\n[sweep]\n\"policy.factor\" = []\n"),
        &[],
        &["bad.toml:19:19", "policy.factor", "at least one value"],
    );
}

#[test]
fn set_with_a_bad_value() {
    rejects(GOOD, &["--set", "job.checkpoint=-5 s"], &["--set 'job.checkpoint=-5 s'", "job.checkpoint", "≥ 0"]);
    rejects(GOOD, &["--set", "job.checkpoint=300"], &["--set job.checkpoint=300", "unit"]);
    rejects(GOOD, &["--set", "policy.factor=0"], &["--set policy.factor=0", "policy.factor", "> 0"]);
}

/// A `--set` value that holds more than one TOML value (a newline, then more keys) is
/// refused: the lines after the first were dropped without a word.
#[test]
fn set_with_more_than_one_value() {
    for (set, extra) in
        [("failures.mtbf=\"1 h\"\n[job]\nwork = \"-5 s\"", "`job`"), ("job.work=\"1 h\"\nbogus = 1", "`bogus`")]
    {
        let key = set.split('=').next().unwrap();
        rejects(GOOD, &["--set", set], &[&format!("key `{key}`"), "more than one TOML value", extra]);
    }
    // A multi-line string is one value.
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("good.toml");
    fs::write(&file, GOOD).unwrap();
    let set = "description=\"\"\"two\nlines\"\"\"";
    let o =
        ckptsim(&["run", file.to_str().unwrap(), "--reps", "2", "--set", set, "--out", tmp.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn set_with_an_unknown_key() {
    rejects(GOOD, &["--set", "job.chekpoint=5 s"], &["--set 'job.chekpoint=5 s'", "chekpoint"]);
    rejects(GOOD, &["--set", "nonsense"], &["--set nonsense", "KEY=VALUE"]);
}

#[test]
fn young_with_a_free_checkpoint() {
    rejects(
        &with(r#"checkpoint = "2 min""#, r#"checkpoint = "0 s""#),
        &[],
        &["bad.toml:15:12", "policy.interval", "> 0"],
    );
}

#[test]
fn bad_command_line_values() {
    rejects(GOOD, &["--reps", "1"], &["--reps", "≥ 2"]);
    rejects(GOOD, &["--precision=-1"], &["--precision", "> 0"]);
    rejects(GOOD, &["--threads", "0"], &["--threads"]);
    rejects(GOOD, &["--reps", "ten"], &["--reps"]);
    rejects(GOOD, &["--format", "xml"], &["--format"]);
}

#[test]
fn a_bad_second_scenario_stops_the_first_from_running() {
    let tmp = tempfile::tempdir().unwrap();
    let (good, bad) = (tmp.path().join("good.toml"), tmp.path().join("bad.toml"));
    fs::write(&good, GOOD).unwrap();
    fs::write(&bad, with("factor = 1.0", "factor = -1.0")).unwrap();
    let out = tmp.path().join("out");
    let o = ckptsim(&["run", good.to_str().unwrap(), bad.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!out.exists(), "nothing is written when any scenario is bad");
}

/// Replaces the `[failures]` table of the good scenario.
fn failures(table: &str) -> String {
    with("[failures]\nlaw = \"exponential\"\nmtbf = \"3.1 h\"", &format!("[failures]\n{table}"))
}

#[test]
fn weibull_shape_out_of_range() {
    for shape in ["0", "-0.5", "nan", "1e9"] {
        rejects(
            &failures(&format!("law = \"weibull\"\nmtbf = \"3.1 h\"\nshape = {shape}")),
            &[],
            &["bad.toml:", "failures.shape", "accepted is 0.05 to 50"],
        );
    }
}

#[test]
fn missing_or_misplaced_shape() {
    rejects(
        &failures("law = \"weibull\"\nmtbf = \"3.1 h\""),
        &[],
        &["key `failures.law`", "needs a shape: give failures.shape"],
    );
    rejects(
        &failures("law = \"exponential\"\nmtbf = \"3.1 h\"\nshape = 0.7"),
        &[],
        &["bad.toml:13:9", "failures.shape", "applies to"],
    );
    rejects(
        &failures("law = \"lognormal\"\nmtbf = \"3.1 h\"\nsigma = -1.2"),
        &[],
        &["bad.toml:13:9", "failures.sigma", "out of range"],
    );
}

#[test]
fn non_positive_or_non_finite_means() {
    rejects(
        &failures("law = \"weibull\"\nshape = 0.7\nmtbf = \"-3 h\""),
        &[],
        &["bad.toml:13:8", "failures.mtbf", "> 0"],
    );
    rejects(
        &failures("law = \"gamma\"\nshape = 2.0\nnode_mtbf = \"inf y\""),
        &[],
        &["bad.toml:13:13", "failures.node_mtbf", "finite"],
    );
    rejects(&failures("law = \"weibull\"\nshape = 0.7"), &[], &["failures.mtbf", "give the mean"]);
    rejects(
        &failures("law = \"weibull\"\nshape = 0.7\nmtbf = \"3 h\"\nnode_mtbf = \"3 y\""),
        &[],
        &["bad.toml:14:13", "not both"],
    );
}

#[test]
fn class_shares_must_sum_to_one() {
    let classes = "renewal = \"node\"\n\n[[failures.class]]\nshare = 0.5\nlaw = \"weibull\"\nshape = 0.7\nnode_mtbf = \"5 y\"\n\n[[failures.class]]\nshare = 0.4\nnode_mtbf = \"1 y\"";
    rejects(&failures(classes), &["--set", "job.nodes=100"], &["failures.class.0.share", "sum to 1"]);
    let zero = classes.replace("share = 0.4", "share = 0.0");
    rejects(&failures(&zero), &["--set", "job.nodes=100"], &["bad.toml:20:9", "failures.class.1.share", "(0, 1]"]);
    let tiny = classes.replace("share = 0.5", "share = 0.599").replace("share = 0.4", "share = 0.401");
    rejects(&failures(&tiny), &["--set", "job.nodes=1"], &["class #2", "gets no node"]);
}

#[test]
fn empty_or_bad_empirical_lists() {
    rejects(&failures("law = \"empirical\"\ntimes = []"), &[], &["bad.toml:12:9", "failures.times", "empty"]);
    rejects(&failures("law = \"empirical\"\ntimes = [\"1 h\", \"-2 h\"]"), &[], &["failures.times", "#2"]);
    rejects(&failures("law = \"empirical\"\ntimes = [\"1 h\", 2]"), &[], &["bad.toml:12:17", "unit"]);
    rejects(&failures("law = \"empirical\""), &[], &["key `failures.law`", "empirical needs failures.times"]);
}

#[test]
fn unknown_renewal_start_or_sampler() {
    rejects(
        &failures("mtbf = \"3 h\"\nrenewal = \"rack\""),
        &[],
        &["bad.toml:12:11", "failures.renewal", "job", "node"],
    );
    rejects(
        &failures("mtbf = \"3 h\"\nstart = \"old\""),
        &[],
        &["bad.toml:12:9", "failures.start", "fresh", "stationary"],
    );
    rejects(&failures("mtbf = \"3 h\"\nsampler = \"fast\""), &[], &["bad.toml:12:11", "failures.sampler", "per-node"]);
}

/// A key that takes one of a few names, given a number, a boolean or a list (in the file,
/// by `--set` and in a sweep): the error names the names, not TOML's "string or table".
#[test]
fn a_name_key_given_another_type_lists_its_names() {
    let rate = with("factor = 1.0", "factor = 1.0\nrate = 3");
    rejects(&rate, &[], &["bad.toml:17:8", "policy.rate", "wanted a name", "\"failures\" or \"clusters\""]);
    rejects(GOOD, &["--set", "policy.rate=3"], &["--set policy.rate=3", "policy.rate", "\"failures\" or \"clusters\""]);
    rejects(
        GOOD,
        &["--set", "job.placement=true"],
        &["job.placement", "wanted a name", "\"packed\", \"spread\" or \"random\""],
    );
    rejects(
        &with("law = \"exponential\"", "law = 1"),
        &[],
        &["bad.toml:11:7", "failures.law", "\"exponential\", \"weibull\", \"lognormal\", \"gamma\" or \"empirical\""],
    );
    let swept = format!("{GOOD}\n[sweep]\n\"job.on_failure\" = [\"restart\", 2]\n");
    rejects(&swept, &[], &["job.on_failure", "wanted a name", "\"restart\" or \"end-job\""]);
}

const TOPOLOGY: &str = "\n[topology]\nracks = 4\nnodes_per_rack = 8\n";

#[test]
fn job_larger_than_the_platform() {
    rejects(&format!("{GOOD}{TOPOLOGY}"), &["--set", "job.nodes=33"], &["--set job.nodes=33", "job.nodes", "32 nodes"]);
}

#[test]
fn impossible_placements_and_domains() {
    rejects(
        &with("restart = \"10 min\"", "restart = \"10 min\"\nplacement = \"spread\""),
        &[],
        &["bad.toml:9:13", "job.placement", "[topology]"],
    );
    rejects(
        &with("restart = \"10 min\"", "restart = \"10 min\"\nplacement = \"diagonal\""),
        &[],
        &["bad.toml:9:13", "packed", "spread", "random"],
    );
    let switch = format!("{GOOD}{TOPOLOGY}\n[failures.switch]\nmtbf = \"1 y\"\n");
    rejects(&switch, &[], &["failures.switch", "racks_per_switch"]);
    let rack = format!("{GOOD}\n[failures.rack]\nmtbf = \"1 y\"\n");
    rejects(&rack, &[], &["bad.toml:18", "failures.rack", "[topology]"]);
    let random = format!("{GOOD}{TOPOLOGY}\n[failures.random]\nnodes = 40\nmtbf = \"1 d\"\n");
    rejects(&random, &[], &["failures.random.nodes", "32 nodes"]);
    let zero = format!("{GOOD}\n[topology]\nracks = 0\nnodes_per_rack = 8\n");
    rejects(&zero, &[], &["bad.toml:19:9", "topology.racks", "≥ 1"]);
}

#[test]
fn unknown_random_events_start() {
    let random = format!("{GOOD}{TOPOLOGY}\n[failures.random]\nnodes = 4\nmtbf = \"1 d\"\nstart = \"old\"\n");
    rejects(&random, &[], &["bad.toml:25:9", "failures.random.start", "fresh", "stationary"]);
    let set = format!("{GOOD}{TOPOLOGY}\n[failures.random]\nnodes = 4\nmtbf = \"1 d\"\n");
    rejects(
        &set,
        &["--set", "failures.random.start=new"],
        &["--set failures.random.start=new", "failures.random.start", "fresh", "stationary"],
    );
}

#[test]
fn supercritical_bursts() {
    let burst = format!("{GOOD}\n[failures.burst]\nbranching = 1.0\ndecay = \"10 min\"\n");
    rejects(&burst, &[], &["bad.toml:19:13", "failures.burst.branching", "n < 1"]);
    let bare = format!("{GOOD}\n[failures.burst]\nbranching = 0.5\ndecay = 600\n");
    rejects(&bare, &[], &["bad.toml:20:9", "unit"]);
}

/// Runs `args` (with `--out` pointing into a fresh folder, when `out` is set) and returns the
/// exit code, stderr and what is left in that folder.
fn outcome(args: &[&str], out: bool) -> (Option<i32>, String, Vec<std::path::PathBuf>) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    let mut all: Vec<&str> = args.to_vec();
    if out {
        all.extend_from_slice(&["--out", dir.to_str().unwrap()]);
    }
    let o = ckptsim(&all);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    let left = super::entries(&dir);
    (o.status.code(), stderr, left)
}

#[test]
fn engine_errors_are_said_once() {
    // A compute chunk of 0.2 s at M = 10 ms takes e^20 ≈ 5·10⁸ attempts (writes and restarts
    // cannot fail): 5 times the engine's limit, too few for a refusal before the run (a
    // replication may still finish). The engine gives up; its message used to print twice
    // (the error's own text, then its source again).
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("good.toml");
    fs::write(&file, GOOD).unwrap();
    let sets = [
        "failures.mtbf=10 ms",
        "job.work=0.2 s",
        "policy.interval=0.2 s",
        "job.failures_during_checkpoint=false",
        "job.failures_during_restart=false",
    ];
    let mut args = vec!["run", file.to_str().unwrap(), "--reps", "2"];
    sets.iter().for_each(|s| args.extend(["--set", s]));
    let (code, stderr, left) = outcome(&args, true);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(stderr.matches("practically never finishes").count(), 1, "{stderr}");
    assert!(left.is_empty(), "{left:?}");
}

/// A run at whose interval the exact model expects over 10⁶ times the engine's limit of
/// failures per replication is refused before its first replication (exit 2, no files),
/// naming the point, the interval and the expectation: compute chunks of 1 h at a job MTBF
/// of 10 ms, and a two-level job with a level-2 write every 10⁶ checkpoints at its
/// "optimal" interval (0.04 s; it played replications to the limit for two minutes).
#[test]
fn a_run_that_practically_never_finishes_is_refused_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("good.toml");
    fs::write(&file, GOOD).unwrap();
    let sets = [
        "failures.mtbf=10 ms",
        "policy.interval=1 h",
        "job.failures_during_checkpoint=false",
        "job.failures_during_restart=false",
    ];
    let mut args = vec!["run", file.to_str().unwrap(), "--reps", "2"];
    sets.iter().for_each(|s| args.extend(["--set", s]));
    let started = std::time::Instant::now();
    let (code, stderr, left) = outcome(&args, true);
    assert_eq!(code, Some(2), "{stderr}");
    for part in [
        "good.toml: point 0: at its interval of 60.000 min the exact model (Poisson failures) expects 10³⁰⁸ or more",
        "over 1e6 times the 100000000 a replication may take",
        "accepted is an expectation of at most 1e6 × 100000000 failures",
    ] {
        assert!(stderr.contains(part), "{part:?} missing: {stderr}");
    }
    assert!(!stderr.contains("practically never finishes") && !stderr.contains("warning"), "{stderr}");
    assert!(left.is_empty(), "{left:?}");

    let two = super::root("scenarios/two-level.toml");
    let sets = ["job.level2.every=1000000", "policy.interval=optimal"];
    let mut args = vec!["run", two.to_str().unwrap(), "--reps", "2"];
    sets.iter().for_each(|s| args.extend(["--set", s]));
    let (code, stderr, left) = outcome(&args, true);
    assert_eq!(code, Some(2), "{stderr}");
    for part in ["point 0: at its interval of 0.043 s", "failures per replication", "or job.level2.every"] {
        assert!(stderr.contains(part), "{part:?} missing: {stderr}");
    }
    assert!(left.is_empty(), "{left:?}");
    assert!(started.elapsed().as_secs() < 30, "took {:?}", started.elapsed());
}

/// A run whose restarts (or writes) never complete is refused before its first replication,
/// as `optimize` refuses it, naming the phase: it played every replication to the engine's
/// limit of 10⁸ failures first (seconds per replication, minutes for a sweep).
#[test]
fn a_run_whose_restarts_never_complete_is_refused_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("good.toml");
    fs::write(&file, GOOD).unwrap();
    let started = std::time::Instant::now();
    let (code, stderr, left) =
        outcome(&["run", file.to_str().unwrap(), "--reps", "1000", "--set", "failures.mtbf=10 ms"], true);
    assert_eq!(code, Some(2), "bad input: {stderr}");
    for part in ["a restart of 10.000 min", "e^60000.0 attempts", "a replication that fails once never finishes"] {
        assert!(stderr.contains(part), "{part:?} missing: {stderr}");
    }
    assert!(!stderr.contains("practically never finishes"), "the engine ran: {stderr}");
    assert!(left.is_empty(), "{left:?}");
    // 1000 replications to the limit would take minutes; the refusal takes no simulation.
    assert!(started.elapsed().as_secs() < 30, "took {:?}", started.elapsed());
}

#[test]
fn an_interval_too_small_to_count_its_chunks() {
    // 1e-300 × Young cut 2e5 s into 1e302 chunks: the chunk count wrapped and the run
    // reported a negative overhead with exit 0.
    rejects(GOOD, &["--set", "policy.factor=1e-300"], &["--set policy.factor=1e-300", "policy.factor", "1e12 chunks"]);
    rejects(
        &with(r#"interval = "young""#, r#"interval = "1e-300 s""#),
        &[],
        &["bad.toml:15:12", "policy.interval", "1e-300 s", "1e12 chunks", "2e-7 s"],
    );
}

#[test]
fn names_that_leave_the_output_folder() {
    for name in ["", "a/b", "../up", "..", "a\\\\b"] {
        let text = format!("name = \"{name}\"\n{GOOD}");
        rejects(&text, &[], &["bad.toml:1:8", "key `name`", "non-empty file name"]);
    }
    rejects(GOOD, &["--set", "name=../../x"], &["--set name=../../x", "key `name`", "without `/`"]);
}

/// A name too long for a file name (with the suffixes the outputs add) is refused before any
/// file is written, not by the file system after the run (exit 1, no key).
#[test]
fn a_name_too_long_for_a_file_name() {
    use ckptsim::scenario::MAX_NAME_BYTES;
    let long = "b".repeat(MAX_NAME_BYTES + 1);
    rejects(
        &format!("name = \"{long}\"\n{GOOD}"),
        &[],
        &["bad.toml:1:8", "key `name`", "200 bytes long", "at most 199"],
    );
    rejects(GOOD, &["--set", &format!("name={}", "é".repeat(100))], &["key `name`", "200 bytes long"]);
    // The longest accepted name writes every output, the shard's included.
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("good.toml");
    fs::write(&file, format!("name = \"{}\"\n{GOOD}", "b".repeat(MAX_NAME_BYTES))).unwrap();
    let shard = "18446744073709551614/18446744073709551615";
    for extra in [&[][..], &["--shard", shard][..]] {
        let mut args = vec!["run", file.to_str().unwrap(), "--reps", "2", "--out", tmp.path().to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = ckptsim(&args);
        assert!(o.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

#[test]
fn out_is_a_file() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("good.toml");
    fs::write(&file, GOOD).unwrap();
    let log = tmp.path().join("log.csv");
    fs::write(&log, "time,node\n1 h,1\n2 h,2\n3 h,1\n").unwrap();
    let schedule = tmp.path().join("jobs.csv");
    fs::write(&schedule, "nodes,requested_s\n128,3600\n").unwrap();
    let taken = tmp.path().join("taken");
    fs::write(&taken, "not a folder").unwrap();
    let (f, l, s) = (file.to_str().unwrap(), log.to_str().unwrap(), schedule.to_str().unwrap());
    for out in [taken.clone(), taken.join("below")] {
        let out = out.to_str().unwrap();
        for args in [
            vec!["run", f],
            vec!["optimize", f, "--reps", "100"],
            vec!["trace", "stats", l],
            vec!["efficiency", s, "--reps", "2"],
        ] {
            let mut args = args.clone();
            args.extend_from_slice(&["--out", out]);
            let (code, stderr, _) = outcome(&args, false);
            assert_eq!(code, Some(2), "{args:?}: {stderr}");
            assert!(stderr.contains("--out") && stderr.contains("not a folder"), "{args:?}: {stderr}");
            assert_eq!(stderr.matches("taken").count(), 2, "said once: {stderr}");
        }
    }
    assert_eq!(fs::read_to_string(&taken).unwrap(), "not a folder");
}

#[test]
fn empty_duration() {
    rejects(
        &with(r#"checkpoint = "2 min""#, r#"checkpoint = """#),
        &[],
        &["bad.toml:7:14", "job.checkpoint", "is empty", "a number and a unit"],
    );
    rejects(GOOD, &["--set", "job.restart=   "], &["job.restart", "is empty"]);
}

#[test]
fn unit_in_another_script() {
    rejects(
        &with(r#"checkpoint = "2 min""#, r#"checkpoint = "5 µs""#),
        &[],
        &["bad.toml:7:14", "unknown unit `µs`", "ms, s, min, h, d, y"],
    );
}

#[test]
fn negative_zero_is_zero() {
    rejects(
        &with(r#"checkpoint = "2 min""#, r#"checkpoint = "-0 s""#),
        &[],
        &["bad.toml:15:12", "policy.interval", "job.checkpoint = 0 s"],
    );
}

#[test]
fn integers_out_of_range() {
    rejects(GOOD, &["--set", "run.seed=-1"], &["--set run.seed=-1", "run.seed", "integer ≥ 0"]);
    rejects(GOOD, &["--set", "run.seed=18446744073709551616"], &["run.seed", "out of range", "9223372036854775807"]);
    rejects(&with("replications = 10", "replications = -5"), &[], &["bad.toml:2:16", "run.replications", "≥ 2"]);
    rejects(&with("replications = 10", "replications = 1e3"), &[], &["bad.toml:2:16", "not an integer"]);
    rejects(GOOD, &["--set", "job.nodes=1.5"], &["job.nodes", "not an integer", "≥ 1"]);
    // A quoted integer that fits is text, not a number out of range.
    rejects(
        &with("replications = 10", r#"replications = "2000""#),
        &[],
        &["bad.toml:2:16", "run.replications", "is text, not an integer", "without quotes"],
    );
}

#[test]
fn huge_fields_are_shortened_in_messages() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("log.csv");
    fs::write(&log, format!("time,node\n1 h,{}\n", "n".repeat(1_000_000))).unwrap();
    let (code, stderr, left) = outcome(&["trace", "stats", log.to_str().unwrap()], true);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("log.csv:2") && stderr.contains("node") && stderr.contains("1000000 bytes"), "{stderr}");
    assert!(stderr.len() < 1000 && left.is_empty(), "{} bytes: {left:?}", stderr.len());
    let schedule = tmp.path().join("jobs.csv");
    fs::write(&schedule, format!("nodes,requested_s\n1,{}\n", "9".repeat(1_000_000))).unwrap();
    let (code, stderr, left) = outcome(&["efficiency", schedule.to_str().unwrap()], true);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("jobs.csv:2") && stderr.contains("requested_s"), "{stderr}");
    assert!(stderr.len() < 1000 && left.is_empty(), "{} bytes: {left:?}", stderr.len());
    let huge = format!("{} s", "1".repeat(100_000));
    rejects(GOOD, &["--set", &format!("job.checkpoint={huge}")], &["job.checkpoint", "not a finite duration"]);
}

#[test]
fn too_many_threads() {
    rejects(GOOD, &["--threads", "100000"], &["--threads 100000", "1 to 1024"]);
}

#[test]
fn formulas_with_a_free_checkpoint() {
    // Every formula gives T = 0 when δ = 0: the table used to be empty, with exit 0.
    let (code, stderr, _) = outcome(&["formulas", "--checkpoint", "0s", "--mtbf", "24h"], false);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--checkpoint 0s") && stderr.contains("> 0") && stderr.contains("--interval"), "{stderr}");
    let o = ckptsim(&["formulas", "--checkpoint", "0s", "--mtbf", "24h", "--interval", "1h", "--format", "csv"]);
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("given,3600,"), "{stdout}");
    assert!(stderr.contains("young, daly, daly-high-order, optimal left out"), "{stderr}");
}

#[test]
fn formulas_without_a_finite_optimum_say_so() {
    let o = ckptsim(&["formulas", "--checkpoint", "2h", "--mtbf", "1h", "--checkpoint-failures", "cannot-fail"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("optimal left out") && stderr.contains("δ ≥ K"), "{stderr}");
}

#[test]
fn formulas_rates_whose_mtbf_is_not_finite() {
    for rate in ["1e308/ms", "5e-324/s"] {
        let (code, stderr, _) = outcome(&["formulas", "--checkpoint", "5min", "--rate", rate], false);
        assert_eq!(code, Some(2), "{rate}: {stderr}");
        assert!(stderr.contains(rate) && stderr.contains("finite"), "{stderr}");
    }
}

#[test]
fn formulas_negative_values_as_separate_arguments() {
    // `-5s` used to be taken for an unknown flag ("unexpected argument '-5'").
    for (flag, range) in [("--checkpoint", "≥ 0"), ("--mtbf", "> 0"), ("--restart", "≥ 0"), ("--interval", "> 0")] {
        let mut args = vec!["formulas", flag, "-5s"];
        for (other, value) in [("--checkpoint", "5min"), ("--mtbf", "24h")] {
            if other != flag {
                args.extend_from_slice(&[other, value]);
            }
        }
        let (code, stderr, _) = outcome(&args, false);
        assert_eq!(code, Some(2), "{flag}: {stderr}");
        assert!(stderr.contains(&format!("{flag}: \"-5s\"")) && stderr.contains(range), "{flag}: {stderr}");
    }
}

#[test]
fn a_log_without_a_span_cannot_be_replayed() {
    // One failure, or all at one instant: "young" used to be blamed (an interval of 0 s), and
    // a fixed interval with `end = "wrap"` struck the job forever at time 0 (exit 1).
    let tmp = tempfile::tempdir().unwrap();
    for (log, rows) in [("one.csv", "5 h,0\n"), ("same.csv", "0 s,0\n0 s,1\n")] {
        fs::write(tmp.path().join(log), format!("time,node\n{rows}")).unwrap();
        let text = failures(&format!("\n[failures.trace]\nfile = \"{}\"", tmp.path().join(log).display()));
        for interval in ["young", "10 min"] {
            let text = text.replace(r#"interval = "young""#, &format!("interval = \"{interval}\""));
            rejects(&text, &[], &["bad.toml:13:8", "failures.trace.file", "spans 0 s", "two or more distinct times"]);
        }
    }
}

#[test]
fn a_platform_whose_node_count_overflows() {
    // 2⁶³ − 1 racks of 2⁶³ − 1 nodes wrapped to "1 nodes".
    let big = "\n[topology]\nracks = 9223372036854775807\nnodes_per_rack = 9223372036854775807\n";
    rejects(&format!("{GOOD}{big}"), &[], &["bad.toml:20:18", "topology.nodes_per_rack", "≤ 2⁵³"]);
}

#[test]
fn many_racks_under_a_random_placement() {
    // Each random placement used to allocate a flag per rack (4e9 bytes, 10⁴ times over to
    // estimate the MTBF): the run never ended. Now it costs O(job nodes).
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("racks.toml");
    let text = with(r#"restart = "10 min""#, "restart = \"10 min\"\nnodes = 8\nplacement = \"random\"");
    fs::write(
        &file,
        format!("{text}\n[topology]\nracks = 4000000000\nnodes_per_rack = 2\n\n[failures.rack]\nmtbf = \"1 y\"\n"),
    )
    .unwrap();
    let started = std::time::Instant::now();
    let (code, stderr, left) = outcome(&["run", file.to_str().unwrap(), "--reps", "5"], true);
    assert_eq!(code, Some(0), "{stderr}");
    // The CSV, the JSON and the overhead by cause (nodes and racks).
    assert_eq!(left.len(), 3, "{left:?}");
    assert!(started.elapsed().as_secs() < 20, "took {:?}", started.elapsed());
}

#[test]
fn per_node_sampler_on_too_many_nodes() {
    let text = failures("law = \"weibull\"\nshape = 0.7\nnode_mtbf = \"3e9 h\"\nsampler = \"per-node\"");
    rejects(&text, &["--set", "job.nodes=1000000000"], &["bad.toml:14:11", "failures.sampler", "≤ 10000000", "cohort"]);
}

#[test]
fn a_tiny_interval_blames_the_interval_not_the_factor() {
    rejects(
        GOOD,
        &["--set", "policy.interval=1e-300 s", "--set", "policy.factor=2"],
        &["--set 'policy.interval=1e-300 s'", "key `policy.interval`", "× factor 2 = 2e-300 s"],
    );
}

#[test]
fn efficiency_messages_show_huge_numbers_briefly() {
    // R₀ = 1e300 was printed with 300 digits, and e^{R₀·u_r} with as many.
    let (code, stderr, left) = outcome(
        &["efficiency", "scenarios/small-schedule.toml", "--reps", "2", "--set", "machine.failure_rate=1e300"],
        true,
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("machine.failure_rate") && stderr.contains("1e300 per node-hour"), "{stderr}");
    assert!(stderr.len() < 800 && left.is_empty(), "{} bytes: {stderr}", stderr.len());
}

#[test]
fn a_folder_given_as_a_schedule() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_str().unwrap();
    let (code, stderr, left) = outcome(&["efficiency", dir], true);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("a folder, not a schedule file") && left.is_empty(), "{stderr}");
    let (code, stderr, _) =
        outcome(&["efficiency", "scenarios/small-schedule.toml", "--set", &format!("schedule.file={dir}")], true);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("schedule.file") && stderr.contains("a folder, not a file"), "{stderr}");
}

#[test]
fn two_inputs_with_one_name() {
    // Both wrote OUT/a.csv: the second run's files silently replaced the first's.
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a.toml"), tmp.path().join("b.toml"));
    fs::write(&a, GOOD).unwrap();
    fs::write(&b, format!("name = \"a\"\n{GOOD}")).unwrap();
    let (code, stderr, left) = outcome(&["run", a.to_str().unwrap(), b.to_str().unwrap()], true);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("both named `a`") && stderr.contains("b.toml"), "{stderr}");
    assert!(left.is_empty(), "{left:?}");
    let (x, y) = (tmp.path().join("x"), tmp.path().join("y"));
    for d in [&x, &y] {
        fs::create_dir(d).unwrap();
        fs::write(d.join("jobs.csv"), "nodes,requested_s\n128,3600\n").unwrap();
    }
    let (x, y) = (x.join("jobs.csv"), y.join("jobs.csv"));
    let (code, stderr, left) = outcome(&["efficiency", x.to_str().unwrap(), y.to_str().unwrap(), "--reps", "2"], true);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("both named `jobs`") && left.is_empty(), "{stderr}");
}

/// A precision no allowed number of replications reaches is refused after the first round
/// (it used to run towards 2³² replications), with the half-width that is reachable.
#[test]
fn a_precision_out_of_reach() {
    let started = std::time::Instant::now();
    rejects(GOOD, &["--precision", "1e-300"], &["run.precision", "--precision", "out of reach", "at least about"]);
    rejects(&with("replications = 10", "precision = 1e-9"), &[], &["run.precision", "out of reach", "4294967296"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(60), "refused at once, not after a long run");
}

/// A folder where a result file goes is refused before the run, not after it.
#[test]
fn a_folder_where_a_result_goes() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    fs::create_dir_all(out.join("young-daly.csv")).unwrap();
    let o = ckptsim(&["run", "scenarios/young-daly.toml", "--reps", "1000000", "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("young-daly.csv is a folder") && stderr.contains("accepted"), "{stderr}");
    assert!(!out.join("young-daly.json").exists(), "nothing written");
    fs::create_dir_all(out.join("young-daly-optimize.svg")).unwrap();
    let o = ckptsim(&[
        "optimize",
        "scenarios/young-daly.toml",
        "--set",
        "job.checkpoint=2 min",
        "--set",
        "policy.factor=1",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("young-daly-optimize.svg is a folder"), "{stderr}");
    fs::create_dir_all(out.join("small-schedule.json")).unwrap();
    let o = ckptsim(&["efficiency", "scenarios/small-schedule.toml", "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("small-schedule.json is a folder"), "{stderr}");
}

/// A sweep value that repeats an earlier one, or that is a whole table (which would drop the
/// table's other keys silently), is refused at its place in the file.
#[test]
fn sweep_with_a_repeated_value_or_a_table() {
    let repeated = format!("{GOOD}\n[sweep]\n\"policy.factor\" = [0.5, 1, 0.5]\n");
    rejects(&repeated, &[], &["bad.toml:19:28", "policy.factor", "value #3 (0.5) repeats value #1", "distinct"]);
    let table = format!("{GOOD}\n[sweep]\n\"policy\" = [{{ factor = 2 }}]\n");
    rejects(&table, &[], &["bad.toml:19:", "key `policy`", "not a table", "\"policy.factor\""]);
}

/// Job durations whose replications could not be summarised (the square of the wall time or
/// of the overhead overflows) are refused at parse, exit 2, naming the key; they used to run
/// and fail with exit 1.
#[test]
fn job_durations_beyond_what_can_be_summarised() {
    rejects(
        &with(r#"work = "2e5 s""#, r#"work = "1e-300 s""#),
        &[],
        &["bad.toml:6:8", "job.work", "1e-300 s", "720 s", "accepted is a work ≥ 7.2e-98 s"],
    );
    rejects(
        &with(r#"checkpoint = "2 min""#, r#"checkpoint = "1e101 s""#),
        &[],
        &["bad.toml:7:14", "job.checkpoint", "1e101 s", "accepted is a duration ≤ 1e100 s"],
    );
    rejects(GOOD, &["--set", "job.downtime=1e102 s"], &["--set 'job.downtime=1e102 s'", "job.downtime", "≤ 1e100 s"]);
}

/// A missing top-level table is named as such (it was named as a field of whichever table
/// spans the file: `key `failures`: missing field `job``); a missing key of a table still
/// names the table's line, and a misspelt table is still an unknown one.
#[test]
fn missing_tables() {
    rejects("[failures]\nmtbf = \"3.1 h\"\n", &[], &["bad.toml: key `job`: missing", "[job] table"]);
    let no_failures = "[job]\nwork = \"2e5 s\"\ncheckpoint = \"2 min\"\nrestart = \"10 min\"\n";
    rejects(no_failures, &[], &["bad.toml: key `failures`: missing", "[failures] table"]);
    rejects(&with("restart = \"10 min\"\n", ""), &[], &["bad.toml:5:1: key `job`: missing field `restart`"]);
    rejects(&GOOD.replace("[job]", "[jobs]"), &[], &["bad.toml:5:2", "unknown field `jobs`"]);
}

/// A value of the wrong type is named in the scenario's words, not Rust's (`expected f64`,
/// `expected struct RawJob`).
#[test]
fn wrong_types_are_named_in_scenario_words() {
    rejects(GOOD, &["--set", "policy.factor="], &["key `policy.factor`", "is text, not a number"]);
    // Text where a number or a boolean goes, in the integer keys' words, with what is accepted.
    rejects(
        GOOD,
        &["--set", "policy.factor=abc"],
        &["key `policy.factor`", "\"abc\" is text, not a number: accepted is a number such as 0.5"],
    );
    rejects(
        GOOD,
        &["--set", "job.final_checkpoint=yes"],
        &["key `job.final_checkpoint`", "\"yes\" is text, not a boolean: accepted is true or false"],
    );
    rejects(
        &with("restart = \"10 min\"", "restart = \"10 min\"\nfinal_checkpoint = \"true\""),
        &[],
        &["bad.toml:9:20", "key `job.final_checkpoint`", "\"true\" is text, not a boolean"],
    );
    rejects(GOOD, &["--set", "job=1"], &["key `job`", "expected a table of keys"]);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = super::ckptsim(&["run", "scenarios/young-daly.toml", "--set", "job=1", "--out", out.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.code() == Some(2) && !err.contains("Raw"), "{err}");
}

/// A `run` scenario given to `efficiency` is refused saying which command takes it (it said
/// "unknown field `job`"); `run` takes both kinds.
#[test]
fn a_file_for_the_other_command() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let file = "scenarios/young-daly.toml";
    let o = super::ckptsim(&["efficiency", file, "--out", out.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(file) && err.contains("key `job`") && err.contains("it is for `ckptsim run`"), "{err}");
    assert!(!out.exists(), "efficiency {file} wrote {}", out.display());
}

/// A key or a table given twice is named with its table (the parser said only "duplicate
/// key", at a line and column).
#[test]
fn duplicate_keys_and_tables_are_named() {
    rejects(
        &with("seed = 1", "seed = 1\nseed = 2"),
        &[],
        &["bad.toml:4:1", "key `run.seed`", "`seed` is given twice in [run]"],
    );
    rejects(&format!("{GOOD}\n[job]\n"), &[], &["bad.toml:18:2", "key `job`", "the table [job] is given twice"]);
    let sweep = format!("{GOOD}\n[sweep]\n\"policy.factor\" = [1, 2]\n\"policy.factor\" = [3]\n");
    rejects(&sweep, &[], &["bad.toml:20:1", "\"policy.factor\"", "given twice in [sweep]"]);
}

/// A scenario file that is not UTF-8 (a binary or compressed file given by mistake) is an
/// error at the line and column of its first bad byte.
#[test]
fn a_scenario_that_is_not_text() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("bad.toml");
    let mut bytes = GOOD.as_bytes().to_vec();
    bytes.extend_from_slice(b"note = \"caf\xe9\"\n");
    fs::write(&file, bytes).unwrap();
    let (code, stderr, left) = outcome(&["run", file.to_str().unwrap()], true);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("bad.toml:17:12") && stderr.contains("0xE9 is not UTF-8"), "{stderr}");
    assert!(left.is_empty(), "{left:?}");
}

/// Sweep values written differently that read the same (`"2 min"` and `"120 s"`, `1` and
/// `1.0`) gave the same point twice.
#[test]
fn sweep_values_that_read_the_same() {
    let durations = format!("{GOOD}\n[sweep]\n\"job.checkpoint\" = [\"2 min\", \"120 s\"]\n");
    rejects(&durations, &[], &["bad.toml:19:30", "job.checkpoint", "value #2 (120 s) is the same as value #1 (2 min)"]);
    let numbers = format!("{GOOD}\n[sweep]\n\"policy.factor\" = [1, 2, 1.0]\n");
    rejects(&numbers, &[], &["bad.toml:19:26", "policy.factor", "value #3 (1.0) is the same as value #1 (1)"]);
}

/// An MTBF so small that the job's failure rate overflows gave Young's interval as 0 s and
/// blamed `policy.interval`.
#[test]
fn an_mtbf_whose_rate_overflows() {
    rejects(&with(r#"mtbf = "3.1 h""#, r#"mtbf = "1e-320 s""#), &[], &["bad.toml:12:8", "failures.mtbf", "2.2e-308 s"]);
    let per_node = with(r#"mtbf = "3.1 h""#, r#"node_mtbf = "1e-300 s""#);
    rejects(&per_node, &["--set", "job.nodes=100000000000"], &["bad.toml:12:13", "failures.node_mtbf", "overflows"]);
}

/// A log whose span overflows a replay (times near 1e308 s) ran with NaN wall times (exit 1),
/// after warning that the job's nodes see none of its failures.
#[test]
fn a_log_too_long_to_replay() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("long.csv");
    fs::write(&log, "time_s,node\n2,0\n1e308,0\n").unwrap();
    let text = failures(&format!("\n[failures.trace]\nfile = \"{}\"", log.display()));
    rejects(&text, &[], &["bad.toml:13:8", "failures.trace.file", "spans 1e308 s", "at most 1e100 s"]);
}

/// Every file a command would write is checked for a folder in its way before any work: the
/// partial file of a shard or a fixed-count run, plots, merged results, trace statistics.
/// They failed after the work with exit 1, `run --plot` with its CSV and JSON written.
#[test]
fn a_folder_where_any_result_goes() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("bad.toml");
    fs::write(&file, GOOD).unwrap();
    let log = tmp.path().join("log.csv");
    fs::write(&log, "time,node\n1 h,0\n2 h,1\n").unwrap();
    let shards = tmp.path().join("shards");
    for i in ["0/2", "1/2"] {
        let o = ckptsim(&["run", file.to_str().unwrap(), "--shard", i, "--out", shards.to_str().unwrap()]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let (s0, s1) = (shards.join("bad.shard-0-of-2.json"), shards.join("bad.shard-1-of-2.json"));
    let f = file.to_str().unwrap();
    let (s0, s1, l) = (s0.to_str().unwrap(), s1.to_str().unwrap(), log.to_str().unwrap());
    for (args, folder) in [
        (vec!["run", f, "--shard", "0/2"], "bad.shard-0-of-2.json"),
        (vec!["run", f], "bad.partial.json"),
        (vec!["run", f, "--plot"], "bad-wall.svg"),
        (vec!["merge", s0, s1], "bad.json"),
        (vec!["merge", s0, s1, "--plot"], "bad-wall.svg"),
        (vec!["efficiency", "scenarios/small-schedule.toml", "--reps", "2", "--plot"], "small-schedule-efficiency.svg"),
        (vec!["trace", "stats", l], "log-stats.csv"),
    ] {
        let out = tmp.path().join("out");
        let _ = fs::remove_dir_all(&out);
        fs::create_dir_all(out.join(folder)).unwrap();
        let mut args = args.clone();
        args.extend_from_slice(&["--out", out.to_str().unwrap()]);
        let o = ckptsim(&args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(&format!("{folder} is a folder, where a result file goes")), "{args:?}: {stderr}");
        let left: Vec<_> = super::entries(&out).iter().map(|p| p.file_name().unwrap().to_owned()).collect();
        assert_eq!(left, [folder], "{args:?}: nothing written");
    }
}

/// `trace stats --system` of a system the log lacks names the log.
#[test]
fn an_unknown_system_names_the_log() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("log.csv");
    fs::write(&log, "time,node\n1 h,0\n2 h,1\n").unwrap();
    let (code, stderr, left) = outcome(&["trace", "stats", log.to_str().unwrap(), "--system", "7"], true);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("log.csv: the failure log has no system `7`: its systems are log"), "{stderr}");
    assert!(left.is_empty(), "{left:?}");
}

/// `formulas` takes the durations a scenario takes (at most 1e100 s) and an MTBF whose rate is
/// finite: an MTBF of 1e300 y gave Young's interval as ∞ and an overhead of inf, one of
/// 1e-320 s a table of infinite overheads.
#[test]
fn formulas_durations_beyond_the_closed_forms() {
    for (flag, value, range) in [
        ("--mtbf", "1e300y", "at most 1e100 s"),
        ("--mtbf", "1e-320s", "2.2e-308 s"),
        ("--restart", "1e101s", "at most 1e100 s"),
        ("--work", "1e300y", "at most 1e100 s"),
        ("--rate", "1e-300/s", "at most 1e100 s"),
    ] {
        let mut args = vec!["formulas", "--checkpoint", "2min", flag, value];
        if flag != "--mtbf" && flag != "--rate" {
            args.extend_from_slice(&["--mtbf", "3h"]);
        }
        let (code, stderr, _) = outcome(&args, false);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(&format!("{flag}: \"{value}\"")) && stderr.contains(range), "{args:?}: {stderr}");
    }
}

/// A syntax error names the key of its line (the parser named none), and a `--set` number
/// that TOML does not read as one says why (it said `invalid type: string "1e400"`).
#[test]
fn syntax_errors_and_unread_numbers_name_the_key() {
    rejects(&with("factor = 1.0", "factor = NaN"), &[], &["bad.toml:16:10", "key `policy.factor`", "expected `nan`"]);
    rejects(&with(r#"work = "2e5 s""#, r#"work = "2e5 s"#), &[], &["bad.toml:6:14", "key `job.work`"]);
    rejects(GOOD, &["--set", "policy.factor=1e400"], &["policy.factor", "`1e400` is not read as a number", "range"]);
    rejects(GOOD, &["--set", "policy.factor=.5"], &["policy.factor", "`.5` is not read as a number", "0.5"]);
}

/// Negative and non-integer values of numeric flags are refused saying what is accepted; they
/// were "unexpected argument '-1' found", with a tip to pass them after `--` (as a file name).
#[test]
fn negative_numbers_for_numeric_flags() {
    for (flag, value, accepted) in [
        ("--reps", "-1", "an integer ≥ 2"),
        ("--reps", "1e3", "an integer ≥ 2"),
        ("--seed", "-1", "an integer from 0 to 2⁶⁴ − 1"),
        ("--threads", "-2", "an integer from 1 to 1024"),
        ("--precision", "-1", "a finite number > 0"),
        ("--save-every", "-1", "> 0"),
        ("--shard", "-1/2", "0 ≤ I < N"),
    ] {
        rejects(GOOD, &[flag, value], &[flag, value, accepted]);
    }
    for args in [&["optimize", "scenarios/young-daly.toml", "--seed", "-1"][..], &["validate", "--threads", "-1"]] {
        let (code, stderr, _) = outcome(args, false);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("accepted is an integer") && !stderr.contains("unexpected argument"), "{stderr}");
    }
}

/// `--resume` from the progress of another run says what differs (it listed everything that
/// might).
#[test]
fn resume_says_what_differs() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("bad.toml");
    fs::write(&file, GOOD).unwrap();
    let out = tmp.path().join("out");
    let (f, o) = (file.to_str().unwrap(), out.to_str().unwrap());
    assert!(ckptsim(&["run", f, "--reps", "20", "--shard", "0/2", "--out", o]).status.success());
    let r = ckptsim(&["run", f, "--reps", "30", "--shard", "0/2", "--seed", "4", "--resume", "--out", o]);
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("it differs in seed 1 (this run: 4), replications 20 (this run: 30))"), "{stderr}");
    fs::rename(out.join("bad.shard-0-of-2.json"), out.join("bad.partial.json")).unwrap();
    let r = ckptsim(&["run", f, "--reps", "20", "--resume", "--out", o]);
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("it differs in shard 0/2 (this run: none)"), "{stderr}");
}

/// A sweep of more points than a study can hold is refused at once: three axes of 1000 values
/// (10⁹ points) ran for ever, their memory growing; the repeat checks no longer scan an axis
/// for every value.
#[test]
fn a_sweep_of_too_many_points() {
    let started = std::time::Instant::now();
    let axis = |key: &str, unit: &str| {
        let values: Vec<String> = (1..=1000).map(|i| format!("\"{i} {unit}\"")).collect();
        format!("\"{key}\" = [{}]\n", values.join(", "))
    };
    let text = format!(
        "{GOOD}\n[sweep]\n{}{}{}",
        axis("job.checkpoint", "s"),
        axis("job.restart", "s"),
        axis("job.downtime", "s")
    );
    rejects(
        &text,
        &[],
        &["bad.toml:18:1", "key `sweep`", "1000 × 1000 = 1000000 points or more", "at most 10000 points"],
    );
    let long: Vec<String> = (0..10_001).map(|i| format!("{}", 1.0 + i as f64 / 1e6)).collect();
    let text = format!("{GOOD}\n[sweep]\n\"policy.factor\" = [{}]\n", long.join(", "));
    rejects(&text, &[], &["bad.toml:18:1", "the sweep has 10001 = 10001 points"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "refused at once");
}

/// `optimize` keeps every candidate's per-replication overheads: more replications than it
/// can hold is refused with the limit (it panicked with a capacity overflow), exit 2, nothing
/// written; the scenario's own count is checked too.
#[test]
fn optimize_refuses_more_replications_than_it_can_hold() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    for extra in [&["--reps", "18446744073709551615"][..], &["--set", "run.replications=20000000"]] {
        let mut args = vec!["optimize", "scenarios/young-daly.toml", "--out", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = ckptsim(&args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(!stderr.contains("panicked") && stderr.contains("accepted is at most 10000000"), "{stderr}");
        assert!(!out.exists(), "{extra:?}: {} written", out.display());
    }
}

/// Messages that misled: a bare number's example was the same number with a unit, refused
/// in turn when ≤ 0 ("-5 s"); `--precision` with `--resume` blamed "--shard and --resume";
/// an unquoted `--set` word was called quoted.
#[test]
fn messages_fit_what_was_typed() {
    rejects(
        &with(r#"checkpoint = "2 min""#, "checkpoint = -5"),
        &[],
        &["bad.toml:7:14", "the bare number -5 is not a duration", "for example \"300 s\""],
    );
    rejects(
        GOOD,
        &["--precision", "0.01", "--resume"],
        &["--resume needs a fixed number of replications, not --precision"],
    );
    rejects(GOOD, &["--precision", "0.01", "--shard", "0/2"], &["--shard needs a fixed number"]);
    rejects(GOOD, &["--set", "run.replications=abc"], &["\"abc\" is text, not an integer"]);
}

/// A law missing its parameter blames the law where it was chosen, the file's line or the
/// `--set` (it named the file and the absent key), with the parameter and its range.
#[test]
fn a_law_without_its_parameter_blames_the_law() {
    rejects(
        GOOD,
        &["--set", "failures.law=weibull"],
        &[
            "--set failures.law=weibull: key `failures.law`: weibull needs a shape: give failures.shape (accepted is 0.05 to 50)",
        ],
    );
    let law_line = |law: &str| with(r#"law = "exponential""#, &format!("law = \"{law}\""));
    rejects(&law_line("lognormal"), &[], &["bad.toml:11:7: key `failures.law`: lognormal needs failures.sigma"]);
    rejects(&law_line("gamma"), &[], &["bad.toml:11:7: key `failures.law`: gamma needs a shape"]);
    rejects(&law_line("empirical"), &[], &["key `failures.law`: empirical needs failures.times"]);
}

/// Found by fuzzing the binary: a device given as an input file (`/dev/zero` as the scenario,
/// a partial summary, a failure log, or `failures.trace.file`) was read until the memory was
/// gone and the system killed the process (exit 137). Input files are now read up to 1 GiB
/// (`input::MAX_INPUT_BYTES`), then refused; `efficiency` called a device "no such file".
#[cfg(unix)]
#[test]
fn a_device_given_as_an_input_file() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = tmp.path().join("replay.toml");
    fs::write(&scenario, GOOD.replace("law = \"exponential\"\nmtbf = \"3.1 h\"\n", "trace.file = \"log.csv\"\n"))
        .unwrap();
    let scenario = scenario.to_str().unwrap();
    let too_large = "it holds more than 1 GiB: accepted is a file of at most 1 GiB";
    for (args, expected) in [
        (vec!["run", "/dev/zero"], "/dev/zero: cannot read the scenario file: "),
        (vec!["merge", "/dev/zero"], "/dev/zero: cannot read the partial summary: "),
        (vec!["trace", "stats", "/dev/zero"], "/dev/zero: cannot read the failure log: "),
        (
            vec!["run", scenario, "--set", "failures.trace.file=/dev/zero"],
            "--set failures.trace.file=/dev/zero: key `failures.trace.file`: /dev/zero: cannot read the failure log: ",
        ),
    ] {
        let (code, stderr, left) = outcome(&args, true);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(&format!("{expected}{too_large}")), "{args:?}: {stderr}");
        assert!(left.is_empty(), "{args:?}: {left:?}");
    }
    let (code, stderr, _) = outcome(&["efficiency", "/dev/zero"], true);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("/dev/zero: not a regular file (a device or a pipe), not a schedule file"), "{stderr}");
    let (code, stderr, _) =
        outcome(&["efficiency", "scenarios/small-schedule.toml", "--set", "schedule.file=/dev/zero"], true);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("key `schedule.file`: not a regular file (a device or a pipe): /dev/zero"), "{stderr}");
}

/// CRC-32 (IEEE), as xz uses it.
fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 == 1 { (c >> 1) ^ 0xEDB8_8320 } else { c >> 1 };
        }
    }
    !c
}

/// An xz file of one block holding `text` as one uncompressed LZMA2 chunk (no check), whose
/// index says the block decompresses to `declared` bytes.
fn xz_of(text: &[u8], declared: u64) -> Vec<u8> {
    let varint = |mut n: u64, out: &mut Vec<u8>| {
        while n >= 0x80 {
            out.push((n as u8) | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
    };
    let pad4 = |v: &mut Vec<u8>| v.resize(v.len().next_multiple_of(4), 0);
    let mut xz = vec![0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0x00, 0x00];
    xz.extend(crc32(&[0, 0]).to_le_bytes());
    // Block header: size 12 bytes, one filter (LZMA2, dictionary 4 KiB), padding, CRC-32.
    let mut header = vec![2, 0x00, 0x21, 0x01, 0x00];
    pad4(&mut header);
    header.extend(crc32(&header).to_le_bytes());
    let mut block = header;
    block.push(0x01); // an uncompressed chunk that resets the dictionary
    block.extend(((text.len() - 1) as u16).to_be_bytes());
    block.extend(text);
    block.push(0x00); // end of the LZMA2 data
    let unpadded = block.len() as u64;
    pad4(&mut block);
    xz.extend(block);
    let mut index = vec![0x00];
    varint(1, &mut index);
    varint(unpadded, &mut index);
    varint(declared, &mut index);
    pad4(&mut index);
    index.extend(crc32(&index).to_le_bytes());
    let mut footer = ((index.len() / 4 - 1) as u32).to_le_bytes().to_vec();
    footer.extend([0, 0]);
    xz.extend(index);
    xz.extend(crc32(&footer).to_le_bytes());
    xz.extend(footer);
    xz.extend(b"YZ");
    xz
}

/// Found by fuzzing the binary: an xz failure log was decompressed whole into memory whatever
/// its size (1.1 GiB of zeros, 168 KB of xz, took 30 s and 2 GiB; a few MB of xz exhaust
/// the memory). Its index, the table of its blocks at its end, is now read first: a log that
/// it says decompresses to more than 1 GiB, or whose index cannot be read (a truncated
/// file), is refused before anything is decompressed.
#[test]
fn xz_bombs_are_refused_from_their_index() {
    use ckptsim::input;
    let text = b"time_s,node\n0,0\n3600,1\n";
    let good = xz_of(text, text.len() as u64);
    assert_eq!(input::xz_declared_size(&good), Some(text.len() as u64));
    assert_eq!(input::xz_decompress_bounded(&good, 1000).unwrap(), text);
    let e = input::xz_decompress_bounded(&good, 10).unwrap_err();
    assert!(e.contains("decompresses to 23 bytes (its xz index says), more than 10 bytes"), "{e}");
    let e = input::xz_decompress_bounded(&good[..good.len() - 3], 1000).unwrap_err();
    assert!(e.contains("starts like xz but its index (the table of its blocks, at its end) cannot be read"), "{e}");

    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("bomb.csv.xz");
    fs::write(&log, xz_of(text, 5 << 30)).unwrap();
    let (code, stderr, left) = outcome(&["trace", "stats", log.to_str().unwrap()], true);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("bomb.csv.xz: decompresses to 5368709120 bytes (its xz index says), more than 1 GiB"),
        "{stderr}"
    );
    assert!(left.is_empty(), "{left:?}");
    let good_log = tmp.path().join("good.csv.xz");
    fs::write(&good_log, &good).unwrap();
    let (code, stderr, _) = outcome(&["trace", "stats", good_log.to_str().unwrap()], true);
    assert_eq!(code, Some(0), "{stderr}");
}

/// A unit people write for a duration that is not accepted ("H", "Hours", "m") is answered with
/// the value rewritten in the accepted unit; text without a number is called that, not an
/// unknown unit. Long names ("hours", "mins") are accepted: `tests/suite/input.rs`.
#[test]
fn misspelt_units_name_the_unit_meant() {
    for (written, meant) in
        [("5 Hours", "\"5 h\""), ("5HR", "\"5 h\""), ("5 H", "\"5 h\""), ("2 m", "\"2 min\""), ("30 Sec", "\"30 s\"")]
    {
        rejects(
            &with(r#"mtbf = "3.1 h""#, &format!("mtbf = \"{written}\"")),
            &[],
            &["bad.toml:12:8", "failures.mtbf", "unknown unit", &format!("write it as {meant}"), "ms, s, min, h, d, y"],
        );
    }
    rejects(GOOD, &["--set", "job.checkpoint=abc"], &["job.checkpoint", "\"abc\" is not a duration: it has no number"]);
    rejects(
        GOOD,
        &["--set", "policy.interval=youngg"],
        &["policy.interval", "\"youngg\" is neither an interval rule nor a duration", "young, daly"],
    );
    // A unit that means nothing in particular keeps the plain message.
    rejects(&with(r#"mtbf = "3.1 h""#, r#"mtbf = "3 fortnights""#), &[], &["unknown unit `fortnights`"]);
}

/// `formulas` answers a misspelt unit the same way, for a duration and after a rate's `/`.
#[test]
fn formulas_misspelt_units_name_the_unit_meant() {
    for (args, expected) in [
        (["--mtbf", "5Hours"], "\"5Hours\": unknown unit `Hours`: write it as \"5 h\""),
        (["--rate", "0.2/Hours"], "\"0.2/Hours\": unknown unit of time `Hours` after the `/`: write it as \"0.2/h\""),
        (["--rate", "0.2/"], "\"0.2/\": no unit of time after the `/`"),
    ] {
        let mut all = vec!["formulas", "--checkpoint", "3min"];
        all.extend_from_slice(&args);
        let (code, stderr, _) = outcome(&all, false);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}

/// A number in quotes (`shape = "0.7"`) is blamed on its quotes: the message said TOML writes
/// numbers as 0.5, 5.0, …, which `0.7` already is.
#[test]
fn a_quoted_number_is_blamed_on_its_quotes() {
    rejects(
        &failures("law = \"weibull\"\nmtbf = \"3.1 h\"\nshape = \"0.7\""),
        &[],
        &["bad.toml:", "failures.shape", "it is quoted, so TOML reads it as text: write it without quotes, 0.7"],
    );
    rejects(GOOD, &["--set", "policy.factor=\"2\""], &["policy.factor", "write it without quotes, 2"]);
    // Not a TOML number even unquoted: the old reason stands.
    rejects(GOOD, &["--set", "policy.factor=.5"], &["`.5` is not read as a number", "0.5, 5.0"]);
}

/// A misspelt key is answered with the listed key it most likely means, in a file, a `--set`
/// and a sweep, and in `efficiency`'s scenarios; a key like none of them gets no guess.
#[test]
fn misspelt_keys_get_a_did_you_mean() {
    rejects(
        &with("restart = \"10 min\"", "restart = \"10 min\"\nchekpoint = \"1 min\""),
        &[],
        &["bad.toml:9:1", "unknown field `chekpoint`", "; did you mean `checkpoint`?"],
    );
    rejects(GOOD, &["--set", "failures.mtfb=1h"], &["unknown field `mtfb`", "; did you mean `mtbf`?"]);
    rejects(
        &format!("{GOOD}\n[sweep]\n\"job.restrat\" = [\"1 min\"]\n"),
        &[],
        &["unknown field `restrat`", "; did you mean `restart`?"],
    );
    let (code, stderr, _) = outcome(&["run", "scenarios/young-daly.toml", "--set", "job.xyz=1"], true);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("unknown field `xyz`") && !stderr.contains("did you mean"), "{stderr}");
    let (code, stderr, _) = outcome(
        &["efficiency", "scenarios/small-schedule.toml", "--reps", "2", "--set", "machine.bandwith=1TB/s"],
        true,
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("unknown field `bandwith`") && stderr.contains("; did you mean `bandwidth`?"), "{stderr}");
}

/// `[run] baseline` is a point of the run: past the last point, negative or text is refused,
/// from the file (with its line) and from `--set`.
#[test]
fn baseline_outside_the_points() {
    rejects(
        &with("seed = 1\n", "seed = 1\nbaseline = 1\n"),
        &[],
        &["bad.toml:4:12", "run.baseline", "1 is out of range", "0 to 0", "1 point;"],
    );
    rejects(&with("seed = 1\n", "seed = 1\nbaseline = -1\n"), &[], &["bad.toml:4:12", "run.baseline", "≥ 0"]);
    rejects(&with("seed = 1\n", "seed = 1\nbaseline = \"0\"\n"), &[], &["run.baseline", "is text, not an integer"]);
    rejects(
        &format!("{GOOD}\n[sweep]\n\"policy.factor\" = [0.5, 1, 2]\n"),
        &["--set", "run.baseline=3"],
        &["--set run.baseline=3", "run.baseline", "0 to 2", "3 points"],
    );
}
