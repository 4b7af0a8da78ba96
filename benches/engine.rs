//! Engine throughput at the Young–Daly example of `scenarios/young-daly.toml`: work 2e5 s,
//! checkpoint δ = 2 min, restart R = 10 min, job MTBF M = 3.1 h, exponential failures, failures
//! can strike checkpoint writes and restarts, the final checkpoint is written, and the interval
//! is Young's T = √(2δM).
//!
//! ```text
//! cargo bench --bench engine                          # from the crate root
//! CKPTSIM_BENCH_ROUNDS=3 cargo bench --bench engine   # quicker, noisier
//! ```
//!
//! Measured variants, all on one thread of one process:
//!
//! - `Exp1 draws`: the baseline, a loop summing `rand_distr::Exp1` samples from a
//!   `rand_pcg::Pcg64Mcg`;
//! - `play_periodic @ T`: the fast path, one replication after another exactly as the runner
//!   plays a point alone on its stream (`runner::Prepared::play_periodic`, the point's chunk
//!   layout and stream MTBF worked out once): a fresh Poisson stream per replication from
//!   `runner::stream_rng(seed, rep, runner::FAILURE_STREAM)`;
//! - `play + Periodic @ T`: the per-segment path on the same streams;
//! - `play_periodic @ T, W × 100`: the fast path on the same point with a job 100 times
//!   longer (about 2,200 failures per replication), so that the per-replication setup
//!   (seeding, the first batch of draws, the unused draws of the last one) is under 1% of
//!   the time: the marginal cost of a failure event;
//! - `play_periodic @ T/8`: the fast path with eight times as many checkpoints;
//! - `play + Periodic @ T/8`: the per-segment path there (measurement 3 at T/8, informative);
//! - `draws alone`: the fast path's replications without the engine: each builds its stream
//!   and pulls exactly the failures the fast path pulled from it. It is the floor under any
//!   engine on these streams, printed as bounds on measurements 2 and 3;
//! - `play_periodic @ T, recorded` and `play + Periodic @ T, recorded`: the two paths alone,
//!   each on a replay of the same recorded stream, as the runner plays every sweep point that
//!   shares its failures: per round, the first 512 replications of the block have their
//!   streams recorded on [`Tape`]s ahead of time (untimed), and each pass replays every tape
//!   once;
//! - `runner::run_range`: the whole runner over the scenario's 15 points, in a 1-thread pool.
//!
//! The machine may be shared and noisy, so no absolute time is a result: the variants are
//! interleaved in several rounds (the order rotating from round to round), each variant lasts
//! about `CKPTSIM_BENCH_SECONDS` per round, and each rate is the median of the per-round rates.
//! The results are ratios of those medians, printed with the spread of the per-round ratios and
//! checked against their targets (a miss is printed, not a panic):
//!
//! 1. replications and failure events per second per core on the fast path (informative);
//! 2. engine time per failure event ÷ time per Exp1 draw, ≤ 3, read two ways and both
//!    checked: all in (per-replication setup included, at W) and marginal (at W × 100); the
//!    setup itself is printed in draws per replication;
//! 3. fast-path speed ÷ per-segment speed on the same streams, ≥ 5, read two ways: the engines
//!    alone on the same recorded streams (the target's reading: the stream is the paths' common
//!    input, drawn once and replayed to both, as the runner does), and, informative, all in,
//!    each path building and drawing its own stream (bounded by the draws-alone floor, printed
//!    too); before timing, the two paths are asserted to give the same record on every
//!    replication measured: identical counters, and wall times equal up to rounding (the
//!    fast path multiplies where the per-segment path sums chunk by chunk; how many differ,
//!    and by how many ulp at most, is printed);
//! 4. fast-path time per replication at T/8 ÷ at T, ≤ 1.5;
//! 5. runner replications per second (informative).
//!
//! Every engine variant of a round plays the same block of replications (the same seeds); the
//! block is sized so that the slowest one plays it once in about the target time, and the faster
//! ones play it several times over. Environment: `CKPTSIM_BENCH_ROUNDS` (default 7) and
//! `CKPTSIM_BENCH_SECONDS` (default 0.3). Command-line arguments (such as cargo's `--bench`)
//! are ignored.

use std::cell::RefCell;
use std::hint::black_box;
use std::ops::Range;
use std::path::Path;
use std::time::Instant;

