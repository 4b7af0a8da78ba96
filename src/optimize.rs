//! The best checkpoint interval by simulation, with common random numbers: every candidate
//! interval replays the same failure streams, so differences between candidates are paired
//! and far more precise than independent runs (DESIGN.md; MODELS.md §6).
//!
//! Search: a log-spaced scan around Young's interval brackets the minimum of the paired
//! sample mean, golden-section search narrows it, and a refinement grid of equal chunkings
//! W/k around the best point (every one of them where they are few) gives the set of
//! intervals not significantly worse than the best (the 95% interval of the paired
//! difference reaches zero): its range is the reported interval of the best. The best and
//! the formulas' intervals are then played on fresh replications (reps..2·reps): the
//! overhead at the best and every regret come from streams that did not choose the best,
//! so they carry no selection bias.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::analytic;
use crate::engine::Exposure;
use crate::engine::{self, Limits};
use crate::error::{Error, Result};
use crate::failure::tape::Tape;
use crate::policy::ChunkLayout;
use crate::runner;
use crate::scenario::{Point, Scenario};
use crate::stats::Moments;

/// The most formulas compared with the best interval (Young, Daly, Daly eq. 37, the exact
/// optimum, the best chunking of the finite work, and Young at the cluster rate under
/// bursts): steps of the progress plan.
const MAX_FORMULAS: usize = 6;

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

impl Candidate {
    /// An interval at which some replication practically never finishes: an infinite mean,
    /// never the best.
    fn infeasible(interval_s: f64) -> Self {
        Candidate { interval_s, overheads: vec![], mean: f64::INFINITY, half_width: f64::INFINITY }
    }

    fn feasible(&self) -> bool {
        self.mean.is_finite()
    }
}

/// A replication struck by more failures than this many times those the job expects at
/// its MTBF (plus one) makes its candidate interval infeasible: its overhead would be of
/// this order, so it cannot be the best of a search that has a usable interval, and playing
/// it out to the engine's own limit (10⁸ failures) would cost the search for nothing.
const INFEASIBLE_OVERHEAD: f64 = 1000.0;

/// A formula's interval, its simulated overhead and its regret against the best interval.
#[derive(Debug, Clone, PartialEq)]
pub struct FormulaRegret {
    /// The formula: `young`, `daly`, `daly-high-order`, `optimal` (exact exponential).
    pub name: &'static str,
    /// Its interval (s).
    pub interval_s: f64,
    /// Simulated mean overhead at that interval, on [`Optimum::judged_on`].
    pub overhead_mean: f64,
    /// Mean paired difference to the best interval (overhead units) on
    /// [`Optimum::judged_on`], with its 95% interval.
    pub regret: f64,
    /// Lower end of the regret's 95% interval.
    pub regret_ci_low: f64,
    /// Upper end of the regret's 95% interval.
    pub regret_ci_high: f64,
    /// Var(H(T) − H(T_best)) with independent streams over the same with common random
    /// numbers: how many times fewer replications the paired comparison needs.
    pub variance_reduction: f64,
}

/// How a formula's interval compares with the best one found, by the 95% interval of the
/// paired regret.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The regret's interval lies above zero: significantly worse than the best.
    Worse,
    /// The regret's interval holds zero: not distinguishable from the best.
    Tie,
    /// The regret's interval lies below zero: on the fresh replications the formula's
    /// interval beat the search's best (the search chose a worse point, or, for an interval
    /// as good as the best, chance: one comparison in 40 by a 95% interval's lower tail).
    Better,
}

impl Verdict {
    /// The word shown in tables: `worse`, `tie` or `better`.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Worse => "worse",
            Verdict::Tie => "tie",
            Verdict::Better => "better",
        }
    }
}

