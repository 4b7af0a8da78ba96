//! What a run will cost, told before it starts: the failures every replication of each sweep
//! point is expected to play, from the point's parameters alone (its job MTBF and the
//! expected wall time of [`analytic::expected_wall_s`]), and a warning when the run is
//! expected to be very slow or to hit the engine's failure limit.
//!
//! A replication costs about one engine step per failure (DESIGN.md: O(failures)), struck or
//! passed over, so the expected failures are the run's cost in the engine's own unit. A job
//! MTBF given where a node's was meant (10⁶ nodes at 5 years: a job MTBF of 158 s) makes
//! every replication play millions of failures, and without a terminal a run shows no
//! progress bar: the warning says so before the first replication.

use crate::analytic;
use crate::engine::{Limits, OnFailure};
use crate::report::human_duration;
use crate::runner::{self, Shard};
use crate::scenario::{Point, Scenario, Stop};

/// Expected failures over all the replications and points a command simulates above which
/// it warns (summed over the points: each point plays its own).
///
/// Why 10¹⁰: the engine plays a Poisson stream at about 10 ns per failure on one core (README,
/// Performance: a replication of the Young–Daly example, 22 failures, takes about 0.2 µs), so
/// 10¹⁰ failures take 100 core-seconds at best; a stream sampled by cohorts (a Weibull
/// platform) costs 30 to 46 times as much per replication (README, Per-node platforms), and
/// domains, bursts and replayed logs are dearer than Poisson too. The estimate does not know
/// what a failure costs in each model, so one bound serves all: a run that warns takes at
/// least a core-minute or two. 10⁹ warned a deliberate 3·10⁶-replication run of the Young–Daly
/// example that takes ten seconds: noise. The mistaken MTBF, the case that matters, is caught
/// per replication ([`SLOW_REPLICATION_FAILURES`]) whatever the count. The committed scenarios
/// expect at most 2·10⁷ at their defaults (`daly-2006.toml`), far below it
/// (`tests/suite/forecast.rs` checks every one).
pub const SLOW_RUN_FAILURES: f64 = 1e10;

/// Expected failures per replication of one point above which the run warns, whatever its
/// replication count.
///
/// Why 10⁶: that many failures take a replication 10 ms (Poisson) to half a second (cohorts),
/// so the default 1000 replications of one point take from ten seconds to several minutes
/// (see [`SLOW_RUN_FAILURES`]); and a job struck a million times is not a job anyone runs:
/// its failures are W/M × (1 + overhead), so a million of them take thousands of MTBFs of
/// work with an overhead in the hundreds (the job failing almost all of its time), or a
/// million MTBFs of work: the mark of an MTBF meant for one node. The committed scenarios
/// expect at most 1.0·10⁴ (`daly-2006.toml` at M = 15 min and 500 h of work: 2000 MTBFs times
/// 1 + an overhead of 4).
pub const SLOW_REPLICATION_FAILURES: f64 = 1e6;

/// Expected overhead (wall / work − 1) above which the warning asks whether the MTBF was
/// meant for one node: the job would spend over 99% of its time failing and recovering,
/// which no one plans a job for (the committed scenarios reach about 4 at most).
pub const SUSPECT_OVERHEAD: f64 = 100.0;

/// Replications in the first round of an adaptive run (`--precision`), all that is known
/// of its count before it starts: [`runner::run`] plays at least this many (the larger of
/// [`runner::MIN_ADAPTIVE_REPLICATIONS`] and 100) before it estimates how many it needs.
pub const FIRST_ADAPTIVE_ROUND: u64 = 100;

/// What one replication of a sweep point is expected to cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointForecast {
    /// The point's index.
    pub point: usize,
    /// The job's MTBF (s), [`crate::failure::Failures::mtbf_s`].
    pub mtbf_s: f64,
    /// Expected wall time of one replication (s), [`analytic::expected_wall_s`] at the job's
    /// MTBF.
    pub wall_s: f64,
    /// Expected failures per replication, struck or passed over:
    /// [`analytic::expected_failures_per_rep`], E\[wall\]/MTBF.
    pub failures_per_rep: f64,
}

impl PointForecast {
    /// Expected overhead, E\[wall\]/W − 1 (dimensionless); `None` for a job that ends at its
    /// first failure, whose wall time is no measure of its losses.
    pub fn overhead(&self, point: &Point) -> Option<f64> {
        (point.job.on_failure == OnFailure::Restart).then(|| self.wall_s / point.job.work_s - 1.0)
    }
}

