//! Issue #4 acceptance 3 and 5: LANL systems 2, 18, 19 and 20 replayed under a 24-hour job
//! (skipped with a message when ../shared/data is absent), the end of the log handled, and
//! bad trace input rejected with exit 2.

use super::{ckptsim, root, simulate};
use ckptsim::{analytic, scenario};
use std::fs;

const LANL: &str = "../shared/data/lanl/LA-UR-05-7318-failure-data-1996-2005.csv.xz";

fn lanl_present() -> bool {
    let present = root(LANL).exists();
    if !present {
        eprintln!("skipped: {} is absent (the shared data folder beside the checkout)", root(LANL).display());
    }
    present
}

fn replay(system: u64, nodes: u64, end: &str, extra: &str) -> String {
    format!(
        r#"
[run]
seed = {system}
[job]
work = "24 h"
nodes = {nodes}
checkpoint = "5 min"
restart = "10 min"
{extra}
[failures.trace]
file = "../{LANL}"
system = {system}
end = "{end}"
[policy]
interval = "young"
"#
    )
}

/// |simulated − exact| must stay below this many standard errors (and a one-sided
/// difference exceed it).
const Z_MAX: f64 = 4.0;
/// Replications of each LANL system's replay under the job.
const REPLAY_REPS: u64 = 400;
/// Replays of each system's log over a fixed window: stream draws only, so many, cheap.
const WINDOW_REPS: u64 = 20_000;
/// The fixed window over which the expected failure count is exact (s): the job's work.
const WINDOW_S: f64 = 24.0 * 3600.0;

/// LANL systems 2, 18, 19 and 20 replayed (wrapping) under a 24-hour job. A replay starts at
/// a uniformly random offset into the log and wraps at its end, so each of the log's h
/// failures on the job's nodes falls in a window of length w < period with probability exactly
/// w/period: the expected count in a fixed window is h·w/period = w/MTBF, whatever the log's
/// bursts. The mean count over [`WINDOW_REPS`] replays of the first 24 h lies within [`Z_MAX`]
/// SE of it (SE from the sample). The engine sees exactly the replayed failures: in every
/// replication the failures that struck the job plus those ignored are the replay's failures
/// before the job's end, and the run's summary counts the same failures. Those failures cost
/// time: the mean overhead exceeds the failure-free one (the checkpoints alone) by more than
/// [`Z_MAX`] SE.
#[test]
fn lanl_systems_replay_under_a_24_hour_job() {
    use ckptsim::failure::FailureStream;
    if !lanl_present() {
        return;
    }
    let seed = 1;
    for (system, nodes) in [(2, 49), (18, 1024), (19, 1024), (20, 512)] {
        let sc = scenario::parse(&replay(system, nodes, "wrap", ""), &root("scenarios/inline.toml"), &[]).unwrap();
        let p = &sc.points[0];
        let mtbf_s = p.failures.mtbf_s();
        assert!(mtbf_s > 3600.0 && mtbf_s < 100.0 * 3600.0, "system {system}: MTBF {mtbf_s}");
        let ckptsim::failure::FailureModel::Trace(trace) = &p.failures.base else { panic!("a trace replay") };
        assert!(WINDOW_S < trace.period_s, "system {system}: the window lies within one pass of the log");
        let replayed = |rep: u64| p.failures.stream(seed, rep, p.job.downtime_s);
        // The exact expected count over a fixed window.
        let counts: Vec<f64> = (0..WINDOW_REPS)
            .map(|rep| {
                let mut stream = replayed(rep);
                std::iter::from_fn(|| Some(stream.next_failure().time_s)).take_while(|&t| t < WINDOW_S).count() as f64
            })
            .collect();
        let (mean, se) = mean_se(&counts);
        let exact = WINDOW_S / mtbf_s;
        let z = (mean - exact) / se;
        assert!(
            z.abs() < Z_MAX,
            "system {system}: {mean} ± {se} failures in 24 h, exactly {exact} expected, z = {z:.2}"
        );
        // The engine on the same replays.
        let mut struck = 0;
        for rep in 0..REPLAY_REPS {
            let record = ckptsim::runner::replicate(p, seed, rep).unwrap();
            let mut stream = replayed(rep);
            let before_end =
                std::iter::from_fn(|| Some(stream.next_failure().time_s)).take_while(|&t| t < record.wall_s).count();
            assert_eq!(
                record.failures + record.ignored_failures,
                before_end as u64,
                "system {system}, replication {rep}: the job's failures are not the replay's before its end at {} s",
                record.wall_s
            );
            struck += record.failures;
        }
        let s = &simulate(&sc, REPLAY_REPS, seed).summaries[0];
        assert_eq!(s.totals.failures, struck, "system {system}: the run counts other failures");
        let e = s.overhead.estimate();
        let free = analytic::finite_work_overhead(&p.job, p.interval_s, f64::INFINITY);
        let z = (e.mean - free) / e.se;
        assert!(z > Z_MAX, "system {system}: overhead {} ± {} (SE), {free} without failures, z = {z:.2}", e.mean, e.se);
    }
}