impl FormulaRegret {
    /// Whether this interval is significantly worse than the best, as good, or better. Being
    /// inside the best's range [`Optimum::interval_ci_low_s`, `interval_ci_high_s`] does not
    /// make an interval a tie: the range is of equal chunkings W/k, and an interval between
    /// two of them ends in a short chunk that can cost a whole checkpoint write more.
    pub fn verdict(&self) -> Verdict {
        if self.regret_ci_low > 0.0 {
            Verdict::Worse
        } else if self.regret_ci_high < 0.0 {
            Verdict::Better
        } else {
            Verdict::Tie
        }
    }
}

/// What `ckptsim optimize` reports.
#[derive(Debug, Clone, PartialEq)]
pub struct Optimum {
    /// Replications behind every candidate of the search (the same streams for all: the
    /// curve and the range), and behind each comparison of [`Optimum::judged_on`].
    pub replications: u64,
    /// The replications on which the best and the formulas' intervals are compared (the
    /// overhead at the best, the formulas' overheads and regrets): fresh ones, reps..2·reps,
    /// that did not choose the best; 0..reps (the search's own) only where the best was
    /// infeasible on the fresh ones.
    pub judged_on: std::ops::Range<u64>,
    /// The interval with the lowest mean overhead on the refinement grid (s).
    pub best_interval_s: f64,
    /// The smallest interval not significantly worse than the best (s).
    pub interval_ci_low_s: f64,
    /// The largest interval not significantly worse than the best (s).
    pub interval_ci_high_s: f64,
    /// Where every interval not significantly worse is an equal chunking of the work W/k (as
    /// on the refinement grid), the chunk counts k of the range's ends: (k at
    /// `interval_ci_low_s`, k at `interval_ci_high_s`), so the first is the larger. An
    /// interval between two equal chunkings is not covered by the range: it ends in a short
    /// chunk, and may be significantly worse.
    pub chunks: Option<(u64, u64)>,
    /// Mean overhead at the best interval, on [`Optimum::judged_on`] (on the search's own
    /// replications it is low by selection).
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

/// The interval (s) of the equal chunking of `work_s` nearest `interval_s`: W/k, k = W/T
/// rounded (at least 1). With k chunks the expected time is least when they are equal
/// (MODELS.md §1, finite work), so these are the low points of the overhead's sawtooth in T.
fn equal_chunking_s(work_s: f64, interval_s: f64) -> f64 {
    work_s / (work_s / interval_s).round().max(1.0)
}

/// The best of `candidates` (the lowest mean overhead) and the intervals not significantly
/// worse than it (the 95% interval of the paired difference reaches zero), by interval.
fn judge(candidates: &[Candidate]) -> Option<(Candidate, Vec<f64>)> {
    let best = candidates.iter().filter(|c| c.feasible()).min_by(|x, y| x.mean.total_cmp(&y.mean))?.clone();
    let mut not_worse: Vec<f64> = candidates
        .iter()
        .filter(|c| c.feasible())
        .filter(|c| {
            let (mean, half, _) = paired(&c.overheads, &best.overheads);
            mean <= half || c.interval_s == best.interval_s
        })
        .map(|c| c.interval_s)
        .collect();
    not_worse.sort_by(f64::total_cmp);
    Some((best, not_worse))
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

/// The most failures the optimizer keeps recorded across candidates, over all replications
/// (16 bytes each: 512 MiB): each replication's tape records at most its share, so the
/// memory is bounded from the first candidate on. A replication whose failures fit in its
/// share is drawn once for the whole search; one that needs more is drawn once per batch of
/// candidates.
const MAX_KEPT_FAILURES: usize = 1 << 25;

/// The most replications whose tapes the optimizer keeps (each holds its stream's state).
const MAX_KEPT_TAPES: u64 = 1 << 20;

/// Evaluates candidate intervals of one point on a range of replications, every candidate on
/// the same failures (common random numbers). Each replication's failures are recorded on a
/// [`Tape`] of at most its share of [`MAX_KEPT_FAILURES`] and replayed for every candidate; a
/// tape that its replication outgrows is dropped, and that replication is drawn afresh on a
/// scratch tape once per batch of candidates. Replays give exactly the failures of a fresh
/// stream, so what is kept changes the cost only, never a result.
struct Evaluator<'a> {
    point: &'a Point,
    seed: u64,
    /// The first replication's index: the evaluator plays replications `first..first + n`.
    first: u64,
    /// Per replication, its kept tape; None once outgrown (or with more than
    /// [`MAX_KEPT_TAPES`] replications).
    tapes: Vec<Option<Tape<'a>>>,
    /// Candidates evaluated so far, and how many the search expects in all.
    done: usize,
    planned: usize,
    /// Told the share of the search done, in [0, 1], after every batch.
    progress: &'a (dyn Fn(f64) + Sync),
    /// The failures after which a replication counts as never finishing.
    limits: Limits,
}

impl<'a> Evaluator<'a> {
    fn new(
        point: &'a Point,
        reps: std::ops::Range<u64>,
        seed: u64,
        budget: usize,
        progress: &'a (dyn Fn(f64) + Sync),
    ) -> Self {
        let first = reps.start;
        let n = reps.end - reps.start;
        let share = usize::try_from(n).map_or(0, |n| budget / n.max(1));
        let tapes = if n <= MAX_KEPT_TAPES {
            reps.into_par_iter()
                .map(|rep| Some(Tape::new(&point.failures, seed, rep, point.job.downtime_s).limited(share)))
                .collect()
        } else {
            (0..n).map(|_| None).collect()
        };
        let planned = SCAN_POINTS + 2 + GOLDEN_STEPS + REFINE_POINTS + 1 + MAX_FORMULAS;
        // Failures that end a replication as hopeless: those of an overhead of about
        // INFEASIBLE_OVERHEAD at the point's MTBF (never more than the engine's own limit).
        let expected = point.job.work_s / point.failures.mtbf_s();
        let max_failures = (INFEASIBLE_OVERHEAD * (expected + 1.0)).min(Limits::default().max_failures as f64);
        let limits = Limits {
            max_failures: if max_failures.is_finite() { max_failures as u64 } else { Limits::default().max_failures },
            ..Limits::default()
        };
        Evaluator { point, seed, first, tapes, done: 0, planned, progress, limits }
    }

