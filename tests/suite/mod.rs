//! Integration test modules and their shared helpers.

mod bad_input;
mod cli;
mod correlated;
mod coverage;
mod determinism;
mod efficiency;
mod engine_paths;
mod exact;
mod failure_laws;
mod formulas;
mod fuzz;
mod optimize;
mod replay;
mod results;
mod shards;
mod trace;
mod usage;
mod validate;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ckptsim::runner::{self, RunResult};
use ckptsim::scenario::{self, Scenario, Stop};

/// The `ckptsim` binary built for these tests.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ckptsim"))
}

/// Runs the binary with `args` in the package root.
pub fn ckptsim(args: &[&str]) -> Output {
    bin().args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("the binary runs")
}

/// A path in the package root.
pub fn root(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Loads a scenario of the package with `sets` applied.
pub fn load(rel: &str, sets: &[&str]) -> Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    scenario::load(&root(rel), &sets).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Parses an inline scenario.
pub fn inline(text: &str) -> Scenario {
    scenario::parse(text, Path::new("inline.toml"), &[]).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `reps` replications of every point of `sc` from `seed`, silently.
pub fn simulate(sc: &Scenario, reps: u64, seed: u64) -> RunResult {
    runner::run(sc, Stop::Replications(reps), seed, &|_| {}, &|_| {}).expect("the run completes")
}
