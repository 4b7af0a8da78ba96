//! `ckptsim efficiency` (issue #5): the CLI on the Frontier scenario reproduces the paper's
//! closed form; on the shipped small schedule the simulation agrees with the closed form
//! within 4 SE in both conventions; outputs are byte-identical for any thread count; bad
//! input exits 2 with file, line (and column), key and what is accepted, leaving no file.

use std::fs;
use std::path::Path;

use super::ckptsim;
use serde_json::Value;

/// Simulation and closed form must agree within this many standard errors.
const SE_TOLERANCE: f64 = 4.0;
/// Published figures are given to 3 decimals: half a unit of the third.
const THREE_DECIMALS: f64 = 5e-4;
/// The four figures of every point.
const FIGURES: [&str; 4] = ["efficiency", "l_chk", "l_fail", "l_restart"];

/// Runs `ckptsim efficiency` with `args` and `--out` a fresh folder; returns the output, the
/// folder (kept alive) and its path.
fn efficiency(args: &[&str]) -> (std::process::Output, tempfile::TempDir) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut all = vec!["efficiency"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--out", out.to_str().unwrap()]);
    (ckptsim(&all), tmp)
}

fn ok(o: &std::process::Output) -> String {
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "exit {:?}:\n{stderr}", o.status.code());
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn json_file(dir: &Path, name: &str) -> Value {
    serde_json::from_str(&fs::read_to_string(dir.join("out").join(format!("{name}.json"))).unwrap()).unwrap()
}

/// |mean − model| ≤ 4 SE for every figure of every point of `doc`.
fn check_within_se(doc: &Value) {
    for p in doc["points"].as_array().unwrap() {
        for f in FIGURES {
            let x = &p[f];
            let (model, mean, se) =
                (x["model"].as_f64().unwrap(), x["mean"].as_f64().unwrap(), x["se"].as_f64().unwrap());
            assert!(
                (mean - model).abs() <= SE_TOLERANCE * se + 1e-12,
                "point {}: {f}: simulated {mean} ± {se} (SE) vs model {model}: {:.1} SE",
                p["point"],
                (mean - model) / se
            );
            assert!(x["ci_low"].as_f64().unwrap() <= mean && mean <= x["ci_high"].as_f64().unwrap());
        }
    }
}

#[test]
#[ignore = "needs ../shared/data"]
fn frontier_scenario_reproduces_the_paper() {
    // The Frontier CY2024 schedule (MODELS.md §5), outside the package.
    let frontier = super::shared_data(super::FRONTIER_SCHEDULE);
    let (o, tmp) =
        efficiency(&["scenarios/frontier-2024.toml", "--set", "policy.factor=1", "--reps", "40", "--format", "json"]);
    let stdout = ok(&o);
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc, json_file(tmp.path(), "frontier-2024"), "stdout is the JSON file");
    assert_eq!(doc["jobs"], 331_640);
    let points = doc["points"].as_array().unwrap();
    assert_eq!(points.len(), 1, "--set fixes the swept factor");
    let p = &points[0];
    assert_eq!((p["jobs"].as_u64(), p["replications"].as_u64()), (Some(331_640), Some(40)));
    assert_eq!(p["last_segment"], "full");
    for (f, published) in [("efficiency", 0.957), ("l_chk", 0.012), ("l_fail", 0.028), ("l_restart", 0.003)] {
        let model = p[f]["model"].as_f64().unwrap();
        eprintln!("Frontier {f}: model {model:.5}, simulated {:.5} ± {:.5}", p[f]["mean"], p[f]["se"]);
        assert!((model - published).abs() <= THREE_DECIMALS, "{f} = {model}, published {published}");
    }
    assert!((p["runtime_ratio"].as_f64().unwrap() - 0.4589).abs() < 5e-5);
    check_within_se(&doc);

    // The schedule given directly runs with the same (Frontier) parameters.
    let (o, _tmp) = efficiency(&[frontier.to_str().unwrap(), "--reps", "2", "--format", "json"]);
    let direct: Value = serde_json::from_str(&ok(&o)).unwrap();
    assert_eq!(direct["scenario"], "jobs2024");
    for f in FIGURES {
        assert_eq!(direct["points"][0][f]["model"], p[f]["model"], "{f}");
    }
}