/// The expected cost of one replication of `point`, from its parameters alone.
///
/// Exact in expectation for Poisson failures (every exponential model: a node's, the
/// job's, or Poisson domain events on a fixed placement), where E\[wall\] is the finite-work
/// expectation of `model_overhead` (MODELS.md §1) and the failures E\[wall\]/MTBF (Wald's
/// identity). For any other model (Weibull, lognormal, gamma or empirical lives, per-node
/// ageing, random placements, bursts, a replayed log) the same formulas at the job's MTBF
/// are an estimate: right in the long run, off where a law's memory matters (a fresh
/// platform with infant mortality fails several times as often at first).
///
/// With two-level checkpoints the wall time is the exact two-level expectation
/// ([`analytic::multilevel::expected_wall_s`]) at each level's expected rate
/// ([`crate::scenario::two_level_rates`]), and the failures E\[wall\]/MTBF as above.
pub fn point_forecast(point: &Point) -> PointForecast {
    let mtbf_s = point.failures.mtbf_s();
    let (wall_s, failures_per_rep) = match &point.two_level {
        None => (
            analytic::expected_wall_s(&point.job, point.interval_s, mtbf_s),
            analytic::expected_failures_per_rep(&point.job, point.interval_s, mtbf_s),
        ),
        Some(two) => {
            let rates = crate::scenario::two_level_rates(&point.failures, two, crate::scenario::RateBasis::Failures);
            let wall_s =
                analytic::multilevel::expected_wall_s(&point.job, two, point.interval_s, rates).unwrap_or(f64::NAN);
            (wall_s, wall_s / mtbf_s)
        }
    };
    PointForecast { point: point.index, mtbf_s, wall_s, failures_per_rep }
}

/// The warning (without its `warning: ` prefix) for a run of `scenario` under `stop`, of
/// which this command plays the replications of `shard`, or `None` when the run is not
/// expected to be slow: when its expected failures over all replications and points exceed
/// [`SLOW_RUN_FAILURES`], or those of one replication of a point exceed
/// [`SLOW_REPLICATION_FAILURES`]. It names the point with the most failures per replication,
/// its numbers and the run's total, says when that point is expected to pass the engine's
/// limit ([`Limits::max_failures`], which would end the run with an error), and what to check.
///
/// With [`Stop::Precision`] the count is not known before the run: the first round's
/// [`FIRST_ADAPTIVE_ROUND`] replications stand for it (a lower bound). A scenario that the
/// runner refuses before any replication ([`runner::refuse_hopeless`],
/// [`runner::refuse_unfinishable`]) gets no warning: its error comes at once.
pub fn slow_run_warning(scenario: &Scenario, stop: Stop, shard: Shard) -> Option<String> {
    resumed_run_warning(scenario, stop, shard, 0)
}

