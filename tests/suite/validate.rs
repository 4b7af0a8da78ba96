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
