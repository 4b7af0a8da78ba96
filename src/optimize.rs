//! The best checkpoint interval by simulation, with common random numbers: every candidate
//! interval replays the same failure streams, so differences between candidates are paired
//! and far more precise than independent runs (DESIGN.md; MODELS.md §6).
//!
//! Search: a log-spaced scan around Young's interval brackets the minimum of the paired
//! sample mean, golden-section search narrows it, and a refinement grid around the best
//! point (with the equal chunkings W/k inside it) gives the set of intervals not
//! significantly worse than the best (the 95% interval of the paired difference reaches
//! zero): its range is the reported interval of the best.

use rayon::prelude::*;

use crate::analytic;
use crate::engine::Exposure;
use crate::engine::{self, Limits};
use crate::error::{Error, Result};
use crate::failure::tape::Tape;
use crate::policy::ChunkLayout;
use crate::scenario::{Point, Scenario};
use crate::stats::Moments;

/// Candidates of the first scan, log-spaced over [Young/`SCAN_SPAN`, Young·`SCAN_SPAN`].
const SCAN_POINTS: usize = 25;
/// Half-width of the first scan, as a factor around Young's interval.
const SCAN_SPAN: f64 = 30.0;
/// The scan goes no further than this many times the MTBF (or Young's interval, where that
/// is longer): e^4 ≈ 55 attempts per segment under exponential failures, far past any
/// optimum (the exact one is below M).
const SCAN_MAX_MTBFS: f64 = 4.0;
/// Golden-section iterations (each shrinks the bracket by 0.618).
const GOLDEN_STEPS: usize = 20;
/// Points of the refinement grid, spread over ±`REFINE_SPAN` around the best interval.
const REFINE_POINTS: usize = 41;
/// Relative half-width of the refinement grid.
const REFINE_SPAN: f64 = 0.25;
/// Equal chunkings W/k added to the refinement grid at most.
const MAX_EQUAL_CHUNKINGS: f64 = 200.0;

/// One candidate interval with its per-replication overheads.
#[derive(Debug, Clone)]
struct Candidate {
    interval_s: f64,
    overheads: Vec<f64>,
    mean: f64,
    half_width: f64,
}

/// A formula's interval, its simulated overhead and its regret against the best interval.
#[derive(Debug, Clone, PartialEq)]
pub struct FormulaRegret {
    /// The formula: `young`, `daly`, `daly-high-order`, `optimal` (exact exponential).
    pub name: &'static str,
    /// Its interval (s).
    pub interval_s: f64,
    /// Simulated mean overhead at that interval.
    pub overhead_mean: f64,
    /// Mean paired difference to the best interval (overhead units), with its 95% interval.
    pub regret: f64,
    /// Lower end of the regret's 95% interval.
    pub regret_ci_low: f64,
    /// Upper end of the regret's 95% interval.
    pub regret_ci_high: f64,
    /// Var(H(T) − H(T_best)) with independent streams over the same with common random
    /// numbers: how many times fewer replications the paired comparison needs.
    pub variance_reduction: f64,
}

/// What `ckptsim optimize` reports.
#[derive(Debug, Clone, PartialEq)]
pub struct Optimum {
    /// Replications behind every candidate (the same streams for all).
    pub replications: u64,
    /// The interval with the lowest mean overhead on the refinement grid (s).
    pub best_interval_s: f64,
    /// The smallest interval not significantly worse than the best (s).
    pub interval_ci_low_s: f64,
    /// The largest interval not significantly worse than the best (s).
    pub interval_ci_high_s: f64,
    /// Mean overhead at the best interval.
    pub best_overhead_mean: f64,
    /// Its 95% half-width.
    pub best_overhead_half_width: f64,
    /// The formulas' intervals against the best.
    pub formulas: Vec<FormulaRegret>,
    /// Every candidate evaluated: (interval s, mean overhead, 95% half-width), sorted by
    /// interval.
    pub curve: Vec<(f64, f64, f64)>,
}

/// One search of `ckptsim optimize`: the search sets the interval itself, so the points of a
/// sweep that differ only in their policy (`policy.*` keys) are one search; each combination
/// of the other swept keys is another.
#[derive(Debug, Clone, PartialEq)]
pub struct Case<'a> {
    /// Its number, from 0, in sweep order.
    pub index: usize,
    /// The first point of the combination (its interval and factor are not used).
    pub point: &'a Point,
    /// The combination: each swept key other than `policy.*`, with its value as written.
    pub labels: Vec<(String, String)>,
}

