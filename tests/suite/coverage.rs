//! Issue acceptance 3: the 95% interval covers the exact value in 92–98% of 200 independent
//! seeds, and the sample variance of the wall time agrees with the exact variance formula
//! (MODELS.md §1, "Exact variance") within its sampling band.

use super::{inline, simulate};
use ckptsim::analytic;
use ckptsim::runner;

/// Independent seeds for the coverage test.
const SEEDS: u64 = 200;
/// Replications per seed.
const REPS_PER_SEED: u64 = 200;
/// The accepted band of coverage of the nominal 95% interval.
const COVERAGE_BAND: (f64, f64) = (0.92, 0.98);
/// |sample variance − exact| must stay below this many standard errors of the variance.
const Z_MAX: f64 = 4.0;
/// Replications for the variance check.
const VARIANCE_REPS: u64 = 20_000;

fn one_point(switches: &str) -> String {
    format!(
        r#"
[run]
seed = 1
[job]
work = "2e5 s"
checkpoint = "2 min"
restart = "10 min"
{switches}
[failures]
mtbf = "3.1 h"
[policy]
interval = "young"
"#
    )
}

#[test]
fn ci_coverage_over_independent_seeds() {
    let sc = inline(&one_point(""));
    let p = &sc.points[0];
    let exact = analytic::finite_work_overhead(&p.job, p.interval_s, p.failures.mtbf_s());
    let covered = (0..SEEDS)
        .filter(|&seed| {
            let e = simulate(&sc, REPS_PER_SEED, seed).summaries[0].overhead.estimate();
            e.ci_low() <= exact && exact <= e.ci_high()
        })
        .count();
    let coverage = covered as f64 / SEEDS as f64;
    assert!((COVERAGE_BAND.0..=COVERAGE_BAND.1).contains(&coverage), "coverage {coverage} outside {COVERAGE_BAND:?}");
}

/// Sample variance and the standard error of the sample variance, from the sample's
/// fourth central moment: Var(s²) ≈ (m₄ − s⁴(n−3)/(n−1))/n.
fn variance_with_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let s2 = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let m4 = xs.iter().map(|x| (x - mean).powi(4)).sum::<f64>() / n;
    (s2, ((m4 - s2 * s2 * (n - 3.0) / (n - 1.0)) / n).sqrt())
}

#[test]
fn sample_variance_matches_exact_variance() {
    for switches in [
        "",
        "failures_during_checkpoint = false",
        "failures_during_restart = false",
        "failures_during_checkpoint = false\nfailures_during_restart = false\ndowntime = \"3 min\"",
        "downtime = \"10 min\"\nfinal_checkpoint = false",
    ] {
        let sc = inline(&one_point(switches));
        let p = &sc.points[0];
        let walls: Vec<f64> =
            (0..VARIANCE_REPS).map(|rep| runner::replicate(p, 7, rep).expect("finishes").wall_s).collect();
        let (s2, se) = variance_with_se(&walls);
        let exact = analytic::finite_work_moments(&p.job, p.interval_s, p.failures.mtbf_s()).variance_s2;
        let z = (s2 - exact) / se;
        assert!(z.abs() < Z_MAX, "[{switches}] sample variance {s2:.6e}, exact {exact:.6e}, z = {z:.2}");
    }
}
