//! What drawing a replication's failure stream once for all the sweep points that share it
//! saves (`failure::tape`): the whole runner against the same replications with every point
//! building its own stream, on committed scenarios of several stream kinds.
//!
//! ```text
//! cargo bench --bench sharing                          # from the crate root
//! CKPTSIM_BENCH_ROUNDS=3 cargo bench --bench sharing   # quicker, noisier
//! ```
//!
//! Per scenario, two variants, on one thread of one process:
//!
//! - `shared`: `runner::run_range` in a 1-thread pool (the runner as `ckptsim run` uses it:
//!   one stream per replication for each group of points that share it, replayed per point);
//! - `per point`: the same replications, every point on a stream of its own
//!   (`runner::replicate`, which builds the stream from the seed), summarised the same way.
//!
//! Before timing, the two are asserted to give the same summaries (their JSON report). The
//! machine may be shared and noisy, so no absolute time is a result: the variants are
//! interleaved in several rounds, each lasting about `CKPTSIM_BENCH_SECONDS`, and the result
//! is the ratio of the median per-round rates (informative: no target). Environment:
//! `CKPTSIM_BENCH_ROUNDS` (default 5) and `CKPTSIM_BENCH_SECONDS` (default 0.3).

use std::path::Path;

use ckptsim::report::Report;
use ckptsim::runner::{self, RunResult};
use ckptsim::scenario::{self, Scenario};
use ckptsim::stats::Summary;

mod common;
use common::{Tally, Target, Variant, env_or, measure_rounds, median, ratio, si};

/// The master seed.
const SEED: u64 = 42;
/// The round index used while calibrating (its replications are not those of any round).
const CALIBRATION_ROUND: u64 = u64::MAX >> 33;
/// The scenarios measured, relative to the crate root: Poisson failures (every point on one
/// stream), a Weibull platform sampled by cohorts, rack events on a topology (one stream per
/// placement), and Hawkes bursts; the table prints each one's points.
const SCENARIOS: &[&str] = &[
    "scenarios/young-daly.toml",
    "scenarios/weibull-platform.toml",
    "scenarios/rack-events.toml",
    "scenarios/bursts.toml",
];

/// Replications done by one call of a variant.
#[derive(Debug, Clone, Copy, Default)]
struct Reps(u64);

impl Tally for Reps {
    fn add(&mut self, other: Reps) {
        self.0 += other.0;
    }
}

/// Replications `reps` of every point, each point on its own stream, split by cause where
/// the run splits (as the runner does).
fn per_point(sc: &Scenario, reps: std::ops::Range<u64>) -> Vec<Summary> {
    let mut sums = vec![Summary::default(); sc.points.len()];
    let causes = sc.causes();
    for rep in reps {
        for (p, point) in sc.points.iter().enumerate() {
            let work_s = point.job.work_s;
            if causes.is_empty() {
                sums[p].add(work_s, &runner::replicate(point, SEED, rep).expect("the scenario runs"));
            } else {
                let mut by_cause = ckptsim::engine::ByCause::default();
                let record = runner::replicate_by_cause(point, SEED, rep, &mut by_cause).expect("the scenario runs");
                sums[p].add(work_s, &record);
                sums[p].add_causes(&causes, work_s, &by_cause);
            }
        }
    }
    sums
}

/// The first replication of `round`'s calls.
fn first_rep(round: u64) -> u64 {
    (round + 1) << 32
}

fn main() {
    let rounds: usize = env_or("CKPTSIM_BENCH_ROUNDS", 5);
    let target_s: f64 = env_or("CKPTSIM_BENCH_SECONDS", 0.3);
    assert!(rounds >= 1 && target_s > 0.0, "need CKPTSIM_BENCH_ROUNDS ≥ 1 and CKPTSIM_BENCH_SECONDS > 0");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a 1-thread pool");
    let scenarios: Vec<Scenario> = SCENARIOS
        .iter()
        .map(|rel| scenario::load(Path::new(rel), &[]).expect("run from the crate root (cargo bench does)"))
        .collect();
    pool.install(|| {
        println!("ckptsim sharing bench: {rounds} rounds, ~{target_s} s per variant and round, 1 thread");
        println!();
        println!("{:<36} {:>7} {:>16} {:>16}", "scenario", "points", "shared", "per point");
        let mut results = vec![];
        for (rel, sc) in SCENARIOS.iter().zip(&scenarios) {
            // Sanity: the same summaries both ways.
            let reps = 0..200;
            let json = |summaries| Report::new(sc, &RunResult { replications: 200, seed: SEED, summaries }).json();
            let shared = runner::run_range(sc, SEED, reps.clone(), &|_| {}).expect("the scenario runs");
            assert_eq!(json(shared), json(per_point(sc, reps)), "{rel}: shared ≠ per point");

            let mut variants = [
                Variant::new("shared", |round, n| {
                    let start = first_rep(round);
                    runner::run_range(sc, SEED, start..start + n, &|_| {}).expect("the scenario runs");
                    Reps(n)
                }),
                Variant::new("per point", |round, n| {
                    let start = first_rep(round);
                    per_point(sc, start..start + n);
                    Reps(n)
                }),
            ];
            measure_rounds(&mut variants, rounds, target_s, CALIBRATION_ROUND);
            let rates: Vec<Vec<f64>> = variants.iter().map(|v| v.rates(|w| w.0 as f64)).collect();
            println!(
                "{rel:<36} {:>7} {:>16} {:>16}",
                sc.points.len(),
                format!("{} reps/s", si(median(&rates[0]))),
                format!("{} reps/s", si(median(&rates[1])))
            );
            results.push((rel, rates));
        }
        println!();
        println!("{:<58} {:>10} {:>15} {:>8} {:>7}", "measurement", "value", "rounds min..max", "target", "result");
        for (rel, rates) in &results {
            let name = Path::new(rel).file_stem().and_then(|s| s.to_str()).unwrap_or(rel);
            ratio(&format!("speed shared ÷ per point, {name}"), (&rates[0], &rates[1]), Target::Info);
        }
        println!();
        println!("rates are absolute only for this run on this machine; the ratios are the results");
    });
}
