//! New-user review: a run that will take very long (a node's MTBF taken for the job's on a
//! huge platform: every replication struck millions of times) says so on stderr before it
//! starts, with the point and the numbers; stdout and the result files are unchanged, and
//! no committed scenario warns at its defaults.

use std::fs;
use std::path::{Path, PathBuf};

use super::{ckptsim, inline, load, root, simulate};
use ckptsim::analytic;
use ckptsim::forecast::{self, FIRST_ADAPTIVE_ROUND, SLOW_REPLICATION_FAILURES, SLOW_RUN_FAILURES};
use ckptsim::runner::{self, Shard};
use ckptsim::scenario::{self, Scenario, Stop};

/// Monte Carlo agreement: within this many standard errors.
const MC_SIGMAS: f64 = 4.0;

/// Replications of each Monte Carlo check.
const MC_REPLICATIONS: u64 = 20_000;

/// The margin below the thresholds the committed scenarios keep at their defaults: far
/// enough that a small change of a scenario does not start warning.
const COMMITTED_MARGIN: f64 = 10.0;

/// The review's platform: node MTBF 5 years, 10 min restarts, 2 min checkpoints at Young's
/// interval, 10 days of work, on 10³ to 10⁶ nodes (point 3: a job MTBF of 157.68 s).
const HUGE_PLATFORM: &str = r#"
name = "huge-platform"
[run]
replications = 2000
[job]
work = "10 d"
checkpoint = "2 min"
restart = "10 min"
[failures]
node_mtbf = "5 y"
[sweep]
"job.nodes" = [1000, 10000, 100000, 1000000]
"#;

/// Point 3 of [`HUGE_PLATFORM`] worked out from the closed forms: its expected wall time
/// (s) and failures per replication, at Young's interval √(2δM).
fn huge_platform_point_3() -> (f64, f64) {
    let sc = inline(HUGE_PLATFORM);
    let job = &sc.points[3].job;
    let mtbf_s: f64 = 5.0 * 365.0 * 86400.0 / 1e6;
    let wall_s = analytic::finite_work_moments(job, (2.0 * 120.0 * mtbf_s).sqrt(), mtbf_s).mean_s;
    (wall_s, wall_s / mtbf_s)
}

/// The review's case: the warning names the point with the most failures per replication,
/// its job MTBF, restart, overhead, failures per replication and the run's total, and asks
/// whether the MTBF is the node's; the same platform on 1000 nodes does not warn.
#[test]
fn a_node_mtbf_on_a_huge_platform_warns_with_the_numbers() {
    let sc = inline(HUGE_PLATFORM);
    let (wall_s, per_rep) = huge_platform_point_3();
    let f = forecast::point_forecast(&sc.points[3]);
    assert!((f.failures_per_rep / per_rep - 1.0).abs() < 1e-12, "{} vs {per_rep}", f.failures_per_rep);
    let total: f64 = sc.points.iter().map(|p| forecast::point_forecast(p).failures_per_rep).sum::<f64>() * 2000.0;
    let w = forecast::slow_run_warning(&sc, sc.run.stop, Shard::WHOLE).expect("the run warns");
    for part in [
        "point 3 (job.nodes = 1000000) expects about 1.3e6 failures per replication".to_string(),
        "job MTBF 2.628 min against restarts of 10.000 min".to_string(),
        format!("overhead ≈ {}", forecast::about(wall_s / 864_000.0 - 1.0)),
        format!("the run will simulate about {} failure events in all", forecast::about(total)),
        "(2000 replications of 4 points)".to_string(),
        "Check the MTBF (is it the node's or the job's?), or lower the replications.".to_string(),
    ] {
        assert!(w.contains(&part), "the warning lacks {part:?}: {w}");
    }
    assert_eq!(forecast::about(per_rep), "1.3e6");
    assert!(!w.contains("limit"), "point 3 stays below the engine's limit: {w}");
    // The same platform on 1000 nodes: 16 failures per replication, nothing to say.
    let small = scenario::parse(HUGE_PLATFORM, Path::new("inline.toml"), &["job.nodes=1000".to_string()]).unwrap();
    assert_eq!(forecast::slow_run_warning(&small, small.run.stop, Shard::WHOLE), None);
}

