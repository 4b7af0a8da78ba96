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
    let left: Vec<_> = fs::read_dir(&out).map(|d| d.map(|e| e.unwrap().path()).collect()).unwrap_or_default();
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
        &["bad.toml:7:14", "job.checkpoint", "≥ 0"],
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
        &with(r#"checkpoint = "2 min""#, r#"checkpoint = "2 weeks""#),
        &[],
        &["bad.toml:7:14", "unknown unit", "ms, s, min, h, d, y"],
    );
}

#[test]
fn unknown_key() {
    rejects(
        &with(r#"checkpoint = "2 min""#, r#"chekpoint = "2 min""#),
        &[],
        &["bad.toml:7:1", "chekpoint", "checkpoint"],
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
    rejects(GOOD, &["--set", "job.checkpoint=-5 s"], &["--set job.checkpoint=-5 s", "job.checkpoint", "≥ 0"]);
    rejects(GOOD, &["--set", "job.checkpoint=300"], &["--set job.checkpoint=300", "unit"]);
    rejects(GOOD, &["--set", "policy.factor=0"], &["--set policy.factor=0", "policy.factor", "> 0"]);
}

#[test]
fn set_with_an_unknown_key() {
    rejects(GOOD, &["--set", "job.chekpoint=5 s"], &["--set job.chekpoint=5 s", "chekpoint"]);
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
    rejects(&failures("law = \"weibull\"\nmtbf = \"3.1 h\""), &[], &["failures.shape", "required"]);
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
    rejects(&failures("law = \"empirical\""), &[], &["failures.times", "needs times"]);
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
fn supercritical_bursts() {
    let burst = format!("{GOOD}\n[failures.burst]\nbranching = 1.0\ndecay = \"10 min\"\n");
    rejects(&burst, &[], &["bad.toml:19:13", "failures.burst.branching", "n < 1"]);
    let bare = format!("{GOOD}\n[failures.burst]\nbranching = 0.5\ndecay = 600\n");
    rejects(&bare, &[], &["bad.toml:20:9", "unit"]);
}