/// Whether sweep axis `key` only changes the policy, which the search replaces.
pub fn is_policy_key(key: &str) -> bool {
    key.starts_with("policy.")
}

/// The searches of `scenario`, in the order of their first points (one for a scenario
/// without a sweep, or whose sweep is over `policy.*` keys only).
pub fn cases(scenario: &Scenario) -> Vec<Case<'_>> {
    let mut found: Vec<Case<'_>> = vec![];
    for point in &scenario.points {
        let labels: Vec<(String, String)> = scenario
            .axes
            .iter()
            .zip(&point.labels)
            .filter(|(axis, _)| !is_policy_key(&axis.key))
            .map(|(axis, label)| (axis.key.clone(), label.clone()))
            .collect();
        if !found.iter().any(|c| c.labels == labels) {
            found.push(Case { index: found.len(), point, labels });
        }
    }
    found
}

/// Sample variance of a sample.
fn variance(a: &[f64]) -> f64 {
    let mut m = Moments::default();
    a.iter().for_each(|&x| m.add(x));
    m.estimate().sd.powi(2)
}

/// Mean and 95% half-width of paired differences a − b.
fn paired(a: &[f64], b: &[f64]) -> (f64, f64, f64) {
    let mut m = Moments::default();
    a.iter().zip(b).for_each(|(x, y)| m.add(x - y));
    let e = m.estimate();
    (e.mean, e.half_width, e.se)
}

/// The most failures the optimizer keeps recorded across candidates, over all replications,
/// counted by the room the recordings take (16 bytes each: 512 MiB): within it, each
/// replication's failures are drawn once for the whole search; past it, once per batch of
/// candidates.
const MAX_KEPT_FAILURES: usize = 1 << 25;

/// The most replications whose tapes the optimizer keeps (each holds its stream's state).
const MAX_KEPT_TAPES: u64 = 1 << 20;

/// Evaluates candidate intervals of one point on replications 0..`reps`, every candidate on
/// the same failures (common random numbers). Each replication's failures are recorded on a
/// [`Tape`] and replayed for every candidate; the tapes are kept from one batch of candidates
/// to the next while they fit in [`MAX_KEPT_FAILURES`]. Replays give exactly the failures of
/// a fresh stream, so what is kept changes the cost only, never a result.
struct Evaluator<'a> {
    point: &'a Point,
    seed: u64,
    reps: u64,
    /// One tape per replication, while kept.
    tapes: Option<Vec<Tape<'a>>>,
    /// The most failures the tapes may hold and still be kept ([`MAX_KEPT_FAILURES`]).
    budget: usize,
}

impl<'a> Evaluator<'a> {
    fn new(point: &'a Point, reps: u64, seed: u64, budget: usize) -> Self {
        let tapes = (reps <= MAX_KEPT_TAPES).then(|| {
            (0..reps).into_par_iter().map(|rep| Tape::new(&point.failures, seed, rep, point.job.downtime_s)).collect()
        });
        Evaluator { point, seed, reps, tapes, budget }
    }

    /// The overheads of `layouts` on `tape`'s failures.
    fn play_all(&self, tape: &mut Tape<'_>, layouts: &[ChunkLayout]) -> Result<Vec<f64>> {
        let (job, work_s) = (&self.point.job, self.point.job.work_s);
        layouts
            .iter()
            .map(|layout| {
                engine::play_periodic(job, layout, &mut tape.replay(), Limits::default())
                    .map(|r| r.wall_s / work_s - 1.0)
                    .map_err(|source| Error::Engine { point: self.point.index, source })
            })
            .collect()
    }