/// [`slow_run_warning`] for a fixed-count run resumed after `done` of its (or its shard's)
/// replications (`--resume`): only the replications left count. `done` is ignored under
/// [`Stop::Precision`], which cannot be resumed.
pub fn resumed_run_warning(scenario: &Scenario, stop: Stop, shard: Shard, done: u64) -> Option<String> {
    if runner::refuse_unfinishable(scenario).is_err() {
        return None;
    }
    let (replications, done) = match stop {
        Stop::Replications(total) => (shard.len(total).saturating_sub(done), done.min(shard.len(total))),
        Stop::Precision(_) => (FIRST_ADAPTIVE_ROUND, 0),
    };
    let forecasts: Vec<PointForecast> = scenario.points.iter().map(point_forecast).collect();
    let worst = forecasts.iter().max_by(|a, b| a.failures_per_rep.total_cmp(&b.failures_per_rep))?;
    let total: f64 = forecasts.iter().map(|f| f.failures_per_rep).sum::<f64>() * replications as f64;
    // NaN never warns: a point whose estimate is undefined is left to the run.
    if !(total > SLOW_RUN_FAILURES || worst.failures_per_rep > SLOW_REPLICATION_FAILURES) {
        return None;
    }
    let point = &scenario.points[worst.point];
    let who = if scenario.points.len() == 1 {
        "the job".to_string()
    } else if point.labels.is_empty() {
        format!("point {}", point.index)
    } else {
        let values: Vec<String> =
            scenario.axes.iter().zip(&point.labels).map(|(axis, value)| format!("{} = {value}", axis.key)).collect();
        format!("point {} ({})", point.index, values.join(", "))
    };
    let job = &point.job;
    let overhead = worst.overhead(point);
    let mut why =
        format!("job MTBF {} against restarts of {}", human_duration(worst.mtbf_s), human_duration(job.restart_s));
    if let Some(two) = &point.two_level {
        why.push_str(&format!(
            " (from level 2: {}), a level-2 write of {} every {} checkpoints",
            human_duration(two.restart_s),
            human_duration(two.checkpoint_s),
            two.every
        ));
    }
    if let Some(h) = overhead {
        why.push_str(&format!(": overhead ≈ {}", about(h)));
    }
    let points = scenario.points.len();
    let of_points = if points == 1 { String::new() } else { format!(" of {points} points") };
    let count = match stop {
        Stop::Replications(total) if done > 0 => {
            let whose = if shard == Shard::WHOLE { "the run's".to_string() } else { "this shard's".to_string() };
            format!(
                "the {replications} replications{of_points} left of {whose} {}, {done} of them done before",
                shard.len(total)
            )
        }
        Stop::Replications(total) if shard == Shard::WHOLE => format!("{total} replications{of_points}"),
        Stop::Replications(total) => {
            format!("this shard's {replications} of the run's {total} replications{of_points}")
        }
        Stop::Precision(_) => format!(
            "the first round's {replications} replications{of_points} alone; the adaptive run then adds rounds until \
             its precision is met"
        ),
    };
    let who_runs = if shard == Shard::WHOLE { "the run" } else { "this shard" };
    // The estimate is exact for Poisson failures only; a law with memory (Weibull nodes,
    // job-level renewal, bursts) may see far fewer failures, or more.
    let (expects, will) = if point.failures.is_poisson() {
        ("expects", "will simulate")
    } else {
        ("expects, were its failures Poisson at the same MTBF,", "would simulate")
    };
    let mut text = format!(
        "{who} {expects} about {} failures per replication ({why}); {who_runs} {will} about {} failure events \
         in all ({count})",
        about(worst.failures_per_rep),
        about(total)
    );
    let limit = Limits::default().max_failures;
    let beyond_limit = worst.failures_per_rep > limit as f64;
    if beyond_limit {
        text.push_str(&format!(
            ", more than the engine's limit of {limit} per replication: the run will probably stop with the error that \
             the job was struck by (or passed over) more than {limit} failures in one replication"
        ));
    }
    text.push_str(". ");
    let suspect = beyond_limit
        || worst.failures_per_rep > SLOW_REPLICATION_FAILURES
        || overhead.is_some_and(|h| h > SUSPECT_OVERHEAD);
    let fewer = match stop {
        Stop::Replications(_) => "lower the replications",
        Stop::Precision(_) => "ask for a looser precision",
    };
    text.push_str(&if beyond_limit {
        if point.two_level.is_some() {
            "Check the MTBF (is it the node's or the job's?), the restart and checkpoint costs, the interval and \
             job.level2.every."
                .to_string()
        } else {
            "Check the MTBF (is it the node's or the job's?), the restart and checkpoint costs and the interval."
                .to_string()
        }
    } else if suspect {
        format!("Check the MTBF (is it the node's or the job's?), or {fewer}.")
    } else {
        let mut fewer = fewer.to_string();
        fewer[..1].make_ascii_uppercase();
        format!("{fewer} if fewer will do.")
    });
    Some(text)
}

/// `x` to two significant digits, as a warning gives an estimate: `42`, `2600`, `1.3`,
/// `0.23`; from 10⁵ on in scientific notation, `1.3e6`. Rounded first, then written: `0.996`
/// is `1.0`, `99 999` is `1.0e5`.
pub fn about(x: f64) -> String {
    if !x.is_finite() {
        return if x > 0.0 { "more than 1e308".to_string() } else { format!("{x}") };
    }
    if x == 0.0 {
        return "0".to_string();
    }
    let mut magnitude = x.abs().log10().floor() as i32;
    let rounded = (x / 10f64.powi(magnitude - 1)).round() * 10f64.powi(magnitude - 1);
    // Rounding up may reach the next power of ten (9.96 → 10).
    if rounded.abs() >= 10f64.powi(magnitude + 1) {
        magnitude += 1;
    }
    if rounded.abs() >= 1e5 {
        format!("{rounded:.1e}")
    } else if magnitude >= 1 {
        format!("{rounded:.0}")
    } else {
        format!("{rounded:.*}", (1 - magnitude) as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn about_gives_two_significant_digits() {
        assert_eq!(about(42.3), "42");
        assert_eq!(about(2649.0), "2600");
        assert_eq!(about(1.3218), "1.3");
        assert_eq!(about(0.2272), "0.23");
        assert_eq!(about(99_999.0), "1.0e5");
        assert_eq!(about(0.996), "1.0");
        assert_eq!(about(9.96), "10");
        assert_eq!(about(0.0996), "0.10");
        assert_eq!(about(1.26e6), "1.3e6");
        assert_eq!(about(2.6e9), "2.6e9");
        assert_eq!(about(f64::INFINITY), "more than 1e308");
    }
}