    /// The overhead of `layout` on `tape`'s failures; None when the replication is struck by
    /// more failures than the search's limit (the candidate is infeasible).
    fn play(&self, tape: &mut Tape<'_>, layout: &ChunkLayout) -> Result<Option<f64>> {
        let (job, work_s) = (&self.point.job, self.point.job.work_s);
        let played = match &self.point.two_level {
            None => engine::play_periodic(job, layout, &mut tape.replay(), self.limits),
            Some(two) => engine::play_two_level(job, two, layout, &mut tape.replay(), self.limits),
        };
        match played {
            Ok(r) => Ok(Some(r.wall_s / work_s - 1.0)),
            Err(engine::EngineError::TooManyFailures { .. } | engine::EngineError::TooManyIgnoredFailures { .. }) => {
                Ok(None)
            }
            Err(source) => Err(Error::Engine { point: self.point.index, source }),
        }
    }

    /// The overheads of `layouts` on replication `rep`: on its kept tape while it holds the
    /// replication, else on `scratch` (rewound to `rep`, so a thread reuses its memory). A
    /// layout already found infeasible (`infeasible`) is skipped (None), and one found so here
    /// is marked: whether a candidate is infeasible is whether any replication exceeds the
    /// limit, whatever the order the replications run in.
    fn play_rep(
        &self,
        kept: &mut Option<Tape<'a>>,
        scratch: &mut Option<Tape<'a>>,
        rep: u64,
        layouts: &[ChunkLayout],
        infeasible: &[AtomicBool],
    ) -> Result<Vec<Option<f64>>> {
        let mut rewound = false;
        layouts
            .iter()
            .zip(infeasible)
            .map(|(layout, flag)| {
                if flag.load(Ordering::Relaxed) {
                    return Ok(None);
                }
                let h = self.play_on(kept, scratch, &mut rewound, rep, layout)?;
                if h.is_none() {
                    flag.store(true, Ordering::Relaxed);
                }
                Ok(h)
            })
            .collect()
    }

