//! Integration test modules and their shared helpers.

mod bad_input;
mod causes;
mod cli;
mod correlated;
mod coverage;
mod determinism;
mod docs;
mod efficiency;
mod engine_paths;
mod exact;
mod failure_laws;
mod forecast;
mod formulas;
mod fuzz;
mod input;
mod multilevel;
mod optimize;
mod outdir;
mod plots;
mod replay;
mod results;
mod shards;
mod tables;
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

/// Starts `run scenarios/young-daly.toml` with 3·10⁶ replications into `dir`, sends it
/// SIGTERM once it is running, and returns what it printed: it saves its progress and exits
/// 130. The run creates its output folder just before it installs its signal handler: the
/// signal waits for the folder (a loaded machine may take long to start the binary), then a
/// little.
pub fn run_then_sigterm(dir: &Path) -> Output {
    let child = bin()
        .args(["run", "scenarios/young-daly.toml", "--reps", "3000000", "--out", dir.to_str().unwrap()])
        .args(["--save-every", "1000"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let started = std::time::Instant::now();
    while !dir.exists() && started.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let pid = child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", String::from_utf8_lossy(&o.stderr));
    o
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

/// The entries of the folder `dir` (empty where it does not exist), less the state folder
/// `.ckptsim` that every command keeps in its output folder (locks and records, no result).
pub fn entries(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else { return vec![] };
    read.map(|e| e.unwrap().path()).filter(|p| p.file_name().is_none_or(|n| n != ckptsim::outdir::STATE_DIR)).collect()
}

/// The LANL failure log in the shared data folder (relative to `../shared/data/`).
pub const LANL_LOG: &str = "lanl/LA-UR-05-7318-failure-data-1996-2005.csv.xz";
/// The Frontier CY2024 job schedule in the shared data folder (relative to `../shared/data/`).
pub const FRONTIER_SCHEDULE: &str = "frontier/jobs2024.csv";

/// `rel` in the shared data folder beside the checkout (`../shared/data/rel`), for the tests
/// marked `#[ignore = "needs ../shared/data"]` (`cargo test -- --include-ignored` runs them, and
/// `.ci/run` does): where the file is absent the test fails, naming it, instead of passing
/// without having checked anything.
pub fn shared_data(rel: &str) -> PathBuf {
    let path = root(&format!("../shared/data/{rel}"));
    assert!(
        path.exists(),
        "needs ../shared/data/{rel} ({} is absent): see docs/logs.md for where to get it",
        path.display()
    );
    path
}

/// The synthetic failure log in the LANL format that stands in for the real one where a test
/// must run without the shared data folder (`tests/data/README.md` says how it was made).
pub fn synthetic_log() -> PathBuf {
    root("tests/data/lanl-synthetic.csv")
}
