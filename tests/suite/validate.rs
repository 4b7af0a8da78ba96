//! Issue #6 acceptance 3: `ckptsim validate --quick` passes, fast.

use super::ckptsim;
use std::time::Instant;

/// The quick suite must finish within this (s) on two cores; it takes about a second.
const QUICK_LIMIT_S: f64 = 60.0;

#[test]
fn quick_validation_passes_in_under_a_minute() {
    let start = Instant::now();
    let o = ckptsim(&["validate", "--quick"]);
    let elapsed = start.elapsed().as_secs_f64();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains(" passed, 0 failed"), "{out}");
    assert!(
        out.lines().filter(|l| l.contains("exact-exponential") || l.contains("renewal-reward")).count() >= 30,
        "{out}"
    );
    assert!(elapsed < QUICK_LIMIT_S, "validate --quick took {elapsed:.1} s");
}

/// Each case's z is in standard errors, and a case fails beyond Z_MAX on either side.
#[test]
fn each_case_reports_z_in_standard_errors_and_fails_beyond_the_limit_either_way() {
    use ckptsim::stats::t_975;
    use ckptsim::validate::{Budget, CaseResult, Z_MAX, run};
    // The half-width is t_{n−1,0.975}·SE, so half-width·z/(simulated − exact) is that t: for
    // the quick suite's thousands of replications per case, between the normal quantile and
    // Student's at 30 replications.
    let (normal, thirty) = (t_975(1 << 40), t_975(29));
    for r in run(Budget::Quick, 0, &|_| {}).expect("the suite runs") {
        let t = r.half_width * r.z / (r.simulated - r.exact);
        assert!(normal <= t && t <= thirty, "{}: z = {} implies t = {t}", r.name, r.z);
    }
    let case = |z: f64| CaseResult { name: "c".into(), model: "m", simulated: 0.0, half_width: 1.0, exact: 0.0, z };
    for inside in [0.0, 0.9 * Z_MAX, -0.9 * Z_MAX] {
        assert!(case(inside).passed(), "z = {inside}");
    }
    for outside in [1.1 * Z_MAX, -1.1 * Z_MAX] {
        assert!(!case(outside).passed(), "z = {outside}");
    }
}
