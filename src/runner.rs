//! Replications, seeds and parallelism.
//!
//! Replication i draws from streams derived from (seed, i) alone, never from the thread
//! that runs it, and every sweep point of replication i replays the same failure stream
//! (common random numbers). Summaries merge exactly, so the result is the same bits for
//! any thread count and any order of completion.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;

use crate::engine::{self, Limits};
use crate::error::{Error, Result};
use crate::scenario::{Point, Scenario, Stop};
use crate::stats::Summary;

/// Sub-stream tag of the failure stream: other noise (random checkpoint costs) gets its own
/// tag, so turning it on does not shift the failures (MODELS.md §6).
pub const FAILURE_STREAM: u64 = 0x6661_696c; // "fail"

/// Adaptive runs stop no earlier than this many replications (MODELS.md §6).
pub const MIN_ADAPTIVE_REPLICATIONS: u64 = 30;

/// Adaptive runs give up growing past this many replications.
pub const MAX_ADAPTIVE_REPLICATIONS: u64 = 1 << 32;

/// Replications per parallel work item (large enough to amortise the summaries).
const BLOCK: u64 = 512;

/// SplitMix64's output function (Steele, Lea & Flood 2014): a bijective 64-bit mixer.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed of sub-stream `tag` of replication `rep` under master seed `seed`: a hash of
/// all three, so neighbouring replications get unrelated streams.
#[inline]
pub fn stream_seed(seed: u64, rep: u64, tag: u64) -> u64 {
    mix64(mix64(mix64(seed) ^ rep) ^ tag)
}

/// The RNG of sub-stream `tag` of replication `rep`.
pub fn stream_rng(seed: u64, rep: u64, tag: u64) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(stream_seed(seed, rep, tag))
}

/// Plays replication `rep` of `point`.
pub fn replicate(point: &Point, seed: u64, rep: u64) -> std::result::Result<engine::Record, engine::EngineError> {
    let mut stream = point.failures.stream(seed, rep, point.job.downtime_s);
    let layout = crate::policy::ChunkLayout::new(point.job.work_s, point.interval_s);
    engine::play_periodic(&point.job, &layout, &mut stream, Limits::default())
}

/// The outcome of a run: one summary per sweep point.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// Replications run (the same for every point).
    pub replications: u64,
    /// The master seed.
    pub seed: u64,
    /// Summaries, in point order.
    pub summaries: Vec<Summary>,
}

/// Runs replications `range` of every point of `scenario` in parallel; `progress` is
/// called with the number of replications just finished.
pub fn run_range(
    scenario: &Scenario,
    seed: u64,
    range: std::ops::Range<u64>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Summary>> {
    let points = &scenario.points;
    let blocks = range.end.saturating_sub(range.start).div_ceil(BLOCK);
    let empty = || vec![Summary::default(); points.len()];
    (0..blocks)
        .into_par_iter()
        .map(|b| {
            let start = range.start + b * BLOCK;
            let end = (start + BLOCK).min(range.end);
            let mut sums = empty();
            for rep in start..end {
                for (p, point) in points.iter().enumerate() {
                    let record = replicate(point, seed, rep).map_err(|source| Error::Engine { point: p, source })?;
                    sums[p].add(point.job.work_s, &record);
                }
            }
            progress(end - start);
            Ok(sums)
        })
        .try_reduce(empty, |mut a, b| {
            a.iter_mut().zip(&b).for_each(|(x, y)| x.merge(y));
            Ok(a)
        })
}

/// Runs `scenario` under `stop` from `seed`. With [`Stop::Precision`], rounds of
/// replications are added until every point's 95% half-width is at most the target; round
/// sizes depend only on the summaries so far, so the result is still seed-deterministic.
/// `on_target` is told the current target count whenever it changes.
pub fn run(
    scenario: &Scenario,
    stop: Stop,
    seed: u64,
    on_target: &dyn Fn(u64),
    progress: &(dyn Fn(u64) + Sync),
) -> Result<RunResult> {
    match stop {
        Stop::Replications(n) => {
            on_target(n);
            let summaries = run_range(scenario, seed, 0..n, progress)?;
            Ok(RunResult { replications: n, seed, summaries })
        }
        Stop::Precision(h) => {
            let mut done = 0;
            let mut target = MIN_ADAPTIVE_REPLICATIONS.max(100);
            let mut summaries = vec![Summary::default(); scenario.points.len()];
            loop {
                on_target(target);
                let more = run_range(scenario, seed, done..target, progress)?;
                summaries.iter_mut().zip(&more).for_each(|(a, b)| a.merge(b));
                done = target;
                let needed = summaries.iter().map(|s| needed_replications(s, h)).max().unwrap_or(0);
                if needed <= done || done >= MAX_ADAPTIVE_REPLICATIONS {
                    return Ok(RunResult { replications: done, seed, summaries });
                }
                // Aim 10% past the estimate, and at least 1.5× what we have, so few rounds run.
                target = (needed + needed / 10).max(done + done / 2).min(MAX_ADAPTIVE_REPLICATIONS);
            }
        }
    }
}

/// Replications for a 95% half-width of `h` given the sample so far: ⌈(t·s/h)²⌉
/// (MODELS.md §6); the current count when the target is already met.
pub fn needed_replications(s: &Summary, h: f64) -> u64 {
    let e = s.overhead.estimate();
    if e.half_width <= h {
        return e.n;
    }
    let t = e.half_width / e.se;
    ((t * e.sd / h).powi(2)).ceil().min(MAX_ADAPTIVE_REPLICATIONS as f64) as u64
}
