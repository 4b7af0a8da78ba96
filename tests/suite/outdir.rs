//! The output folder contract (DESIGN.md, "Output contract"): a run writes its set of files
//! as a unit, takes a lock, removes only files it wrote, and checks the folder before it
//! computes.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{bin, ckptsim};

/// The files of `dir` (not its state folder), sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".ckptsim")
        .collect();
    names.sort();
    names
}

/// Every file under the state folder's staging area: none once a command has ended.
fn staged(dir: &Path) -> Vec<String> {
    let mut found = vec![];
    let tmp = dir.join(".ckptsim/tmp");
    for entry in std::fs::read_dir(&tmp).into_iter().flatten() {
        let entry = entry.unwrap();
        for file in std::fs::read_dir(entry.path()).into_iter().flatten() {
            found.push(file.unwrap().path().display().to_string());
        }
    }
    found
}

/// Starts `run scenarios/young-daly.toml` with 3·10⁶ replications (minutes) into `out`, saving
/// its progress every `save_every_s` seconds.
fn long_run(out: &Path, save_every_s: &str) -> std::process::Child {
    bin()
        .args(["run", "scenarios/young-daly.toml", "--reps", "3000000", "--save-every", save_every_s])
        .args(["--out", out.to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn run_young_daly(out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["run", "scenarios/young-daly.toml", "--out", out.to_str().unwrap()];
    args.extend(extra);
    ckptsim(&args)
}

#[test]
fn the_default_output_folder_is_not_the_committed_results() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = super::root("scenarios/young-daly.toml");
    let o = bin().args(["run", scenario.to_str().unwrap(), "--reps", "20"]).current_dir(tmp.path()).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(listing(&tmp.path().join("ckptsim-out")), ["young-daly.csv", "young-daly.json"]);
    assert!(!tmp.path().join("results").exists());
    // The state folder ignores itself, so an output folder inside a repository stays clean.
    let ignore = std::fs::read_to_string(tmp.path().join("ckptsim-out/.ckptsim/.gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == "*"), "{ignore}");
}

#[test]
fn a_second_run_of_a_scenario_into_a_busy_folder_is_refused_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut first = long_run(&out, "1000");
    // The first holds its lock once its lock file names it.
    let locks = out.join(".ckptsim/locks");
    let started = Instant::now();
    let holds = || {
        std::fs::read_dir(&locks)
            .into_iter()
            .flatten()
            .any(|e| std::fs::read_to_string(e.unwrap().path()).is_ok_and(|t| t.contains("run young-daly")))
    };
    while !holds() && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let second = run_young_daly(&out, &["--reps", "20", "--seed", "7"]);
    let _ = Command::new("kill").args(["-TERM", &first.id().to_string()]).status();
    let first_status = first.wait().unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&format!("another ckptsim (process {})", first.id())), "{stderr}");
    assert!(stderr.contains("young-daly"), "{stderr}");
    // The first saved its progress on SIGTERM; the second wrote no result.
    assert_eq!(first_status.code(), Some(130));
    assert_eq!(listing(&out), ["young-daly.partial.json"]);
}

/// Runs of one scenario started together into one folder: each finishes or is refused, and
/// the folder ends with one run's CSV and JSON, never one run's CSV beside another's JSON.
#[test]
fn concurrent_runs_into_one_folder_leave_one_runs_whole_set() {
    const RUNS: u64 = 6;
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let children: Vec<(u64, std::process::Child)> = (1..=RUNS)
        .map(|seed| {
            let child = bin()
                .args(["run", "scenarios/young-daly.toml", "--reps", "200", "--format", "csv"])
                .args(["--seed", &seed.to_string(), "--out", out.to_str().unwrap()])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            (seed, child)
        })
        .collect();
    let mut finished = vec![];
    for (seed, child) in children {
        let o = child.wait_with_output().unwrap();
        match o.status.code() {
            Some(0) => finished.push((seed, o.stdout)),
            Some(2) => assert!(String::from_utf8_lossy(&o.stderr).contains("another ckptsim")),
            other => panic!("seed {seed}: exit {other:?}: {}", String::from_utf8_lossy(&o.stderr)),
        }
    }
    assert!(!finished.is_empty());
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("young-daly.json")).unwrap()).unwrap();
    let seed = json["seed"].as_u64().unwrap();
    let (_, csv) = finished.iter().find(|(s, _)| *s == seed).expect("the JSON is of a run that finished");
    assert_eq!(std::fs::read(out.join("young-daly.csv")).unwrap(), *csv, "the CSV is of the JSON's run (seed {seed})");
    assert!(staged(&out).is_empty(), "{:?}", staged(&out));
}

