//! Issue acceptance 1: `ckptsim run` on the Young–Daly example prints the table and writes
//! CSV and JSON with the contract's columns; and no command's results replace an input or
//! the progress an interrupted run saved.

use super::ckptsim;
use std::fs;

/// The columns the output contract requires (DESIGN.md, "Output contract"), besides the
/// swept keys.
const CONTRACT_COLUMNS: [&str; 23] = [
    "point",
    "interval_s",
    "checkpoint_s",
    "restart_s",
    "downtime_s",
    "mtbf_s",
    "work_s",
    "replications",
    "overhead_mean",
    "overhead_ci_low",
    "overhead_ci_high",
    "overhead_sd",
    "waste_mean",
    "wall_mean_s",
    "wall_p50_s",
    "wall_p95_s",
    "wall_p99_s",
    "failures_mean",
    "checkpoints_mean",
    "model",
    "model_overhead",
    "job.checkpoint",
    "policy.factor",
];

#[test]
fn run_prints_the_table_and_writes_csv_and_json() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("nested/out");
    let o = ckptsim(&["run", "scenarios/young-daly.toml", "--reps", "300", "--wide", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8(o.stdout).unwrap();
    assert!(table.contains("overhead mean ± 95% CI"), "{table}");
    assert!(table.contains("job.checkpoint") && table.contains("policy.factor"), "{table}");
    assert_eq!(
        table.lines().filter(|l| l.contains(" ± ") && !l.contains("CI")).count(),
        15,
        "one table row per sweep point:\n{table}"
    );

    let csv = fs::read_to_string(out.join("young-daly.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    for c in CONTRACT_COLUMNS {
        assert!(header.contains(&c), "CSV lacks column {c}: {header:?}");
    }
    assert_eq!(lines.count(), 15, "one row per sweep point");

    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("young-daly.json")).unwrap()).unwrap();
    assert_eq!(json["scenario"], "young-daly");
    assert_eq!(json["seed"], 42);
    assert_eq!(json["replications"], 300);
    assert!(json["version"].is_string());
    let points = json["points"].as_array().unwrap();
    assert_eq!(points.len(), 15);
    for c in CONTRACT_COLUMNS {
        assert!(points[0].get(c).is_some(), "JSON point lacks {c}");
    }
    assert_eq!(points[0]["model"], "exact-exponential");
    assert!(points[0]["model_overhead"].as_f64().unwrap() > 0.0);
}

/// Relative slack of identities between output columns: each side is a sum of at most a few
/// thousand doubles, rounded once per replication.
const IDENTITY_RTOL: f64 = 1e-9;

/// Every row's figures are what their names say: the interval is t_{n−1}·sd/√n around the
/// mean, the wall time is W·(1 + overhead) and W + writes + lost + recovery, the waste obeys
/// Jensen's bound, z is (mean − model)/SE and the quantiles are ordered.
#[test]
fn output_columns_are_consistent_with_their_definitions() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_str().unwrap();
    let o = ckptsim(&["run", "scenarios/young-daly.toml", "--reps", "300", "--out", dir, "--format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let close = |got: f64, want: f64, what: &str| {
        assert!((got - want).abs() <= IDENTITY_RTOL * want.abs(), "{what}: {got:e} vs {want:e}");
    };
    for p in doc["points"].as_array().unwrap() {
        let f = |key: &str| p[key].as_f64().unwrap_or_else(|| panic!("{key} in {p}"));
        let n = p["replications"].as_u64().unwrap();
        let (mean, sd, work) = (f("overhead_mean"), f("overhead_sd"), f("work_s"));
        let se = sd / (n as f64).sqrt();
        let half = ckptsim::stats::t_975(n - 1) * se;
        let what = |k: &str| format!("point {} {k}", p["point"]);
        close(f("overhead_ci_low"), mean - half, &what("ci_low"));
        close(f("overhead_ci_high"), mean + half, &what("ci_high"));
        close(f("wall_mean_s"), work * (1.0 + mean), &what("wall_mean_s"));
        close(f("checkpoint_time_mean_s"), f("checkpoints_mean") * f("checkpoint_s"), &what("checkpoint time"));
        // Restart policy: wall = work + writes + lost + recovery, replication by replication.
        let parts = work + f("checkpoint_time_mean_s") + f("lost_mean_s") + f("recovery_mean_s");
        close(f("wall_mean_s"), parts, &what("wall_mean_s parts"));
        // waste = 1 − 1/(1 + H) is concave in H: 0 < E[waste] ≤ E[H]/(1 + E[H]).
        let waste = f("waste_mean");
        assert!(waste > 0.0 && waste <= mean / (1.0 + mean) * (1.0 + IDENTITY_RTOL), "{}: waste {waste}", what(""));
        close(f("model_z"), (mean - f("model_overhead")) / se, &what("model_z"));
        let (p50, p95, p99) = (f("wall_p50_s"), f("wall_p95_s"), f("wall_p99_s"));
        assert!(work < p50 && p50 <= p95 && p95 <= p99, "{}: quantiles {p50} {p95} {p99}", what(""));
    }
}