/// The sample mean of `xs` and its standard error.
fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

#[test]
fn censoring_at_the_end_of_the_log_sees_no_more_failures() {
    if !lanl_present() {
        return;
    }
    let text = |end: &str| replay(20, 512, end, "");
    let failures = |end: &str| {
        let sc = scenario::parse(&text(end), &root("scenarios/inline.toml"), &[]).unwrap();
        let s = &simulate(&sc, 2000, 3).summaries[0];
        s.totals.failures
    };
    let (wrap, censor) = (failures("wrap"), failures("censor"));
    assert!(censor < wrap, "censor {censor} vs wrap {wrap}: replays that start near the end lose failures");
}

#[test]
fn the_lanl_scenarios_run() {
    if !lanl_present() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    for name in ["lanl-2", "lanl-18", "lanl-2-weibull", "lanl-18-weibull"] {
        let o =
            ckptsim(&["run", &format!("scenarios/{name}.toml"), "--reps", "50", "--out", tmp.path().to_str().unwrap()]);
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

fn rejects(text: &str, expected: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("bad.toml");
    fs::write(&file, text).unwrap();
    let out = tmp.path().join("out");
    let o = ckptsim(&["run", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    for e in expected {
        assert!(err.contains(e), "expected {e:?} in {err}");
    }
    assert!(super::entries(&out).is_empty(), "files left behind");
}

#[test]
fn bad_trace_input() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("log.csv");
    fs::write(&log, "time,node,cause\n1 h,0,hw\n2 h,1,sw\nthree,0,hw\n5 h,2,hw\n").unwrap();
    let with_log = |extra_job: &str, trace_extra: &str| {
        format!(
            "[job]\nwork = \"24 h\"\ncheckpoint = \"5 min\"\nrestart = \"10 min\"\n{extra_job}\n[failures.trace]\nfile = \"{}\"\n{trace_extra}\n",
            log.display()
        )
    };
    // Malformed lines: fatal by default, with the line number; skipped with a count on request.
    rejects(&with_log("", ""), &["failures.trace.file", "log.csv:4", "column `time`"]);
    let skip = tmp.path().join("skip.toml");
    fs::write(&skip, with_log("nodes = 3", "malformed = \"skip\"")).unwrap();
    let o = ckptsim(&["run", skip.to_str().unwrap(), "--reps", "20", "--out", tmp.path().join("ok").to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The count is in the results: the table's header, and the CSV's and JSON's failure model.
    let said = "(3 of 3 nodes, packed, wrap; 1 malformed line of the log skipped)";
    assert!(String::from_utf8_lossy(&o.stdout).contains(said), "{}", String::from_utf8_lossy(&o.stdout));
    let json = fs::read_to_string(tmp.path().join("ok/skip.json")).unwrap();
    assert!(json.contains(said), "{json}");
    // A job larger than the logged system, an impossible placement, a law beside the trace.
    rejects(&with_log("nodes = 4", "malformed = \"skip\""), &["job.nodes", "3 nodes"]);
    rejects(
        &with_log("nodes = 2\nplacement = \"spread\"", "malformed = \"skip\""),
        &["job.placement", "packed, random"],
    );
    rejects(
        &with_log("", "malformed = \"skip\"")
            .replace("[failures.trace]", "[failures]\nmtbf = \"1 h\"\n[failures.trace]"),
        &["failures.mtbf", "no law"],
    );
    // A missing file prints the resolved path.
    rejects(&with_log("", "").replace("log.csv", "missing.csv"), &["missing.csv", "cannot read"]);
    // trace stats: the same line-numbered error, exit 2.
    let o = ckptsim(&["trace", "stats", log.to_str().unwrap(), "--out", tmp.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("log.csv:4"));
}

/// The LANL replays name a log in the shared data folder beside the checkout: where it is
/// not there (a copy of the scenario elsewhere, a checkout without the data) the error names
/// the key, the resolved path and the rule, and says how to point at a log kept elsewhere
/// without editing the file; that `--set` works. A path that came from `--set` gets no such
/// advice.
#[test]
fn a_missing_lanl_log_suggests_setting_its_path() {
    let tmp = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for entry in fs::read_dir(root("scenarios")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.starts_with("lanl-") && name.ends_with(".toml")) {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        if !text.contains("[failures.trace]") {
            continue;
        }
        let copy = tmp.path().join(&name);
        fs::write(&copy, &text).unwrap();
        let o = ckptsim(&["run", copy.to_str().unwrap(), "--out", tmp.path().join("out").to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        for part in [
            format!("{name}:"),
            "key `failures.trace.file`: cannot read ".to_string(),
            "shared/data/lanl/LA-UR-05-7318-failure-data-1996-2005.csv.xz: no such file".to_string(),
            "resolves against the scenario file's folder".to_string(),
            "give its path with --set failures.trace.file=PATH (relative to the current folder)".to_string(),
        ] {
            assert!(err.contains(&part), "{name}: {part:?} missing from {err}");
        }
        checked += 1;
    }
    assert_eq!(checked, 2, "lanl-2 and lanl-18");
    // The advice works: a log of system 2 ("2.csv", 49 nodes) elsewhere.
    let log = tmp.path().join("2.csv");
    fs::write(&log, "time_s,node\n0,0\n432000,48\n864000,7\n").unwrap();
    let copy = tmp.path().join("lanl-2.toml");
    let set = format!("failures.trace.file={}", log.display());
    let out = tmp.path().join("out");
    let o = ckptsim(&["run", copy.to_str().unwrap(), "--set", &set, "--reps", "20", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // A missing path given with --set, relative or absolute: no advice to use --set.
    for missing in ["missing.csv".to_string(), tmp.path().join("missing.csv").display().to_string()] {
        let set = format!("failures.trace.file={missing}");
        let o = ckptsim(&["run", copy.to_str().unwrap(), "--set", &set, "--out", out.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(&format!("cannot read {missing}: no such file")) && !err.contains("PATH"), "{err}");
    }
}

#[test]
fn unknown_lanl_system() {
    if !lanl_present() {
        return;
    }
    let text = replay(99, 10, "wrap", "");
    let tmp = tempfile::tempdir().unwrap();
    let file = root("scenarios").join(format!("bad-system-{}.toml", std::process::id()));
    fs::write(&file, &text).unwrap();
    let o = ckptsim(&["run", file.to_str().unwrap(), "--out", tmp.path().to_str().unwrap()]);
    fs::remove_file(&file).unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("failures.trace.system") && err.contains("no system `99`") && err.contains("18"), "{err}");
}

/// A relative `failures.trace.file` written in the scenario resolves against the scenario's
/// folder; typed with `--set`, against the current folder (as `schedule.file` does).
#[test]
fn a_trace_path_resolves_against_the_scenario_or_the_current_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let sub = tmp.path().join("sub");
    fs::create_dir(&sub).unwrap();
    fs::write(sub.join("log.csv"), "time_s,node\n0,0\n3600,0\n7200,0\n").unwrap();
    let scenario = sub.join("s.toml");
    fs::write(
        &scenario,
        "[job]\nwork = \"10 h\"\ncheckpoint = \"1 min\"\nrestart = \"1 min\"\n[failures.trace]\nfile = \"log.csv\"\n\
         [policy]\ninterval = \"10 min\"\n[run]\nreplications = 20\n",
    )
    .unwrap();
    let run = |cwd: &std::path::Path, set: Option<&str>| {
        let mut cmd = super::bin();
        cmd.current_dir(cwd).args(["run", scenario.to_str().unwrap(), "--out"]).arg(tmp.path().join("out"));
        if let Some(s) = set {
            cmd.args(["--set", s]);
        }
        let o = cmd.output().unwrap();
        (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    // Written in the file: the scenario's folder, wherever the command runs.
    let (code, err) = run(tmp.path(), None);
    assert_eq!(code, Some(0), "{err}");
    // Typed with --set: the current folder.
    assert_eq!(run(tmp.path(), Some("failures.trace.file=sub/log.csv")).0, Some(0));
    let (code, err) = run(tmp.path(), Some("failures.trace.file=log.csv"));
    assert_eq!(code, Some(2), "{err}");
    for part in ["failures.trace.file", "cannot read log.csv: no such file", "resolves against the current folder"] {
        assert!(err.contains(part), "{part:?} missing from {err}");
    }
}