/// A write that fails part way (a file-size limit stands in for a full disk: the CSV fits,
/// the JSON does not) leaves the earlier run's set whole and no staged file.
#[test]
fn a_failed_write_leaves_the_old_set_whole() {
    const LIMIT_KIB: u64 = 12;
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = run_young_daly(&out, &["--precision", "0.05", "--plot"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let before: Vec<(String, Vec<u8>)> =
        listing(&out).into_iter().map(|n| (n.clone(), std::fs::read(out.join(&n)).unwrap())).collect();
    let csv = before.iter().find(|(n, _)| n == "young-daly.csv").unwrap();
    let json = before.iter().find(|(n, _)| n == "young-daly.json").unwrap();
    assert!(csv.1.len() < 1024 * LIMIT_KIB as usize && json.1.len() > 1024 * LIMIT_KIB as usize);
    // SIGXFSZ ignored, a write past the limit fails with EFBIG, as on a full disk.
    let script = format!(
        "trap '' XFSZ; ulimit -f {LIMIT_KIB}; exec \"$0\" run scenarios/young-daly.toml --precision 0.05 --seed 9 \
         --out \"$1\""
    );
    let o = Command::new("bash")
        .args(["-c", &script, env!("CARGO_BIN_EXE_ckptsim"), out.to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("young-daly.json"), "{stderr}");
    let after: Vec<(String, Vec<u8>)> =
        listing(&out).into_iter().map(|n| (n.clone(), std::fs::read(out.join(&n)).unwrap())).collect();
    assert!(after == before, "the old set changed");
    assert!(staged(&out).is_empty(), "{:?}", staged(&out));
}

/// Scenario `foo`'s split by cause is `foo-causes.csv`, the name of scenario `foo-causes`'s
/// CSV: `foo` is refused rather than replace it, and without causes never removes it.
#[test]
fn a_scenario_never_touches_the_files_of_another_scenario() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let out_arg = out.to_str().unwrap();
    let o =
        ckptsim(&["run", "scenarios/young-daly.toml", "--reps", "20", "--set", "name=foo-causes", "--out", out_arg]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let theirs = std::fs::read(out.join("foo-causes.csv")).unwrap();
    // Rack events: failures of two causes, so a split by cause.
    let o = ckptsim(&["run", "scenarios/rack-events.toml", "--reps", "20", "--set", "name=foo", "--out", out_arg]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("foo-causes.csv") && stderr.contains("written by `run foo-causes`"), "{stderr}");
    assert_eq!(listing(&out), ["foo-causes.csv", "foo-causes.json"]);
    // One cause: no split, so foo writes beside foo-causes and removes nothing of it.
    let o = ckptsim(&["run", "scenarios/young-daly.toml", "--reps", "20", "--set", "name=foo", "--out", out_arg]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(listing(&out), ["foo-causes.csv", "foo-causes.json", "foo.csv", "foo.json"]);
    assert_eq!(std::fs::read(out.join("foo-causes.csv")).unwrap(), theirs);
}

/// A run removes a file an earlier run of its own scenario wrote and it does not (a plot it
/// has no data for), but never a file it did not write, even under one of its names.
#[test]
fn only_files_the_scenario_wrote_are_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = run_young_daly(&out, &["--reps", "20", "--plot"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.join("young-daly-overhead.svg").exists());
    // One point: no overhead curve to draw, so the earlier one goes.
    let one = ["--set", "policy.factor=1", "--set", "job.checkpoint=\"2 min\""];
    let o = run_young_daly(&out, &[&["--reps", "20", "--plot"][..], &one].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("removed"), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!out.join("young-daly-overhead.svg").exists());
    // A user's file under a name the run may write but did not.
    std::fs::write(out.join("young-daly-overhead.svg"), "mine").unwrap();
    let o = run_young_daly(&out, &[&["--reps", "20", "--plot"][..], &one].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_to_string(out.join("young-daly-overhead.svg")).unwrap(), "mine");
}

/// A folder the run cannot write, or a name the file system cannot hold, is refused with exit
/// 2 before the first replication (3·10⁶ of them would take minutes).
#[test]
fn an_unwritable_folder_or_an_over_long_name_exits_2_before_any_replication() {
    let tmp = tempfile::tempdir().unwrap();
    // Root writes through permission bits: a read-only file system stands in there.
    let unwritable = if is_root() {
        Path::new("/sys/ckptsim-test").to_path_buf()
    } else {
        let dir = tmp.path().join("read-only");
        std::fs::create_dir(&dir).unwrap();
        Command::new("chmod").args(["555", dir.to_str().unwrap()]).status().unwrap();
        dir
    };
    let long_component = tmp.path().join("x".repeat(300));
    let long_path = tmp.path().join(["d"; 2100].join("/"));
    for out in [&unwritable, &long_component, &long_path] {
        let started = Instant::now();
        let o = run_young_daly(out, &["--reps", "3000000"]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("--out"), "{stderr}");
        assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
    }
    // A result name over 255 bytes: `trace stats` names its CSV after the log.
    let log = tmp.path().join(format!("{}.csv", "l".repeat(250)));
    std::fs::write(&log, "time,node\n0 s,0\n100 s,1\n250 s,0\n").unwrap();
    let out = tmp.path().join("out");
    let o = ckptsim(&["trace", "stats", log.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot be created") && stderr.contains("255 bytes"), "{stderr}");
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

/// A killed command may leave staged files; the next command into the folder removes them.
#[test]
fn staged_files_of_a_killed_run_are_removed_by_the_next_command() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut child = long_run(&out, "0.01");
    // Killed at once once it saves: often between staging a save and its rename.
    let started = Instant::now();
    while !out.join("young-daly.partial.json").exists() && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // Whatever the kill left, plus a staged file of a killed set for certain.
    let left = out.join(".ckptsim/tmp/0123456789abcdef");
    std::fs::create_dir_all(&left).unwrap();
    std::fs::write(left.join("young-daly.csv"), "half a CSV").unwrap();
    let o = run_young_daly(&out, &["--reps", "20", "--set", "name=other"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(staged(&out).is_empty(), "{:?}", staged(&out));
    assert!(!out.join("young-daly.csv").exists());
}
