//! Platform throughput: replications per second for a stationary Weibull platform of 10,
//! 1,000 and 1,000,000 nodes at the same job MTBF, sampled by cohorts and by the per-node
//! reference, beside a Poisson stream at that MTBF.
//!
//! ```text
//! cargo bench --bench platform                          # from the crate root
//! CKPTSIM_BENCH_ROUNDS=3 cargo bench --bench platform   # quicker, noisier
//! ```
//!
//! The benchmark point is the Young–Daly job of `benches/engine.rs`: work 2e5 s, checkpoint
//! δ = 2 min, restart R = 10 min, no downtime, failures can strike checkpoint writes and
//! restarts, the final checkpoint is written, on failure the job restarts, and the interval is
//! Young's T = √(2δM) at the job MTBF M = 3.1 h. The failures are per-node renewal over n
//! nodes of Weibull lifetimes of shape 0.7 and mean n·M (so the job MTBF is M for every n),
//! every node in equilibrium at the start (`Start::Stationary`).
//!
//! Measured variants, all on one thread of one process, each a full replication exactly as
//! [`runner::replicate`] plays it: the stream built by `FailureModel::stream` from
//! `runner::stream_rng(seed, rep, runner::FAILURE_STREAM)`, the chunk layout, then
//! `engine::play_periodic`:
//!
//! - `poisson`: `FailureModel::Poisson` at M, the baseline;
//! - `cohort, n nodes` for n = 10, 1,000, 1,000,000: `Sampler::Cohort`, one inversion of the
//!   cumulative hazard per failure, whatever n;
//! - `per-node, n nodes` for the same n: `Sampler::PerNode`, the reference, which draws every
//!   node's residual life and heaps them (O(n) per replication: at 1,000,000 nodes a round is
//!   only a handful of replications).
//!
//! The machine may be shared and noisy, so no absolute time is a result: the variants are
//! interleaved in several rounds (the order rotating from round to round), each variant lasts
//! about `CKPTSIM_BENCH_SECONDS` per round, and each rate is the median of the per-round rates.
//! The results are ratios of those medians, printed with the spread of the per-round ratios:
//!
//! 1. replications per second per core of each variant, in the variant table (informative);
//! 2. time per replication, cohort at 1,000,000 nodes ÷ at 10 nodes, ≤ 2 (the issue's
//!    acceptance; a miss is printed, not a panic);
//! 3. time per replication, cohort at n ÷ Poisson, and per-node at n ÷ cohort at n
//!    (informative).
//!
//! Sanity, asserted: every model has job MTBF M, and every variant strikes the job with the
//! same mean number of failures per replication (about 22) within [`Z_MAX`] standard errors,
//! both the two samplers at the same n and every variant against Poisson, so a broken sampler
//! fails the bench instead of looking fast. Every variant of a round plays replications with
//! the same seeds, new ones each round. Environment: `CKPTSIM_BENCH_ROUNDS` (default 5) and
//! `CKPTSIM_BENCH_SECONDS` (default 0.3). Command-line arguments (such as cargo's `--bench`)
//! are ignored.

use std::hint::black_box;

use ckptsim::analytic::young_interval_s;
use ckptsim::engine::{self, Job, Limits};
use ckptsim::failure::{FailureModel, Law, NodeClass, Sampler, Start};
use ckptsim::policy::ChunkLayout;
use ckptsim::runner;

mod common;
use common::{
    Tally, Target, Variant, env_or, info, max, measure_rounds, median, min, ratio, short, si, young_daly_job,
};

/// The master seed.
const SEED: u64 = 42;
/// Job MTBF of the benchmark point, 3.1 h (s).
const MTBF_S: f64 = 3.1 * 3600.0;
/// Weibull shape of the node lifetimes (decreasing hazard).
const SHAPE: f64 = 0.7;
/// Node counts measured.
const NODES: [u64; 3] = [10, 1_000, 1_000_000];
/// The round index used while calibrating (its replications are not those of any round).
const CALIBRATION_ROUND: u64 = u64::MAX >> 33;
/// Failures per replication must agree within this many standard errors.
const Z_MAX: f64 = 5.0;

fn main() {
    let rounds: usize = env_or("CKPTSIM_BENCH_ROUNDS", 5);
    let target_s: f64 = env_or("CKPTSIM_BENCH_SECONDS", 0.3);
    assert!(rounds >= 1 && target_s > 0.0, "need CKPTSIM_BENCH_ROUNDS ≥ 1 and CKPTSIM_BENCH_SECONDS > 0");
    bench(rounds, target_s);
}