use ckptsim::analytic::young_interval_s;
use ckptsim::engine::{self, Job, Limits, Record};
use ckptsim::failure::tape::Tape;
use ckptsim::failure::{ExponentialStream, FailureStream, Failures};
use ckptsim::policy::{ChunkLayout, Periodic};
use ckptsim::runner;
use ckptsim::scenario::{self, Scenario};
use rand::SeedableRng;
use rand_distr::{Distribution, Exp1};
use rand_pcg::Pcg64Mcg;

mod common;
use common::{Tally, Target, Variant, env_or, info, max, measure_rounds, median, min, ratio, si, young_daly_job};

/// The scenario the benchmark point comes from, relative to the crate root.
const SCENARIO: &str = "scenarios/young-daly.toml";
/// The scenario's master seed.
const SEED: u64 = 42;
/// Job MTBF of the benchmark point, 3.1 h (s).
const MTBF_S: f64 = 3.1 * 3600.0;
/// The round index used while calibrating (its replications are not those of any round).
const CALIBRATION_ROUND: u64 = u64::MAX >> 33;
/// How many times longer the job of the marginal-cost variant is.
const LONG_JOB_FACTOR: f64 = 100.0;
/// The first replication of the marginal-cost variant's rounds (its seeds are apart from the
/// engine block's; round `r` starts at `(LONG_JOB_REPS + r) << 32`).
const LONG_JOB_REPS: u64 = 1 << 20;
/// Replications per round of the recorded-stream variants: their tapes (about 650 bytes
/// each) fit in a core's L2 cache, as a runner's one tape per replication does in L1.
const RECORDED_REPS: u64 = 512;

fn main() {
    let rounds: usize = env_or("CKPTSIM_BENCH_ROUNDS", 7);
    let target_s: f64 = env_or("CKPTSIM_BENCH_SECONDS", 0.3);
    assert!(rounds >= 1 && target_s > 0.0, "need CKPTSIM_BENCH_ROUNDS ≥ 1 and CKPTSIM_BENCH_SECONDS > 0");
    let scenario = scenario::load(Path::new(SCENARIO), &[]).expect("run from the crate root (cargo bench does)");
    // Everything runs on the single worker of a 1-thread pool, the runner included.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a 1-thread pool");
    pool.install(|| bench(&scenario, rounds, target_s));
}

/// The benchmark point: the job and Young's interval (the failures: Poisson at `MTBF_S`).
struct BenchPoint {
    job: Job,
    young_s: f64,
}

impl BenchPoint {
    fn new() -> Self {
        let job = young_daly_job();
        let young_s = young_interval_s(job.checkpoint_s, MTBF_S);
        BenchPoint { job, young_s }
    }

    /// Asserts that `scenario` holds this point (so [`runner::replicate`] can check the loop).
    fn find_in<'a>(&self, scenario: &'a Scenario) -> &'a scenario::Point {
        let point = scenario.points.iter().find(|p| p.job == self.job && p.factor == 1.0);
        let point = point.unwrap_or_else(|| panic!("{SCENARIO} has no point with factor 1 and job {:?}", self.job));
        // The runner builds the bench's stream: a Poisson stream of this MTBF.
        assert_eq!(
            point.failures.exponential_stream_mtbf_s(),
            Some(MTBF_S),
            "{SCENARIO} moved the benchmark point: not Poisson at M = {MTBF_S} s"
        );
        assert_eq!(point.interval_s, self.young_s, "{SCENARIO} moved the benchmark point");
        point
    }
}

/// Replication `rep`'s failure stream, as the runner builds it for this Poisson point.
#[inline]
fn stream(rep: u64) -> ExponentialStream {
    ExponentialStream::new(MTBF_S, runner::stream_rng(SEED, rep, runner::FAILURE_STREAM))
}

/// The fast path on `prepared`, exactly as the runner calls it (it prepares the point once,
/// and builds each replication's stream itself).
fn fast<'a>(prepared: &'a runner::Prepared<'a>) -> impl Fn(u64) -> Record + 'a {
    move |rep| prepared.play_periodic(SEED, rep).expect("the benchmark point finishes")
}

/// `point` at another interval (s).
fn at_interval(point: &scenario::Point, interval_s: f64) -> scenario::Point {
    scenario::Point { interval_s, ..point.clone() }
}

