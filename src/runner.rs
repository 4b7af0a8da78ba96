//! Replications, seeds and parallelism.
//!
//! Replication i draws from streams derived from (seed, i) alone, never from the thread
//! that runs it, and every sweep point of replication i replays the same failure stream
//! (common random numbers). Summaries merge exactly, so the result is the same bits for
//! any thread count and any order of completion.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;

use crate::engine::{self, CauseLedger, Limits};
use crate::error::{Error, Result};
use crate::failure::ExponentialStream;
use crate::failure::tape::{Replay, Tape};
use crate::scenario::{Point, Scenario, Stop};
use crate::stats::Summary;

/// Sub-stream tag of the failure stream: other noise (random checkpoint costs) gets its own
/// tag, so turning it on does not shift the failures (MODELS.md §6).
pub const FAILURE_STREAM: u64 = 0x6661_696c; // "fail"

/// Adaptive runs stop no earlier than this many replications (MODELS.md §6).
pub const MIN_ADAPTIVE_REPLICATIONS: u64 = 30;

/// Adaptive runs give up growing past this many replications.
pub const MAX_ADAPTIVE_REPLICATIONS: u64 = 1 << 32;

/// The rule of three's numerator: after n replications none of which was struck by a
/// failure, the chance that a replication is struck is below 3/n with 95% confidence
/// (Hanley & Lippman-Hand, JAMA 1983; −ln 0.05 ≈ 3).
///
/// Why it matters: such a sample has no spread, so its Student-t interval has width 0
/// whatever the chance of a failure, and an adaptive run would stop at its first round with
/// an interval that excludes the failures' cost. [`needed_replications`] asks such a point
/// for at least ⌈3/h⌉ replications instead: unseen failures then shift its mean by less
/// than h per unit of overhead that a struck replication adds (a failure that costs up to
/// the whole work), with 95% confidence.
pub const RULE_OF_THREE: f64 = 3.0;

/// Whether none of the replications summarised in `s` was struck by a failure (and there
/// is at least one): the sample's overhead is the failure-free run's alone, and its
/// interval says nothing about what failures cost ([`RULE_OF_THREE`]).
pub fn never_struck(s: &Summary) -> bool {
    s.overhead.count() > 0 && s.totals.failures == 0
}

/// A cause struck fewer than this many times over all of a point's replications makes the
/// point's 95% interval untrustworthy ([`few_failures_at`]): `run` warns, and adaptive runs
/// go on.
pub const FEW_FAILURES: u64 = 10;

/// A cause counts as too few ([`few_failures_at`]) only where at least this many of its
/// failures were expected over the replications (at its rate: seeing none then has a chance
/// of at most e⁻¹). Where fewer were expected, a count that is low is as low as the rate says
/// (or its replications were struck more often than expected, which widens the interval), and
/// an interval's trouble is then the rule of three's ([`RULE_OF_THREE`]): asking for
/// [`FEW_FAILURES_AIM`] there would multiply a run's length by up to 1/expected.
pub const FEW_EXPECTED: f64 = 1.0;

/// The failures of a cause that [`aimed_replications`] expect: twice [`FEW_FAILURES`], so
/// that fewer than [`FEW_FAILURES`] then strike with a chance of about 0.5% (a Poisson count
/// of mean 20 is at most 9 with probability 0.005; that is for a Poisson cause, and a
/// clustered one, burst children, varies more).
pub const FEW_FAILURES_AIM: f64 = 2.0 * FEW_FAILURES as f64;

/// One cause of one point whose failures are too few ([`few_failures_at`]).
#[derive(Debug, Clone, PartialEq)]
pub struct FewFailures {
    /// The point's index.
    pub point: usize,
    /// The cause's name ([`crate::failure::Cause::name`]); `None` where the run's failures
    /// come from one cause and are not split.
    pub cause: Option<&'static str>,
    /// The cause's failures that struck the job, over all the point's replications.
    pub seen: u64,
    /// About how many were expected ([`expected_failures`]); `None` where the cause's
    /// failures do not come at a steady rate
    /// ([`crate::failure::Failures::stationary_causes`]: a fresh start with memory), or,
    /// where the job has spans failures cannot strike, where they are not Poisson
    /// ([`crate::failure::Failures::memoryless_causes`]: burst children, renewals).
    pub expected: Option<f64>,
    /// The point's replications.
    pub replications: u64,
}