/// `nodes` Weibull nodes of mean `nodes`·M, all in equilibrium at the start: job MTBF M.
fn platform(nodes: u64, sampler: Sampler) -> FailureModel {
    let law = Law::weibull(nodes as f64 * MTBF_S, SHAPE).expect("a valid Weibull law");
    let model = FailureModel::Platform { classes: vec![NodeClass { nodes, law }], start: Start::Stationary, sampler };
    let mtbf_s = model.mtbf_s();
    assert!((mtbf_s / MTBF_S - 1.0).abs() < 1e-12, "{} has job MTBF {mtbf_s} s, not {MTBF_S} s", model.describe());
    model
}

/// Work done by one call of a variant: replications and the failures that struck the job.
#[derive(Debug, Clone, Copy, Default)]
struct Work {
    reps: u64,
    failures: u64,
    /// Σ failures² over the replications, for the standard error.
    failures_sq: u128,
}

impl Tally for Work {
    fn add(&mut self, other: Work) {
        self.reps += other.reps;
        self.failures += other.failures;
        self.failures_sq += other.failures_sq;
    }
}

impl Work {
    fn mean(&self) -> f64 {
        self.failures as f64 / self.reps as f64
    }

    /// Standard error of [`Work::mean`] (infinite below two replications).
    fn se(&self) -> f64 {
        if self.reps < 2 {
            return f64::INFINITY;
        }
        let n = self.reps as f64;
        let var = (self.failures_sq as f64 - n * self.mean().powi(2)) / (n - 1.0);
        (var.max(0.0) / n).sqrt()
    }
}

/// Plays replications `first..first + reps` of `model`, each as the runner plays it.
fn play_reps(model: &FailureModel, job: &Job, interval_s: f64, first: u64, reps: u64) -> Work {
    let mut work = Work { reps, ..Work::default() };
    for rep in first..first + reps {
        let mut stream = model.stream(runner::stream_rng(SEED, rep, runner::FAILURE_STREAM), job.downtime_s);
        let layout = ChunkLayout::new(job.work_s, interval_s);
        let record = engine::play_periodic(job, &layout, &mut stream, Limits::default());
        let failures = black_box(record.expect("the benchmark point finishes")).failures;
        work.failures += failures;
        work.failures_sq += u128::from(failures) * u128::from(failures);
    }
    work
}

/// The variant `name`: replications of `model` at `interval_s`, new seeds each round.
fn variant<'a>(name: String, model: &'a FailureModel, job: &'a Job, interval_s: f64) -> Variant<'a, Work> {
    Variant::new(name, move |round, reps| play_reps(model, job, interval_s, round << 32, reps))
}

