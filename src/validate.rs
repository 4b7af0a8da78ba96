//! The built-in validation suite: each case a simulation against the closed form it must
//! match exactly, under the switches that form assumes (MODELS.md). `ckptsim validate`
//! prints case, simulated ± CI, model and z, and fails when any |z| exceeds [`Z_MAX`].

use std::path::Path;

use crate::error::Result;
use crate::report;
use crate::runner;
use crate::scenario::{self, Stop};

/// A case fails when |simulated − model| exceeds this many standard errors.
pub const Z_MAX: f64 = 4.0;

/// How long the suite runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// A few thousand replications per case: about a second on two cores.
    Quick,
    /// A hundred times more, for tighter intervals.
    Full,
}

impl Budget {
    fn replications(&self, quick: u64) -> u64 {
        match self {
            Budget::Quick => quick,
            Budget::Full => quick * 100,
        }
    }
}

/// One validated point.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseResult {
    /// Case and point, for people.
    pub name: String,
    /// The closed form: `exact-exponential`, `renewal-reward`, …
    pub model: &'static str,
    /// Simulated mean overhead.
    pub simulated: f64,
    /// Its 95% half-width.
    pub half_width: f64,
    /// The closed form's overhead.
    pub exact: f64,
    /// (simulated − exact)/SE.
    pub z: f64,
}

impl CaseResult {
    /// Whether the case passes: |z| < [`Z_MAX`].
    pub fn passed(&self) -> bool {
        self.z.abs() < Z_MAX
    }
}

const JOB: &str = r#"
[job]
work = "2e5 s"
checkpoint = "2 min"
restart = "10 min"
"#;

/// The cases: (name, scenario text, replications in the quick budget).
fn cases() -> Vec<(&'static str, String, u64)> {
    let poisson = "[failures]\nlaw = \"exponential\"\nmtbf = \"3.1 h\"\n";
    let young = "[policy]\ninterval = \"young\"\n[sweep]\n\"policy.factor\" = [0.5, 1, 2]\n";
    let mut v = vec![];
    for (name, switches) in [
        ("exponential, writes and restarts fail", ""),
        ("exponential, restarts cannot fail", "failures_during_restart = false\n"),
        ("exponential, writes cannot fail", "failures_during_checkpoint = false\n"),
        ("exponential, neither fails", "failures_during_checkpoint = false\nfailures_during_restart = false\n"),
        ("exponential, downtime 5 min, no final write", "downtime = \"5 min\"\nfinal_checkpoint = false\n"),
    ] {
        v.push((name, format!("{JOB}{switches}{poisson}{young}"), 4000));
    }
    v.push((
        "Daly 2006, M = 6 h, 500 h of work",
        "[job]\nwork = \"500 h\"\ncheckpoint = \"5 min\"\nrestart = \"10 min\"\n[failures]\nmtbf = \"6 h\"\n[policy]\ninterval = \"daly-high-order\"\n"
            .to_string(),
        2000,
    ));
    for (name, law) in [
        ("job-level renewal, Weibull k = 0.7", "law = \"weibull\"\nshape = 0.7"),
        ("job-level renewal, Weibull k = 0.5", "law = \"weibull\"\nshape = 0.5"),
        ("job-level renewal, lognormal σ = 1.2", "law = \"lognormal\"\nsigma = 1.2"),
    ] {
        let failures = format!("[failures]\n{law}\nmtbf = \"3.1 h\"\nrenewal = \"job\"\nstart = \"fresh\"\n");
        v.push((name, format!("{JOB}{failures}{young}"), 4000));
    }
    v.push((
        "per-node exponential, 64 nodes, node by node",
        format!("{JOB}nodes = 64\n[failures]\nnode_mtbf = \"198.4 h\"\nsampler = \"per-node\"\n{young}"),
        2000,
    ));
    let racks = "[topology]\nracks = 64\nnodes_per_rack = 32\n[failures]\nnode_mtbf = \"5 y\"\n[failures.rack]\nmtbf = \"73 d\"\n";
    for placement in ["packed", "spread", "random"] {
        v.push((
            match placement {
                "packed" => "Poisson rack events, packed",
                "spread" => "Poisson rack events, spread",
                _ => "Poisson rack events, random placement",
            },
            format!("{JOB}nodes = 256\nplacement = \"{placement}\"\n{racks}{young}"),
            3000,
        ));
    }
    v
}

