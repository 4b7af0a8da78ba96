//! Machine efficiency of a whole job schedule (usage model, MODELS.md §5; `ckptsim
//! efficiency`): the Frontier CY2024 year of `../shared/data/frontier/jobs2024.csv` (331,640
//! jobs, 3,537 job types) on the paper's machine (R₀ = 2e-5 per node-hour, 200 GB per node at
//! 6 TB/s shared, α = 1, τ₀ = 2 s), every job at the optimal cadence of eq. 3.3, full last
//! segments. Without the data, the shipped `scenarios/schedules/small.csv` scaled up to as many
//! jobs stands in for it (a message says so).
//!
//! ```text
//! cargo bench --bench efficiency                          # from the crate root
//! CKPTSIM_BENCH_ROUNDS=3 cargo bench --bench efficiency   # quicker, noisier
//! ```
//!
//! Measured, in this order:
//!
//! 1. jobs simulated per second per core by the engine: [`usage::simulate_schedule`] (every job
//!    played by `engine::play_periodic` against its own exponential stream) in a 1-thread
//!    pool, and the same for [`usage::bare_exponential_loop`], the baseline that draws one
//!    exponential per job (plus one per restart attempt) and decides the outcome directly;
//!    the two are interleaved over several rounds (the order alternating) of about
//!    `CKPTSIM_BENCH_SECONDS` each, and each rate is the median of the per-round rates. The
//!    result is the ratio engine ÷ bare loop, target ≥ 1/3 (PASS/MISS printed, never a panic).
//!    Before timing, both are run on the same seed and checked to agree up to rounding.
//! 2. the whole year, `CKPTSIM_BENCH_YEAR_REPS` (default 1,000) replications on all cores, with
//!    the 95% interval on e: the wall time, and e ± half-width beside the closed form.
//! 3. memory does not grow with replications: the peak resident set (VmHWM of
//!    /proc/self/status) after 1/10 of those replications and after all of them (the
//!    accumulators are merged as replications finish; nothing is kept per replication).
//!
//! Environment: `CKPTSIM_BENCH_ROUNDS` (default 5), `CKPTSIM_BENCH_SECONDS` (default 0.5),
//! `CKPTSIM_BENCH_YEAR_REPS` (default 1000). Command-line arguments (such as cargo's `--bench`)
//! are ignored.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use ckptsim::schedule::{JobType, read_schedule};
use ckptsim::usage::{self, Cadence, LastSegment, Machine, SimulatedEfficiency};

mod common;
use common::{env_or, max, median, min, si};

/// The Frontier schedule, relative to the crate root (outside the package).
const FRONTIER: &str = "../shared/data/frontier/jobs2024.csv";
/// The stand-in when it is absent.
const SMALL: &str = "scenarios/schedules/small.csv";
/// Jobs in the Frontier year: the stand-in is scaled up to about as many.
const FRONTIER_JOBS: u64 = 331_640;
/// The policy measured: the paper's.
const POLICY: (Cadence, f64, LastSegment) = (Cadence::Optimal, 1.0, LastSegment::Full);
/// Target of engine speed ÷ bare-loop speed.
const TARGET_FRACTION: f64 = 1.0 / 3.0;
/// Allowed growth of the peak resident set from 1/10 of the replications to all of them.
const MEMORY_GROWTH_LIMIT_KIB: u64 = 1024;