/// The failures of a cause of rate `rate_per_s` (1/s) expected over the replications
/// summarised in `s`: the rate times the time in which a failure could strike the job, the
/// wall time less the downtime after each failure, less the restarts where they cannot fail
/// (`failures_during_restart = false`) and the completed writes where those cannot (at the
/// level-1 cost each: for two levels a lower bound on the writes' time). Failures in those
/// spans are ignored by the engine, so they would not be seen.
pub fn expected_failures(point: &Point, s: &Summary, rate_per_s: f64) -> f64 {
    let t = &s.totals;
    let job = &point.job;
    let wall_s = s.wall_s.estimate().mean * s.overhead.count() as f64;
    let downtime_s = job.downtime_s * t.failures as f64;
    let mut exposed_s = wall_s - downtime_s;
    if job.restart_exposure == engine::Exposure::CannotFail {
        exposed_s -= (s.recovery_s.value() - downtime_s).max(0.0);
    }
    if job.checkpoint_exposure == engine::Exposure::CannotFail {
        exposed_s -= t.checkpoints as f64 * job.checkpoint_s;
    }
    rate_per_s * exposed_s.max(0.0)
}

/// The causes of `point` (summarised in `s`) whose failures are too few to trust its 95%
/// interval: struck fewer than [`FEW_FAILURES`] times over all replications where
/// [`FEW_EXPECTED`] or more were expected, or, where the cause has no steady rate to expect
/// from, 1 to [`FEW_FAILURES`] − 1 times. A mean over replications of which a handful carry
/// a rare, costly event (a level-2 rollback, a power domain) is far from normal, and the
/// sample's spread leaves out what the events that did not happen to strike would cost: the
/// interval may miss the true mean by far more than its width. A point struck by no failure
/// at all is [`never_struck`]'s (the rule of three), not this. A replayed log is left out:
/// its replications replay the same few logged events, so more of them tell nothing new.
pub fn few_failures_at(point: &Point, s: &Summary) -> Vec<FewFailures> {
    let replications = s.overhead.count();
    if never_struck(s) || replications == 0 || matches!(point.failures.base, crate::failure::FailureModel::Trace(_)) {
        return vec![];
    }
    let rates = point.failures.expected_cause_rates_per_s();
    // Where some spans cannot be struck (downtime, or phases that cannot fail), a cause whose
    // failures follow the job's (burst children right after their parents, a replaced node's
    // early failures) falls into them more often than the time they take: only a Poisson
    // cause has a count to expect then.
    let job = &point.job;
    let all_exposed = job.downtime_s == 0.0
        && job.restart_exposure == engine::Exposure::CanFail
        && job.checkpoint_exposure == engine::Exposure::CanFail;
    let steady = if all_exposed { point.failures.stationary_causes() } else { point.failures.memoryless_causes() };
    let expected = |cause: crate::failure::Cause, rate_per_s: f64| {
        steady[cause.index()].then(|| expected_failures(point, s, rate_per_s))
    };
    let counts: Vec<(Option<&'static str>, u64, Option<f64>)> = if s.causes.is_empty() {
        let cause = point.failures.causes().first().copied().unwrap_or(crate::failure::Cause::Nodes);
        vec![(None, s.totals.failures, expected(cause, 1.0 / point.failures.mtbf_s()))]
    } else {
        s.causes.iter().map(|c| (Some(c.cause.name()), c.failures, expected(c.cause, rates[c.cause.index()]))).collect()
    };
    counts
        .into_iter()
        .filter(|&(_, seen, expected)| {
            seen < FEW_FAILURES
                && match expected {
                    Some(e) => e >= FEW_EXPECTED,
                    None => seen > 0,
                }
        })
        .map(|(cause, seen, expected)| FewFailures { point: point.index, cause, seen, expected, replications })
        .collect()
}

/// About how many replications expect [`FEW_FAILURES_AIM`] failures of `f`'s cause: at the
/// rate expected, or where none is known, at the rate seen.
pub fn aimed_replications(f: &FewFailures) -> f64 {
    let per_run = f.expected.filter(|e| *e > 0.0).unwrap_or(f.seen as f64);
    FEW_FAILURES_AIM / (per_run / f.replications as f64)
}

