//! One engine path, alone, over recorded streams: a fixed amount of work for counting
//! instructions and branch misses under valgrind (whose counts, unlike times, a shared machine
//! does not disturb), and a rough time per replication.
//!
//! ```text
//! cargo bench --bench tape_loop                                   # both paths, timed
//! CKPTSIM_TAPE_PASSES=0   valgrind --tool=cachegrind --branch-sim=yes target/release/deps/tape_loop-* fast
//! CKPTSIM_TAPE_PASSES=100 valgrind --tool=cachegrind --branch-sim=yes target/release/deps/tape_loop-* fast
//! ```
//!
//! The point is the engine bench's (checkpoint 2 min, T = Young of the Young–Daly example):
//! 512 replications have their Poisson streams recorded on [`Tape`]s as the runner records
//! them, then each pass replays every tape once through the chosen path (`fast`:
//! `engine::play_periodic`; `per-segment`: `engine::play` with `Periodic`; both when no path
//! is named). The difference of two counts at 100 and 0 passes, over 51,200, is the path's
//! count per replication (the recording is in both). Environment: `CKPTSIM_TAPE_PASSES`
//! (default 2000). Arguments other than the path names (such as cargo's `--bench`) are ignored.

use std::hint::black_box;
use std::time::Instant;

use ckptsim::analytic::young_interval_s;
use ckptsim::engine::{self, Limits, Record};
use ckptsim::failure::tape::Tape;
use ckptsim::failure::{FailureModel, Failures};
use ckptsim::policy::{ChunkLayout, Periodic};

mod common;
use common::{env_or, young_daly_job};

/// Replications recorded, and replayed in each pass.
const TAPES: u64 = 512;
/// The master seed of the recorded streams.
const SEED: u64 = 42;
/// Job MTBF (s): 3.1 h.
const MTBF_S: f64 = 3.1 * 3600.0;

/// Plays every tape of `tapes` with `play`, `passes` times over; the failures that struck.
fn replay_all<'a, E: std::fmt::Debug>(
    tapes: &mut [Tape<'a>],
    passes: u64,
    play: &impl Fn(&mut Tape<'a>) -> Result<Record, E>,
) -> u64 {
    let mut failures = 0;
    for _ in 0..passes {
        for tape in tapes.iter_mut() {
            failures += black_box(play(tape).expect("the point finishes")).failures;
        }
    }
    failures
}

fn main() {
    let passes: u64 = env_or("CKPTSIM_TAPE_PASSES", 2000);
    let named: Vec<String> = std::env::args().skip(1).filter(|a| a == "fast" || a == "per-segment").collect();
    let paths: Vec<&str> =
        if named.is_empty() { vec!["fast", "per-segment"] } else { named.iter().map(|s| s.as_str()).collect() };
    let job = young_daly_job();
    let young_s = young_interval_s(job.checkpoint_s, MTBF_S);
    let failures = Failures::simple(FailureModel::Poisson { mtbf_s: MTBF_S }, 1);
    let layout = ChunkLayout::new(job.work_s, young_s);
    let policy = Periodic { layout };
    let fast = |tape: &mut Tape<'_>| engine::play_periodic(&job, &layout, &mut tape.replay(), Limits::default());
    let per_segment = |tape: &mut Tape<'_>| engine::play(&job, &policy, &mut tape.replay(), Limits::default());
    let mut tapes: Vec<Tape<'_>> = (0..TAPES)
        .map(|rep| {
            let mut tape = Tape::new(&failures, SEED, rep, 0.0);
            // The fast path pulls what the per-segment path pulls: one play records it all.
            fast(&mut tape).expect("the point finishes");
            tape
        })
        .collect();
    for path in paths {
        let start = Instant::now();
        let failures = if path == "fast" {
            replay_all(&mut tapes, passes, &fast)
        } else {
            replay_all(&mut tapes, passes, &per_segment)
        };
        let reps = (passes * TAPES).max(1) as f64;
        println!(
            "{path:<12} {passes} passes over {TAPES} tapes: {:.1} ns / replication, {:.3} failures / replication",
            start.elapsed().as_secs_f64() * 1e9 / reps,
            failures as f64 / reps
        );
    }
}