/// The per-segment path at `interval_s`, on the same stream.
fn per_segment(job: &Job, interval_s: f64) -> impl Fn(u64) -> Record + '_ {
    move |rep| {
        let policy = Periodic::new(job.work_s, interval_s);
        engine::play(job, &policy, &mut stream(rep), Limits::default()).expect("the benchmark point finishes")
    }
}

/// How closely the fast path's records match the per-segment path's.
#[derive(Debug, Default)]
struct Agreement {
    /// Replications compared.
    compared: u64,
    /// Replications whose wall times differ in their bits.
    wall_differs: u64,
    /// The largest difference of wall times, in units in the last place.
    max_ulps: u64,
}

impl Agreement {
    /// The wall time may differ by rounding: the fast path multiplies where the per-segment
    /// path sums chunk by chunk. A logic error would move it by a chunk or a cost (≥ 1 s).
    const WALL_RELATIVE_TOLERANCE: f64 = 1e-12;

    /// Asserts that `fast` and `slow` have the same counters and the same wall time up to
    /// rounding, and tallies the rounding.
    fn check(&mut self, rep: u64, fast: &Record, slow: &Record) {
        let counters = |r: &Record| {
            (r.failures, r.failures_during_checkpoint, r.failed_restarts, r.ignored_failures, r.checkpoints, r.restarts)
        };
        let close = (fast.wall_s - slow.wall_s).abs() <= Self::WALL_RELATIVE_TOLERANCE * slow.wall_s;
        assert!(
            counters(fast) == counters(slow) && close,
            "the paths disagree on replication {rep}: {fast:?} {slow:?}"
        );
        self.compared += 1;
        let ulps = fast.wall_s.to_bits().abs_diff(slow.wall_s.to_bits());
        self.wall_differs += u64::from(ulps > 0);
        self.max_ulps = self.max_ulps.max(ulps);
    }
}

/// Work done by one call of a variant.
#[derive(Debug, Clone, Copy, Default)]
struct Work {
    /// Units of the variant's rate (draws or replications).
    units: u64,
    /// Failures that struck the job (0 for the baseline).
    failures: u64,
}

impl Tally for Work {
    fn add(&mut self, other: Work) {
        self.units += other.units;
        self.failures += other.failures;
    }
}

/// Per measured round of `v`: units per second.
fn unit_rates(v: &Variant<'_, Work>) -> Vec<f64> {
    v.rates(|w| w.units as f64)
}

/// Per measured round of `v`: failures per second.
fn failure_rates(v: &Variant<'_, Work>) -> Vec<f64> {
    v.rates(|w| w.failures as f64)
}

/// Failures per unit of work over every measured round of `v`.
fn failures_per_unit(v: &Variant<'_, Work>) -> f64 {
    v.total.failures as f64 / v.total.units as f64
}

/// Plays replications `reps` `passes` times over; returns the work done.
fn play_reps(reps: Range<u64>, passes: u64, play: &impl Fn(u64) -> Record) -> Work {
    let mut failures = 0;
    for _ in 0..passes {
        for rep in reps.clone() {
            failures += black_box(play(rep)).failures;
        }
    }
    Work { units: passes * (reps.end - reps.start), failures }
}

/// Replications `reps`, each one's stream recorded on a [`Tape`] as the runner records it for
/// the sweep points that share a stream (by playing the fast path on it once, untimed: the
/// tape then holds every failure either path pulls).
fn record_tapes<'a>(
    failures: &'a Failures,
    reps: Range<u64>,
    record: &impl Fn(&mut Tape<'a>) -> Record,
) -> Vec<Tape<'a>> {
    reps.map(|rep| {
        let mut tape = Tape::new(failures, SEED, rep, 0.0);
        record(&mut tape);
        tape
    })
    .collect()
}

/// Plays a replay of every tape of `tapes` with `play`, `passes` times over.
fn play_tapes<'a>(tapes: &mut [Tape<'a>], passes: u64, play: &impl Fn(&mut Tape<'a>) -> Record) -> Work {
    let mut failures = 0;
    for _ in 0..passes {
        for tape in tapes.iter_mut() {
            failures += black_box(play(tape)).failures;
        }
    }
    Work { units: passes * tapes.len() as u64, failures }
}