/// The most replications in one parallel work item. Fewer when a range is short, so that
/// every thread gets work; summaries are made per rayon piece, not per item, so small items
/// cost little.
const BLOCK: u64 = 512;

/// Parallel work items per thread that a short range is split into (for load balance).
const ITEMS_PER_THREAD: u64 = 4;

/// Replications per parallel work item for a range of `len`: [`BLOCK`], or fewer so that
/// each of the pool's threads gets about [`ITEMS_PER_THREAD`] items. The grouping never
/// changes the result (summaries merge exactly).
fn block_len(len: u64) -> u64 {
    let threads = rayon::current_num_threads() as u64;
    len.div_ceil(threads * ITEMS_PER_THREAD).clamp(1, BLOCK)
}

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

/// A sweep point's replications, with what they all share worked out once: the chunk layout
/// and, for Poisson failures, the stream's MTBF. Each costs divisions (W/T; 1/Σ(nᵢ/μᵢ) for a
/// platform of exponential nodes) that were otherwise paid in every replication, the MTBF's on
/// the way to its first failure time (measured by `cargo bench --bench engine`). The records
/// are those of [`replicate`], bit for bit.
#[derive(Debug, Clone)]
pub struct Prepared<'p> {
    point: &'p Point,
    layout: crate::policy::ChunkLayout,
    /// The MTBF (s) of the Poisson stream the runner builds itself, without the
    /// [`Stream`](crate::failure::Stream) enum ([`Failures::exponential_stream_mtbf_s`](
    /// crate::failure::Failures::exponential_stream_mtbf_s)); `None` where the model's own
    /// stream is played.
    poisson_mtbf_s: Option<f64>,
}

impl<'p> Prepared<'p> {
    /// The replications of `point`, at its interval.
    pub fn new(point: &'p Point) -> Self {
        Prepared {
            point,
            layout: crate::policy::ChunkLayout::new(point.job.work_s, point.interval_s),
            poisson_mtbf_s: point.failures.exponential_stream_mtbf_s(),
        }
    }

    /// The point.
    pub fn point(&self) -> &'p Point {
        self.point
    }

    /// Its chunks.
    pub fn layout(&self) -> &crate::policy::ChunkLayout {
        &self.layout
    }

    /// [`engine::play_periodic`] of replication `rep` on the failures of
    /// [`Failures::stream`](crate::failure::Failures::stream). A Poisson stream is built as an
    /// [`ExponentialStream`] directly, without the [`Stream`](crate::failure::Stream) enum; the
    /// failure times are the same. (Measured by `cargo bench --bench engine`: building and
    /// drawing a stream this way is about 13% faster, its `draws alone` variant.) A point with
    /// two-level checkpoints (`[job.level2]`) is played by [`engine::play_two_level`] instead.
    pub fn play_periodic(&self, seed: u64, rep: u64) -> std::result::Result<engine::Record, engine::EngineError> {
        self.play_periodic_by_cause(seed, rep, &mut ())
    }

    /// [`Self::play_periodic`], charging the failures and their cost to their causes in
    /// `ledger`.
    fn play_periodic_by_cause<L: CauseLedger>(
        &self,
        seed: u64,
        rep: u64,
        ledger: &mut L,
    ) -> std::result::Result<engine::Record, engine::EngineError> {
        let (job, layout, limits) = (&self.point.job, &self.layout, Limits::default());
        if let Some(two) = &self.point.two_level {
            let mut stream = self.point.failures.stream(seed, rep, job.downtime_s);
            return engine::play_two_level_by_cause(job, two, layout, &mut stream, limits, ledger);
        }
        match self.poisson_mtbf_s {
            Some(mtbf_s) => {
                let mut stream = ExponentialStream::new(mtbf_s, stream_rng(seed, rep, FAILURE_STREAM));
                engine::play_periodic_by_cause(job, layout, &mut stream, limits, ledger)
            }
            None => {
                let mut stream = self.point.failures.stream(seed, rep, job.downtime_s);
                engine::play_periodic_on(job, layout, &mut stream, limits, ledger)
            }
        }
    }

    /// Plays replication `rep`; [`engine::EngineError::OutOfRange`] when its wall time or
    /// overhead cannot be summarised.
    pub fn replicate(&self, seed: u64, rep: u64) -> std::result::Result<engine::Record, engine::EngineError> {
        self.replicate_by_cause(seed, rep, &mut ())
    }

    /// [`Self::replicate`], charging the failures and their cost to their causes in `ledger`
    /// ([`engine::ByCause`] splits them).
    pub fn replicate_by_cause<L: CauseLedger>(
        &self,
        seed: u64,
        rep: u64,
        ledger: &mut L,
    ) -> std::result::Result<engine::Record, engine::EngineError> {
        summarisable(self.point, self.play_periodic_by_cause(seed, rep, ledger)?)
    }

    /// [`Self::replicate_by_cause`] on a replay of the replication's stream (the same
    /// failures, drawn once for every point that shares them).
    fn replicate_on<L: CauseLedger>(
        &self,
        replay: &mut Replay<'_, '_>,
        ledger: &mut L,
    ) -> std::result::Result<engine::Record, engine::EngineError> {
        let (job, layout, limits) = (&self.point.job, &self.layout, Limits::default());
        let record = match &self.point.two_level {
            Some(two) => engine::play_two_level_by_cause(job, two, layout, replay, limits, ledger)?,
            None => engine::play_periodic_by_cause(job, layout, replay, limits, ledger)?,
        };
        summarisable(self.point, record)
    }
}