/// Runs the suite under `budget` from `seed`; `progress` is told each case's name.
pub fn run(budget: Budget, seed: u64, progress: &dyn Fn(&str)) -> Result<Vec<CaseResult>> {
    let mut out = vec![];
    for (i, (name, text, quick)) in cases().into_iter().enumerate() {
        progress(name);
        // Each case its own streams: one seed for all would share one fluctuation.
        let seed = runner::mix64(seed ^ runner::mix64(i as u64));
        let sc = scenario::parse(&text, Path::new(&format!("<validate: {name}>")), &[])?;
        let result = runner::run(&sc, Stop::Replications(budget.replications(quick)), seed, &|_| {}, &|_| {})?;
        for (p, s) in sc.points.iter().zip(&result.summaries) {
            let (model, exact) = report::model_overhead(p).expect("every validation case has a closed form");
            let e = s.overhead.estimate();
            let label = if sc.axes.is_empty() {
                name.to_string()
            } else {
                format!("{name} ({} × {})", p.factor, p.rule.name())
            };
            out.push(CaseResult {
                name: label,
                model,
                simulated: e.mean,
                half_width: e.half_width,
                exact,
                z: (e.mean - exact) / e.se,
            });
        }
    }
    Ok(out)
}

/// The suite's table.
pub fn table(results: &[CaseResult]) -> String {
    table_with(results, crate::report::TableWidth::Fit)
}

/// [`table`] at `width`: wide, a row per case; fit to 100 columns where the case names are
/// long, each case's name on a line of its own, its numbers on the next.
pub fn table_with(results: &[CaseResult], width: crate::report::TableWidth) -> String {
    let w = results.iter().map(|r| r.name.chars().count()).max().unwrap_or(4);
    if width == crate::report::TableWidth::Fit && 2 + w + 66 > crate::report::FIT_COLUMNS {
        let mut out =
            format!("  {:<24}  {:>9}  {:>17}  {:>6}\n", "case: simulated ± 95% CI", "model", "closed form", "z");
        for r in results {
            let fail = if r.passed() { "" } else { "  FAIL" };
            out.push_str(&format!("  {}\n", r.name));
            out.push_str(&format!(
                "    {:>10.5} ± {:>9.5}  {:>9.5}  {:>17}  {:>+6.2}{fail}\n",
                r.simulated, r.half_width, r.exact, r.model, r.z
            ));
        }
        let failed = results.iter().filter(|r| !r.passed()).count();
        out.push_str(&format!("\n{} passed, {} failed\n", results.len() - failed, failed));
        return out;
    }
    let mut out =
        format!("  {:<w$}  {:>24}  {:>9}  {:>17}  {:>6}\n", "case", "simulated ± 95% CI", "model", "closed form", "z");
    for r in results {
        out.push_str(&format!(
            "  {:<w$}  {:>12.5} ± {:>9.5}  {:>9.5}  {:>17}  {:>+6.2}{}\n",
            r.name,
            r.simulated,
            r.half_width,
            r.exact,
            r.model,
            r.z,
            if r.passed() { "" } else { "  FAIL" }
        ));
    }
    let failed = results.iter().filter(|r| !r.passed()).count();
    out.push_str(&format!("\n{} passed, {} failed\n", results.len() - failed, failed));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_full_budget_is_a_hundred_times_the_quick_one() {
        for quick in [1, 2000, 4000] {
            assert_eq!(Budget::Quick.replications(quick), quick);
            assert_eq!(Budget::Full.replications(quick), 100 * quick);
        }
    }
}
