//! Issue #4 acceptance 3 and 5: LANL systems 2, 18, 19 and 20 replayed under a 24-hour job
//! (with the shared data folder: those tests are ignored without `--include-ignored`), the
//! synthetic log's systems replayed the same way everywhere, each replication's failures
//! checked against the log's rows, the end of the log handled, and bad trace input rejected
//! with exit 2.

use super::{LANL_LOG, ckptsim, root, shared_data, simulate, synthetic_log};
use ckptsim::{analytic, scenario};
use std::fs;
use std::path::Path;

/// A scenario replaying `system` of the log at `file` (wrapping or censoring at its `end`)
/// under a 24-hour job on `nodes` nodes (packed), with `extra` lines in `[job]`.
fn replay(file: &Path, system: u64, nodes: u64, end: &str, extra: &str) -> String {
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
file = "{}"
system = {system}
end = "{end}"
[policy]
interval = "young"
"#,
        file.display()
    )
}

/// |simulated − exact| must stay below this many standard errors (and a one-sided
/// difference exceed it).
const Z_MAX: f64 = 4.0;
/// Replications of each system's replay under the job.
const REPLAY_REPS: u64 = 400;
/// Replays of each system's log over a fixed window: stream draws only, so many, cheap.
const WINDOW_REPS: u64 = 20_000;
/// The fixed window over which the expected failure count is exact (s): the job's work.
const WINDOW_S: f64 = 24.0 * 3600.0;
/// A replayed failure time and the log's agree to within this (s): rounding only, far below
/// the log's one-minute clock.
const TIME_TOL_S: f64 = 1e-3;

/// What the log at `file` says of a packed replay of `system` on `job_nodes` nodes, from its
/// rows as the independent parser of the trace tests reads them: the times (s since the
/// system's first failure, in order) of the failures on the job's nodes (node numbers beyond
/// the declared size folded back, node mod size), and the period of one pass, span + one mean
/// gap over all the system's failures.
fn log_failures(file: &Path, system: u64, job_nodes: u64) -> (Vec<f64>, f64) {
    let rows: Vec<_> =
        super::trace::independent_rows(file).into_iter().filter(|r| r.system == system.to_string()).collect();
    let size = match rows[0].nodes.as_str() {
        "" => rows.iter().map(|r| r.node + 1).max().unwrap(),
        n => n.parse().unwrap(),
    };
    let mut minutes: Vec<(i64, u64)> = rows.iter().map(|r| (r.minute, r.node % size)).collect();
    minutes.sort_by_key(|m| m.0);
    let (first, last, n) = (minutes[0].0, minutes[minutes.len() - 1].0, minutes.len());
    let span_s = ((last - first) * 60) as f64;
    let period_s = span_s + span_s / (n - 1) as f64;
    let times = minutes.iter().filter(|m| m.1 < job_nodes).map(|m| ((m.0 - first) * 60) as f64).collect();
    (times, period_s)
}

/// Whether `got`, a replay's failures before `horizon_s` (its first at `got[0]`), are the
/// log's failures `times` (one pass of `period_s`) in a window of the log that opens just
/// before the log's failure `m`: the log's failure before `m` falls before the window, and
/// from `m` on every failure of the log, pass after pass, is replayed (to [`TIME_TOL_S`]) and
/// none else, up to the horizon.
fn is_window_from(times: &[f64], period_s: f64, m: usize, got: &[f64], horizon_s: f64) -> bool {
    let t0 = got[0];
    let before = if m == 0 { times[times.len() - 1] - period_s } else { times[m - 1] };
    if t0 - (times[m] - before) >= 0.0 {
        return false;
    }
    let (mut i, mut pass) = (m, 0.0);
    let mut next = || {
        let t = t0 + times[i] - times[m] + pass * period_s;
        i += 1;
        if i == times.len() {
            (i, pass) = (0, pass + 1.0);
        }
        t
    };
    got.iter().all(|g| (next() - g).abs() <= TIME_TOL_S) && next() >= horizon_s
}