/// Plays replication `rep` of `point`; [`engine::EngineError::OutOfRange`] when its wall time
/// or overhead cannot be summarised. (A run prepares each point once: [`Prepared`].)
pub fn replicate(point: &Point, seed: u64, rep: u64) -> std::result::Result<engine::Record, engine::EngineError> {
    Prepared::new(point).replicate(seed, rep)
}

/// [`replicate`], charging the failures and their cost to their causes in `ledger`
/// ([`engine::ByCause`] splits them).
pub fn replicate_by_cause<L: CauseLedger>(
    point: &Point,
    seed: u64,
    rep: u64,
    ledger: &mut L,
) -> std::result::Result<engine::Record, engine::EngineError> {
    Prepared::new(point).replicate_by_cause(seed, rep, ledger)
}

/// `record`, or [`engine::EngineError::OutOfRange`] where its wall time or overhead cannot
/// be summarised.
fn summarisable(point: &Point, record: engine::Record) -> std::result::Result<engine::Record, engine::EngineError> {
    let (wall_s, work_s) = (record.wall_s, point.job.work_s);
    if !((wall_s * wall_s).is_finite() && (wall_s / work_s - 1.0).powi(2).is_finite()) {
        return Err(engine::EngineError::OutOfRange { wall_s, work_s });
    }
    Ok(record)
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

/// A share of a run's replications: shard `index` of `count` runs replications
/// `index`, `index + count`, `index + 2·count`, … (`--shard I/N` on a cluster array).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, 0 ≤ index < count.
    pub index: u64,
    /// Shards in all, ≥ 1.
    pub count: u64,
}

impl Shard {
    /// The whole run.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// How many of replications 0..`total` belong to this shard.
    pub fn len(&self, total: u64) -> u64 {
        if self.index >= total { 0 } else { (total - self.index - 1) / self.count + 1 }
    }

    /// Whether the shard holds no replication of a run of `total`.
    pub fn is_empty(&self, total: u64) -> bool {
        self.len(total) == 0
    }

    /// The replication index of this shard's `local`-th replication.
    pub fn replication(&self, local: u64) -> u64 {
        self.index + local * self.count
    }
}