/// The fast path's replications `reps` without the engine, `passes` times over: each one
/// builds its stream as the runner does and pulls as many failures as the fast path pulled
/// (`pulls`: pulled and striking, per replication). No engine can do less on these streams,
/// so this bounds what any fast path could reach in measurements 2 and 3.
fn draws_alone(reps: Range<u64>, pulls: &[(u32, u32)], passes: u64) -> Work {
    let mut failures = 0;
    let mut sum_s = 0.0_f64;
    for _ in 0..passes {
        for (rep, &(pulled, struck)) in reps.clone().zip(pulls) {
            sum_s += pull(&mut stream(rep), pulled);
            failures += u64::from(struck);
        }
    }
    black_box(sum_s);
    Work { units: passes * (reps.end - reps.start), failures }
}

/// The sum of the next `n` failure times of `stream` (s).
#[inline]
fn pull(stream: &mut impl FailureStream, n: u32) -> f64 {
    (0..n).map(|_| stream.next_failure().time_s).sum()
}

/// Sums `draws` Exp1 samples from a generator seeded by `seed`.
fn exp1_draws(seed: u64, draws: u64) -> Work {
    let mut rng = Pcg64Mcg::seed_from_u64(black_box(seed));
    let mut sum = 0.0_f64;
    for _ in 0..draws {
        let x: f64 = Exp1.sample(&mut rng);
        sum += x;
    }
    black_box(sum);
    Work { units: draws, failures: 0 }
}

/// Seconds per replication of the slowest of `plays`, over at least 20 ms of each.
fn slowest_secs_per_rep(plays: &[&dyn Fn(u64) -> Work]) -> f64 {
    plays
        .iter()
        .map(|play| {
            let mut reps = 64;
            loop {
                let start = Instant::now();
                play(reps);
                let secs = start.elapsed().as_secs_f64();
                if secs >= 0.02 {
                    return secs / reps as f64;
                }
                reps *= 4;
            }
        })
        .fold(0.0, f64::max)
}