#[test]
fn small_schedule_simulation_matches_the_closed_form() {
    let (o, tmp) = efficiency(&["scenarios/small-schedule.toml", "--wide"]);
    let table = ok(&o);
    assert!(table.contains("e simulated ± 95% CI") && table.contains("l_R model"), "{table}");
    assert_eq!(table.lines().filter(|l| l.contains(" ± ") && !l.contains("CI")).count(), 6, "{table}");
    for convention in ["full", "truncated"] {
        assert!(table.contains(convention), "{table}");
    }
    let doc = json_file(tmp.path(), "small-schedule");
    assert_eq!((doc["jobs"].as_u64(), doc["replications"].as_u64()), (Some(44), Some(2000)));
    let points = doc["points"].as_array().unwrap();
    assert_eq!(points.len(), 6);
    let conventions: Vec<&str> = points.iter().map(|p| p["last_segment"].as_str().unwrap()).collect();
    assert_eq!(conventions, ["full", "truncated", "full", "truncated", "full", "truncated"]);
    for p in points {
        assert_eq!((p["jobs"].as_u64(), p["replications"].as_u64()), (Some(44), Some(2000)));
        let shares: f64 = ["l_chk", "l_fail", "l_restart"].iter().map(|f| p[f]["model"].as_f64().unwrap()).sum();
        assert!((1.0 - shares - p["efficiency"]["model"].as_f64().unwrap()).abs() < 1e-12);
        assert!(p["failed_jobs_mean"].as_f64().unwrap() > 3.0, "failures are common enough to test");
    }
    check_within_se(&doc);
    // Truncation keeps jobs within N·T: less usage, and a different e.
    let e = |i: usize| points[i]["efficiency"]["model"].as_f64().unwrap();
    let u = |i: usize| points[i]["usage_model_nh"].as_f64().unwrap();
    assert!(u(3) < u(2) && (e(3) - e(2)).abs() > 1e-3);

    // The CSV holds the same points, one row each, with the figures flattened.
    let csv = fs::read_to_string(tmp.path().join("out/small-schedule.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    for c in ["point", "policy.factor", "schedule.last_segment", "efficiency_model", "efficiency_mean"] {
        assert!(header.contains(&c), "CSV lacks {c}: {header:?}");
    }
    for c in ["efficiency_ci_low", "efficiency_ci_high", "l_fail_model", "l_restart_ci_high", "jobs", "last_segment"] {
        assert!(header.contains(&c), "CSV lacks {c}: {header:?}");
    }
    assert_eq!(lines.count(), 6);

    // The plot: e against the factor, one curve per convention.
    let (o, tmp) = efficiency(&["scenarios/small-schedule.toml", "--reps", "50", "--plot", "--format", "csv"]);
    ok(&o);
    let svg = fs::read_to_string(tmp.path().join("out/small-schedule-efficiency.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("the plot is well-formed SVG");
    assert!(doc.descendants().any(|n| n.text().is_some_and(|t| t.contains("cadence factor"))), "x axis title");
    assert!(svg.contains("last segment truncated") && svg.contains("last segment full"), "a curve per convention");
}

#[test]
fn a_schedule_csv_runs_with_frontier_parameters_and_flags() {
    // The small schedule directly, at the small scenario's parameters (Frontier's with
    // R₀ = 1e-4), gives that scenario's closed form at factor 1, full segments.
    let (o, tmp) = efficiency(&[
        "scenarios/schedules/small.csv",
        "--failure-rate",
        "1e-4",
        "--reps",
        "300",
        "--seed",
        "3",
        "--format",
        "json",
    ]);
    let direct: Value = serde_json::from_str(&ok(&o)).unwrap();
    assert_eq!(direct, json_file(tmp.path(), "small"));
    let (o, tmp) = efficiency(&["scenarios/small-schedule.toml", "--set", "policy.factor=1", "--reps", "300"]);
    ok(&o);
    let scenario = json_file(tmp.path(), "small-schedule");
    let (a, b) = (&direct["points"][0], &scenario["points"][0]);
    assert_eq!(b["last_segment"], "full");
    for f in FIGURES {
        assert_eq!(a[f]["model"], b[f]["model"], "{f}");
    }
    assert_eq!(a["runtime_ratio_source"], "usage-weighted");
    check_within_se(&direct);
    // Flags are shorthands for --set.
    let (o, tmp) = efficiency(&[
        "scenarios/schedules/small.csv",
        "--storage",
        "local",
        "--cadence",
        "young",
        "--last-segment",
        "truncated",
        "--bandwidth",
        "1 TB/s",
        "--reps",
        "20",
    ]);
    ok(&o);
    let p = &json_file(tmp.path(), "small")["points"][0];
    assert_eq!((p["storage"].as_str(), p["cadence"].as_str()), (Some("local"), Some("young")));
    assert_eq!((p["last_segment"].as_str(), p["bandwidth_bytes_per_s"].as_f64()), (Some("truncated"), Some(1e12)));
}

#[test]
fn outputs_are_byte_identical_for_any_thread_count() {
    let run = |threads: &str| {
        let (o, tmp) = efficiency(&["scenarios/small-schedule.toml", "--reps", "700", "--threads", threads]);
        let stdout = ok(&o);
        let read = |ext: &str| fs::read(tmp.path().join(format!("out/small-schedule.{ext}"))).unwrap();
        (stdout.replace(tmp.path().to_str().unwrap(), "OUT"), read("csv"), read("json"))
    };
    let one = run("1");
    assert_eq!(one, run("2"), "--threads 1 and 2 differ");
    assert_eq!(one, run("3"), "--threads 1 and 3 differ");
}

#[test]
fn a_rate_that_makes_restarts_costly_warns() {
    // R₀ = 0.05 per node-hour: restarts of the 4096-node jobs are struck ~8 times over, so
    // e < 0. Results are written, with the warning on stderr and in the JSON.
    let (o, tmp) = efficiency(&["scenarios/small-schedule.toml", "--set", "machine.failure_rate=0.05", "--reps", "50"]);
    ok(&o);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("warning: small-schedule: point 0: e = -") && stderr.contains("< 0: restarts cost more"));
    let doc = json_file(tmp.path(), "small-schedule");
    let p = &doc["points"][0];
    assert_eq!(p["warnings"].as_array().unwrap().len(), 1, "{p}");
    assert!(p["efficiency"]["model"].as_f64().unwrap() < 0.0);
    check_within_se(&doc);
}

// ---- Bad input ----

const GOOD: &str = r#"name = "bad"

[run]
replications = 10
seed = 1

[machine]
failure_rate = 1e-4
checkpoint_bytes = "200 GB"
bandwidth = "6 TB/s"
storage = "shared"
setup = "2 s"
read_write_ratio = 1.0

[schedule]
file = "jobs.csv"
runtime_ratio = "usage-weighted"
last_segment = "full"

[policy]
cadence = "optimal"
factor = 1.0
"#;

const GOOD_CSV: &str = "Node Count,Requested Duration,Actual Duration\n16,3600,1800\n512,86400,40000\n";

/// Writes `toml` as `bad.toml` and `csv` as `jobs.csv` in a fresh folder, runs `ckptsim
/// efficiency` on `input` (`bad.toml` or `jobs.csv`, in that folder) with `extra`, and checks
/// exit code 2, that stderr holds every one of `expected`, no panic, and an empty `--out`.
fn rejects_in(input: &str, toml: &str, csv: &str, extra: &[&str], expected: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("bad.toml"), toml).unwrap();
    fs::write(tmp.path().join("jobs.csv"), csv).unwrap();
    let out = tmp.path().join("out");
    let file = tmp.path().join(input);
    let mut args = vec!["efficiency", file.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = ckptsim(&args);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "exit code for {input} {extra:?}:\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for e in expected {
        assert!(stderr.contains(e), "stderr lacks {e:?}:\n{stderr}");
    }
    let left = super::entries(&out);
    assert!(left.is_empty(), "files left behind: {left:?}");
}

fn rejects(toml: &str, extra: &[&str], expected: &[&str]) {
    rejects_in("bad.toml", toml, GOOD_CSV, extra, expected);
}

fn rejects_csv(csv: &str, expected: &[&str]) {
    rejects_in("bad.toml", GOOD, csv, &[], expected);
    rejects_in("jobs.csv", GOOD, csv, &[], expected);
}

fn with(line: &str, replacement: &str) -> String {
    assert!(GOOD.contains(line), "{line}");
    GOOD.replacen(line, replacement, 1)
}

/// A study without `[schedule]` names the missing table (it was named as a field of the table
/// that spans the file: `key `machine`: missing field `schedule``).
#[test]
fn a_missing_schedule_table_is_named() {
    rejects("[machine]\nfailure_rate = 1e-4\n", &[], &["bad.toml: key `schedule`: missing", "[schedule] table"]);
}

#[test]
fn the_good_inputs_run() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("good.toml"), GOOD).unwrap();
    fs::write(tmp.path().join("jobs.csv"), GOOD_CSV).unwrap();
    let out = tmp.path().join("out");
    for input in ["good.toml", "jobs.csv"] {
        let file = tmp.path().join(input);
        let o = ckptsim(&["efficiency", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--reps", "5"]);
        ok(&o);
    }
    assert!(out.join("bad.json").exists() && out.join("jobs.json").exists());
    // No checkpoint at all is fine without prophylactic checkpoints.
    let o = ckptsim(&[
        "efficiency",
        tmp.path().join("good.toml").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--set",
        "machine.checkpoint_bytes=0 B",
        "--set",
        "policy.cadence=none",
    ]);
    ok(&o);
}

#[test]
fn bad_schedule_rows() {
    let h = "Node Count,Requested Duration,Actual Duration\n";
    rejects_csv(&format!("{h}16,3600,1800\n16,3600\n"), &["jobs.csv:3:", "malformed row", "2 field(s)"]);
    rejects_csv(&format!("{h}16,3600,1800\n0,3600,10\n"), &["jobs.csv:3:", "`Node Count`", "`0`", "whole number ≥ 1"]);
    rejects_csv(&format!("{h}16,-3600,1800\n"), &["jobs.csv:2:", "`Requested Duration`", "`-3600`", "> 0"]);
    rejects_csv(&format!("{h}16,3600,-1\n"), &["jobs.csv:2:", "`Actual Duration`", "≥ 0"]);
    rejects_csv("Node Count,Actual Duration\n16,1800\n", &["jobs.csv:1:", "missing column `Requested Duration`"]);
    rejects_csv(h, &["jobs.csv:1:", "no jobs"]);
}

#[test]
fn missing_files() {
    rejects(
        &with(r#"file = "jobs.csv""#, r#"file = "nowhere/jobs.csv""#),
        &[],
        &["bad.toml:16:8", "schedule.file", "no such file", "nowhere/jobs.csv"],
    );
    let tmp = tempfile::tempdir().unwrap();
    let o = ckptsim(&["efficiency", "no/such/schedule.csv", "--out", tmp.path().to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no such schedule file") && stderr.contains("no/such/schedule.csv"), "{stderr}");
}

/// A schedule that cannot be read is bad input (exit 2) naming the file, as a scenario or a
/// failure log is, not a runtime error (it was exit 1). The tests run as any user, so the
/// unreadable file is one over the input limit (a sparse file: no disk used).
#[test]
fn an_unreadable_schedule_is_bad_input() {
    let tmp = tempfile::tempdir().unwrap();
    let big = tmp.path().join("huge.csv");
    fs::File::create(&big).unwrap().set_len(ckptsim::input::MAX_INPUT_BYTES + 1).unwrap();
    let e = ckptsim::schedule::read_schedule(&big).unwrap_err();
    assert_eq!(e.exit_code(), 2, "{e}");
    assert!(e.to_string().contains("huge.csv") && e.to_string().contains("cannot read the schedule"), "{e}");
    let o = ckptsim(&["efficiency", big.to_str().unwrap(), "--out", tmp.path().join("out").to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("huge.csv") && !tmp.path().join("out").exists(), "{stderr}");
}

/// A sweep value that repeats another written in other units is the same point twice,
/// refused as `run` refuses "2 min" beside "120 s" (sizes and bandwidths kept their text in
/// the comparison).
#[test]
fn sweep_repeats_in_other_units_are_refused() {
    for (key, values, shown) in [
        ("machine.bandwidth", "[\"6 TB/s\", \"6000 GB/s\"]", "value #2 (6000 GB/s) is the same as value #1 (6 TB/s)"),
        (
            "machine.checkpoint_bytes",
            "[\"200 GB\", \"200000 MB\"]",
            "value #2 (200000 MB) is the same as value #1 (200 GB)",
        ),
    ] {
        rejects(&format!("{GOOD}\n[sweep]\n\"{key}\" = {values}\n"), &[], &["bad.toml:25:", key, shown]);
    }
}

#[test]
fn unknown_keys() {
    rejects(
        &with("read_write_ratio = 1.0", "read_write_ratio = 1.0\nbandwith = \"6 TB/s\""),
        &[],
        &["bad.toml:14:1", "bandwith", "unknown field"],
    );
    rejects(&with("[policy]", "[polcy]"), &[], &["bad.toml:20:2", "polcy"]);
    rejects(GOOD, &["--set", "machine.nodes=4"], &["--set machine.nodes=4", "unknown field `nodes`"]);
}

#[test]
fn bare_numbers_and_units() {
    rejects(
        &with(r#"checkpoint_bytes = "200 GB""#, "checkpoint_bytes = 200"),
        &[],
        &["bad.toml:9:20", "machine.checkpoint_bytes", "bare number 200 is not a size", "\"200 GB\""],
    );
    rejects(
        &with(r#"checkpoint_bytes = "200 GB""#, r#"checkpoint_bytes = "200 Gb""#),
        &[],
        &["bad.toml:9:20", "unknown unit `Gb`"],
    );
    rejects(
        &with(r#"bandwidth = "6 TB/s""#, r#"bandwidth = "6 TB""#),
        &[],
        &["bad.toml:10:13", "machine.bandwidth", "size per unit of time"],
    );
    // A bandwidth's errors list bandwidth units ("TB/s"), not the bare size units.
    rejects(
        &with(r#"bandwidth = "6 TB/s""#, r#"bandwidth = "6 Tb/s""#),
        &[],
        &["bad.toml:10:13", "unknown unit `Tb`", "units: B/s, kB/s, MB/s, GB/s, TB/s", "bytes, not bits"],
    );
    rejects(
        &with(r#"bandwidth = "6 TB/s""#, r#"bandwidth = "6 TB/fortnight""#),
        &[],
        &["bad.toml:10:13", "unknown unit of time `fortnight` after the `/`", "per ms, min, h, d, y"],
    );
    rejects(
        &with(r#"bandwidth = "6 TB/s""#, r#"bandwidth = "6/s""#),
        &[],
        &["\"6\" has no unit: write it as \"6 GB/s\""],
    );
    rejects(&with(r#"setup = "2 s""#, "setup = 2"), &[], &["bad.toml:12:9", "machine.setup", "bare number 2"]);
    rejects(
        GOOD,
        &["--bandwidth", "6"],
        &["--bandwidth 6: key `machine.bandwidth`", "bare number 6 is not a bandwidth"],
    );
}

#[test]
fn out_of_range_values() {
    for (bad, column) in [("0", 16), ("-1e-5", 16), ("nan", 16), ("inf", 16)] {
        rejects(
            &with("failure_rate = 1e-4", &format!("failure_rate = {bad}")),
            &[],
            &[
                &format!("bad.toml:8:{column}"),
                "machine.failure_rate",
                "accepted is a finite number of failures per node-hour > 0",
            ],
        );
    }
    rejects(GOOD, &["--failure-rate", "-3"], &["--failure-rate -3: key `machine.failure_rate`", "> 0"]);
    rejects(&with("factor = 1.0", "factor = 0"), &[], &["bad.toml:22:10", "policy.factor", "> 0"]);
    rejects(
        &with(r#"setup = "2 s""#, r#"setup = "-1 min""#),
        &[],
        &["bad.toml:12:9", "machine.setup", "\"-1 min\" is out of range", "≥ 0"],
    );
    rejects(&with("read_write_ratio = 1.0", "read_write_ratio = -1"), &[], &["machine.read_write_ratio", "≥ 0"]);
    rejects(&with(r#"storage = "shared""#, r#"storage = "nfs""#), &[], &["bad.toml:11:11", "`shared`", "`local`"]);
    rejects(&with(r#"cadence = "optimal""#, r#"cadence = "daly""#), &[], &["bad.toml:21:11", "`optimal`"]);
    rejects(&with(r#"last_segment = "full""#, r#"last_segment = "cut""#), &[], &["bad.toml:18:16", "truncated"]);
    rejects(&with("replications = 10", "replications = 1"), &[], &["bad.toml:4:16", "run.replications", "≥ 2"]);
    rejects(GOOD, &["--reps", "1"], &["--reps 1", "≥ 2"]);
    rejects(
        &with(r#"runtime_ratio = "usage-weighted""#, "runtime_ratio = -0.5"),
        &[],
        &["bad.toml:17:17", "schedule.runtime_ratio", "> 0"],
    );
    rejects_in(
        "bad.toml",
        GOOD,
        "nodes,requested_s\n16,3600\n",
        &[],
        &["bad.toml:17:17", "no actual-duration column", "runtime_ratio = 1.0"],
    );
    rejects_in("bad.toml", GOOD, "nodes,requested_s,actual_s\n16,3600,0\n", &[], &["every job's actual duration is 0"]);
    // A periodic cadence needs a checkpoint cost.
    rejects(
        &with(r#"checkpoint_bytes = "200 GB""#, r#"checkpoint_bytes = "0 B""#),
        &[],
        &["bad.toml:9:20", "needs a checkpoint cost > 0", "policy.cadence = \"none\""],
    );
}

#[test]
fn a_rate_that_makes_every_restart_fail_is_rejected() {
    // R₀ = 1 per node-hour: a restart of the 512-node job (u_r = 2.7 nh) is struck ~2.7
    // times on average: accepted. R₀ = 10: e^27 attempts: rejected, with the bound.
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("good.toml"), GOOD).unwrap();
    fs::write(tmp.path().join("jobs.csv"), GOOD_CSV).unwrap();
    let file = tmp.path().join("good.toml");
    let out = tmp.path().join("out");
    let o = ckptsim(&["efficiency", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--failure-rate", "1"]);
    ok(&o);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("warning: bad: point 0: 99.9")
            && stderr.contains("% of the jobs are expected to end by a failure")
    );
    let p = &json_file(tmp.path(), "bad")["points"][0];
    assert!(p["warnings"][0].as_str().unwrap().contains("barely completes a job"), "{p}");
    assert!(p["failed_jobs_model"].as_f64().unwrap() > 1.99);
    rejects(
        &with("failure_rate = 1e-4", "failure_rate = 10"),
        &[],
        &["bad.toml:8:16", "machine.failure_rate", "practically never completes", "512-node jobs", "failure_rate ≤"],
    );
    // On the shipped small schedule (jobs of up to 4096 nodes) R₀ = 1 is already too much.
    let o = ckptsim(&[
        "efficiency",
        "scenarios/small-schedule.toml",
        "--out",
        out.join("small").to_str().unwrap(),
        "--set",
        "machine.failure_rate=1",
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--set machine.failure_rate=1") && stderr.contains("4096-node jobs"), "{stderr}");
    assert!(!out.join("small").exists());
}

#[test]
fn bad_sweeps() {
    let sweep = |s: &str| format!("{GOOD}\n[sweep]\n{s}\n");
    rejects(&sweep(r#""policy.factor" = [1, -2]"#), &[], &["bad.toml:25:23", "policy.factor", "> 0"]);
    rejects(&sweep(r#""machine.bandwidth" = ["6 TB/s", 6]"#), &[], &["bad.toml:25:34", "bare number 6"]);
    rejects(&sweep(r#""schedule.file" = ["a.csv"]"#), &[], &["bad.toml:25:19", "accepted sweep keys"]);
    rejects(&sweep(r#""machine.typo" = [1]"#), &[], &["bad.toml:25:19", "unknown field `typo`"]);
    rejects(&sweep(r#""policy.factor" = []"#), &[], &["bad.toml:25:19", "at least one value"]);
    rejects(&sweep(r#""machine.failure_rate" = [1e-4, 10]"#), &[], &["bad.toml:25:33", "practically never completes"]);
    rejects(GOOD, &["--set", "sweep.policy.factor=[1]"], &["sweeps cannot be set"]);
}

/// A rate, bandwidth, size or factor so tiny (or large) that a quantity computed from it
/// underflows or overflows is blamed on that key, with the value and what is accepted; the
/// error used to blame `machine.checkpoint_bytes` whatever the user wrote.
#[test]
fn tiny_rates_and_bandwidths_blame_their_own_key() {
    rejects(
        &with("failure_rate = 1e-4", "failure_rate = 1e-320"),
        &[],
        &["bad.toml:8:16", "key `machine.failure_rate`", "1e-320 per node-hour is too small", "≥ 1e-308"],
    );
    rejects(
        &with(r#"bandwidth = "6 TB/s""#, r#"bandwidth = "1e-320 GB/s""#),
        &[],
        &[
            "bad.toml:10:13",
            "key `machine.bandwidth`",
            "too slow",
            "accepted for this checkpoint size and schedule is a bandwidth ≥",
        ],
    );
    rejects(
        GOOD,
        &["--set", "machine.bandwidth=1e-300 B/s"],
        &["--set 'machine.bandwidth=1e-300 B/s'", "key `machine.bandwidth`", "1e-300 B/s is too slow"],
    );
    rejects(
        &with(r#"checkpoint_bytes = "200 GB""#, r#"checkpoint_bytes = "1e-320 B""#),
        &[],
        &["bad.toml:9:20", "key `machine.checkpoint_bytes`", "1e-320 B per node", "underflows", "checkpoint_bytes ≥"],
    );
    rejects(
        &with("factor = 1.0", "factor = 1e-320"),
        &[],
        &["bad.toml:22:10", "key `policy.factor`", "1e-320 gives", "underflows", "accepted here is a factor from"],
    );
    rejects(
        &with("factor = 1.0", "factor = 1.7e308"),
        &[],
        &["bad.toml:22:10", "key `policy.factor`", "1.7e308 gives", "overflows", "accepted here is a factor from"],
    );
}

/// A tiny duration in a schedule or a tiny runtime ratio is refused with its value and why
/// (it was reported as a job using 0 node-hours, blaming the ratio, or ran on).
#[test]
fn tiny_durations_say_their_value() {
    let h = "Node Count,Requested Duration,Actual Duration\n";
    rejects_csv(
        &format!("{h}16,1e-320,0\n16,3600,1800\n"),
        &["jobs.csv:2:", "key `Requested Duration`", "`1e-320` s is too short", "underflows", "from 1e-300 to 1e100"],
    );
    rejects_csv(
        &format!("{h}16,3600,1e-320\n512,3600,0\n"),
        &["jobs.csv:2:", "key `Actual Duration`", "`1e-320` s is too short", "≥ 0 (0, or from 1e-300 to 1e100)"],
    );
    for tiny in ["1e-320", "5e-324"] {
        rejects(
            &with(r#"runtime_ratio = "usage-weighted""#, &format!("runtime_ratio = {tiny}")),
            &[],
            &[
                "bad.toml:17:17",
                "key `schedule.runtime_ratio`",
                &format!("{tiny} is out of range: the 16-node jobs of 3600 s requested"),
                "underflows",
                "accepted for this schedule is a ratio from",
            ],
        );
    }
    // Actual durations that are not 0 but negligible next to the requested ones.
    rejects_in(
        "bad.toml",
        GOOD,
        "nodes,requested_s,actual_s\n1,1e100,1e-300\n",
        &[],
        &["bad.toml:17:17", "schedule.runtime_ratio", "the quotient underflows to 0", "at most 1e-300 s"],
    );
}

/// A negative or zero size or bandwidth is repeated as written, with its unit (it was shown
/// in bytes without one: `-1000000000 is out of range`).
#[test]
fn out_of_range_sizes_keep_their_unit() {
    rejects(
        &with(r#"checkpoint_bytes = "200 GB""#, r#"checkpoint_bytes = "-1 GB""#),
        &[],
        &["bad.toml:9:20", "key `machine.checkpoint_bytes`", "\"-1 GB\" is out of range", "accepted is a size ≥ 0"],
    );
    rejects(
        GOOD,
        &["--bandwidth", "-1 GB/s"],
        &[
            "--bandwidth '-1 GB/s': key `machine.bandwidth`",
            "\"-1 GB/s\" is out of range",
            "accepted is a bandwidth > 0",
        ],
    );
    rejects(
        &with(r#"bandwidth = "6 TB/s""#, r#"bandwidth = "0 TB/s""#),
        &[],
        &["bad.toml:10:13", "\"0 TB/s\" is out of range", "accepted is a bandwidth > 0"],
    );
    // Plain numbers too small for plain decimals are shown in scientific notation.
    rejects(
        &with("failure_rate = 1e-4", "failure_rate = -1e-320"),
        &[],
        &["bad.toml:8:16", "-1e-320 is out of range", "> 0"],
    );
}

/// An empty schedule path says so (it printed `no such file:  (` or named the scenario's
/// folder as "a folder, not a file").
#[test]
fn an_empty_schedule_path() {
    rejects(GOOD, &["--set", "schedule.file="], &["--set schedule.file=", "key `schedule.file`", "the path is empty"]);
    rejects(&with(r#"file = "jobs.csv""#, r#"file = """#), &[], &["bad.toml:16:8", "the path is empty"]);
}

/// An efficiency study that is not UTF-8 is located at its first bad byte, as `ckptsim run`
/// locates a run scenario.
#[test]
fn a_study_that_is_not_text() {
    let mut bytes = GOOD.as_bytes().to_vec();
    bytes.extend_from_slice(b"# caf\xe9\n");
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("bad.toml"), bytes).unwrap();
    fs::write(tmp.path().join("jobs.csv"), GOOD_CSV).unwrap();
    let out = tmp.path().join("out");
    let o = ckptsim(&["efficiency", tmp.path().join("bad.toml").to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    let at = format!("bad.toml:{}:6", GOOD.lines().count() + 1);
    assert!(stderr.contains(&at) && stderr.contains("0xE9 is not UTF-8"), "{stderr}");
    assert!(!out.exists(), "{out:?}");
}

/// Where no failure strikes, every replication gives the same e (SE = 0): z(e) is `—`, not
/// `+inf` or `NaN`, and the footer says why.
#[test]
fn a_point_without_spread_has_no_z() {
    let (o, _dir) = efficiency(&["scenarios/small-schedule.toml", "--reps", "5", "--failure-rate", "1e-30"]);
    let table = ok(&o);
    assert!(!table.contains("inf") && !table.contains("NaN"), "{table}");
    assert!(table.contains("z(e) = —: every replication gave the same e"), "{table}");
}

/// More than 10¹² checkpoints per job is refused, blaming what the user can change: a given
/// runtime ratio that stretches the jobs (it was blamed on policy.factor, "accepted is a larger
/// factor", though no factor would do), or else the factor, with the least one accepted. The
/// bounds stated are the edges: the printed ratio runs, one 1% above it is refused.
#[test]
fn too_many_checkpoints_blame_the_ratio_or_the_factor_with_a_bound() {
    let ratio = |r: &str| with(r#"runtime_ratio = "usage-weighted""#, &format!("runtime_ratio = {r}"));
    rejects(
        &ratio("1e300"),
        &[],
        &[
            "bad.toml:17:17",
            "key `schedule.runtime_ratio`",
            "1e300 makes the 16-node jobs use",
            "accepted here is a ratio ≤",
        ],
    );
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("jobs.csv"), GOOD_CSV).unwrap();
    let run = |toml: &str| {
        fs::write(tmp.path().join("s.toml"), toml).unwrap();
        let file = tmp.path().join("s.toml");
        let out = tmp.path().join("out");
        ckptsim(&[
            "efficiency",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--reps",
            "2",
            "--format",
            "csv",
        ])
    };
    let o = run(&ratio("1e300"));
    let stderr = String::from_utf8_lossy(&o.stderr);
    let most: f64 = stderr.split("accepted here is a ratio ≤ ").nth(1).unwrap().trim().parse().unwrap();
    assert_eq!(run(&ratio(&format!("{most:e}"))).status.code(), Some(0), "the stated bound {most:e} runs");
    assert_eq!(run(&ratio(&format!("{:e}", most * 1.01))).status.code(), Some(2), "1% above {most:e} is refused");
    // A factor that shortens the cadence: the factor is blamed, and the ratio named as the
    // other way out because it was given.
    let tiny_factor = ratio(&format!("{most:e}")).replacen("factor = 1.0", "factor = 0.5", 1);
    let o = run(&tiny_factor);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    for part in ["key `policy.factor`", "accepted here is a factor ≥ ", "(or a schedule.runtime_ratio below"] {
        assert!(stderr.contains(part), "stderr lacks {part:?}:\n{stderr}");
    }
    let least: f64 =
        stderr.split("accepted here is a factor ≥ ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!(least > 0.5 && least <= 1.0, "{least}");
    let at_least = ratio(&format!("{most:e}")).replacen("factor = 1.0", &format!("factor = {least:e}"), 1);
    assert_eq!(run(&at_least).status.code(), Some(0), "the stated least factor {least:e} runs");
}

/// A bare 0 where a bandwidth goes is given a valid example ("0 TB/s" was refused in turn),
/// and an unquoted flag word is not called quoted.
#[test]
fn messages_fit_what_was_typed() {
    rejects(GOOD, &["--bandwidth", "0"], &["the bare number 0 is not a bandwidth", "for example \"6 TB/s\""]);
    rejects(GOOD, &["--bandwidth", "6"], &["for example \"6 TB/s\""]);
    rejects(GOOD, &["--checkpoint-bytes", "-1"], &["for example \"200 GB\""]);
    rejects(
        GOOD,
        &["--failure-rate", "abc"],
        &["--failure-rate abc: key `machine.failure_rate`: \"abc\" is text, not a number"],
    );
}

/// A schedule duration beyond a scenario's bound (1e100 s) is refused at its line and column
/// (1e300 s was blamed on policy.factor, "more than 1e12 checkpoints").
#[test]
fn absurd_schedule_durations_name_their_row() {
    let h = "Node Count,Requested Duration,Actual Duration\n";
    rejects_csv(
        &format!("{h}16,3600,1800\n5,1e300,1\n"),
        &["jobs.csv:3:", "key `Requested Duration`", "`1e300` s is too long", "(from 1e-300 to 1e100)"],
    );
    rejects_csv(&format!("{h}16,3600,2e100\n"), &["jobs.csv:2:", "key `Actual Duration`", "`2e100` s is too long"]);
}

/// Replications of the study whose expected failed-job counts are checked.
const FAILED_JOBS_REPS: u64 = 400;

/// What a study makes of its scenario: the runtime ratio is 1 for a schedule without actual
/// durations, `schedule.runtime_ratio` can be swept, and each point's expected number of
/// failed jobs weighs every job type by its count, as the simulation counts the jobs.
#[test]
fn default_and_swept_ratios_and_the_expected_failed_jobs() {
    use ckptsim::efficiency::{self, RatioSource};
    let tmp = tempfile::tempdir().unwrap();
    // Requested times only: eight 64-node jobs of 10 h and one 512-node job of a day.
    let csv = format!("nodes,requested_s\n{}512,86400\n", "64,36000\n".repeat(8));
    fs::write(tmp.path().join("jobs.csv"), csv).unwrap();
    let study = "[machine]\nfailure_rate = 1e-4\n[schedule]\nfile = \"jobs.csv\"\n";
    let path = tmp.path().join("study.toml");
    let plain = efficiency::parse(study, &path, &[]).unwrap_or_else(|e| panic!("{e}"));
    let ratios = |sc: &efficiency::EfficiencyScenario| -> Vec<(f64, RatioSource)> {
        sc.points.iter().map(|p| (p.runtime_ratio, p.runtime_ratio_source)).collect()
    };
    assert_eq!(ratios(&plain), [(1.0, RatioSource::Default)]);
    // One replication has no interval: refused by the library as by the CLI.
    let one = efficiency::run(&plain, 1, 3, &|_| {}).unwrap_err().to_string();
    assert!(one.contains("≥ 2"), "{one}");
    let swept = format!("{study}[sweep]\n\"schedule.runtime_ratio\" = [0.5, 2]\n");
    let swept = efficiency::parse(&swept, &path, &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ratios(&swept), [(0.5, RatioSource::Given), (2.0, RatioSource::Given)]);
    let result = efficiency::run(&swept, FAILED_JOBS_REPS, 3, &|_| {}).unwrap();
    for (p, r) in swept.points.iter().zip(&result.points) {
        let sim = &r.sim.failed_jobs;
        assert!(
            (sim.mean - r.failed_jobs_model).abs() <= SE_TOLERANCE * sim.se,
            "ratio {}: {} ± {} (SE) failed jobs simulated, {} expected",
            p.runtime_ratio,
            sim.mean,
            sim.se,
            r.failed_jobs_model
        );
    }
}

/// Relative distance from the restart-exposure limit of the rates either side of it.
const EDGE: f64 = 1e-3;

/// The largest jobs' restarts set the highest failure rate accepted, R₀·u_r ≤
/// MAX_RESTART_EXPOSURE: just below it a study loads, just above it is refused.
#[test]
fn the_failure_rate_is_refused_just_beyond_the_restart_exposure_limit() {
    use ckptsim::efficiency::{self, MAX_RESTART_EXPOSURE};
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("jobs.csv"), GOOD_CSV).unwrap();
    let path = tmp.path().join("bad.toml");
    // GOOD's machine is Frontier's but for R₀; its largest jobs have 512 nodes.
    let limit = MAX_RESTART_EXPOSURE / ckptsim::usage::Machine::frontier().u_r(512);
    for (rate, accepted) in [(limit * (1.0 - EDGE), true), (limit * (1.0 + EDGE), false)] {
        let text = with("failure_rate = 1e-4", &format!("failure_rate = {rate}"));
        let got = efficiency::parse(&text, &path, &[]).map(|_| ()).map_err(|e| e.to_string());
        assert_eq!(got.is_ok(), accepted, "R₀ = {rate}, limit {limit}: {got:?}");
    }
}

/// The table names the machine its figures assume: a schedule CSV runs on Frontier's
/// parameters, and a `--set` of a machine key is shown as set (a scenario's description may
/// still name the file's values).
#[test]
fn the_table_names_the_machine() {
    let (o, _tmp) = efficiency(&["scenarios/schedules/small.csv", "--reps", "10"]);
    let table = ok(&o);
    assert!(
        table.contains("machine: R₀ = 2e-5 per node-hour, 200 GB per node at 6 TB/s, shared storage, τ₀ = 2 s, α = 1"),
        "{table}"
    );
    let (o, _tmp) = efficiency(&[
        "scenarios/small-schedule.toml",
        "--reps",
        "10",
        "--bandwidth",
        "1.5 TB/s",
        "--set",
        "machine.setup=0.25 s",
    ]);
    let table = ok(&o);
    assert!(
        table.contains("R₀ = 1e-4 per node-hour, 200 GB per node at 1.5 TB/s, shared storage, τ₀ = 0.25 s"),
        "{table}"
    );
}

/// The line under the table lists the files written as `run` does: `a, b and c`.
#[test]
fn the_wrote_line_reads_as_runs() {
    let (o, tmp) = efficiency(&["scenarios/small-schedule.toml", "--reps", "4", "--plot", "--wide"]);
    let table = ok(&o);
    let out = tmp.path().join("out");
    let want = format!(
        "  wrote {}, {} and {}\n\n",
        out.join("small-schedule.csv").display(),
        out.join("small-schedule.json").display(),
        out.join("small-schedule-efficiency.svg").display()
    );
    assert!(table.ends_with(&want), "{table}");
}