    /// The candidates at `intervals_s` (s), in that order.
    fn all(&mut self, intervals_s: &[f64]) -> Result<Vec<Candidate>> {
        let (point, seed) = (self.point, self.seed);
        let layouts: Vec<ChunkLayout> = intervals_s.iter().map(|&t| ChunkLayout::new(point.job.work_s, t)).collect();
        let per_rep: Vec<Vec<f64>> = match self.tapes.take() {
            Some(mut tapes) => {
                let per_rep = tapes.par_iter_mut().map(|tape| self.play_all(tape, &layouts)).collect::<Result<_>>()?;
                let kept: usize = tapes.iter().map(Tape::reserved).sum();
                self.tapes = (kept <= self.budget).then_some(tapes);
                per_rep
            }
            None => (0..self.reps)
                .into_par_iter()
                .map(|rep| self.play_all(&mut Tape::new(&point.failures, seed, rep, point.job.downtime_s), &layouts))
                .collect::<Result<_>>()?,
        };
        Ok(intervals_s
            .iter()
            .enumerate()
            .map(|(i, &interval_s)| {
                let overheads: Vec<f64> = per_rep.iter().map(|o| o[i]).collect();
                let mut m = Moments::default();
                overheads.iter().for_each(|&x| m.add(x));
                let e = m.estimate();
                Candidate { interval_s, overheads, mean: e.mean, half_width: e.half_width }
            })
            .collect())
    }

    /// The candidate at `interval_s` (s).
    fn one(&mut self, interval_s: f64) -> Result<Candidate> {
        Ok(self.all(&[interval_s])?.remove(0))
    }
}

/// The interval that minimises the mean overhead of `point` under its failure model, over
/// replications 0..`reps` from `seed`.
pub fn optimize(point: &Point, reps: u64, seed: u64) -> Result<Optimum> {
    optimize_keeping(point, reps, seed, MAX_KEPT_FAILURES)
}

