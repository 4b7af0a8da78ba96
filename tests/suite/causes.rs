//! The overhead split by cause (`<name>-causes.csv`): each cause's share against its exact
//! value under Poisson failures, the parts adding up to the overhead, the files written only
//! where failures have several causes, and byte-identical results for any thread count and
//! for merged shards.

use super::{ckptsim, inline, simulate};
use ckptsim::failure::Cause;
use ckptsim::report;
use serde_json::json;
use std::fs;
use std::path::Path;

/// |simulated − exact| must stay below this many standard errors.
const Z_MAX: f64 = 4.0;
/// Replications per point in the exact tests.
const REPS: u64 = 3000;
/// The parts (writes and causes) add up to the overhead within this relative error: their
/// means are of sums rounded once per replication.
const PARTS_RTOL: f64 = 1e-9;

/// Every domain level and k-of-N events under a deterministic placement (packed and spread:
/// the touched domains are fixed, so the rates are), both restart switches, two intervals.
const ALL_LEVELS: &str = r#"
    [run]
    replications = 100
    [topology]
    racks = 16
    nodes_per_rack = 8
    racks_per_switch = 4
    racks_per_power = 8
    [job]
    work = "2e5 s"
    nodes = 24
    checkpoint = "2 min"
    restart = "10 min"
    downtime = "1 min"
    [failures]
    law = "exponential"
    node_mtbf = "3 y"
    [failures.rack]
    law = "exponential"
    mtbf = "60 d"
    [failures.switch]
    law = "exponential"
    mtbf = "120 d"
    [failures.power]
    law = "exponential"
    mtbf = "1 y"
    [failures.system]
    law = "exponential"
    mtbf = "2 y"
    [failures.random]
    nodes = 4
    law = "exponential"
    mtbf = "3 d"
    [sweep]
    "job.placement" = ["packed", "spread"]
    "job.failures_during_restart" = [true, false]
    "policy.factor" = [0.5, 2]
"#;

/// A random placement (drawn anew in every replication: the rates are a mixture), where the
/// touched-rack distribution is exact: racks and the system only, with k-of-N events.
const RANDOM_PLACEMENT: &str = r#"
    [run]
    replications = 100
    [topology]
    racks = 16
    nodes_per_rack = 8
    [job]
    work = "2e5 s"
    nodes = 12
    checkpoint = "2 min"
    restart = "10 min"
    placement = "random"
    failures_during_checkpoint = false
    [failures]
    law = "exponential"
    node_mtbf = "2 y"
    [failures.rack]
    law = "exponential"
    mtbf = "30 d"
    [failures.system]
    law = "exponential"
    mtbf = "1 y"
    [failures.random]
    nodes = 2
    law = "exponential"
    mtbf = "2 d"
    [sweep]
    "policy.factor" = [0.5, 1, 2]
"#;

