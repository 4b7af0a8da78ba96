//! Issue #6 acceptance 1–2: the optimizer finds the exact optimum (exponential, and
//! job-level Weibull renewal against renewal-reward), within a narrow reported interval.

use super::load;
use ckptsim::analytic;
use ckptsim::failure::FailureModel;
use ckptsim::optimize::optimize;
use ckptsim::scenario::Point;

/// The reported interval must be narrower than this share of the optimum.
const MAX_RELATIVE_WIDTH: f64 = 0.10;
/// Common random numbers must make paired differences less variable than independent runs.
const MIN_VARIANCE_REDUCTION: f64 = 1.0;
/// Replications per candidate: the CLI's default budget.
const REPS: u64 = ckptsim::cli::OPTIMIZE_DEFAULT_REPLICATIONS;

/// The minimiser of a closed form over intervals, by a dense log scan then a fine linear one.
fn argmin(f: impl Fn(f64) -> f64, around_s: f64) -> f64 {
    let coarse = (0..300).map(|i| around_s * 10f64.powf(-1.0 + 2.0 * i as f64 / 299.0));
    let best = coarse.min_by(|a, b| f(*a).total_cmp(&f(*b))).unwrap();
    let fine = (0..401).map(|i| best * (0.98 + 0.04 * i as f64 / 400.0));
    fine.min_by(|a, b| f(*a).total_cmp(&f(*b))).unwrap()
}

fn check(point: &Point, exact: impl Fn(f64) -> f64, seed: u64, max_width: Option<f64>) {
    let young = analytic::young_interval_s(point.job.checkpoint_s, point.failures.mtbf_s());
    let t_star = argmin(&exact, young);
    let o = optimize(point, REPS, seed).expect("optimizes");
    assert!(
        o.interval_ci_low_s <= t_star && t_star <= o.interval_ci_high_s,
        "exact optimum {t_star} s outside [{}, {}] (best {})",
        o.interval_ci_low_s,
        o.interval_ci_high_s,
        o.best_interval_s
    );
    let width = o.interval_ci_high_s - o.interval_ci_low_s;
    if let Some(share) = max_width {
        assert!(width < share * t_star, "interval {width} s is not narrower than {share} of {t_star} s");
    }
    // The formulas' intervals are the closed forms at the job's MTBF, in this order.
    let (delta, mtbf_s) = (point.job.checkpoint_s, point.failures.mtbf_s());
    let expected = [
        ("young", analytic::young_interval_s(delta, mtbf_s)),
        ("daly", analytic::daly_low_order_interval_s(delta, mtbf_s)),
        ("daly-high-order", analytic::daly_high_order_interval_s(delta, mtbf_s)),
        ("optimal", analytic::optimal_interval_s(delta, mtbf_s)),
    ];
    let got: Vec<(&str, f64)> = o.formulas.iter().map(|f| (f.name, f.interval_s)).collect();
    assert_eq!(got, expected, "young, daly, daly-high-order and the exact exponential optimum");
    for f in &o.formulas {
        // Near the optimum the overheads of two intervals on the same streams move together:
        // common random numbers must make their difference less variable than independent runs.
        assert!(
            f.variance_reduction > MIN_VARIANCE_REDUCTION,
            "{}: variance reduction {}",
            f.name,
            f.variance_reduction
        );
        // The regret is measured against the best interval: no formula beats it significantly.
        assert!(f.regret_ci_high >= 0.0, "{}: regret {} [{}, {}]", f.name, f.regret, f.regret_ci_low, f.regret_ci_high);
    }
}

#[test]
fn exponential_optimum_is_inside_a_narrow_interval() {
    let sc = load("scenarios/young-daly.toml", &["job.checkpoint=2 min", "policy.factor=1"]);
    let p = &sc.points[0];
    let m = p.failures.mtbf_s();
    check(p, |t| analytic::finite_work_overhead(&p.job, t, m), 42, Some(MAX_RELATIVE_WIDTH));
}

#[test]
fn weibull_renewal_optimum_matches_renewal_reward() {
    let sc = load("scenarios/weibull-job.toml", &["failures.shape=0.5", "policy.factor=1"]);
    let p = &sc.points[0];
    let FailureModel::JobRenewal { law, .. } = &p.failures.base else { panic!("job-level renewal") };
    check(p, |t| analytic::renewal::finite_work_overhead(&p.job, t, law), 7, None);
}
