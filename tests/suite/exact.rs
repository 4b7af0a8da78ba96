//! Issue acceptance 2: with exponential failures the simulated mean overhead is within
//! 4 SE of the exact finite-work value (MODELS.md §1) at every point of both example
//! scenarios, in all four checkpoint/restart switch combinations, and with downtime.

use super::{load, simulate};
use ckptsim::analytic;
use ckptsim::scenario::Scenario;

/// |simulated − exact| must stay below this many standard errors.
const Z_MAX: f64 = 4.0;

/// The four combinations of `failures_during_checkpoint` and `failures_during_restart`.
const SWITCHES: [(&str, &str); 4] = [
    ("job.failures_during_checkpoint=true", "job.failures_during_restart=true"),
    ("job.failures_during_checkpoint=true", "job.failures_during_restart=false"),
    ("job.failures_during_checkpoint=false", "job.failures_during_restart=true"),
    ("job.failures_during_checkpoint=false", "job.failures_during_restart=false"),
];

/// The z-score of every point against the exact finite-work overhead of `model_of`.
fn z_scores(sc: &Scenario, reps: u64, model_of: impl Fn(&ckptsim::scenario::Point) -> f64) -> Vec<f64> {
    let result = simulate(sc, reps, sc.run.seed);
    sc.points
        .iter()
        .zip(&result.summaries)
        .map(|(p, s)| {
            let e = s.overhead.estimate();
            (e.mean - model_of(p)) / e.se
        })
        .collect()
}

fn exact(p: &ckptsim::scenario::Point) -> f64 {
    analytic::finite_work_overhead(&p.job, p.interval_s, p.failures.mtbf_s())
}

fn assert_exact(rel: &str, reps: u64, extra: &[&str]) {
    for (ckpt, restart) in SWITCHES {
        let mut sets = vec![ckpt, restart];
        sets.extend_from_slice(extra);
        let sc = load(rel, &sets);
        for (p, z) in sc.points.iter().zip(z_scores(&sc, reps, exact)) {
            assert!(z.abs() < Z_MAX, "{rel} {sets:?} point {} {:?}: z = {z:.2}", p.index, p.labels);
        }
    }
}

#[test]
fn young_daly_example_matches_exact_in_every_switch_combination() {
    assert_exact("scenarios/young-daly.toml", 2000, &[]);
}

#[test]
fn young_daly_example_matches_exact_with_downtime() {
    assert_exact("scenarios/young-daly.toml", 2000, &["job.downtime=5 min"]);
}

#[test]
fn daly_2006_matches_exact_in_every_switch_combination() {
    assert_exact("scenarios/daly-2006.toml", 400, &[]);
}

#[test]
fn daly_2006_matches_exact_with_downtime_and_no_final_checkpoint() {
    assert_exact("scenarios/daly-2006.toml", 400, &["job.downtime=90 s", "job.final_checkpoint=false"]);
}

/// The comparison has power: the closed form of the wrong switch is rejected.
/// The paired difference's SE must be below this share of two independent means' SE,
/// sqrt(SE_p² + SE_b²), for a neighbour of the baseline (same checkpoint cost, interval 2×
/// or ½×): the points of one replication share its failures, so their overheads move
/// together (measured 0.20–0.51). Differences against another replication's baseline (no
/// pairing) have a ratio near 1. Points further apart share less (up to 0.98 for 600 s at
/// 4× Young against 20 s at ¼×), but the ratio stays below 1 everywhere.
const NEIGHBOUR_SE_RATIO: f64 = 0.6;

/// `[run] baseline`: each point's overhead minus the baseline point's in the same
/// replication. Its mean is within 4 SE (of the differences) of the exact difference of the
/// two finite-work overheads, is the difference of the two means, and its interval is
/// narrower than unpaired means give; the baseline's own difference is exactly 0.
#[test]
fn paired_differences_match_the_exact_difference() {
    for baseline in [0, 7] {
        let sc = load("scenarios/young-daly.toml", &[&format!("run.baseline={baseline}")]);
        let reps = 2000;
        let result = simulate(&sc, reps, sc.run.seed);
        let (base, base_sum) = (&sc.points[baseline], &result.summaries[baseline]);
        for (p, s) in sc.points.iter().zip(&result.summaries) {
            let d = s.overhead_diff.estimate();
            assert_eq!(d.n, reps);
            if p.index == baseline {
                assert_eq!((d.mean, d.sd), (0.0, 0.0));
                continue;
            }
            let want = exact(p) - exact(base);
            let z = (d.mean - want) / d.se;
            assert!(z.abs() < Z_MAX, "point {} vs {baseline}: {} vs exact {want}, z = {z:.2}", p.index, d.mean);
            let (mine, theirs) = (s.overhead.estimate(), base_sum.overhead.estimate());
            assert!((d.mean - (mine.mean - theirs.mean)).abs() < 1e-12, "point {}", p.index);
            let ratio = d.se / mine.se.hypot(theirs.se);
            // Five factors per checkpoint cost: neighbours share the row and are one apart.
            let neighbour = p.index / 5 == baseline / 5 && p.index.abs_diff(baseline) == 1;
            let most = if neighbour { NEIGHBOUR_SE_RATIO } else { 1.0 };
            assert!(ratio < most, "point {} vs {baseline}: paired SE ratio {ratio:.3}", p.index);
        }
    }
}