fn bench(scenario: &Scenario, rounds: usize, target_s: f64) {
    let point = BenchPoint::new();
    let scenario_point = point.find_in(scenario);
    let (job, young_s) = (&point.job, point.young_s);
    let eighth_point = at_interval(scenario_point, young_s / 8.0);
    let (at_young, at_eighth) = (runner::Prepared::new(scenario_point), runner::Prepared::new(&eighth_point));
    let (fast_young, slow_young, fast_eighth, slow_eighth) =
        (fast(&at_young), per_segment(job, young_s), fast(&at_eighth), per_segment(job, young_s / 8.0));

    // The block of replications every engine variant plays in a round.
    let probe = CALIBRATION_ROUND << 32;
    let secs_per_rep = slowest_secs_per_rep(&[
        &|n| play_reps(probe..probe + n, 1, &fast_young),
        &|n| play_reps(probe..probe + n, 1, &slow_young),
        &|n| play_reps(probe..probe + n, 1, &fast_eighth),
        &|n| play_reps(probe..probe + n, 1, &slow_eighth),
    ]);
    let block = ((target_s / secs_per_rep).round() as u64).max(64);
    // The same point with a job LONG_JOB_FACTOR times longer, for the marginal cost.
    let mut long_point = scenario_point.clone();
    long_point.job.work_s *= LONG_JOB_FACTOR;
    let long_prepared = runner::Prepared::new(&long_point);
    let fast_long = fast(&long_prepared);
    let block_of = move |round: u64| round * block..(round + 1) * block;

    // Sanity, untimed, on every replication measured: the two paths agree, and the loop is
    // exactly the runner's.
    let mut agreement = Agreement::default();
    // Per replication measured: how many failures the fast path pulls from its stream, and
    // how many strike the job (for the draws-alone variant).
    let mut pulls: Vec<(u32, u32)> = Vec::with_capacity(rounds * block as usize);
    for round in 0..rounds as u64 {
        for rep in block_of(round) {
            let record = fast_young(rep);
            // The first pending failure, and one more for each failure consumed.
            let pulled = 1 + record.failures + record.ignored_failures;
            pulls.push((pulled.try_into().expect("few failures"), record.failures.try_into().expect("few failures")));
            agreement.check(rep, &record, &slow_young(rep));
            if round == 0 {
                assert_eq!(Ok(record), runner::replicate(scenario_point, SEED, rep), "replication {rep}");
            }
        }
    }

    // The two paths on a replay of a recorded tape, as the runner plays the points that share
    // a stream; per round, the first RECORDED_REPS replications of its block, recorded ahead.
    let fast_on_tape = |tape: &mut Tape<'_>| {
        engine::play_periodic(job, at_young.layout(), &mut tape.replay(), Limits::default()).expect("finishes")
    };
    let young_policy = Periodic::new(job.work_s, young_s);
    let slow_on_tape = |tape: &mut Tape<'_>| {
        engine::play(job, &young_policy, &mut tape.replay(), Limits::default()).expect("finishes")
    };
    let tapes: Vec<RefCell<Vec<Tape<'_>>>> = (0..rounds as u64)
        .map(|round| {
            let reps = round * block..round * block + RECORDED_REPS.min(block);
            RefCell::new(record_tapes(&scenario_point.failures, reps, &fast_on_tape))
        })
        .collect();
    // The calibration round borrows round 0's tapes.
    let tapes_of = |round: u64| &tapes[if round == CALIBRATION_ROUND { 0 } else { round as usize }];

    // The unit of each variant's rate, in the order below.
    let units = ["draws", "reps", "reps", "reps", "reps", "reps", "reps", "reps", "reps", "reps"];
    let mut variants = [
        Variant::new("Exp1 draws (baseline)", exp1_draws),
        Variant::new("play_periodic @ T", |round, passes| play_reps(block_of(round), passes, &fast_young)),
        Variant::new("play + Periodic @ T", |round, passes| play_reps(block_of(round), passes, &slow_young)),
        Variant::new("play_periodic @ T, W × 100", |round, reps| {
            let start = (LONG_JOB_REPS + round) << 32;
            play_reps(start..start + reps, 1, &fast_long)
        }),
        Variant::new("play_periodic @ T/8", |round, passes| play_reps(block_of(round), passes, &fast_eighth)),
        Variant::new("play + Periodic @ T/8", |round, passes| play_reps(block_of(round), passes, &slow_eighth)),
        Variant::new("draws alone (no engine)", |round, passes| {
            // The calibration round has no recorded counts: it borrows round 0's.
            let round = if round == CALIBRATION_ROUND { 0 } else { round };
            draws_alone(block_of(round), &pulls[(round * block) as usize..][..block as usize], passes)
        }),
        Variant::new("play_periodic @ T, recorded", |round, passes| {
            play_tapes(&mut tapes_of(round).borrow_mut(), passes, &fast_on_tape)
        }),
        Variant::new("play + Periodic @ T, recorded", |round, passes| {
            play_tapes(&mut tapes_of(round).borrow_mut(), passes, &slow_on_tape)
        }),
        Variant::new("runner::run_range, 15 points", |round, reps| {
            let start = (round + 1) << 32;
            let summaries = runner::run_range(scenario, SEED, start..start + reps, &|_| {}).expect("the runner runs");
            Work { units: reps, failures: summaries.iter().map(|s| s.totals.failures).sum() }
        }),
    ];
    measure_rounds(&mut variants, rounds, target_s, CALIBRATION_ROUND);

    let [exp1, fast_t, slow_t, fast_long, fast_t8, slow_t8, alone, fast_rec, slow_rec, run] = &variants;
    let layout = ChunkLayout::new(job.work_s, young_s);
    println!();
    println!(
        "ckptsim engine bench: {rounds} rounds × {} variants, ~{target_s} s each, 1 thread; medians of per-round rates",
        variants.len()
    );
    println!(
        "point: W = {} s, δ = {} s, R = {} s, M = {} s, T = Young = {:.1} s ({} chunks), T/8 = {:.1} s",
        job.work_s,
        job.checkpoint_s,
        job.restart_s,
        MTBF_S,
        young_s,
        layout.count,
        young_s / 8.0
    );
    println!(
        "engine block: {block} replications per round, the same seeds for every engine variant; \
         loop == runner::replicate on {block}"
    );
    println!(
        "play_periodic vs play + Periodic on {} replications: counters identical; wall time bit-identical on {}, \
         differs by rounding on {} (at most {} ulp)",
        agreement.compared,
        agreement.compared - agreement.wall_differs,
        agreement.wall_differs,
        agreement.max_ulps
    );
    println!();
    println!(
        "{:<30} {:>14} {:>21} {:>11} {:>14}",
        "variant", "median rate", "per-round min..max", "steps/round", "failures/unit"
    );
    for (v, unit) in variants.iter().zip(units) {
        let rates = unit_rates(v);
        println!(
            "{:<30} {:>14} {:>21} {:>11} {:>14}",
            v.name,
            format!("{} {unit}/s", si(median(&rates))),
            format!("{}..{}", si(min(&rates)), si(max(&rates))),
            v.size,
            if v.total.failures > 0 { format!("{:.3}", failures_per_unit(v)) } else { "-".into() },
        );
    }

    println!(
        "(steps/round: draws for the baseline, passes over the block for the engine, replications for the runner)"
    );
    println!();
    println!("{:<58} {:>10} {:>15} {:>8} {:>7}", "measurement", "value", "rounds min..max", "target", "result");
    let fast_rate = median(&unit_rates(fast_t));
    info("1  replications / s / core, play_periodic @ T", &si(fast_rate));
    info("   failures / replication @ T", &format!("{:.3}", failures_per_unit(fast_t)));
    info("   failure events / s / core @ T", &si(median(&failure_rates(fast_t))));
    // Time per failure event ÷ time per draw = draws per second ÷ failure events per second.
    ratio(
        "2  time per failure event @ T ÷ time per Exp1 draw, all in",
        (&unit_rates(exp1), &failure_rates(fast_t)),
        Target::AtMost(3.0),
    );
    ratio(
        "   the same, marginal: @ T, W × 100 (setup < 1%)",
        (&unit_rates(exp1), &failure_rates(fast_long)),
        Target::AtMost(3.0),
    );
    info("   failures / replication @ T, W × 100", &format!("{:.1}", failures_per_unit(fast_long)));
    // Setup = time per replication − failures per replication × marginal time per failure,
    // in draws (medians of the rates).
    let draw_s = 1.0 / median(&unit_rates(exp1));
    let setup_s = 1.0 / fast_rate - failures_per_unit(fast_t) / median(&failure_rates(fast_long));
    info("   per-replication setup @ T, in Exp1 draws", &format!("{:.1}", setup_s / draw_s));
    ratio(
        "3  speed play_periodic ÷ play + Periodic @ T, same tapes",
        (&unit_rates(fast_rec), &unit_rates(slow_rec)),
        Target::AtLeast(5.0),
    );
    info("   failures / replication on the tapes", &format!("{:.3}", failures_per_unit(fast_rec)));
    ratio(
        "   the same, all in: each path drawing its own stream",
        (&unit_rates(fast_t), &unit_rates(slow_t)),
        Target::Info,
    );
    ratio(
        "4  time per replication, play_periodic T/8 ÷ T",
        (&unit_rates(fast_t), &unit_rates(fast_t8)),
        Target::AtMost(1.5),
    );
    info("   failures / replication @ T/8", &format!("{:.3}", failures_per_unit(fast_t8)));
    ratio(
        "   speed play_periodic ÷ play + Periodic @ T/8, all in",
        (&unit_rates(fast_t8), &unit_rates(slow_t8)),
        Target::Info,
    );
    ratio(
        "   bound on 2 for any engine: draws alone, per failure",
        (&unit_rates(exp1), &failure_rates(alone)),
        Target::Info,
    );
    ratio(
        "   bound on 3 all in: draws alone ÷ play + Periodic",
        (&unit_rates(alone), &unit_rates(slow_t)),
        Target::Info,
    );
    ratio(
        "   engine share: play_periodic @ T ÷ draws alone (time)",
        (&unit_rates(alone), &unit_rates(fast_t)),
        Target::Info,
    );
    let run_rate = median(&unit_rates(run));
    info("5  runner replications / s, 15 points, 1 thread", &si(run_rate));
    info("   runner point-replications / s", &si(run_rate * scenario.points.len() as f64));
    ratio(
        "   time per point-replication, runner ÷ play_periodic @ T",
        (&unit_rates(fast_t), &unit_rates(run).iter().map(|r| r * scenario.points.len() as f64).collect::<Vec<_>>()),
        Target::Info,
    );
    println!();
    println!("rates are absolute only for this run on this machine; the ratios are the results");
}