/// [`optimize`], keeping the failures recorded across candidates while they number at most
/// `budget`.
fn optimize_keeping(point: &Point, reps: u64, seed: u64, budget: usize) -> Result<Optimum> {
    let mut evaluator = Evaluator::new(point, reps, seed, budget);
    let mtbf_s = point.failures.mtbf_s();
    let young_s = analytic::young_interval_s(point.job.checkpoint_s.max(1e-9 * mtbf_s), mtbf_s);
    let mut seen: Vec<Candidate> = vec![];

    // Scan: log-spaced around Young, capped at the work (longer is the same as none) and at
    // a few MTBFs: far beyond the MTBF a segment needs e^{T/M} attempts, so a replication
    // practically never ends (with M = 15 min, Young × 30 is 24 M: 10¹⁰ attempts).
    let cap_s = point.job.work_s.min(SCAN_MAX_MTBFS * mtbf_s.max(young_s));
    let scan: Vec<f64> = (0..SCAN_POINTS)
        .map(|i| young_s * SCAN_SPAN.powf(2.0 * i as f64 / (SCAN_POINTS - 1) as f64 - 1.0))
        .map(|t| t.min(cap_s))
        .collect();
    let mut distinct: Vec<f64> = vec![];
    for &t in &scan {
        if !distinct.contains(&t) {
            distinct.push(t);
        }
    }
    seen.extend(evaluator.all(&distinct)?);
    let best_scan = (0..seen.len()).min_by(|&a, &b| seen[a].mean.total_cmp(&seen[b].mean)).expect("scanned");
    let lo = seen[best_scan.saturating_sub(1)].interval_s;
    let hi = seen[(best_scan + 1).min(seen.len() - 1)].interval_s;

    // Golden section on ln T inside the bracket.
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (lo.ln(), hi.ln());
    let mut c = b - phi * (b - a);
    let mut d = a + phi * (b - a);
    let mut fc = evaluator.one(c.exp())?;
    let mut fd = evaluator.one(d.exp())?;
    for _ in 0..GOLDEN_STEPS {
        if fc.mean < fd.mean {
            b = d;
            d = c;
            seen.push(std::mem::replace(&mut fd, fc.clone()));
            c = b - phi * (b - a);
            fc = evaluator.one(c.exp())?;
        } else {
            a = c;
            c = d;
            seen.push(std::mem::replace(&mut fc, fd.clone()));
            d = a + phi * (b - a);
            fd = evaluator.one(d.exp())?;
        }
    }
    let centre_s = if fc.mean < fd.mean { fc.interval_s } else { fd.interval_s };
    seen.push(fc);
    seen.push(fd);

    // Refinement grid: the best point, and every interval not significantly worse.
    // With finite work the overhead is a sawtooth in T: just below W/k an extra, tiny last
    // chunk costs a whole write. The intervals W/k (k equal chunks) are its low points, so
    // they join the grid wherever there are not too many of them.
    let mut grid_s: Vec<f64> = (0..REFINE_POINTS)
        .map(|i| centre_s * (1.0 + REFINE_SPAN * (2.0 * i as f64 / (REFINE_POINTS - 1) as f64 - 1.0)))
        .map(|t| t.min(cap_s))
        .collect();
    let w = point.job.work_s;
    let (k_lo, k_hi) = ((w / (centre_s * (1.0 + REFINE_SPAN))).ceil(), (w / (centre_s * (1.0 - REFINE_SPAN))).floor());
    if k_hi >= k_lo.max(1.0) && k_hi - k_lo < MAX_EQUAL_CHUNKINGS {
        grid_s.extend((k_lo.max(1.0) as u64..=k_hi as u64).map(|k| w / k as f64));
    }
    grid_s.sort_by(f64::total_cmp);
    grid_s.dedup();
    let grid: Vec<Candidate> = evaluator.all(&grid_s)?;
    let best = grid.iter().min_by(|x, y| x.mean.total_cmp(&y.mean)).expect("a grid").clone();
    // Significantly worse: the 95% interval of the paired difference lies above zero.
    let not_worse: Vec<f64> = grid
        .iter()
        .filter(|c| {
            let (mean, half, _) = paired(&c.overheads, &best.overheads);
            mean <= half || c.interval_s == best.interval_s
        })
        .map(|c| c.interval_s)
        .collect();
    let interval_ci_low_s = not_worse.iter().copied().fold(f64::INFINITY, f64::min);
    let interval_ci_high_s = not_worse.iter().copied().fold(0.0, f64::max);

    let delta = point.job.checkpoint_s;
    let exact = match point.job.checkpoint_exposure {
        Exposure::CanFail => Some(analytic::optimal_interval_s(delta, mtbf_s)),
        Exposure::CannotFail => analytic::optimal_interval_unfailing_checkpoint_s(&point.job, mtbf_s),
    };
    let named: Vec<(&'static str, f64)> = [
        ("young", Some(analytic::young_interval_s(delta, mtbf_s))),
        ("daly", Some(analytic::daly_low_order_interval_s(delta, mtbf_s))),
        ("daly-high-order", Some(analytic::daly_high_order_interval_s(delta, mtbf_s))),
        ("optimal", exact),
    ]
    .into_iter()
    .filter_map(|(name, t)| Some((name, t.filter(|t| *t > 0.0)?)))
    .collect();
    let at: Vec<f64> = named.iter().map(|&(_, t)| t.min(cap_s)).collect();
    let mut formulas = vec![];
    for (&(name, t), c) in named.iter().zip(evaluator.all(&at)?) {
        let (regret, half, se) = paired(&c.overheads, &best.overheads);
        let paired_variance = se * se * reps as f64;
        let independent_variance = variance(&c.overheads) + variance(&best.overheads);
        formulas.push(FormulaRegret {
            name,
            interval_s: t,
            overhead_mean: c.mean,
            regret,
            regret_ci_low: regret - half,
            regret_ci_high: regret + half,
            variance_reduction: independent_variance / paired_variance,
        });
    }

    let mut curve: Vec<(f64, f64, f64)> =
        seen.iter().chain(grid.iter()).map(|c| (c.interval_s, c.mean, c.half_width)).collect();
    curve.sort_by(|x, y| x.0.total_cmp(&y.0));
    curve.dedup_by(|x, y| x.0 == y.0);
    Ok(Optimum {
        replications: reps,
        best_interval_s: best.interval_s,
        interval_ci_low_s,
        interval_ci_high_s,
        best_overhead_mean: best.mean,
        best_overhead_half_width: best.half_width,
        formulas,
        curve,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the tapes are kept for the whole search or dropped after the first batch (the
    /// scan; every later batch and golden-section step then draws afresh), the optimum is the
    /// same, to the bit.
    #[test]
    fn keeping_the_failures_changes_no_result() {
        let text = "[job]\nwork = \"2e5 s\"\ncheckpoint = \"2 min\"\nrestart = \"10 min\"\n\
                    [failures]\nlaw = \"weibull\"\nshape = 0.7\nmtbf = \"3.1 h\"\nrenewal = \"job\"\n";
        let sc = crate::scenario::parse(text, std::path::Path::new("inline.toml"), &[]).unwrap();
        let point = &sc.points[0];
        let kept = optimize_keeping(point, 300, 5, MAX_KEPT_FAILURES).unwrap();
        // Any recording exceeds a budget of 0, so the tapes go after the scan.
        assert_eq!(optimize_keeping(point, 300, 5, 0).unwrap(), kept);
    }
}