#[test]
fn progress_bar_is_hidden_when_stderr_is_not_a_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let o = ckptsim(&["run", "scenarios/young-daly.toml", "--reps", "50", "--out", tmp.path().to_str().unwrap()]);
    assert!(o.status.success());
    assert!(o.stderr.is_empty(), "stderr: {}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn json_format_on_stdout_matches_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_str().unwrap();
    let o = ckptsim(&["run", "scenarios/daly-2006.toml", "--reps", "20", "--out", dir, "--format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.stdout, fs::read(tmp.path().join("daly-2006.json")).unwrap());
}

/// Swept values keep their TOML types in the JSON: numbers and booleans are JSON numbers and
/// booleans (`jq 'select(.["policy.factor"] < 1)'` works), strings stay strings; the CSV
/// writes them as written.
#[test]
fn json_swept_values_keep_their_types() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("typed.toml");
    fs::write(
        &path,
        "[run]\nreplications = 4\n[job]\nwork = \"1 h\"\ncheckpoint = \"1 min\"\nrestart = \"1 min\"\n\
         [failures]\nmtbf = \"1 h\"\n[policy]\ninterval = \"young\"\n\
         [sweep]\n\"job.final_checkpoint\" = [true, false]\n\"job.nodes\" = [1, 2]\n\
         \"policy.factor\" = [1.0, 1e-1]\n\"job.restart\" = [\"2 min\"]\n",
    )
    .unwrap();
    let dir = tmp.path().join("out");
    let o = ckptsim(&["run", path.to_str().unwrap(), "--out", dir.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let points = doc["points"].as_array().unwrap();
    assert_eq!(points.len(), 8);
    assert_eq!(points[0]["job.final_checkpoint"], serde_json::json!(true));
    assert_eq!(points[7]["job.final_checkpoint"], serde_json::json!(false));
    assert_eq!(points[0]["job.nodes"], serde_json::json!(1));
    assert!(points[0]["job.nodes"].is_u64());
    assert_eq!(points[0]["policy.factor"], serde_json::json!(1.0));
    assert_eq!(points[1]["policy.factor"], serde_json::json!(0.1));
    assert_eq!(points[0]["job.restart"], serde_json::json!("2 min"));
    let csv = fs::read_to_string(dir.join("typed.csv")).unwrap();
    let first = csv.lines().nth(1).unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"policy.factor\": 1.0,"));
    assert!(first.starts_with("0,true,1,1.0,2 min,"), "the CSV keeps the values as written: {first}");
    // optimize's cases: one per combination of the swept keys other than policy.*.
    let o = ckptsim(&[
        "optimize",
        path.to_str().unwrap(),
        "--set",
        "job.final_checkpoint=true",
        "--set",
        "job.restart=2 min",
        "--out",
        dir.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let labels: Vec<&serde_json::Value> =
        doc["cases"].as_array().unwrap().iter().map(|c| &c["labels"]["job.nodes"]).collect();
    assert_eq!(labels, [&serde_json::json!(1), &serde_json::json!(2)]);
}

#[test]
fn set_on_a_swept_key_fixes_it() {
    let sc = super::load("scenarios/young-daly.toml", &["job.checkpoint=300 s"]);
    assert_eq!(sc.axes.len(), 1, "the job.checkpoint axis is dropped");
    assert_eq!(sc.points.len(), 5);
    assert!(sc.points.iter().all(|p| p.job.checkpoint_s == 300.0));
}

/// Several `--set` may add a table whose keys are required together: the table is judged
/// once all are in, and a failure that stays is blamed on the `--set` that brought it.
#[test]
fn sets_add_a_table_key_by_key() {
    let sc = super::load(
        "scenarios/young-daly.toml",
        &[
            "failures.burst.branching=0.5",
            "failures.burst.decay=30 min",
            "topology.racks=4",
            "topology.nodes_per_rack=8",
        ],
    );
    assert!(sc.points[0].failures.describe().contains("bursts n = 0.5"), "{}", sc.points[0].failures.describe());
    let sets = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let err = |args: &[&str]| match ckptsim::scenario::load(&super::root("scenarios/young-daly.toml"), &sets(args)) {
        Ok(_) => panic!("{args:?} accepted"),
        Err(e) => e.to_string(),
    };
    let e = err(&["failures.burst.branching=2", "failures.burst.decay=30 min"]);
    assert!(e.contains("--set failures.burst.branching=2: key `failures.burst.branching`"), "{e}");
    let e = err(&["failures.burst.decay=-5 min", "failures.burst.branching=0.5"]);
    assert!(e.contains("--set 'failures.burst.decay=-5 min': key `failures.burst.decay`"), "{e}");
    let e = err(&["failures.burst.branching=0.5"]);
    assert!(e.contains("--set failures.burst.branching=0.5") && e.contains("missing field `decay`"), "{e}");
    // A later `--set` that mends the table clears the earlier failure; one that breaks it
    // again is blamed itself.
    let e = err(&["failures.burst.branching=0.5", "failures.burst.decay=30 min", "failures.burst.decay=0 s"]);
    assert!(e.contains("--set 'failures.burst.decay=0 s'"), "{e}");
    // Only the last `--set` of a key is in force: an overridden one is never blamed, nor is a
    // later one that merely reveals another's error.
    let e = err(&["job.work=true", "failures.burst.branching=0.5", "job.work=2e5 s"]);
    assert!(e.contains("--set failures.burst.branching=0.5:") && e.contains("missing field `decay`"), "{e}");
    let e = err(&["job.checkpoint=5 parsec", "job.restart=5 parsec", "job.checkpoint=2 min"]);
    assert!(e.contains("--set 'job.restart=5 parsec': key `job.restart`"), "{e}");
    let e = err(&["failures.burst.branching=0.5", "failures.burst.branching=0.6"]);
    assert!(e.contains("--set failures.burst.branching=0.6:"), "{e}");
}

/// `--set` on a key that only takes text keeps what was typed, even where it reads as a
/// number or a bool; quoted, it is the quoted text.
#[test]
fn set_text_keys_take_numbers_as_text() {
    let sc = super::load("scenarios/young-daly.toml", &["name=2024", "description=true"]);
    assert_eq!(sc.name, "2024");
    assert_eq!(sc.description.as_deref(), Some("true"));
    let sc = super::load("scenarios/young-daly.toml", &["name=\"7\""]);
    assert_eq!(sc.name, "7");
}

/// A reader that closes stdout early (`| head`) ends the command quietly, exit 0, as in a
/// pipeline; it printed "error: writing to stdout: Broken pipe".
#[test]
fn a_closed_stdout_pipe_ends_quietly() {
    let mut child = super::bin()
        .args(["validate", "--quick"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // Close the only reader before the command prints (it may rarely print first; it exits 0
    // quietly either way).
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("error") && !err.contains("panicked"), "{err}");
}

#[test]
fn unwritable_out_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("not-a-folder");
    fs::write(&file, "x").unwrap();
    // Under a file, or where the system refuses: bad usage (exit 2), before any replication.
    for (out, code) in [(file.join("sub"), 2), (std::path::PathBuf::from("/proc/ckptsim-cannot-write-here"), 2)] {
        let o = ckptsim(&["run", "scenarios/young-daly.toml", "--reps", "10", "--out", out.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(code), "{err}");
        assert!(err.contains("output folder") && err.contains(out.to_str().unwrap()), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// A full stdout (Linux's /dev/full answers every write with ENOSPC): a clear error, exit 1,
/// no panic; `run` has written its result files before showing them.
#[test]
fn a_full_stdout_is_a_clear_error() {
    let Ok(full) = fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("skipped: no /dev/full on this system");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_str().unwrap();
    let cases: [&[&str]; 4] = [
        &["run", "scenarios/young-daly.toml", "--reps", "10", "--out", out],
        &["formulas", "--checkpoint", "2min", "--mtbf", "3h"],
        &["validate", "--quick"],
        &["efficiency", "scenarios/small-schedule.toml", "--reps", "4", "--out", out],
    ];
    for args in cases {
        let o = super::bin()
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(full.try_clone().unwrap())
            .output()
            .expect("the binary runs");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("writing to stdout") && err.contains("No space left"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    assert!(tmp.path().join("young-daly.csv").exists() && tmp.path().join("young-daly.json").exists());
}

/// `formulas` and `trace stats` refuse a `--format` they cannot print (they used to
/// print their table instead): bad usage, exit 2, the accepted values named, nothing on stdout
/// and nothing in `--out`; the formats they can print still work.
#[test]
fn formats_a_command_cannot_print_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("log.csv");
    fs::write(&log, "time_s,node\n0,0\n100,1\n250,0\n").unwrap();
    let out = tmp.path().join("out");
    let (log, out_str) = (log.to_str().unwrap(), out.to_str().unwrap());
    let formulas: &[&str] = &["formulas", "--checkpoint", "5min", "--mtbf", "24h"];
    let optimize: &[&str] = &[
        "optimize",
        "scenarios/young-daly.toml",
        "--set",
        "job.checkpoint=2min",
        "--set",
        "policy.factor=1",
        "--reps",
        "100",
        "--out",
        out_str,
    ];
    let trace: &[&str] = &["trace", "stats", log, "--out", out_str];
    for (args, format, accepted) in
        [(formulas, "markdown", "table, csv, json"), (trace, "json", "table, csv"), (trace, "markdown", "table, csv")]
    {
        let o = ckptsim(&[args, &["--format", format]].concat());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?} --format {format}: {err}");
        assert!(o.stdout.is_empty(), "{args:?} --format {format}: printed {}", String::from_utf8_lossy(&o.stdout));
        assert!(
            err.contains(&format!("invalid value '{format}'"))
                && err.contains(&format!("[possible values: {accepted}]")),
            "{args:?} --format {format}: {err}"
        );
        assert!(!out.exists(), "{args:?} --format {format}: wrote {}", out.display());
    }
    for (args, format) in [(formulas, "csv"), (formulas, "json"), (trace, "csv"), (optimize, "markdown")] {
        let o = ckptsim(&[args, &["--format", format]].concat());
        assert!(o.status.success(), "{args:?} --format {format}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(!o.stdout.is_empty(), "{args:?} --format {format}");
    }
    // The table says which file it wrote, as run's and optimize's do (it wrote it silently),
    // and points to the replay by its table (it named `law = "trace"`, which is no law).
    let table = String::from_utf8(ckptsim(trace).stdout).unwrap();
    assert!(table.ends_with(&format!("  wrote {}\n\n", out.join("log-stats.csv").display())), "{table}");
    assert!(table.contains("a replay ([failures.trace])") && !table.contains("law = "), "{table}");
}

/// `run --plot` on a factor sweep whose every interval is infinite (`policy.interval =
/// "none"`) writes the wall-time plot and no overhead plot; it used to loop for ever in the
/// plotting library (and ignored SIGTERM there).
#[test]
fn plot_without_a_finite_interval_finishes() {
    let tmp = tempfile::tempdir().unwrap();
    let mut child = super::bin()
        .args(["run", "scenarios/young-daly.toml", "--reps", "10", "--plot", "--out"])
        .arg(tmp.path())
        .args(["--set", "policy.interval=none", "--set", "job.checkpoint=20s", "--set", "job.work=1h"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("run --plot did not finish within 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(status.success(), "{err}");
    assert!(tmp.path().join("young-daly-wall.svg").exists(), "the wall-time plot is written");
    assert!(!tmp.path().join("young-daly-overhead.svg").exists(), "no overhead plot without a finite interval");
}

/// Several scenarios cannot share stdout as CSV or JSON (two documents back to back are
/// neither): refused before any run, exit 2, nothing written; as tables they still run.
#[test]
fn several_scenarios_print_as_tables_only() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let two = ["run", "scenarios/young-daly.toml", "scenarios/bursts.toml", "--reps", "20", "--out"];
    for format in ["csv", "json"] {
        let o = ckptsim(&[&two[..], &[out.to_str().unwrap(), "--format", format]].concat());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{format}: {err}");
        assert!(err.contains(&format!("--format {format} with 2 scenarios")) && err.contains("markdown"), "{err}");
        assert!(!out.exists(), "{format}: {} written", out.display());
    }
    let o = ckptsim(&[&two[..], &[out.to_str().unwrap(), "--format", "markdown"]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.join("young-daly.json").exists() && out.join("bursts.json").exists());
    // A blank line ends the first table: without it the second heading would read as a row.
    let md = String::from_utf8(o.stdout).unwrap();
    assert!(md.contains("|\n\n**bursts**"), "{md}");
    // The same for efficiency's inputs (it printed two documents back to back, exit 0).
    let out = tmp.path().join("eff");
    let two = ["efficiency", "scenarios/small-schedule.toml", "scenarios/schedules/small.csv", "--reps", "2", "--out"];
    for format in ["csv", "json"] {
        let o = ckptsim(&[&two[..], &[out.to_str().unwrap(), "--format", format]].concat());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{format}: {err}");
        assert!(err.contains(&format!("--format {format} with 2 inputs")) && err.contains("markdown"), "{err}");
        assert!(!out.exists(), "{format}: {} written", out.display());
    }
    let o = ckptsim(&[&two[..], &[out.to_str().unwrap(), "--format", "markdown"]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = String::from_utf8(o.stdout).unwrap();
    assert!(md.contains("|\n\n**small**"), "{md}");
}

/// A point where every replication gives the same overhead (no failure can strike a job
/// this short) has SE = 0: its z cell is `—`, not `-inf` or `NaN`, and the footer says why.
#[test]
fn a_point_without_spread_has_no_z() {
    let tmp = tempfile::tempdir().unwrap();
    let args = ["run", "scenarios/young-daly.toml", "--reps", "20", "--out", tmp.path().to_str().unwrap()];
    let o = ckptsim(&[&args[..], &["--set", "job.work=1s", "--set", "failures.mtbf=1000000h"]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8(o.stdout).unwrap();
    // The `wrote …` line holds the temporary folder's random name, which may spell either.
    let cells: String = table.lines().filter(|l| !l.trim_start().starts_with("wrote ")).collect();
    assert!(!cells.contains("inf") && !cells.contains("NaN"), "{table}");
    assert!(table.contains(" — ") && table.contains("z = —: every replication gave the same overhead"), "{table}");
    let o = ckptsim(
        &[&args[..], &["--format", "markdown", "--set", "job.work=1s", "--set", "failures.mtbf=1000000h"]].concat(),
    );
    let md = String::from_utf8(o.stdout).unwrap();
    assert!(o.status.success() && !md.contains("inf") && md.contains("—"), "{md}");
}

/// The line under the table names every file written, plots included, and `--plot` says why
/// it wrote no overhead plot where there is no interval axis; `optimize` lists its files too.
#[test]
fn the_files_written_are_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_str().unwrap();
    let one_point = ["--set", "policy.factor=1", "--set", "job.checkpoint=2 min", "--out", out];
    let o =
        ckptsim(&[&["run", "scenarios/young-daly.toml", "--reps", "20", "--plot", "--wide"][..], &one_point].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8(o.stdout).unwrap();
    let wall = tmp.path().join("young-daly-wall.svg");
    assert!(wall.exists() && table.contains(&format!("and {}", wall.display())), "{table}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("no overhead plot: it needs a swept policy.factor"));
    let o = ckptsim(&[&["optimize", "scenarios/young-daly.toml", "--reps", "200", "--wide"][..], &one_point].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8(o.stdout).unwrap();
    for ext in ["json", "csv", "svg"] {
        let file = tmp.path().join(format!("young-daly-optimize.{ext}"));
        assert!(file.exists() && table.contains(&file.display().to_string()), "{ext}: {table}");
    }
}

/// A result file never replaces an input: `efficiency jobs.csv --out <its folder>` replaced the
/// schedule with its results CSV (exit 0), and a replayed log named like the scenario's CSV
/// would go the same way. Now: exit 2 before any work, the input untouched, nothing written.
#[test]
fn results_never_replace_their_inputs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let schedule = "nodes,requested_s,actual_s\n16,3600,1800\n512,86400,40000\n";
    fs::write(dir.join("jobs.csv"), schedule).unwrap();
    let log = "time_s,node\n0,0\n100,1\n5000,0\n9000,2\n";
    fs::write(dir.join("s.csv"), log).unwrap();
    let scenario = "[job]\nwork = \"10 h\"\ncheckpoint = \"1 min\"\nrestart = \"1 min\"\nnodes = 2\n\
                    [failures.trace]\nfile = \"s.csv\"\n[policy]\ninterval = \"1 h\"\n[run]\nreplications = 20\n";
    fs::write(dir.join("s.toml"), scenario).unwrap();
    let d = dir.to_str().unwrap();
    let cases: [(Vec<String>, &str, &str); 2] = [
        (vec!["efficiency".into(), format!("{d}/jobs.csv"), "--reps".into(), "2".into()], "jobs.csv", schedule),
        (vec!["run".into(), format!("{d}/s.toml")], "s.csv", log),
    ];
    for (args, input, text) in cases {
        let before = super::entries(dir);
        let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
        args.extend(["--out", d]);
        let o = ckptsim(&args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}:\n{stderr}");
        assert!(stderr.contains(&format!("is the input {d}/{input}")), "{stderr}");
        assert!(stderr.contains("would replace the input"), "{stderr}");
        assert_eq!(fs::read_to_string(dir.join(input)).unwrap(), text, "{input} was changed");
        let after = super::entries(dir);
        assert_eq!(before.len(), after.len(), "files written: {after:?}");
    }
    // The same run into another folder works: the guard is about the paths only.
    let elsewhere = dir.join("out");
    let o = ckptsim(&["run", &format!("{d}/s.toml"), "--out", elsewhere.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A run without `--resume` keeps the progress an interrupted run saved: it deleted it (exit
/// 0, even with another seed and count), losing the interrupted work. Now exit 2 with the
/// count saved, the file's bytes untouched; `--resume` is the way on.
#[test]
fn a_fresh_run_does_not_discard_saved_progress() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("saved");
    super::run_then_sigterm(&dir);
    let partial = dir.join("young-daly.partial.json");
    let saved = fs::read(&partial).unwrap();
    for extra in [&["--reps", "3000000"][..], &["--reps", "50", "--seed", "9"]] {
        let mut args = vec!["run", "scenarios/young-daly.toml", "--out", dir.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = ckptsim(&args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {stderr}");
        for part in ["young-daly.partial.json holds the saved progress", "of 3000000 replications, seed 42", "--resume"]
        {
            assert!(stderr.contains(part), "stderr lacks {part:?}: {stderr}");
        }
        assert_eq!(fs::read(&partial).unwrap(), saved, "the saved progress was changed");
        assert!(!dir.join("young-daly.csv").exists(), "a result was written");
    }
}

/// The line under the run table states when z means disagreement: |z| > 4 for large samples,
/// but with few replications z follows Student's t, and the threshold of the same tail is
/// stated (at 2 replications a z of 20 is no evidence; the line said |z| > 4 regardless).
#[test]
fn the_z_rule_follows_the_replications() {
    let tmp = tempfile::tempdir().unwrap();
    let footer = |reps: &str| {
        let o = ckptsim(&[
            "run",
            "scenarios/young-daly.toml",
            "--reps",
            reps,
            "--wide",
            "--out",
            tmp.path().to_str().unwrap(),
        ]);
        assert!(o.status.success());
        String::from_utf8(o.stdout).unwrap().lines().find(|l| l.contains("z = (simulated")).unwrap().to_string()
    };
    let few = footer("2");
    assert!(few.contains("with 2 replications it follows Student's t with 1 degree of freedom"), "{few}");
    let threshold: f64 = few.split("|z| > ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!(threshold > 1e4, "{few}");
    assert!(footer("30").contains("|z| > 4.7 "), "at 30 replications");
    assert!(footer("2000").contains("|z| > 4 means the simulation and the closed form disagree"));
}

/// Where no point has a closed form (a per-node Weibull platform), the line under the table
/// says so and points to `poisson_overhead`, instead of explaining a z that no row has.
#[test]
fn a_table_without_a_closed_form_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let o = ckptsim(&[
        "run",
        "scenarios/weibull-platform.toml",
        "--reps",
        "20",
        "--wide",
        "--out",
        tmp.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(stdout.contains("no closed form applies exactly") && stdout.contains("poisson_overhead"), "{stdout}");
    assert!(!stdout.contains("z = (simulated"), "{stdout}");
    // The Poisson reference is a column of its own, the CSV's `poisson_overhead` to 5 decimals.
    let header = stdout.lines().find(|l| l.trim_start().starts_with("point")).unwrap();
    assert!(header.contains(" Poisson "), "{header}");
    let csv = std::fs::read_to_string(tmp.path().join("weibull-platform.csv")).unwrap();
    let mut lines = csv.lines();
    let cols: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = cols.iter().position(|c| *c == "poisson_overhead").unwrap();
    let first: f64 = lines.next().unwrap().split(',').nth(at).unwrap().parse().unwrap();
    assert!(stdout.contains(&format!("{first:.5}")), "{first}: {stdout}");
    // Where every point has a closed form, the column would repeat it: not shown.
    let o = ckptsim(&["run", "scenarios/young-daly.toml", "--reps", "20", "--out", tmp.path().to_str().unwrap()]);
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(!stdout.contains(" Poisson "), "{stdout}");
}

/// The table's header names the failure model the scenario's keys built, defaults included
/// (a Weibull platform's per-node renewal and stationary start), or says that the sweep
/// changes it. A one-node job with exponential failures reads `exponential`: no node count,
/// no start (it read `nodes 1×exponential stationary`).
#[test]
fn the_table_names_the_failure_model() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_str().unwrap();
    let o = ckptsim(&["run", "scenarios/weibull-platform.toml", "--reps", "4", "--out", out]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8(o.stdout).unwrap();
    assert_eq!(
        table.lines().nth(2),
        Some("  failures: nodes 1024×weibull(shape 0.7) stationary; job MTBF 3.100 h"),
        "{table}"
    );
    let o = ckptsim(&["run", "scenarios/weibull-job.toml", "--reps", "4", "--out", out]);
    let table = String::from_utf8(o.stdout).unwrap();
    assert!(table.lines().nth(2).unwrap().starts_with("  failures: per point (the sweep changes them"), "{table}");
    // The job's MTBF too: with bursts, the cluster-starting MTBF × (1 − n) = 3.1 h × 0.4.
    for (scenario, model) in [
        ("young-daly", "exponential; job MTBF 3.100 h"),
        ("bursts", "exponential; bursts n = 0.6; job MTBF 74.400 min"),
    ] {
        let o = ckptsim(&["run", &format!("scenarios/{scenario}.toml"), "--reps", "4", "--out", out]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let table = String::from_utf8(o.stdout).unwrap();
        assert_eq!(table.lines().nth(2), Some(format!("  failures: {model}").as_str()), "{table}");
    }
    // A sweep of the MTBF keeps the words but not the MTBF: it is per point, not point 0's.
    let file = tmp.path().join("mtbf.toml");
    fs::write(
        &file,
        "[job]\nwork = \"20 h\"\ncheckpoint = \"1 min\"\nrestart = \"1 min\"\n[failures]\nmtbf = \"2 h\"\n\
         [sweep]\n\"failures.mtbf\" = [\"1 h\", \"10 h\"]\n",
    )
    .unwrap();
    let o = ckptsim(&["run", file.to_str().unwrap(), "--reps", "4", "--out", out]);
    let table = String::from_utf8(o.stdout).unwrap();
    assert_eq!(
        table.lines().nth(2),
        Some("  failures: exponential; job MTBF per point (`mtbf_s` in the CSV and JSON)"),
        "{table}"
    );
}

/// The Markdown table gives each duration column in the unit the terminal table uses (the
/// interval in min, wall times in h for the example), not raw seconds, with the same digits.
#[test]
fn markdown_durations_read_as_the_table_does() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_str().unwrap();
    let md = ckptsim(&["run", "scenarios/young-daly.toml", "--reps", "20", "--out", out, "--format", "markdown"]);
    let md = String::from_utf8(md.stdout).unwrap();
    let table = String::from_utf8(
        ckptsim(&["run", "scenarios/young-daly.toml", "--reps", "20", "--wide", "--out", out]).stdout,
    )
    .unwrap();
    assert!(md.contains("| interval (min) |") && md.contains("| wall p50 (h) | wall p95 (h) |"), "{md}");
    // Point 0's interval and median wall time, as the table prints them.
    let row = md.lines().find(|l| l.starts_with("| 0 |")).unwrap();
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    let trow = table.lines().find(|l| l.trim_start().starts_with("0 ")).unwrap();
    let tcells: Vec<&str> = trow.split_whitespace().collect();
    assert_eq!(cells[4], tcells[4], "interval: {row} / {trow}");
    assert!(trow.contains(cells[9]), "wall p50: {row} / {trow}");
}

/// A CSV number is the JSON's number, text for text: an overhead of 7.5e-6 reads `7.45…e-6`
/// in both (the CSV spelled it `0.00000745…`), and every cell reads back as the same double.
#[test]
fn csv_numbers_match_the_json_text() {
    let args = ["formulas", "--checkpoint", "1ms", "--mtbf", "10000h", "--format"];
    let csv = ckptsim(&[&args[..], &["csv"]].concat());
    let json = ckptsim(&[&args[..], &["json"]].concat());
    assert!(csv.status.success() && json.status.success(), "{}", String::from_utf8_lossy(&csv.stderr));
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let json_rows = json["intervals"].as_array().unwrap();
    let mut reader = csv::Reader::from_reader(&csv.stdout[..]);
    let header = reader.headers().unwrap().clone();
    let mut exponents = 0;
    for (record, expected) in reader.records().zip(json_rows) {
        for (key, cell) in header.iter().zip(record.unwrap().iter()) {
            let Some(x) = expected[key].as_f64() else { continue };
            assert_eq!(cell.parse::<f64>().unwrap(), x, "{key}: {cell}");
            assert_eq!(cell, serde_json::to_string(&x).unwrap().trim_end_matches(".0"), "{key}");
            exponents += usize::from(cell.contains("e-"));
        }
    }
    assert_eq!(exponents, json_rows.len(), "one tiny overhead per formula row");
}

/// The shipped scenarios, and whether each needs the shared data folder.
fn shipped_scenarios() -> Vec<(String, bool)> {
    let mut found: Vec<(String, bool)> = fs::read_dir(super::root("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| {
            let text = fs::read_to_string(&p).unwrap();
            (format!("scenarios/{}", p.file_name().unwrap().to_string_lossy()), text.contains("shared/data"))
        })
        .collect();
    found.sort();
    found
}

/// `ckptsim run` on `scenarios`, one command line, into a fresh folder: every one runs.
fn run_all(scenarios: &[String]) {
    let tmp = tempfile::tempdir().unwrap();
    let mut args: Vec<&str> = vec!["run"];
    args.extend(scenarios.iter().map(String::as_str));
    args.extend(["--reps", "4", "--out", tmp.path().to_str().unwrap()]);
    let o = ckptsim(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for sc in scenarios {
        let text = fs::read_to_string(super::root(sc)).unwrap();
        let name = text
            .lines()
            .find_map(|l| l.strip_prefix("name = \"").and_then(|r| r.split('"').next()))
            .expect("every shipped scenario has a name");
        assert!(tmp.path().join(format!("{name}.csv")).exists(), "{sc}: no {name}.csv");
        assert!(tmp.path().join(format!("{name}.json")).exists(), "{sc}: no {name}.json");
    }
}

/// `ckptsim run scenarios/*.toml` takes job scenarios and efficiency studies alike.
#[test]
fn run_takes_every_shipped_scenario_that_needs_no_outside_data() {
    let scenarios: Vec<String> = shipped_scenarios().into_iter().filter(|(_, data)| !data).map(|(s, _)| s).collect();
    assert!(scenarios.iter().any(|s| s.ends_with("small-schedule.toml")), "an efficiency study among them");
    run_all(&scenarios);
}

/// As above, with the scenarios on the shared data (Frontier, LANL): `scenarios/*.toml` whole.
#[test]
#[ignore = "needs ../shared/data"]
fn run_takes_every_shipped_scenario() {
    super::shared_data(super::LANL_LOG);
    super::shared_data(super::FRONTIER_SCHEDULE);
    run_all(&shipped_scenarios().into_iter().map(|(s, _)| s).collect::<Vec<_>>());
}

/// Flags that an efficiency study has no use for are refused, naming it, before any work.
#[test]
fn run_refuses_job_only_flags_for_an_efficiency_study() {
    for flag in [&["--precision", "0.01"][..], &["--shard", "0/2"], &["--resume"]] {
        let tmp = tempfile::tempdir().unwrap();
        let mut args = vec!["run", "scenarios/young-daly.toml", "scenarios/small-schedule.toml"];
        args.extend(flag);
        args.extend(["--out", tmp.path().to_str().unwrap()]);
        let o = ckptsim(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(flag[0]) && err.contains("small-schedule.toml"), "{err}");
        assert!(super::entries(tmp.path()).is_empty());
    }
}

/// Completion scripts for every shell clap knows, and man pages, come from the clap definitions.
#[test]
fn completions_and_man_pages_are_generated() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = ckptsim(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", String::from_utf8_lossy(&o.stderr));
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains("ckptsim") && text.contains("optimize") && text.contains("precision"), "{shell}");
    }
    let o = ckptsim(&["man"]);
    let page = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && page.contains(".TH ckptsim 1") && page.contains("efficiency"), "{page}");
    let o = ckptsim(&["man", "run"]);
    let page = String::from_utf8_lossy(&o.stdout);
    assert!(page.contains(".TH ckptsim-run 1") && page.contains("\\-\\-precision"), "{page}");
    let o = ckptsim(&["man", "nope"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("accepted is one of run, merge"), "{err}");
}

/// Every command's `--help` ends with examples.
#[test]
fn every_command_has_examples_in_its_help() {
    for command in ["run", "merge", "formulas", "optimize", "validate", "trace", "efficiency", "completions", "man"] {
        let o = ckptsim(&[command, "--help"]);
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains("Examples:\n  ckptsim "), "{command}: {text}");
    }
}

/// `--quiet` leaves stderr empty where a run warns, and stdout and the files as they were.
#[test]
fn quiet_hides_notes_and_warnings_only() {
    let run = |quiet: bool| {
        let tmp = tempfile::tempdir().unwrap();
        let mut args = vec!["run", "scenarios/rack-events.toml", "--reps", "10", "--out", tmp.path().to_str().unwrap()];
        if quiet {
            args.push("--quiet");
        }
        let o = ckptsim(&args);
        assert!(o.status.success());
        let csv = fs::read(tmp.path().join("rack-events.csv")).unwrap();
        (String::from_utf8_lossy(&o.stdout).replace(tmp.path().to_str().unwrap(), "OUT"), o.stderr, csv)
    };
    let (loud_out, loud_err, loud_csv) = run(false);
    let (quiet_out, quiet_err, quiet_csv) = run(true);
    assert!(String::from_utf8_lossy(&loud_err).contains("warning:"), "the loud run warns of few failures");
    assert!(quiet_err.is_empty(), "{}", String::from_utf8_lossy(&quiet_err));
    assert_eq!(loud_out, quiet_out);
    assert_eq!(loud_csv, quiet_csv);
    // Errors still show.
    let o = ckptsim(&["-q", "run", "scenarios/none.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("error:"));
}