/// The mirror of the review's case: a node's MTBF written as the job's (`failures.mtbf =
/// "5 y"` on 1024 nodes, a job MTBF of 1825 days of work) is warned about with both keys,
/// the values and the node MTBF it implies; a node MTBF given as one, a job on fewer nodes
/// than [`scenario::SUSPECT_JOB_MTBF_NODES`] or an MTBF of at most
/// [`scenario::SUSPECT_JOB_MTBF_TO_WORK`] times the work is not.
#[test]
fn a_node_mtbf_given_as_the_job_mtbf_on_many_nodes_warns() {
    let text = |failures: &str, nodes: u64, tail: &str| {
        format!(
            "[job]\nwork = \"24 h\"\nnodes = {nodes}\ncheckpoint = \"2 min\"\nrestart = \"10 min\"\n\
             [failures]\n{failures}\n{tail}"
        )
    };
    let warnings = |failures: &str, nodes: u64| inline(&text(failures, nodes, "")).warnings();
    let w = warnings("mtbf = \"5 y\"", 1024);
    assert_eq!(w.len(), 1, "{w:?}");
    for part in [
        "failures.mtbf = \"5 y\" is the whole job's MTBF, over 100 × its work (job.work = 24.000 h)",
        "job.nodes = 1024",
        "each node would fail once in 5100 y",
        "write failures.node_mtbf = \"5 y\" instead",
    ] {
        assert!(w[0].contains(part), "{part:?} missing from {:?}", w[0]);
    }
    assert_eq!(warnings("node_mtbf = \"5 y\"", 1024), Vec::<String>::new());
    assert_eq!(warnings("mtbf = \"5 y\"", scenario::SUSPECT_JOB_MTBF_NODES - 1), Vec::<String>::new());
    assert_eq!(warnings("mtbf = \"5 y\"", scenario::SUSPECT_JOB_MTBF_NODES).len(), 1);
    // At the threshold (100 days, 100 × a day's work) nothing; just past it, the warning.
    assert_eq!(scenario::SUSPECT_JOB_MTBF_TO_WORK, 100.0);
    assert_eq!(warnings("mtbf = \"100 d\"", 1024), Vec::<String>::new());
    assert_eq!(warnings("mtbf = \"101 d\"", 1024).len(), 1);
    // A short job on reliable nodes: 64 nodes of 4.9 y give a job MTBF of 28 d, over 100 ×
    // 6 h of work, but a node MTBF of a few years is ordinary.
    let short = |mtbf: &str, nodes: u64| {
        inline(&text(&format!("mtbf = \"{mtbf}\""), nodes, "").replace("24 h", "6 h")).warnings()
    };
    assert_eq!(short("28 d", 64), Vec::<String>::new());
    assert_eq!(short("28 d", 2048).len(), 1, "2048 nodes of 157 y");
    // A Weibull law on job-level renewal: failures.mtbf is still the job's.
    assert_eq!(warnings("law = \"weibull\"\nshape = 0.7\nrenewal = \"job\"\nmtbf = \"5 y\"", 1024).len(), 1);
    // In a sweep, the warning names the point it concerns.
    let swept =
        inline(&text("mtbf = \"3.1 h\"", 1024, "[sweep]\n\"failures.mtbf\" = [\"3.1 h\", \"5 y\"]\n")).warnings();
    assert_eq!(swept.len(), 1, "{swept:?}");
    assert!(swept[0].starts_with("point 1: failures.mtbf = \"5 y\""), "{swept:?}");
}