#[test]
fn the_wrong_closed_form_is_rejected() {
    let sc = load(
        "scenarios/young-daly.toml",
        &["job.failures_during_checkpoint=false", "job.failures_during_restart=true"],
    );
    let wrong = |p: &ckptsim::scenario::Point| {
        let mut job = p.job.clone();
        job.checkpoint_exposure = ckptsim::engine::Exposure::CanFail;
        analytic::finite_work_overhead(&job, p.interval_s, p.failures.mtbf_s())
    };
    let rejected = z_scores(&sc, 2000, wrong).iter().filter(|z| z.abs() >= Z_MAX).count();
    // Points with a 10 min checkpoint differ by far more than 4 SE.
    assert!(rejected >= 5, "only {rejected} points rejected the wrong model");
}

/// Replications in the failure-count test.
const COUNT_REPLICATIONS: u64 = 20_000;

/// The spread of the failure count (`failures_sd`) against an exact law: with no checkpoint
/// (`interval = none`, no final write), no restart cost and no downtime, a job of work W under
/// exponential failures of MTBF M restarts from scratch until a gap between failures reaches
/// W, so its failure count is geometric: P(N = k) = (1 − p)^k p with p = e^{−W/M}, mean
/// (1 − p)/p and variance (1 − p)/p². The mean lies within 4 SE; the sample variance within
/// 4 standard errors of a variance, σ²·√((κ − 1)/n), κ = 9 + p²/(1 − p) the geometric law's
/// kurtosis. At W = M the variance is 2.7 times the mean, so a Poisson-like spread fails.
#[test]
fn the_failure_count_spread_is_exact_for_a_job_without_checkpoints() {
    let sc = super::inline(
        "[job]\nwork = \"1 h\"\ncheckpoint = \"1 min\"\nrestart = \"0 s\"\nfinal_checkpoint = false\n\
         [failures]\nmtbf = \"1 h\"\n[policy]\ninterval = \"none\"\n",
    );
    let r = simulate(&sc, COUNT_REPLICATIONS, 9);
    let e = r.summaries[0].failures.estimate();
    let p = (-1.0f64).exp();
    let (mean, var) = ((1.0 - p) / p, (1.0 - p) / (p * p));
    let z_mean = (e.mean - mean) / e.se;
    assert!(z_mean.abs() < Z_MAX, "mean {} vs {mean}, z = {z_mean:.2}", e.mean);
    let kurtosis = 9.0 + p * p / (1.0 - p);
    let se_var = var * ((kurtosis - 1.0) / COUNT_REPLICATIONS as f64).sqrt();
    let z_var = (e.sd * e.sd - var) / se_var;
    assert!(z_var.abs() < Z_MAX, "variance {} vs {var}, z = {z_var:.2}", e.sd * e.sd);
    // The report's column is this SD.
    let report = ckptsim::report::Report::new(&sc, &r).json();
    let doc: serde_json::Value = serde_json::from_str(&report).unwrap();
    assert_eq!(doc["points"][0]["failures_sd"].as_f64(), Some(e.sd));
    assert!((mean - var).abs() > 2.0 * Z_MAX * se_var, "the test tells a Poisson spread apart");
}

/// `policy.interval = "optimal-work"`: the equal chunking of the work with the least exact
/// expected wall time. On the Young–Daly 2 min point it is W/128 (26.04 min), below the
/// endless optimum's exact overhead (25.96 min ends in a 0.4-chunk that costs a whole write),
/// and the simulation agrees with its exact value. With two levels it is the `formulas`
/// `optimal-work` row: W/264 (33 whole patterns) at n = 8, and 31 patterns of 11 with
/// `every = "optimal"`.
#[test]
fn the_optimal_work_rule_is_the_best_chunking_of_the_work() {
    let sets = ["job.checkpoint=2min", "policy.factor=1"];
    let at = |rule: &str| {
        let mut all = sets.to_vec();
        let set = format!("policy.interval={rule}");
        all.push(&set);
        load("scenarios/young-daly.toml", &all)
    };
    let (work, endless) = (at("optimal-work"), at("optimal"));
    let (p, q) = (&work.points[0], &endless.points[0]);
    let w = p.job.work_s;
    let m = p.failures.mtbf_s();
    let exact = |t: f64| analytic::finite_work_overhead(&p.job, t, m);
    let k_best = (60..300).min_by(|&a, &b| exact(w / a as f64).total_cmp(&exact(w / b as f64))).unwrap();
    assert_eq!((k_best, p.interval_s), (128, w / 128.0));
    assert!(exact(p.interval_s) < exact(q.interval_s), "{} vs {}", exact(p.interval_s), exact(q.interval_s));
    let r = simulate(&work, 20_000, 5);
    let e = r.summaries[0].overhead.estimate();
    let z = (e.mean - exact(p.interval_s)) / e.se;
    assert!(z.abs() < Z_MAX, "simulated {} ± {}, exact {}: z = {z:.2}", e.mean, e.se, exact(p.interval_s));
    // The rule is named in the outputs.
    assert_eq!(p.rule.name(), "optimal-work");

    let two = |every: &str| {
        let every = format!("job.level2.every={every}");
        load("scenarios/two-level.toml", &["policy.interval=optimal-work", &every]).points[0].clone()
    };
    let p = two("8");
    assert_eq!(p.interval_s, 2e5 / 264.0);
    let p = two("\"optimal\"");
    assert_eq!((p.two_level.as_ref().unwrap().every, p.interval_s), (11, 2e5 / 341.0));

    // Where "optimal" has no value, neither has "optimal-work", and the error says which.
    let sets: Vec<String> =
        ["policy.interval=optimal-work", "job.failures_during_checkpoint=false", "job.checkpoint=4h"]
            .map(String::from)
            .to_vec();
    let e = ckptsim::scenario::load(&super::root("scenarios/young-daly.toml"), &sets).unwrap_err().to_string();
    assert!(
        e.contains("policy.interval") && e.contains("\"optimal-work\" (the best chunking near \"optimal\")"),
        "{e}"
    );
}