/// Runs replications `range` of every point of `scenario` in parallel; `progress` is
/// called with the number of replications just finished.
pub fn run_range(
    scenario: &Scenario,
    seed: u64,
    range: std::ops::Range<u64>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Summary>> {
    run_shard_range(scenario, seed, Shard::WHOLE, range, progress)
}

/// Refuses, before any replication, a point whose job cannot finish within the engine's
/// failure limit ([`Limits::max_failures`]) at any interval, found from its parameters alone:
/// its work / MTBF exceeds the limit ([`Error::HopelessJob`]), or, where every failure renews
/// the failure law, a restart or checkpoint write that can fail needs more attempts than the
/// limit ([`Error::PhaseNeverCompletes`]). Without it `run` played replications to the
/// limit for seconds before failing, and `optimize` scanned for minutes. A job that ends at
/// its first failure (`end-job`) never restarts and is not refused.
pub fn refuse_hopeless(point: &Point) -> Result<()> {
    if point.job.on_failure == engine::OnFailure::EndJob {
        return Ok(());
    }
    let mtbf_s = point.failures.mtbf_s();
    // A job that expects more failures in its bare work time than a replication may take
    // cannot finish at any interval.
    let limit = Limits::default().max_failures;
    let expected_failures = point.job.work_s / mtbf_s;
    if expected_failures > limit as f64 {
        return Err(Error::HopelessJob {
            point: point.index,
            expected_failures,
            work_s: point.job.work_s,
            mtbf_s,
            limit,
        });
    }
    // Where every failure renews the failure law, a phase of length x that can fail needs a
    // lifetime longer than x: e^{Λ(x)} lifetimes on average, whatever the interval. A restart
    // starts with a fresh lifetime, so its attempts are exactly that many; every checkpoint
    // write ends inside one lifetime, so at least that many lifetimes pass before the first
    // write completes. A job without a final checkpoint may skip every write (an interval as
    // long as the work), but then needs a lifetime longer than the work: the bound on writes
    // holds when the work is at least a write.
    if let Some(lifetime) = point.failures.renewed_lifetime() {
        let job = &point.job;
        let needs_a_write = job.final_checkpoint == engine::FinalCheckpoint::Written || job.work_s >= job.checkpoint_s;
        let phases = [
            ("restart", job.restart_s, job.restart_exposure == engine::Exposure::CanFail),
            (
                "checkpoint write",
                job.checkpoint_s,
                job.checkpoint_exposure == engine::Exposure::CanFail && needs_a_write,
            ),
        ];
        for (phase, length_s, exposed) in phases {
            let hazard = lifetime.cum_hazard(length_s);
            if exposed && hazard > (limit as f64).ln() {
                let law = if lifetime.is_exponential() {
                    let mtbf = crate::report::human_duration(lifetime.mean_s());
                    format!("Poisson failures at a job MTBF of {mtbf} (hazard = length / MTBF)")
                } else {
                    format!(
                        "job-level renewal, a {} lifetime of mean {} after each failure",
                        lifetime.describe(),
                        crate::report::human_duration(lifetime.mean_s())
                    )
                };
                return Err(Error::PhaseNeverCompletes { point: point.index, phase, length_s, hazard, law, limit });
            }
        }
    }
    Ok(())
}

/// How many times the engine's failure limit ([`Limits::max_failures`]) the exact model may
/// expect per replication before [`refuse_unfinishable`] refuses a point.
///
/// Why 10⁶: a replication then finishes within the limit with a chance of about 10⁻⁶ or less
/// ([`Error::UnfinishableInterval`]), so a run of any size fails, after playing replications
/// to the limit for seconds each (minutes for a run). Between 1 and 10⁶ times the limit a
/// replication may still finish: the run is warned of (`forecast::slow_run_warning`), not
/// refused.
pub const UNFINISHABLE_FACTOR: f64 = 1e6;

/// Refuses, before any replication, a point of `scenario` with Poisson failures at whose
/// interval the exact model expects over [`UNFINISHABLE_FACTOR`] times the engine's failure
/// limit per replication ([`Error::UnfinishableInterval`]): a two-level job with a
/// level-2 write every 10⁶ checkpoints at its "optimal" interval, or 1 h chunks at a job
/// MTBF of 10 ms. Unlike [`refuse_hopeless`], it depends on the interval, so `optimize`
/// (which tries others) does not use it. Jobs that end at their first failure are not refused.
/// [`refuse_hopeless`]'s errors, which say more precisely what is wrong, come first.
pub fn refuse_unfinishable(scenario: &Scenario) -> Result<()> {
    let limit = Limits::default().max_failures;
    scenario.points.iter().try_for_each(refuse_hopeless)?;
    for point in &scenario.points {
        if point.job.on_failure == engine::OnFailure::EndJob || !point.failures.is_poisson() {
            continue;
        }
        let f = crate::forecast::point_forecast(point);
        if f.failures_per_rep > UNFINISHABLE_FACTOR * limit as f64 {
            let hint = if point.two_level.is_some() {
                ", or job.level2.every (`\"optimal\"` picks the best count)".to_string()
            } else {
                String::new()
            };
            return Err(Error::UnfinishableInterval {
                point: point.index,
                interval_s: point.interval_s,
                expected_failures: f.failures_per_rep,
                overhead: f.wall_s / point.job.work_s - 1.0,
                limit,
                hint,
            });
        }
    }
    Ok(())
}

/// Runs the shard's `local` replications (shard-local indices) of every point in parallel.
/// Summaries merge exactly, so any split into shards and ranges sums to the same bits.
pub fn run_shard_range(
    scenario: &Scenario,
    seed: u64,
    shard: Shard,
    local: std::ops::Range<u64>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<Summary>> {
    let points = &scenario.points;
    points.iter().try_for_each(refuse_hopeless)?;
    let shared = SharedStreams::of(points);
    let prepared: Vec<Prepared<'_>> = points.iter().map(Prepared::new).collect();
    let baseline = scenario.run.baseline.point();
    let causes = scenario.causes();
    let len = local.end.saturating_sub(local.start);
    let block = block_len(len);
    let blocks = len.div_ceil(block);
    let empty = || vec![Summary::default(); points.len()];
    // One set of summaries per piece of work rayon splits off, not per block: a summary's
    // histogram is large (about 150 KB at 3 digits over hours in ms), and creating and
    // merging one per block cost as much as the replications (measured with callgrind).
    // Summaries add and merge exactly, so the grouping does not change one bit.
    (0..blocks)
        .into_par_iter()
        .try_fold(empty, |mut sums, b| {
            let start = local.start + b * block;
            let end = (start + block).min(local.end);
            let limit = shared.recorded_per_tape();
            let first = shard.replication(start);
            let mut tapes: Vec<Tape<'_>> = shared
                .leaders
                .iter()
                .map(|&l| Tape::new(&points[l].failures, seed, first, points[l].job.downtime_s).limited(limit))
                .collect();
            // This replication's overhead at every point, for the paired differences.
            let mut overheads = vec![0.0_f64; if baseline.is_some() { points.len() } else { 0 }];
            for j in start..end {
                let rep = shard.replication(j);
                if j > start {
                    tapes.iter_mut().for_each(|t| t.rewind_to(rep));
                }
                for (p, (point, prepared)) in points.iter().zip(&prepared).enumerate() {
                    let engine_error = |source| Error::Engine { point: p, source };
                    // Split by cause only where the run has several: the engine's loop without
                    // a ledger is the fast one.
                    let record = if causes.is_empty() {
                        let record = match shared.group[p] {
                            Some(g) => prepared.replicate_on(&mut tapes[g].replay(), &mut ()),
                            None => prepared.replicate(seed, rep),
                        };
                        record.map_err(engine_error)?
                    } else {
                        let mut by_cause = engine::ByCause::default();
                        let record = match shared.group[p] {
                            Some(g) => prepared.replicate_on(&mut tapes[g].replay(), &mut by_cause),
                            None => prepared.replicate_by_cause(seed, rep, &mut by_cause),
                        };
                        let record = record.map_err(engine_error)?;
                        sums[p].add_causes(&causes, point.job.work_s, &by_cause);
                        record
                    };
                    sums[p].add(point.job.work_s, &record);
                    if let Some(o) = overheads.get_mut(p) {
                        *o = crate::stats::overhead_of(point.job.work_s, &record);
                    }
                }
                if let Some(b) = baseline {
                    for (sum, o) in sums.iter_mut().zip(&overheads) {
                        sum.overhead_diff.add(o - overheads[b]);
                    }
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

/// Which points of a run share a failure stream (the same failure model and downtime): each
/// group of two or more is drawn once per replication, on a [`Tape`], and replayed for each of
/// its points. A point alone builds its stream itself.
struct SharedStreams {
    /// Per point, its group (an index into `leaders`), if it shares its stream.
    group: Vec<Option<usize>>,
    /// Per group, its first point.
    leaders: Vec<usize>,
}

impl SharedStreams {
    /// The most distinct streams a run looks for (each point is compared with the first point
    /// of each one found so far, so grouping costs at most points × this comparisons); points
    /// past them build their own streams.
    const MAX_DISTINCT: usize = 64;

    /// The most failures a thread keeps recorded at once, over all its tapes (16 bytes each:
    /// 16 MB); a run with many groups records fewer failures per tape.
    const RECORDED_PER_THREAD: usize = 1 << 20;

    /// The most failures each of this run's tapes records: the thread's budget shared among
    /// the groups (at most [`Tape::MAX_RECORDED`]).
    fn recorded_per_tape(&self) -> usize {
        (Self::RECORDED_PER_THREAD / self.leaders.len().max(1)).min(Tape::MAX_RECORDED)
    }

    fn of(points: &[Point]) -> Self {
        let same = |a: &Point, b: &Point| a.failures == b.failures && a.job.downtime_s == b.job.downtime_s;
        // Per point, its class: the first point with the same stream, among the first
        // MAX_DISTINCT distinct ones.
        let mut firsts: Vec<usize> = vec![];
        let class: Vec<Option<usize>> = (0..points.len())
            .map(|p| match firsts.iter().position(|&f| same(&points[f], &points[p])) {
                Some(c) => Some(c),
                None if firsts.len() < Self::MAX_DISTINCT => {
                    firsts.push(p);
                    Some(firsts.len() - 1)
                }
                None => None,
            })
            .collect();
        let mut members = vec![0_usize; firsts.len()];
        class.iter().flatten().for_each(|&c| members[c] += 1);
        // Classes of two or more points become groups, numbered in order of their first point.
        let mut group_of_class = vec![None; firsts.len()];
        let mut leaders = vec![];
        for (c, &first) in firsts.iter().enumerate() {
            if members[c] > 1 {
                group_of_class[c] = Some(leaders.len());
                leaders.push(first);
            }
        }
        let group = class.iter().map(|c| c.and_then(|c| group_of_class[c])).collect();
        SharedStreams { group, leaders }
    }
}

/// Progress of a fixed-count run of one shard: its first `done` local replications are
/// summarised in `summaries`.
#[derive(Debug, Clone)]
pub struct Progress {
    /// Local replications done (a prefix of the shard's).
    pub done: u64,
    /// Summaries of those, one per point.
    pub summaries: Vec<Summary>,
}

/// Why [`run_resumable`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Every replication of the shard is done.
    Complete,
    /// `stop` asked to stop; the progress so far was saved.
    Interrupted,
}

/// Aimed-for wall time of one chunk of a resumable run (s): between chunks the run can
/// save its progress or stop.
const CHUNK_TARGET_S: f64 = 0.25;

/// The most a chunk may grow over the one before: the first chunks are small (one
/// replication per thread), so a stop is honoured within about one replication's time even
/// when replications are slow, and the size then grows to [`CHUNK_TARGET_S`] in a few steps.
const CHUNK_GROWTH: f64 = 16.0;

/// Runs the shard's replications of a run of `total` from `progress` on, in chunks;
/// between chunks it calls `save` whenever `save_every_s` (s) have passed since the last
/// save, and stops (after saving) once `stop` says so. Exact merges make the result the
/// same bits however the run was chunked, stopped and resumed.
#[allow(clippy::too_many_arguments)]
pub fn run_resumable(
    scenario: &Scenario,
    seed: u64,
    total: u64,
    shard: Shard,
    progress: &mut Progress,
    save_every_s: f64,
    save: &mut dyn FnMut(&Progress) -> Result<()>,
    stop: &dyn Fn() -> bool,
    tick: &(dyn Fn(u64) + Sync),
) -> Result<Outcome> {
    refuse_unfinishable(scenario)?;
    let goal = shard.len(total);
    let threads = rayon::current_num_threads() as u64;
    let mut chunk = threads;
    let mut last_save = std::time::Instant::now();
    while progress.done < goal {
        if stop() {
            save(progress)?;
            return Ok(Outcome::Interrupted);
        }
        let end = (progress.done + chunk).min(goal);
        let started = std::time::Instant::now();
        let more = run_shard_range(scenario, seed, shard, progress.done..end, tick)?;
        // The progress may come from a file (`--resume`): its totals may not fit.
        for (p, (a, b)) in progress.summaries.iter_mut().zip(&more).enumerate() {
            a.try_merge(b).map_err(|e| {
                Error::Usage(format!(
                    "the saved progress cannot take more replications: key `points[{p}].{}`: {}",
                    e.key, e.message
                ))
            })?;
        }
        progress.done = end;
        // Size the next chunk for about CHUNK_TARGET_S; its size never changes the result.
        let took = started.elapsed().as_secs_f64().max(1e-6);
        let grow = (CHUNK_TARGET_S / took).min(CHUNK_GROWTH);
        chunk = ((chunk as f64 * grow) as u64).clamp(threads, 1 << 24);
        if last_save.elapsed().as_secs_f64() >= save_every_s && progress.done < goal {
            save(progress)?;
            last_save = std::time::Instant::now();
        }
    }
    Ok(Outcome::Complete)
}

/// Runs `scenario` under `stop` from `seed`. With [`Stop::Precision`], rounds of
/// replications are added until every point's 95% half-width is at most the target
/// ([`needed_replications`]) and no point has too few failures of a cause to trust it
/// ([`few_failures_replications`]), or the count reaches [`MAX_ADAPTIVE_REPLICATIONS`];
/// round sizes depend only on the summaries so far, so the result is still
/// seed-deterministic.
/// `on_target` is told the current target count whenever it changes.
pub fn run(
    scenario: &Scenario,
    stop: Stop,
    seed: u64,
    on_target: &dyn Fn(u64),
    progress: &(dyn Fn(u64) + Sync),
) -> Result<RunResult> {
    refuse_unfinishable(scenario)?;
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
                // A target no allowed count can reach is refused now, not after 2³² replications.
                let worst = summaries
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (i, estimated_replications(s, h), spread(s)))
                    .max_by(|a, b| a.1.total_cmp(&b.1));
                if let Some((point, needed, spread)) = worst.filter(|w| w.1 > MAX_ADAPTIVE_REPLICATIONS as f64) {
                    let max = MAX_ADAPTIVE_REPLICATIONS;
                    let reachable = spread / (max as f64).sqrt();
                    return Err(Error::PrecisionUnreachable { precision: h, point, needed, max, reachable });
                }
                let needed = scenario
                    .points
                    .iter()
                    .zip(&summaries)
                    .map(|(point, s)| needed_replications(s, h).max(few_failures_replications(point, s)))
                    .max()
                    .unwrap_or(0);
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
/// (MODELS.md §6); the current count when the target is already met. A sample that no
/// failure struck ([`never_struck`]) needs at least ⌈3/h⌉ ([`RULE_OF_THREE`]), at most
/// [`MAX_ADAPTIVE_REPLICATIONS`].
pub fn needed_replications(s: &Summary, h: f64) -> u64 {
    let needed = estimated_replications(s, h).min(MAX_ADAPTIVE_REPLICATIONS as f64) as u64;
    if never_struck(s) {
        needed.max((RULE_OF_THREE / h).ceil().min(MAX_ADAPTIVE_REPLICATIONS as f64) as u64)
    } else {
        needed
    }
}

/// Replications that `point`'s causes need before its interval can be trusted, given its
/// sample `s` so far: 0 where none has too few failures ([`few_failures_at`]), else the most
/// of their [`aimed_replications`], and always more than the sample's (a count that fell
/// short of an expectation already at the aim was bad luck, which more replications cure);
/// at most [`MAX_ADAPTIVE_REPLICATIONS`].
pub fn few_failures_replications(point: &Point, s: &Summary) -> u64 {
    few_failures_at(point, s)
        .iter()
        .map(|f| (aimed_replications(f).ceil().min(MAX_ADAPTIVE_REPLICATIONS as f64) as u64).max(f.replications + 1))
        .max()
        .unwrap_or(0)
        .min(MAX_ADAPTIVE_REPLICATIONS)
}

/// [`needed_replications`] without the cap, as a float (it may be astronomically large),
/// and without the rule of three (which never asks for more than the cap).
fn estimated_replications(s: &Summary, h: f64) -> f64 {
    let e = s.overhead.estimate();
    if e.half_width <= h {
        return e.n as f64;
    }
    (spread(s) / h).powi(2).ceil()
}

/// t·s of the overhead sample: n replications give a 95% half-width of about t·s/√n.
fn spread(s: &Summary) -> f64 {
    let e = s.overhead.estimate();
    if e.se > 0.0 { e.half_width / e.se * e.sd } else { 0.0 }
}