/// Systems of the log at `file` replayed (wrapping) under a 24-hour job, each `(system,
/// nodes)` of `cases`. A replay starts at a uniformly random offset into the log and wraps at
/// its end, so each of the log's h failures on the job's nodes falls in a window of length
/// w < period with probability exactly w/period: the expected count in a fixed window is
/// h·w/period (h and the period counted from the file's rows here; the scenario's MTBF is
/// period/h). The mean count over [`WINDOW_REPS`] replays of the first 24 h lies within
/// [`Z_MAX`] SE of it (SE from the sample). In every replication of the job, the replay is the
/// log: its failures up to one pass past the job's end are the log's failures on the job's
/// nodes in a window of the log (found from the replay's first failure), and the failures
/// that struck the job plus those ignored are those of that window before the job's end; the
/// run's summary counts the same failures. Those failures cost time: the mean overhead
/// exceeds the failure-free one (the checkpoints alone) by more than [`Z_MAX`] SE.
fn assert_replays_under_a_24_hour_job(file: &Path, cases: &[(u64, u64)]) {
    use ckptsim::failure::FailureStream;
    let seed = 1;
    for &(system, nodes) in cases {
        let sc =
            scenario::parse(&replay(file, system, nodes, "wrap", ""), &root("scenarios/inline.toml"), &[]).unwrap();
        let p = &sc.points[0];
        let (times, period_s) = log_failures(file, system, nodes);
        let hits = times.len() as f64;
        let mtbf_s = p.failures.mtbf_s();
        assert!((mtbf_s - period_s / hits).abs() <= 1e-12 * mtbf_s, "system {system}: MTBF {mtbf_s}");
        assert!(mtbf_s > 3600.0 && mtbf_s < 100.0 * 3600.0, "system {system}: MTBF {mtbf_s}");
        assert!(WINDOW_S < period_s, "system {system}: the window lies within one pass of the log");
        let replayed = |rep: u64| p.failures.stream(seed, rep, p.job.downtime_s);
        // The exact expected count over a fixed window.
        let counts: Vec<f64> = (0..WINDOW_REPS)
            .map(|rep| {
                let mut stream = replayed(rep);
                std::iter::from_fn(|| Some(stream.next_failure().time_s)).take_while(|&t| t < WINDOW_S).count() as f64
            })
            .collect();
        let (mean, se) = mean_se(&counts);
        let exact = WINDOW_S * hits / period_s;
        let z = (mean - exact) / se;
        assert!(
            z.abs() < Z_MAX,
            "system {system}: {mean} ± {se} failures in 24 h, exactly {exact} expected, z = {z:.2}"
        );
        // The engine on the same replays, against the log.
        let mut struck = 0;
        for rep in 0..REPLAY_REPS {
            let record = ckptsim::runner::replicate(p, seed, rep).unwrap();
            let mut stream = replayed(rep);
            let t0 = stream.next_failure().time_s;
            // One pass past the job's end or the first failure, less a margin: a pass after a
            // failure replays it again right at the horizon, where rounding decides the side.
            let horizon_s = record.wall_s.max(t0) + period_s - TIME_TOL_S;
            let got: Vec<f64> = std::iter::once(t0)
                .chain(std::iter::from_fn(|| Some(stream.next_failure().time_s)))
                .take_while(|&t| t < horizon_s)
                .collect();
            assert!(
                (0..times.len()).any(|m| is_window_from(&times, period_s, m, &got, horizon_s)),
                "system {system}, replication {rep}: the replay is no window of the log"
            );
            let before_end = got.iter().filter(|&&t| t < record.wall_s).count();
            assert_eq!(
                record.failures + record.ignored_failures,
                before_end as u64,
                "system {system}, replication {rep}: the job's failures are not the log's before its end at {} s",
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

/// LANL systems 2, 18, 19 and 20 on all their nodes.
#[test]
#[ignore = "needs ../shared/data"]
fn lanl_systems_replay_under_a_24_hour_job() {
    assert_replays_under_a_24_hour_job(&shared_data(LANL_LOG), &[(2, 49), (18, 1024), (19, 1024), (20, 512)]);
}

/// The synthetic log's systems 2 (on all its nodes, and on its first 16), 18 and 20.
#[test]
fn synthetic_systems_replay_under_a_24_hour_job() {
    assert_replays_under_a_24_hour_job(&synthetic_log(), &[(2, 49), (2, 16), (18, 1024), (20, 512)]);
}

/// The sample mean of `xs` and its standard error.
fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

/// Replays of system 20 of the log at `file` that censor at its end see fewer failures than
/// those that wrap: replays that start near the end lose failures.
fn assert_censoring_sees_no_more_failures(file: &Path) {
    let failures = |end: &str| {
        let sc = scenario::parse(&replay(file, 20, 512, end, ""), &root("scenarios/inline.toml"), &[]).unwrap();
        let s = &simulate(&sc, 2000, 3).summaries[0];
        s.totals.failures
    };
    let (wrap, censor) = (failures("wrap"), failures("censor"));
    assert!(censor < wrap, "censor {censor} vs wrap {wrap}: replays that start near the end lose failures");
}

#[test]
#[ignore = "needs ../shared/data"]
fn censoring_at_the_end_of_the_log_sees_no_more_failures() {
    assert_censoring_sees_no_more_failures(&shared_data(LANL_LOG));
}

#[test]
fn censoring_at_the_end_of_the_synthetic_log_sees_no_more_failures() {
    assert_censoring_sees_no_more_failures(&synthetic_log());
}

/// Runs `scenarios/NAME.toml` with 50 replications and `sets`.
fn runs(name: &str, sets: &[String]) {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = format!("scenarios/{name}.toml");
    let mut args = vec!["run", &scenario, "--reps", "50", "--out", tmp.path().to_str().unwrap()];
    for set in sets {
        args.extend(["--set", set]);
    }
    let o = ckptsim(&args);
    assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
}

/// The LANL replays as committed, on the log in the shared data folder.
#[test]
#[ignore = "needs ../shared/data"]
fn the_lanl_scenarios_run() {
    shared_data(LANL_LOG);
    for name in ["lanl-2", "lanl-18"] {
        runs(name, &[]);
    }
}

/// The LANL scenarios that need no log (the fitted Weibull laws), and the replays on the
/// synthetic log's systems 2 and 18 (`--set failures.trace.file`).
#[test]
fn the_lanl_scenarios_run_on_the_synthetic_log() {
    for name in ["lanl-2-weibull", "lanl-18-weibull"] {
        runs(name, &[]);
    }
    let set = format!("failures.trace.file={}", synthetic_log().display());
    for name in ["lanl-2", "lanl-18"] {
        runs(name, std::slice::from_ref(&set));
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

/// A system the log at `file` does not have: exit 2, the key, and the systems it has.
fn assert_unknown_system_is_refused(file: &Path) {
    let text = replay(file, 99, 10, "wrap", "");
    let tmp = tempfile::tempdir().unwrap();
    let scenario = tmp.path().join("bad-system.toml");
    fs::write(&scenario, &text).unwrap();
    let o = ckptsim(&["run", scenario.to_str().unwrap(), "--out", tmp.path().join("out").to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("failures.trace.system") && err.contains("no system `99`") && err.contains("18"), "{err}");
}

#[test]
#[ignore = "needs ../shared/data"]
fn unknown_lanl_system() {
    assert_unknown_system_is_refused(&shared_data(LANL_LOG));
}

#[test]
fn unknown_system_of_the_synthetic_log() {
    assert_unknown_system_is_refused(&synthetic_log());
    let o = ckptsim(&["trace", "stats", synthetic_log().to_str().unwrap(), "--system", "99", "--fragment"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("no system `99`") && err.contains("2, 14, 17, 18, 20"), "{err}");
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