    /// [`Evaluator::play`] of `layout` on replication `rep`'s kept tape, or on `scratch`.
    fn play_on(
        &self,
        kept: &mut Option<Tape<'a>>,
        scratch: &mut Option<Tape<'a>>,
        rewound: &mut bool,
        rep: u64,
        layout: &ChunkLayout,
    ) -> Result<Option<f64>> {
        if let Some(tape) = kept.as_mut() {
            let h = self.play(tape, layout);
            if !tape.complete() {
                *kept = None;
            }
            return h;
        }
        let tape = match scratch {
            Some(t) if *rewound => t,
            Some(t) => {
                t.rewind_to(rep);
                *rewound = true;
                t
            }
            None => {
                *rewound = true;
                scratch.insert(Tape::new(&self.point.failures, self.seed, rep, self.point.job.downtime_s))
            }
        };
        self.play(tape, layout)
    }

    /// The candidates at `intervals_s` (s), in that order.
    fn all(&mut self, intervals_s: &[f64]) -> Result<Vec<Candidate>> {
        let point = self.point;
        let layouts: Vec<ChunkLayout> = intervals_s.iter().map(|&t| ChunkLayout::new(point.job.work_s, t)).collect();
        let mut tapes = std::mem::take(&mut self.tapes);
        let infeasible: Vec<AtomicBool> = layouts.iter().map(|_| AtomicBool::new(false)).collect();
        let per_rep: Vec<Vec<Option<f64>>> = tapes
            .par_iter_mut()
            .enumerate()
            .map_init(
                || None,
                |scratch, (i, kept)| self.play_rep(kept, scratch, self.first + i as u64, &layouts, &infeasible),
            )
            .collect::<Result<_>>()?;
        self.tapes = tapes;
        self.done += intervals_s.len();
        (self.progress)((self.done as f64 / self.planned.max(1) as f64).min(1.0));
        Ok(intervals_s
            .iter()
            .enumerate()
            .map(|(i, &interval_s)| {
                if infeasible[i].load(Ordering::Relaxed) {
                    return Candidate::infeasible(interval_s);
                }
                let overheads: Vec<f64> = per_rep.iter().map(|o| o[i].expect("a feasible candidate")).collect();
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

/// The interval that minimises the mean overhead of `point` under its failure model, chosen
/// on replications 0..`reps` from `seed` and judged on reps..2·`reps` ([`Optimum::judged_on`]).
pub fn optimize(point: &Point, reps: u64, seed: u64) -> Result<Optimum> {
    optimize_keeping(point, reps, seed, MAX_KEPT_FAILURES, &|_| {})
}

/// [`optimize`], telling `progress` the share of the search done (in [0, 1], an estimate
/// until the refinement grid is laid out) after every batch of candidates.
pub fn optimize_with_progress(point: &Point, reps: u64, seed: u64, progress: &(dyn Fn(f64) + Sync)) -> Result<Optimum> {
    optimize_keeping(point, reps, seed, MAX_KEPT_FAILURES, progress)
}

/// [`optimize`], keeping the failures recorded across candidates while they number at most
/// `budget`.
fn optimize_keeping(
    point: &Point,
    reps: u64,
    seed: u64,
    budget: usize,
    progress: &(dyn Fn(f64) + Sync),
) -> Result<Optimum> {
    if point.job.on_failure == engine::OnFailure::EndJob {
        return Err(Error::Usage(format!(
            "point {}: job.on_failure = \"end-job\" ends the job at its first failure: it has no time to finish \
             its work to minimise; accepted is \"restart\"",
            point.index
        )));
    }
    runner::refuse_hopeless(point)?;
    let mtbf_s = point.failures.mtbf_s();
    let mut evaluator = Evaluator::new(point, 0..reps, seed, budget, progress);
    // Two levels: the first order's P*(n)/n (MODELS.md §4) plays Young's part.
    let two_level = point
        .two_level
        .as_ref()
        .map(|two| (two, crate::scenario::two_level_rates(&point.failures, two, crate::scenario::RateBasis::Failures)));
    let young_s = match two_level {
        None => analytic::young_interval_s(point.job.checkpoint_s.max(1e-9 * mtbf_s), mtbf_s),
        Some((two, rates)) => {
            let t = analytic::multilevel::first_order_interval_s(&point.job, two, rates);
            if t.is_finite() && t > 0.0 { t } else { analytic::young_interval_s(1e-9 * mtbf_s, mtbf_s) }
        }
    };
    let mut seen: Vec<Candidate> = vec![];

    // Scan: log-spaced around Young, capped at the work (longer is the same as none) and at
    // a few MTBFs: far beyond the MTBF a segment needs e^{T/M} attempts, so a replication
    // practically never ends (with M = 15 min, Young × 30 is 24 M: 10¹⁰ attempts). Two-level
    // points, played chunk by chunk, keep to at most MAX_TWO_LEVEL_CHUNKS chunks.
    let cap_s = point.job.work_s.min(SCAN_MAX_MTBFS * mtbf_s.max(young_s));
    let floor_s = match two_level {
        None => 0.0,
        Some(_) => point.job.work_s / crate::scenario::MAX_TWO_LEVEL_CHUNKS,
    };
    let scan: Vec<f64> = (0..SCAN_POINTS)
        .map(|i| young_s * SCAN_SPAN.powf(2.0 * i as f64 / (SCAN_POINTS - 1) as f64 - 1.0))
        .map(|t| t.min(cap_s).max(floor_s))
        .collect();
    let mut distinct: Vec<f64> = vec![];
    for &t in &scan {
        if !distinct.contains(&t) {
            distinct.push(t);
        }
    }
    evaluator.planned = distinct.len() + 2 + GOLDEN_STEPS + REFINE_POINTS + 1 + MAX_FORMULAS;
    seen.extend(evaluator.all(&distinct)?);
    if !seen.iter().any(Candidate::feasible) {
        return Err(Error::NoFeasibleInterval {
            point: point.index,
            from_s: distinct[0],
            to_s: distinct[distinct.len() - 1],
            max_failures: evaluator.limits.max_failures,
        });
    }
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
    // Each grid point is moved to the nearest equal chunking: between two of them a chunk
    // count's overhead only rises, so a point elsewhere would sit on the sawtooth's slope, at
    // a phase that has nothing to do with the interval (with 3,300 chunks, as at Daly's
    // M = 15 min, the sawtooth's period is far below the grid's spacing and its height far
    // above the paired standard error).
    let w = point.job.work_s;
    let mut grid_s: Vec<f64> = (0..REFINE_POINTS)
        .map(|i| centre_s * (1.0 + REFINE_SPAN * (2.0 * i as f64 / (REFINE_POINTS - 1) as f64 - 1.0)))
        .map(|t| equal_chunking_s(w, t.min(cap_s).max(floor_s)))
        .collect();
    let (k_lo, k_hi) = ((w / (centre_s * (1.0 + REFINE_SPAN))).ceil(), (w / (centre_s * (1.0 - REFINE_SPAN))).floor());
    if k_hi >= k_lo.max(1.0) && k_hi - k_lo < MAX_EQUAL_CHUNKINGS {
        grid_s.extend((k_lo.max(1.0) as u64..=k_hi as u64).map(|k| w / k as f64));
    }
    grid_s.sort_by(f64::total_cmp);
    grid_s.dedup();
    evaluator.planned = evaluator.done + grid_s.len() + 1 + MAX_FORMULAS;
    let grid: Vec<Candidate> = evaluator.all(&grid_s)?;
    // The grid lies around a feasible point, but all of it may be past the feasible edge
    // (where the scan's best is its neighbour): then the candidates seen so far decide.
    let (best, not_worse) = judge(&grid).or_else(|| judge(&seen)).expect("the scan has a feasible candidate");
    let interval_ci_low_s = not_worse.iter().copied().fold(f64::INFINITY, f64::min);
    let interval_ci_high_s = not_worse.iter().copied().fold(0.0, f64::max);
    let chunk_count = |t: f64| (w / t).round().max(1.0);
    let chunks = not_worse
        .iter()
        .all(|&t| (w / chunk_count(t) - t).abs() <= 1e-12 * t)
        .then(|| (chunk_count(interval_ci_low_s) as u64, chunk_count(interval_ci_high_s) as u64));

    let named: Vec<(&'static str, f64)> = match two_level {
        // Two levels: MODELS.md §4's first order and the exact optimum at n, as the rules
        // `young` and `optimal` give them; the Daly rules have no two-level form.
        Some((two, rates)) => {
            let optimal = analytic::multilevel::optimal_interval_s(&point.job, two, rates);
            let work =
                optimal.and_then(|t| analytic::multilevel::finite_work_optimal_interval_s(&point.job, two, rates, t));
            [("young", Some(young_s)), ("optimal", optimal), ("optimal-work", work)]
                .into_iter()
                .filter_map(|(name, t)| Some((name, t.filter(|t| *t > 0.0 && t.is_finite())?.max(floor_s))))
                .collect()
        }
        None => single_level_formulas(point, mtbf_s),
    };
    // The best and the formulas are compared on fresh replications, reps..2·reps: the best is
    // the least of many sample means, so on the search's own streams its mean is low by
    // selection, and every regret against it high (a formula at the true optimum would
    // often be called significantly worse). On streams that chose nothing, the regret is
    // unbiased. Nothing is kept across this single batch (budget 0).
    let mut fresh = Evaluator::new(point, reps..2 * reps, seed, 0, progress);
    (fresh.done, fresh.planned) = (evaluator.done, evaluator.planned);
    let mut at: Vec<f64> = vec![best.interval_s];
    at.extend(named.iter().map(|&(_, t)| t.min(cap_s)));
    let mut confirmed = fresh.all(&at)?;
    let formula_candidates = confirmed.split_off(1);
    // Feasible on the search's streams, the best is all but surely feasible on others; if
    // not, the comparisons stay on the search's streams.
    let (best, formula_candidates, judged_on) = match confirmed.pop() {
        Some(b) if b.feasible() => (b, formula_candidates, reps..2 * reps),
        _ => (best, evaluator.all(&at[1..])?, 0..reps),
    };
    // Fewer than MAX_FORMULAS formulas, or a fallback, leave the plan's last steps unused.
    progress(1.0);
    let mut formulas = vec![];
    for (&(name, t), c) in named.iter().zip(formula_candidates) {
        if !c.feasible() {
            // The job practically never finishes at this formula's interval.
            let inf = f64::INFINITY;
            formulas.push(FormulaRegret {
                name,
                interval_s: t,
                overhead_mean: inf,
                regret: inf,
                regret_ci_low: inf,
                regret_ci_high: inf,
                variance_reduction: f64::NAN,
            });
            continue;
        }
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
        seen.iter().chain(grid.iter()).filter(|c| c.feasible()).map(|c| (c.interval_s, c.mean, c.half_width)).collect();
    curve.sort_by(|x, y| x.0.total_cmp(&y.0));
    curve.dedup_by(|x, y| x.0 == y.0);
    Ok(Optimum {
        replications: reps,
        judged_on,
        best_interval_s: best.interval_s,
        interval_ci_low_s,
        interval_ci_high_s,
        chunks,
        best_overhead_mean: best.mean,
        best_overhead_half_width: best.half_width,
        formulas,
        curve,
    })
}

/// The single-level formulas' intervals (s) at `point` with job MTBF `mtbf_s`, those that
/// are > 0: Young, Daly, Daly eq. 37, the exact optimum under the checkpoint switch, the best
/// equal chunking of the work near it, and Young at the cluster rate under bursts.
fn single_level_formulas(point: &Point, mtbf_s: f64) -> Vec<(&'static str, f64)> {
    let delta = point.job.checkpoint_s;
    let exact = match point.job.checkpoint_exposure {
        Exposure::CanFail => Some(analytic::optimal_interval_s(delta, mtbf_s)),
        Exposure::CannotFail => analytic::optimal_interval_unfailing_checkpoint_s(&point.job, mtbf_s),
    };
    [
        ("young", Some(analytic::young_interval_s(delta, mtbf_s))),
        ("daly", Some(analytic::daly_low_order_interval_s(delta, mtbf_s))),
        ("daly-high-order", Some(analytic::daly_high_order_interval_s(delta, mtbf_s))),
        ("optimal", exact),
        // The best equal chunking of the work near it (`policy.interval = "optimal-work"`).
        ("optimal-work", exact.and_then(|t| analytic::finite_work_optimal_interval_s(&point.job, mtbf_s, t))),
        // Under bursts, Young at the rate of clusters (`policy.rate = "clusters"`).
        (
            "young (clusters)",
            point
                .failures
                .burst
                .filter(|b| b.branching > 0.0)
                .map(|b| analytic::young_interval_s(delta, mtbf_s / (1.0 - b.branching))),
        ),
    ]
    .into_iter()
    .filter_map(|(name, t)| Some((name, t.filter(|t| *t > 0.0)?)))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether every replication's tape is kept for the whole search, some are outgrown and
    /// dropped, or none records anything (every batch and golden-section step then draws
    /// afresh), the optimum is the same, to the bit.
    #[test]
    fn keeping_the_failures_changes_no_result() {
        let text = "[job]\nwork = \"2e5 s\"\ncheckpoint = \"2 min\"\nrestart = \"10 min\"\n\
                    [failures]\nlaw = \"weibull\"\nshape = 0.7\nmtbf = \"3.1 h\"\nrenewal = \"job\"\n";
        let sc = crate::scenario::parse(text, std::path::Path::new("inline.toml"), &[]).unwrap();
        let point = &sc.points[0];
        let reps = 300;
        let kept = optimize_keeping(point, reps, 5, MAX_KEPT_FAILURES, &|_| {}).unwrap();
        // About 20 failures a replication (more at short candidates): a share of 20 keeps some
        // tapes and outgrows others; a share of 0 keeps none.
        for share in [20, 0] {
            let evaluator = Evaluator::new(point, 0..reps, 5, share * reps as usize, &|_| {});
            assert!(evaluator.tapes.iter().all(|t| t.as_ref().is_some_and(|t| t.reserved() == 0)));
            assert_eq!(
                optimize_keeping(point, reps, 5, share * reps as usize, &|_| {}).unwrap(),
                kept,
                "share {share}"
            );
        }
        let mut partly = Evaluator::new(point, 0..reps, 5, 20 * reps as usize, &|_| {});
        partly.all(&[1500.0]).unwrap();
        let left = partly.tapes.iter().filter(|t| t.is_some()).count();
        assert!(left > 0 && left < reps as usize, "{left} of {reps} tapes kept");
        assert!(partly.tapes.iter().flatten().all(|t| t.reserved() <= 20), "a share bounds each tape");
    }

    /// An interval moves to the equal chunking W/k whose chunk count k is W/T rounded.
    #[test]
    fn an_interval_moves_to_the_equal_chunking_of_the_nearest_count() {
        // 100 s of work: 30 s is 3.33 chunks (3), 28 s is 3.57 (4); longer than the work, 1.
        assert_eq!(equal_chunking_s(100.0, 30.0), 100.0 / 3.0);
        assert_eq!(equal_chunking_s(100.0, 28.0), 25.0);
        assert_eq!(equal_chunking_s(100.0, 500.0), 100.0);
    }
}