/// Under Poisson failures each failure's cause is a mark independent of the times, cause c
/// with probability λ_c/λ, so each cause's mean share of the overhead is λ_c/λ of the
/// failures' (overhead − writes): every cause of every point within [`Z_MAX`] SE of it, and
/// writes plus causes add up to the overhead.
#[test]
fn each_cause_costs_its_rate_share_of_the_failures() {
    for (name, text) in [("all levels", ALL_LEVELS), ("random placement", RANDOM_PLACEMENT)] {
        let sc = inline(text);
        let causes = sc.causes();
        assert!(causes.len() >= 4, "{name}: {causes:?}");
        let result = simulate(&sc, REPS, 91);
        let mut struck = 0;
        for (p, s) in sc.points.iter().zip(&result.summaries) {
            let ctx = format!("{name} point {} {:?}", p.index, p.labels);
            let exact = report::cause_model_overheads(p, &causes).unwrap_or_else(|| panic!("{ctx}: no closed form"));
            assert_eq!(s.causes.len(), causes.len(), "{ctx}");
            let mut parts = s.per_replication(s.totals.checkpoints) * p.job.checkpoint_s / p.job.work_s;
            let mut failures = 0;
            for (c, want) in s.causes.iter().zip(&exact) {
                let e = c.overhead.estimate();
                let z = (e.mean - want) / e.se;
                assert!(
                    z.abs() < Z_MAX,
                    "{ctx} {}: simulated {} ± {} (SE), exact {want}, z = {z:.2}",
                    c.cause.name(),
                    e.mean,
                    e.se
                );
                parts += e.mean;
                failures += c.failures;
                struck += (c.failures > 0) as usize;
            }
            let total = s.overhead.estimate().mean;
            assert!((parts - total).abs() <= PARTS_RTOL * total, "{ctx}: parts {parts} vs overhead {total}");
            assert_eq!(failures, s.totals.failures, "{ctx}: the causes' failures are all the failures");
            // The causes' exact shares add up to the exact overhead's failure part too.
            let (_, model) = report::model_overhead(p).expect("Poisson");
            let writes = s.per_replication(s.totals.checkpoints) * p.job.checkpoint_s / p.job.work_s;
            let sum: f64 = exact.iter().sum();
            assert!((sum + writes - model).abs() <= 1e-12 + 1e-9 * model, "{ctx}: {sum} + {writes} vs {model}");
        }
        // Every cause struck somewhere: the test sees each of them.
        assert!(struck >= causes.len(), "{name}: only {struck} (point, cause) pairs struck");
    }
}

/// The power of the test above: a split that charged every failure to the nodes (the causes
/// ignored) would put the nodes' share more than [`Z_MAX`] SE above its exact value at every
/// point, so the test would reject it. (The sum of the causes' shares does not depend on how
/// failures are labelled: this checks the test, not the engine.)
#[test]
fn the_split_is_not_the_node_count_alone() {
    let sc = inline(ALL_LEVELS);
    let causes = sc.causes();
    let result = simulate(&sc, REPS, 92);
    let rack = causes.iter().position(|c| *c == Cause::Rack).expect("rack events");
    for (p, s) in sc.points.iter().zip(&result.summaries) {
        let exact = report::cause_model_overheads(p, &causes).unwrap();
        let nodes = &s.causes[0];
        assert_eq!(nodes.cause, Cause::Nodes);
        // All the failure cost as if it were the nodes': far above their exact share.
        let all: f64 = s.causes.iter().map(|c| c.overhead.estimate().mean).sum();
        let e = nodes.overhead.estimate();
        assert!((all - exact[0]) / e.se > Z_MAX, "point {}: {all} vs {} (SE {})", p.index, exact[0], e.se);
        assert!(s.causes[rack].failures > 0, "point {}: no rack event struck", p.index);
    }
}