fn bench(rounds: usize, target_s: f64) {
    let job = young_daly_job();
    let young_s = young_interval_s(job.checkpoint_s, MTBF_S);
    let poisson = FailureModel::Poisson { mtbf_s: MTBF_S };
    let cohorts = NODES.map(|n| platform(n, Sampler::Cohort));
    let per_nodes = NODES.map(|n| platform(n, Sampler::PerNode));
    let mut variants = vec![variant("poisson (baseline)".into(), &poisson, &job, young_s)];
    for (n, model) in NODES.iter().zip(&cohorts) {
        variants.push(variant(format!("cohort, {} nodes", grouped(*n)), model, &job, young_s));
    }
    for (n, model) in NODES.iter().zip(&per_nodes) {
        variants.push(variant(format!("per-node, {} nodes", grouped(*n)), model, &job, young_s));
    }

    measure_rounds(&mut variants, rounds, target_s, CALIBRATION_ROUND);
    // Per variant, per round: replications per second.
    let rates: Vec<Vec<f64>> = variants.iter().map(|v| v.rates(|w| w.reps as f64)).collect();

    let layout = ChunkLayout::new(job.work_s, young_s);
    println!();
    println!(
        "ckptsim platform bench: {rounds} rounds × {} variants, ~{target_s} s each, 1 thread; medians of per-round rates",
        variants.len()
    );
    println!(
        "point: W = {} s, δ = {} s, R = {} s, M = {} s, T = Young = {:.1} s ({} chunks); \
         nodes weibull(shape {SHAPE}) of mean n·M, stationary start",
        job.work_s, job.checkpoint_s, job.restart_s, MTBF_S, young_s, layout.count
    );
    println!();
    println!(
        "{:<28} {:>13} {:>19} {:>12} {:>11} {:>16}",
        "variant", "median rate", "per-round min..max", "time/rep", "reps/round", "failures/rep"
    );
    for (v, v_rates) in variants.iter().zip(&rates) {
        let rate = median(v_rates);
        println!(
            "{:<28} {:>13} {:>19} {:>12} {:>11} {:>16}",
            v.name,
            format!("{} reps/s", si(rate)),
            format!("{}..{}", si(min(v_rates)), si(max(v_rates))),
            duration(1.0 / rate),
            v.size,
            format!("{:.3} ± {:.3}", v.total.mean(), v.total.se()),
        );
    }
    println!("(failures/rep: mean ± standard error over the {rounds} rounds' replications)");

    let sanity = check_failures(&variants);
    println!();
    println!("{sanity}");

    let cohort = &variants[1..4];
    let (base_rates, cohort_rates, per_node_rates) = (&rates[0], &rates[1..4], &rates[4..7]);
    println!();
    println!("{:<58} {:>10} {:>15} {:>8} {:>7}", "measurement", "value", "rounds min..max", "target", "result");
    let rate_1e6 = median(&cohort_rates[2]);
    info("1  replications / s / core, cohort, 1 000 000 nodes", &si(rate_1e6));
    info("   failure events / s / core, cohort, 1 000 000 nodes", &si(rate_1e6 * cohort[2].total.mean()));
    ratio(
        "2  time per replication, cohort 1 000 000 ÷ 10 nodes",
        (&cohort_rates[0], &cohort_rates[2]),
        Target::AtMost(2.0),
    );
    ratio("   time per replication, cohort 1 000 ÷ 10 nodes", (&cohort_rates[0], &cohort_rates[1]), Target::Info);
    for (n, c) in NODES.iter().zip(cohort_rates) {
        ratio(
            &format!(
                "{}  time per replication, cohort ÷ poisson, {} nodes",
                if *n == NODES[0] { "3" } else { " " },
                grouped(*n)
            ),
            (base_rates, c),
            Target::Info,
        );
    }
    for ((n, c), p) in NODES.iter().zip(cohort_rates).zip(per_node_rates) {
        ratio(&format!("   time per replication, per-node ÷ cohort, {} nodes", grouped(*n)), (c, p), Target::Info);
    }
    println!();
    println!("rates are absolute only for this run on this machine; the ratios are the results");
}

/// Asserts that the failures per replication agree within [`Z_MAX`] standard errors: each
/// sampler against the other at the same node count, and every variant against Poisson.
/// Returns the sanity line.
fn check_failures(variants: &[Variant<'_, Work>]) -> String {
    let z = |a: &Variant<'_, Work>, b: &Variant<'_, Work>| {
        let (x, y) = (&a.total, &b.total);
        (x.mean() - y.mean()) / x.se().hypot(y.se())
    };
    let mut pairs: Vec<(&Variant<'_, Work>, &Variant<'_, Work>)> =
        variants[1..].iter().map(|v| (v, &variants[0])).collect();
    pairs.extend(variants[1..4].iter().zip(&variants[4..7]));
    let mut worst = (0.0_f64, "", "");
    for (a, b) in pairs {
        let z = z(a, b);
        assert!(
            z.abs() <= Z_MAX,
            "failures per replication disagree: {} {:.3} ± {:.3} vs {} {:.3} ± {:.3} ({z:.1} SE): a broken sampler?",
            a.name,
            a.total.mean(),
            a.total.se(),
            b.name,
            b.total.mean(),
            b.total.se()
        );
        if z.abs() >= worst.0.abs() {
            worst = (z, &a.name, &b.name);
        }
    }
    let (lo, hi) = variants
        .iter()
        .map(|v| v.total.mean())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), m| (lo.min(m), hi.max(m)));
    format!(
        "sanity: failures/rep {lo:.2}..{hi:.2} over the variants; every variant vs poisson and per-node vs cohort \
         at each n agree within {Z_MAX} SE (worst {:+.1} SE: {} vs {})",
        worst.0, worst.1, worst.2
    )
}

/// `n` with its digits grouped by three: `1 000 000`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// A duration (s) with a unit: `3.52 µs`, `41.2 ms`.
fn duration(secs: f64) -> String {
    let (scale, unit) =
        [(1.0, "s"), (1e-3, "ms"), (1e-6, "µs")].into_iter().find(|&(s, _)| secs >= s).unwrap_or((1e-9, "ns"));
    format!("{} {unit}", short(secs / scale))
}