/// The estimate is the failures the engine plays, struck and passed over: E[wall]/MTBF is
/// exact for Poisson failures (Wald's identity), here with downtime, writes that cannot fail,
/// restarts that can, an end-job job and a per-node platform. The work over the MTBF, which
/// ignores the failures' cost, is rejected at the same points.
#[test]
fn the_estimate_is_the_failures_the_engine_plays() {
    let restart = r#"
        [job]
        work = "20 h"
        checkpoint = "5 min"
        restart = "10 min"
        downtime = "2 min"
        failures_during_checkpoint = false
        [failures]
        mtbf = "2 h"
        [policy]
        factor = 2
    "#;
    let end_job = restart.replace("work = \"20 h\"", "work = \"3 h\"\non_failure = \"end-job\"");
    let platform = restart.replace("mtbf = \"2 h\"", "node_mtbf = \"128 h\"").replace("[job]", "[job]\nnodes = 64");
    // Two levels: the system events (every 6 h) roll back to the last level-2 write of
    // 30 min, every 6th checkpoint; the single-level forecast at the job MTBF is rejected.
    let two_level = restart.replace(
        "[failures]",
        "[topology]\nracks = 1\nnodes_per_rack = 4\n[job.level2]\ncheckpoint = \"30 min\"\nrestart = \"20 min\"\nevery = 6\n[failures.system]\nlaw = \
         \"exponential\"\nmtbf = \"6 h\"\n[failures]",
    );
    let cases =
        [("restart", restart.to_string()), ("end-job", end_job), ("64 nodes", platform), ("two-level", two_level)];
    for (what, text) in cases {
        let sc = inline(&text);
        let point = &sc.points[0];
        let want = forecast::point_forecast(point).failures_per_rep;
        let played: Vec<f64> = (0..MC_REPLICATIONS)
            .map(|rep| {
                let r = runner::replicate(point, 7, rep).expect("the replication finishes");
                (r.failures + r.ignored_failures) as f64
            })
            .collect();
        let n = played.len() as f64;
        let mean = played.iter().sum::<f64>() / n;
        let sd = (played.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        let se = sd / n.sqrt();
        assert!((mean - want).abs() < MC_SIGMAS * se, "{what}: played {mean} ± {se}, estimated {want}");
        let naive = point.job.work_s / point.failures.mtbf_s();
        assert!((mean - naive).abs() > MC_SIGMAS * se, "{what}: W/M = {naive} is not rejected, played {mean} ± {se}");
        if point.two_level.is_some() {
            let one_level =
                ckptsim::analytic::expected_failures_per_rep(&point.job, point.interval_s, point.failures.mtbf_s());
            assert!(
                (mean - one_level).abs() > MC_SIGMAS * se,
                "{what}: the single-level {one_level} is not rejected, played {mean} ± {se}"
            );
        }
    }
}

/// A point expected to pass the engine's limit of 10⁸ failures per replication (restarts of
/// 15 MTBFs: e^15 attempts after every failure) is named with that limit and the error the
/// run will stop with; and it does stop with it, the warning first.
#[test]
fn a_point_beyond_the_engine_limit_says_the_run_will_stop() {
    let text = r#"
        [run]
        replications = 2
        [job]
        work = "200 s"
        checkpoint = "1 s"
        restart = "15 s"
        [failures]
        mtbf = "1 s"
    "#;
    let sc = inline(text);
    assert!(forecast::point_forecast(&sc.points[0]).failures_per_rep > 1e8);
    let w = forecast::slow_run_warning(&sc, sc.run.stop, Shard::WHOLE).expect("the run warns");
    for part in [
        "the job expects about",
        "more than the engine's limit of 100000000 per replication",
        "struck by (or passed over) more than 100000000 failures in one replication",
        "Check the MTBF (is it the node's or the job's?)",
    ] {
        assert!(w.contains(part), "the warning lacks {part:?}: {w}");
    }
    // An end-job job pays one recovery only, but restarts of 25 MTBFs never complete either
    // (the runner refuses those up front only for jobs that restart).
    let end = inline(&text.replace("restart = \"15 s\"", "restart = \"25 s\"\non_failure = \"end-job\""));
    let w = forecast::slow_run_warning(&end, end.run.stop, Shard::WHOLE).expect("the end-job run warns");
    assert!(w.contains("more than the engine's limit"), "{w}");
    // The runner refuses a job whose restart needs more attempts than the limit before any
    // replication: no warning comes before that error.
    let refused = inline(&text.replace("restart = \"15 s\"", "restart = \"25 s\""));
    assert!(runner::refuse_hopeless(&refused.points[0]).is_err());
    assert_eq!(forecast::slow_run_warning(&refused, refused.run.stop, Shard::WHOLE), None);

    // The run does stop as warned (one replication plays 10⁸ failures: about a second).
    let tmp = tempfile::tempdir().unwrap();
    let path = write(tmp.path(), "limit.toml", text);
    let out = tmp.path().join("out");
    let o = ckptsim(&["run", path.to_str().unwrap(), "--threads", "1", "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    let warned = stderr.find("warning: ").expect("a warning");
    let failed =
        stderr.find("the job was struck by more than 100000000 failures in one replication").expect("the error");
    assert!(warned < failed, "the warning comes first: {stderr}");
}

/// With --precision the count is not known: the first round stands for it, and it is the
/// runner's first round. A shard counts its own share; a run of many cheap replications
/// warns for its total alone, and its shards do not.
#[test]
fn adaptive_runs_and_shards_count_what_they_will_play() {
    let sc = inline(HUGE_PLATFORM);
    let per_rep: f64 = sc.points.iter().map(|p| forecast::point_forecast(p).failures_per_rep).sum();
    let w = forecast::slow_run_warning(&sc, Stop::Precision(0.01), Shard::WHOLE).expect("warns");
    let round = format!(
        "about {} failure events in all (the first round's {FIRST_ADAPTIVE_ROUND} replications of 4 points alone",
        forecast::about(per_rep * FIRST_ADAPTIVE_ROUND as f64)
    );
    assert!(w.contains(&round), "{w}");
    assert!(w.contains("or ask for a looser precision."), "{w}");
    // The runner's first round is that many: a target met at once stops after it.
    let yd = load("scenarios/young-daly.toml", &[]);
    let r = runner::run(&yd, Stop::Precision(1e9), 1, &|_| {}, &|_| {}).unwrap();
    assert_eq!(r.replications, FIRST_ADAPTIVE_ROUND);

    // A shard of the review's run: its own 2 replications.
    let shard = Shard { index: 0, count: 1000 };
    let w = forecast::slow_run_warning(&sc, Stop::Replications(2000), shard).expect("warns");
    let share = format!(
        "this shard will simulate about {} failure events in all (this shard's 2 of the run's 2000 replications",
        forecast::about(per_rep * 2.0)
    );
    assert!(w.contains(&share), "{w}");

    // Many cheap replications: the Young–Daly example 3·10⁷ times is over 10¹⁰ failures,
    // a quarter of it is not.
    let total = |reps: f64| yd.points.iter().map(|p| forecast::point_forecast(p).failures_per_rep).sum::<f64>() * reps;
    assert!(total(3e7) > SLOW_RUN_FAILURES && total(3e7 / 4.0) < SLOW_RUN_FAILURES);
    let w = forecast::slow_run_warning(&yd, Stop::Replications(30_000_000), Shard::WHOLE).expect("warns");
    assert!(w.contains("(30000000 replications of 15 points). Lower the replications if fewer will do."), "{w}");
    assert!(!w.contains("Check the MTBF"), "a sane job is not suspected: {w}");
    let quarter = Shard { index: 1, count: 4 };
    assert_eq!(forecast::slow_run_warning(&yd, Stop::Replications(30_000_000), quarter), None);
    // Resumed (`--resume`): only the replications left count.
    let run = Stop::Replications(30_000_000);
    assert_eq!(forecast::resumed_run_warning(&yd, run, Shard::WHOLE, 25_000_000), None);
    let w = forecast::resumed_run_warning(&yd, run, Shard::WHOLE, 1000).expect("warns");
    assert!(
        w.contains("(the 29999000 replications of 15 points left of the run's 30000000, 1000 of them done before)"),
        "{w}"
    );
    assert_eq!(
        forecast::resumed_run_warning(&yd, run, Shard::WHOLE, 0),
        forecast::slow_run_warning(&yd, run, Shard::WHOLE)
    );
}

/// The committed run scenarios (`scenarios/*.toml` less the efficiency studies, which are
/// `ckptsim efficiency`'s), by name: each path with the file of the shared data folder it
/// reads (`…/shared/data/REL` on a line that is not a comment: `Some(REL)`), if any.
pub(super) fn committed_run_scenarios() -> Vec<(PathBuf, Option<String>)> {
    const MARK: &str = "shared/data/";
    let mut out = vec![];
    for entry in fs::read_dir(root("scenarios")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        if text.contains("[machine]") || text.contains("[schedule]") {
            continue;
        }
        let data = text.lines().map(|l| l.split('#').next().unwrap_or("")).find_map(|l| {
            let at = l.find(MARK)? + MARK.len();
            Some(l[at..].split('"').next().unwrap_or("").to_string())
        });
        out.push((path, data));
    }
    out.sort();
    out
}

/// A committed run scenario warns at its defaults neither with the slow-run warning nor
/// with any of [`Scenario::warnings`], nor comes within [`COMMITTED_MARGIN`] of the slow-run
/// thresholds.
fn assert_does_not_warn(path: &Path) {
    let sc = scenario::load(path, &[]).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(forecast::slow_run_warning(&sc, sc.run.stop, Shard::WHOLE), None, "{}", path.display());
    assert_eq!(sc.warnings(), Vec::<String>::new(), "{}", path.display());
    let reps = match sc.run.stop {
        Stop::Replications(n) => n as f64,
        Stop::Precision(_) => FIRST_ADAPTIVE_ROUND as f64,
    };
    let per_rep: Vec<f64> = sc.points.iter().map(|p| forecast::point_forecast(p).failures_per_rep).collect();
    let worst = per_rep.iter().copied().fold(0.0, f64::max);
    let total = per_rep.iter().sum::<f64>() * reps;
    assert!(worst * COMMITTED_MARGIN < SLOW_REPLICATION_FAILURES, "{}: {worst} per replication", path.display());
    assert!(total * COMMITTED_MARGIN < SLOW_RUN_FAILURES, "{}: {total} in all", path.display());
}

/// No committed run scenario that needs no outside data warns at its defaults
/// ([`assert_does_not_warn`]).
#[test]
fn committed_scenarios_do_not_warn() {
    let mut checked = 0;
    for (path, _) in committed_run_scenarios().iter().filter(|s| s.1.is_none()) {
        assert_does_not_warn(path);
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} run scenarios checked");
}

/// Nor do those that replay a log of the shared data folder (the LANL replays).
#[test]
#[ignore = "needs ../shared/data"]
fn committed_scenarios_on_the_shared_data_do_not_warn() {
    let mut checked = 0;
    for (path, data) in committed_run_scenarios() {
        let Some(rel) = data else { continue };
        super::shared_data(&rel);
        assert_does_not_warn(&path);
        checked += 1;
    }
    assert!(checked >= 2, "only {checked} run scenarios on the shared data checked");
}

/// The warning goes to stderr, before the run, and changes nothing else: stdout is the
/// CSV file, and the CSV and JSON are the library's report of the same run, which prints no
/// warning. Cheap: 2 replications, each of about 1.3·10⁶ failures at point 3.
#[test]
fn the_warning_is_on_stderr_and_changes_no_output() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write(tmp.path(), "huge-platform.toml", HUGE_PLATFORM);
    let out = tmp.path().join("out");
    let o = ckptsim(&["run", path.to_str().unwrap(), "--reps", "2", "--format", "csv", "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let line = format!(
        "warning: {}: point 3 (job.nodes = 1000000) expects about 1.3e6 failures per replication",
        path.display()
    );
    assert!(stderr.starts_with(&line), "{stderr}");
    // One forecast before the run; after it, 2 replications leave point 0's count of
    // failures a handful, which the few-failures warning names (and nothing else warns).
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("warning")).collect();
    assert!(
        matches!(lines.as_slice(), [_, few] if few.contains("point 0: failures struck")),
        "the forecast, then the few failures: {stderr}"
    );
    assert!(
        stderr.contains("the run will simulate about 2.5e6 failure events in all (2 replications of 4 points)"),
        "{stderr}"
    );
    let csv = fs::read(out.join("huge-platform.csv")).unwrap();
    assert_eq!(o.stdout, csv, "stdout is the CSV file");
    let sc: Scenario = scenario::load(&path, &[]).unwrap();
    let result = simulate(&sc, 2, sc.run.seed);
    let report = ckptsim::report::Report::new(&sc, &result);
    assert_eq!(String::from_utf8(csv).unwrap(), report.csv());
    assert_eq!(fs::read_to_string(out.join("huge-platform.json")).unwrap(), report.json());
    // The table on stdout is the report's, then the files written.
    let o = ckptsim(&["run", path.to_str().unwrap(), "--reps", "2", "--out", out.to_str().unwrap()]);
    assert!(o.status.success());
    let table = String::from_utf8(o.stdout).unwrap();
    assert!(table.starts_with(&report.table()) && !table.contains("warning"), "{table}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("expects about 1.3e6"));
}

/// The README's first command and the committed scenario that plays the most failures
/// (`daly-2006.toml`, M = 15 min) run at their defaults without a word on stderr.
#[test]
fn committed_scenarios_run_without_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["young-daly", "daly-2006"] {
        let scenario = format!("scenarios/{name}.toml");
        let o = ckptsim(&["run", &scenario, "--out", tmp.path().to_str().unwrap()]);
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(o.stderr.is_empty(), "{name}: stderr: {}", String::from_utf8_lossy(&o.stderr));
    }
}

/// Writes `text` to `dir/name` and returns the path.
fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    path
}

/// The estimate is exact for Poisson failures only: under a law with memory the warning says
/// it is the Poisson one (a Weibull k = 0.7 job without checkpoints was warned of 6.5e7
/// failures per replication and saw about 7,900).
#[test]
fn a_law_with_memory_is_warned_with_the_poisson_estimate_named() {
    let text = r#"
[job]
work = "2e5 s"
checkpoint = "2 min"
restart = "10 min"
[failures]
law = "weibull"
shape = 0.7
mtbf = "3.1 h"
renewal = "job"
[policy]
interval = "none"
"#;
    let sc = inline(text);
    let w = forecast::slow_run_warning(&sc, Stop::Replications(500), Shard::WHOLE).expect("a warning");
    assert!(w.contains("expects, were its failures Poisson at the same MTBF, about"), "{w}");
    assert!(w.contains("would simulate about"), "{w}");
    let poisson = inline(&text.replace("law = \"weibull\"\nshape = 0.7", "law = \"exponential\""));
    let w = forecast::slow_run_warning(&poisson, Stop::Replications(500), Shard::WHOLE).expect("a warning");
    assert!(w.contains("the job expects about") && w.contains("will simulate about"), "{w}");
}