/// Runs `scenario` (a file) with `extra` into `out`, asserting success; its stdout.
fn run(scenario: &Path, out: &Path, extra: &[&str]) -> String {
    let mut args = vec!["run", scenario.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = ckptsim(&args);
    assert!(o.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// The causes file: one row per point and part, the header as documented, the writes first;
/// the table shows the parts; a scenario whose failures are its nodes' alone writes none.
#[test]
fn the_causes_file_is_written_where_failures_have_several_causes() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("levels.toml");
    fs::write(&file, format!("name = \"levels\"\n{ALL_LEVELS}")).unwrap();
    let out = tmp.path().join("out");
    let table = run(&file, &out, &["--reps", "200"]);
    assert!(table.contains("overhead by cause"), "{table}");
    assert!(table.contains("levels-causes.csv"), "the wrote line names it: {table}");
    let csv = fs::read_to_string(out.join("levels-causes.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "point,job.placement,job.failures_during_restart,policy.factor,interval_s,cause,failures_mean,lost_mean_s,\
         recovery_mean_s,overhead_mean,overhead_ci_low,overhead_ci_high,share_of_overhead,model_overhead,model_z"
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let names = ["writes", "nodes", "rack", "switch", "power", "system", "random"];
    assert_eq!(rows.len(), 8 * names.len());
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row[0], (i / names.len()).to_string());
        assert_eq!(row[5], names[i % names.len()]);
        // Shares of one point add up to 1.
        if i % names.len() == 0 {
            let share: f64 = rows[i..i + names.len()].iter().map(|r| r[12].parse::<f64>().unwrap()).sum();
            assert!((share - 1.0).abs() < 1e-9, "point {}: shares add up to {share}", row[0]);
        }
    }
    // The JSON holds the same parts per point.
    let json: serde_json::Value = serde_json::from_str(&fs::read_to_string(out.join("levels.json")).unwrap()).unwrap();
    let parts = json["points"][3]["causes"].as_array().unwrap();
    assert_eq!(parts.len(), names.len());
    assert_eq!(parts[2]["cause"], "rack");
    assert_eq!(parts[2]["overhead_mean"].as_f64().unwrap().to_string(), rows[3 * names.len() + 2][9]);
    // The Young–Daly example's failures are its nodes' alone: no causes file, no `causes` key.
    let plain = tmp.path().join("plain");
    let table = run(&super::root("scenarios/young-daly.toml"), &plain, &["--reps", "50"]);
    assert!(!table.contains("by cause"), "{table}");
    assert!(!plain.join("young-daly-causes.csv").exists());
    let json = fs::read_to_string(plain.join("young-daly.json")).unwrap();
    assert!(!json.contains("\"causes\""));
}

/// Where the job ends at its first failure its overhead counts the work left undone (below 0),
/// so the parts cannot add up to it: the causes file leaves their shares empty, the note says
/// why, and a point that restarts in the same run keeps its shares (adding up to 1).
#[test]
fn parts_of_an_end_job_point_have_no_share_of_the_overhead() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("levels.toml");
    let text = format!("name = \"levels\"\n{ALL_LEVELS}\n")
        .replace("[sweep]\n", "[sweep]\n\"job.on_failure\" = [\"restart\", \"end-job\"]\n");
    fs::write(&file, text).unwrap();
    let out = tmp.path().join("out");
    let table = run(&file, &out, &["--reps", "200"]);
    assert!(table.contains("on_failure = end-job"), "the note says why: {table}");
    assert!(!table.contains("(failures per replication); the parts add up"), "{table}");
    let csv = fs::read_to_string(out.join("levels-causes.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("{name}: {header:?}"));
    let (on_failure, share) = (col("job.on_failure"), col("share_of_overhead"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let (mut restart, mut end_job) = (0.0, 0);
    for row in &rows {
        match row[on_failure] {
            "restart" => restart += row[share].parse::<f64>().unwrap(),
            "end-job" => {
                assert_eq!(row[share], "", "{row:?}");
                end_job += 1;
            }
            other => panic!("{other}"),
        }
    }
    assert!(end_job > 0);
    let restart_points = rows.len() as f64 / 2.0 / 7.0;
    assert!((restart - restart_points).abs() < 1e-9, "restart shares add up to one a point: {restart}");
}

/// A run whose failures no longer come from several causes removes the causes file an earlier
/// run of the same scenario left beside its results, and says so.
#[test]
fn a_stale_causes_file_is_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("levels.toml");
    fs::write(&file, format!("name = \"levels\"\n{RANDOM_PLACEMENT}")).unwrap();
    let out = tmp.path().join("out");
    run(&file, &out, &["--reps", "20", "--plot"]);
    assert!(out.join("levels-causes.csv").exists() && out.join("levels-causes.svg").exists());
    // The same scenario with its failures from the nodes alone.
    let plain = fs::read_to_string(super::root("scenarios/young-daly.toml")).unwrap();
    let plain = plain.lines().map(|l| if l.starts_with("name") { "name = \"levels\"" } else { l }).collect::<Vec<_>>();
    fs::write(&file, plain.join("\n")).unwrap();
    let args = ["run", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--reps", "20", "--plot"];
    let o = ckptsim(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    for stale in ["levels-causes.csv", "levels-causes.svg"] {
        assert!(!out.join(stale).exists(), "{stale} was left");
        assert!(stderr.contains(&format!("removed {}", out.join(stale).display())), "{stderr}");
    }
    assert!(out.join("levels.csv").exists() && out.join("levels-overhead.svg").exists());
}

/// A sweep of more points than the plot has bars for ([`report::MAX_CAUSE_BARS`]) gets its split
/// in the CSV and no plot, and is told so.
#[test]
fn a_sweep_too_large_for_the_causes_plot_is_told() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("levels.toml");
    let factors: Vec<String> = (0..=report::MAX_CAUSE_BARS).map(|i| format!("{}", 0.5 + i as f64 / 100.0)).collect();
    let text = RANDOM_PLACEMENT
        .replace("\"policy.factor\" = [0.5, 1, 2]", &format!("\"policy.factor\" = [{}]", factors.join(", ")));
    fs::write(&file, format!("name = \"levels\"\n{text}")).unwrap();
    let out = tmp.path().join("out");
    let args = ["run", file.to_str().unwrap(), "--out", out.to_str().unwrap(), "--reps", "2", "--plot"];
    let o = ckptsim(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    let points = report::MAX_CAUSE_BARS + 1;
    assert!(stderr.contains(&format!("no overhead-by-cause plot: {points} points")), "{stderr}");
    assert!(!out.join("levels-causes.svg").exists());
    assert_eq!(
        fs::read_to_string(out.join("levels-causes.csv")).unwrap().lines().count(),
        1 + points * 5,
        "writes, nodes, rack, system, random"
    );
}

/// The causes file is byte-identical for any thread count and for shards merged afterwards.
#[test]
fn the_causes_file_is_identical_for_threads_and_merged_shards() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("levels.toml");
    fs::write(&file, format!("name = \"levels\"\n{RANDOM_PLACEMENT}")).unwrap();
    let read = |dir: &Path| {
        ["levels-causes.csv", "levels.json"].map(|f| fs::read(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}")))
    };
    let one = tmp.path().join("t1");
    run(&file, &one, &["--reps", "301", "--threads", "1"]);
    let two = tmp.path().join("t2");
    run(&file, &two, &["--reps", "301", "--threads", "2"]);
    assert!(read(&one) == read(&two), "threads 1 and 2 differ");
    let shards = tmp.path().join("shards");
    let files: Vec<String> = (0..3)
        .map(|i| {
            run(&file, &shards, &["--reps", "301", "--shard", &format!("{i}/3")]);
            shards.join(format!("levels.shard-{i}-of-3.json")).to_str().unwrap().to_string()
        })
        .collect();
    let merged = tmp.path().join("merged");
    let mut args = vec!["merge", "--out", merged.to_str().unwrap()];
    args.extend(files.iter().map(String::as_str));
    let o = ckptsim(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(read(&merged) == read(&one), "merged shards differ from one run");
    // A shard whose split lost a cause is refused, naming it.
    let doc: serde_json::Value = serde_json::from_str(&fs::read_to_string(&files[0]).unwrap()).unwrap();
    let mut edited = doc.clone();
    edited["points"][1]["causes"].as_array_mut().unwrap().pop();
    fs::write(&files[0], serde_json::to_string(&edited).unwrap()).unwrap();
    let o = ckptsim(&args);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("key `points[1].causes`") && err.contains("accepted is the run's causes"), "{err}");
    // So is one whose causes' lost time no longer adds up to the total, or is negative.
    for (limbs, key) in [
        (json!([1, 2]), "points[1].causes[].lost_s"),
        (json!([vec![0; 67], vec![-1]].concat()), "points[1].causes[1].lost_s"),
    ] {
        let mut edited = doc.clone();
        edited["points"][1]["causes"][1]["lost_s"] = limbs;
        fs::write(&files[0], serde_json::to_string(&edited).unwrap()).unwrap();
        let o = ckptsim(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{key}: {err}");
        assert!(err.contains(&format!("key `{key}`")) && err.contains("accepted is"), "{key}: {err}");
        assert!(!merged.join("levels-causes.csv").exists() || read(&merged) == read(&one), "{key}: output replaced");
    }
}