fn main() {
    let rounds: usize = env_or("CKPTSIM_BENCH_ROUNDS", 5);
    let target_s: f64 = env_or("CKPTSIM_BENCH_SECONDS", 0.5);
    let year_reps: u64 = env_or("CKPTSIM_BENCH_YEAR_REPS", 1000);
    assert!(rounds >= 1 && target_s > 0.0 && year_reps >= 20, "need ROUNDS ≥ 1, SECONDS > 0, YEAR_REPS ≥ 20");
    let (what, types) = schedule();
    let machine = Machine::frontier();
    let jobs: u64 = types.iter().map(|t| t.count).sum();
    println!();
    println!("ckptsim efficiency bench: {what}");
    println!(
        "  {jobs} jobs in {} job types; R₀ = {} /node-h, {} GB per node at {} TB/s shared, optimal cadence, full segments",
        types.len(),
        machine.failure_rate_per_node_h,
        machine.checkpoint_bytes / 1e9,
        machine.bandwidth_bytes_per_s / 1e12
    );

    let single = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a 1-thread pool");
    let (c, f, l) = POLICY;
    let engine = |reps: u64, seed: u64| usage::simulate_schedule(&machine, &types, c, f, l, reps, seed).unwrap();
    let bare = |reps: u64, seed: u64| usage::bare_exponential_loop(&machine, &types, c, f, l, reps, seed).unwrap();

    // Sanity: on the same seeds both give the same totals up to rounding.
    let (a, b) = single.install(|| (engine(2, 1), bare(2, 1)));
    for (name, x, y) in [("ΣU", a.sum_u.mean, b.sum_u.mean), ("ΣL_F", a.sum_l_f.mean, b.sum_l_f.mean)] {
        assert!((x - y).abs() <= 1e-9 * x.abs(), "engine and bare loop disagree on {name}: {x} vs {y}");
    }

    // 1. Jobs per second per core, interleaved rounds.
    let reps_per_call = single.install(|| {
        let start = Instant::now();
        black_box(engine(2, u64::MAX));
        let per_rep = start.elapsed().as_secs_f64() / 2.0;
        ((target_s / per_rep).round() as u64).max(2)
    });
    let (mut engine_rates, mut bare_rates) = (vec![], vec![]);
    single.install(|| {
        for round in 0..rounds as u64 {
            let timed = |run: &dyn Fn(u64, u64) -> SimulatedEfficiency| {
                let start = Instant::now();
                black_box(run(reps_per_call, 1000 + round));
                (reps_per_call * jobs) as f64 / start.elapsed().as_secs_f64()
            };
            if round % 2 == 0 {
                engine_rates.push(timed(&engine));
                bare_rates.push(timed(&bare));
            } else {
                bare_rates.push(timed(&bare));
                engine_rates.push(timed(&engine));
            }
        }
    });
    let (e_rate, b_rate) = (median(&engine_rates), median(&bare_rates));
    let fraction = e_rate / b_rate;
    let per_round: Vec<f64> = engine_rates.iter().zip(&bare_rates).map(|(e, b)| e / b).collect();
    println!();
    println!(
        "1. jobs per second per core (1 thread; {rounds} interleaved rounds of {reps_per_call} replications = {} jobs; medians)",
        reps_per_call * jobs
    );
    println!(
        "   engine (simulate_schedule, play_periodic)   {:>10} jobs/s   rounds {}..{}",
        si(e_rate),
        si(min(&engine_rates)),
        si(max(&engine_rates))
    );
    println!(
        "   bare loop (one exponential per job)          {:>10} jobs/s   rounds {}..{}",
        si(b_rate),
        si(min(&bare_rates)),
        si(max(&bare_rates))
    );
    println!(
        "   engine ÷ bare loop                           {:>10.3}          rounds {:.3}..{:.3}   target ≥ {:.3}   {}",
        fraction,
        min(&per_round),
        max(&per_round),
        TARGET_FRACTION,
        if fraction >= TARGET_FRACTION { "PASS" } else { "MISS" }
    );

    // 2 and 3. The whole year on all cores; peak memory after a tenth and after all.
    let threads = rayon::current_num_threads();
    let tenth = (year_reps / 10).max(2);
    let start = Instant::now();
    black_box(engine(tenth, 2024));
    let tenth_s = start.elapsed().as_secs_f64();
    let hwm_tenth = vm_kib("VmHWM");
    let start = Instant::now();
    let year = engine(year_reps, 2024);
    let year_s = start.elapsed().as_secs_f64();
    let hwm_all = vm_kib("VmHWM");
    let model = usage::efficiency(&machine, &types, c, f, l);
    let e = year.pooled.e;
    println!();
    println!("2. the whole schedule × {year_reps} replications, {threads} threads, with the interval on e");
    println!(
        "   {year_s:.2} s ({} jobs/s in all, {} per thread); e = {:.5} ± {:.5} (95%, delta method), closed form {:.5} ({:+.2} SE)",
        si((year_reps * jobs) as f64 / year_s),
        si((year_reps * jobs) as f64 / year_s / threads as f64),
        e.value,
        e.half_width,
        model.e,
        (e.value - model.e) / e.se
    );
    println!(
        "   l_chk = {:.5} ± {:.5}, l_F = {:.5} ± {:.5}, l_R = {:.5} ± {:.5}; {:.0} failed jobs per replication",
        year.pooled.l_chk.value,
        year.pooled.l_chk.half_width,
        year.pooled.l_f.value,
        year.pooled.l_f.half_width,
        year.pooled.l_r.value,
        year.pooled.l_r.half_width,
        year.failed_jobs.mean
    );
    println!();
    println!("3. memory against replications (peak resident set, /proc/self/status VmHWM)");
    match (hwm_tenth, hwm_all) {
        (Some(a), Some(b)) => {
            let growth = b.saturating_sub(a);
            println!(
                "   after {tenth} replications ({tenth_s:.2} s): {} MiB; after a run of {year_reps}: {} MiB; growth {growth} KiB   \
                 target < {MEMORY_GROWTH_LIMIT_KIB} KiB   {}",
                a / 1024,
                b / 1024,
                if growth < MEMORY_GROWTH_LIMIT_KIB { "PASS" } else { "MISS" }
            );
        }
        _ => println!("   /proc/self/status has no VmHWM here: not measured"),
    }
    println!();
    println!("rates are absolute only for this run on this machine; the ratio is the result");
}

/// The Frontier year, or the small schedule scaled up to about as many jobs.
fn schedule() -> (String, Vec<JobType>) {
    if Path::new(FRONTIER).exists() {
        let s = read_schedule(Path::new(FRONTIER)).unwrap_or_else(|e| panic!("{e}"));
        let r = s.runtime_ratio_usage_weighted().expect("the Frontier file has actual durations");
        return (format!("Frontier CY2024 ({FRONTIER}), r = {r:.4}"), s.job_types(r));
    }
    println!("NOTE: {FRONTIER} is absent: the small synthetic schedule {SMALL}, scaled up, stands in for it");
    let s = read_schedule(Path::new(SMALL)).unwrap_or_else(|e| panic!("{e}"));
    let r = s.runtime_ratio_usage_weighted().expect("the small schedule has actual durations");
    let scale = FRONTIER_JOBS.div_ceil(s.jobs.len() as u64);
    let types = s.job_types(r).into_iter().map(|t| JobType { count: t.count * scale, ..t }).collect();
    (format!("{SMALL} × {scale} (stand-in), r = {r:.4}"), types)
}

/// A `Vm…` line of /proc/self/status, in KiB.
fn vm_kib(name: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(name))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
