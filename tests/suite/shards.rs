//! Issue #7 acceptance 1 and 3: merged shards are byte-identical to a single run (for shard
//! counts that divide the replications and counts that do not), merges of the wrong shards are
//! refused, and a run killed 20 times (first after its first save, then at random moments)
//! resumes to exactly the uninterrupted result with no partial file ever corrupt.

use super::{bin, ckptsim};
use rand::{RngExt, SeedableRng};
use std::fs;
use std::path::Path;
use std::time::Duration;

/// Kills in the resume test.
const KILLS: usize = 20;

/// Replications of the runs that [`shards`] splits: 700 = 2²·5²·7, so 1, 2, 4 and 7 shards
/// divide it.
const REPS: u64 = 700;

fn run(out: &Path, extra: &[&str]) -> std::process::Output {
    run_reps(out, REPS, extra)
}

/// Runs `young-daly` for `reps` replications into `out`, asserting success.
fn run_reps(out: &Path, reps: u64, extra: &[&str]) -> std::process::Output {
    let reps = reps.to_string();
    let mut args =
        vec!["run", "scenarios/young-daly.toml", "--reps", &reps, "--out", out.to_str().unwrap(), "--format", "csv"];
    args.extend_from_slice(extra);
    let o = ckptsim(&args);
    assert!(o.status.success(), "{extra:?}: {}", String::from_utf8_lossy(&o.stderr));
    o
}

fn outputs(dir: &Path) -> (Vec<u8>, Vec<u8>) {
    (fs::read(dir.join("young-daly.csv")).unwrap(), fs::read(dir.join("young-daly.json")).unwrap())
}

fn shards(dir: &Path, n: u64) -> Vec<String> {
    shards_of(dir, REPS, n)
}

/// Runs the `n` shards of a run of `reps` into `dir`; their partial files, in shard order.
fn shards_of(dir: &Path, reps: u64, n: u64) -> Vec<String> {
    (0..n)
        .map(|i| {
            let o = run_reps(dir, reps, &["--shard", &format!("{i}/{n}")]);
            // With --format csv, stdout stays for data: the status line goes to stderr.
            assert!(o.stdout.is_empty(), "{}", String::from_utf8_lossy(&o.stdout));
            // The shard's own count of replications: every n-th from i on.
            let held = (i..reps).step_by(n as usize).count();
            let done = format!("shard {i} of {n} done ({held} replications)");
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains(&done), "expected {done:?} in {err}");
            dir.join(format!("young-daly.shard-{i}-of-{n}.json")).to_str().unwrap().to_string()
        })
        .collect()
}

fn merge(files: &[String], out: &Path) -> std::process::Output {
    let mut args = vec!["merge", "--out", out.to_str().unwrap()];
    args.extend(files.iter().map(String::as_str));
    ckptsim(&args)
}

/// 1, 2, 4 or 7 shards of a run (counts that divide its 700 replications), merged in any
/// order, are byte-identical to the unsharded run.
#[test]
fn merged_shards_are_byte_identical_to_one_run() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    run(&whole, &[]);
    for n in [1, 2, 4, 7] {
        let dir = tmp.path().join(format!("shards{n}"));
        let mut files = shards(&dir, n);
        files.reverse(); // any order
        let merged = dir.join("merged");
        let o = merge(&files, &merged);
        assert!(o.status.success(), "{n} shards: {}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(outputs(&merged), outputs(&whole), "{n} shards");
    }
}

/// With `[run] baseline` the paired differences merge exactly too: 3 shards, merged, are
/// byte-identical to one run, and the difference columns are filled.
#[test]
fn merged_shards_with_a_baseline_match_one_run() {
    let tmp = tempfile::tempdir().unwrap();
    let set = ["--set", "run.baseline=4"];
    let whole = tmp.path().join("whole");
    run(&whole, &set);
    let dir = tmp.path().join("shards");
    let files: Vec<String> = (0..3)
        .map(|i| {
            let mut args = set.to_vec();
            let shard = format!("{i}/3");
            args.extend(["--shard", &shard]);
            run(&dir, &args);
            dir.join(format!("young-daly.shard-{i}-of-3.json")).to_str().unwrap().to_string()
        })
        .collect();
    let merged = dir.join("merged");
    let o = merge(&files, &merged);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(outputs(&merged) == outputs(&whole), "the merged CSV or JSON differs");
    let csv = String::from_utf8(outputs(&whole).0).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let column = header.iter().position(|h| *h == "overhead_diff_mean").expect("overhead_diff_mean column");
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    assert!(row[column].parse::<f64>().unwrap() < 0.0, "point 0 (20 s checkpoints) costs less than point 4");
    // A shard that lost a point's differences, or whose baseline differs from itself, is
    // refused: it merged into a difference of fewer replications, or NaN.
    let emptied = edited(&files, &tmp.path().join("emptied"), &|d| {
        d["points"][0]["overhead_diff"] = serde_json::json!({"n": 0, "sum": [], "sum_sq": []});
    });
    refused(&emptied, &tmp.path().join("m1"), &emptied[0], "points[0].overhead_diff.n");
    let moved = edited(&files, &tmp.path().join("moved"), &|d| {
        d["points"][4]["overhead_diff"] = d["points"][0]["overhead_diff"].clone();
    });
    refused(&moved, &tmp.path().join("m2"), &moved[0], "points[4].overhead_diff.sum");
}

/// Shard counts that do not divide the replications: 701 = 3·233 + 2 in 3 shards (shards 0
/// and 1 hold 234 replications, shard 2 holds 233), and 3 replications in 5 shards (shards 3
/// and 4 hold none, and still write a complete partial file). Merged in any order, they are
/// byte-identical to the unsharded run of the same count: no replication is lost, repeated
/// or added past the end.
#[test]
fn shards_that_do_not_divide_the_replications_merge_to_one_run() {
    let tmp = tempfile::tempdir().unwrap();
    for (reps, n) in [(701, 3), (3, 5)] {
        let whole = tmp.path().join(format!("whole{reps}"));
        run_reps(&whole, reps, &[]);
        let dir = tmp.path().join(format!("shards{reps}-{n}"));
        let mut files = shards_of(&dir, reps, n);
        files.reverse(); // any order
        let merged = dir.join("merged");
        let o = merge(&files, &merged);
        assert!(o.status.success(), "{n} shards of {reps}: {}", String::from_utf8_lossy(&o.stderr));
        // Compared whole, reported briefly (the bytes of both outputs would fill the screen).
        assert!(outputs(&merged) == outputs(&whole), "{n} shards of {reps}: the merged CSV or JSON differs");
    }
}

#[test]
fn merge_refuses_mismatched_duplicate_missing_or_altered_shards() {
    let tmp = tempfile::tempdir().unwrap();
    let a = shards(&tmp.path().join("a"), 2);
    let refuse = |files: &[String], expect: &str| {
        let o = merge(files, &tmp.path().join("m"));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(expect), "expected {expect:?} in {err}");
        assert!(!tmp.path().join("m").join("young-daly.csv").exists());
    };
    refuse(&[a[0].clone(), a[0].clone()], "given twice");
    refuse(&[a[0].clone()], "missing shard 1 of 2 (numbered 0 to 1)");
    let other_seed = tmp.path().join("b");
    run(&other_seed, &["--shard", "1/2", "--seed", "9"]);
    refuse(&[a[0].clone(), other_seed.join("young-daly.shard-1-of-2.json").to_str().unwrap().into()], "seed");
    let other_set = tmp.path().join("c");
    run(&other_set, &["--shard", "1/2", "--set", "job.restart=5 min"]);
    refuse(&[a[0].clone(), other_set.join("young-daly.shard-1-of-2.json").to_str().unwrap().into()], "scenario");
    let altered = tmp.path().join("altered.json");
    fs::write(
        &altered,
        fs::read_to_string(&a[1]).unwrap().replace("checkpoint = \\\"120 s\\\"", "checkpoint = \\\"121 s\\\""),
    )
    .unwrap();
    refuse(&[a[0].clone(), altered.to_str().unwrap().into()], "altered");
    let garbage = tmp.path().join("garbage.json");
    fs::write(&garbage, "{\"format\": \"ckptsim-partial\", \"format_version\": 99}").unwrap();
    refuse(&[garbage.to_str().unwrap().into()], "partial format version 99: this build reads version");
    fs::write(&garbage, "{\"format\": \"ckptsim-partial\"}").unwrap();
    refuse(&[garbage.to_str().unwrap().into()], "version missing or not an integer");
}

/// The replications saved in the partial file `path` (its `done`).
fn saved_done(path: &Path) -> u64 {
    let doc: serde_json::Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    doc["done"].as_u64().unwrap_or_else(|| panic!("{}: no `done` count", path.display()))
}

/// What `run --resume` says when it finds no saved progress.
const NOTHING_TO_RESUME: &str = "nothing to resume";

/// How long the first kill waits at most for the run's first save (a loaded machine may
/// take long to start the binary); it normally comes within tens of milliseconds.
const FIRST_SAVE_WAIT: Duration = Duration::from_secs(60);

/// A run killed (SIGKILL) 20 times, then resumed with --resume each time, ends with exactly
/// the uninterrupted result, and no partial file is ever corrupt. It proves that the kills
/// interrupt the run and that --resume continues from the saved progress: the first kill
/// waits for the first save, so at least one kill leaves saved progress (done > 0) and no
/// results; the others come at seeded random moments. Every later run resumes from that file
/// (none says there is nothing to resume), and the saved count never goes back, as it would
/// if a resumed run started over.
#[test]
fn killed_runs_resume_to_the_uninterrupted_result() {
    use std::io::Read;
    let tmp = tempfile::tempdir().unwrap();
    let reps = "300000";
    let whole = tmp.path().join("whole");
    let o = ckptsim(&[
        "run",
        "scenarios/young-daly.toml",
        "--reps",
        reps,
        "--out",
        whole.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    assert!(o.status.success());
    let dir = tmp.path().join("killed");
    let partial = dir.join("young-daly.partial.json");
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(20);
    let args = |resume: bool| {
        let mut a = vec![
            "run",
            "scenarios/young-daly.toml",
            "--reps",
            reps,
            "--out",
            dir.to_str().unwrap(),
            "--format",
            "csv",
            "--save-every",
            "0.01",
        ];
        if resume {
            a.push("--resume");
        }
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    // Every run after the first resumes: the first kill leaves saved progress, and the file
    // stays until the run completes. A resumed run that finds it says "resuming … from"; one
    // that missed it would say there is nothing to resume (a killed run may not get as far).
    let found_saved = |k: usize, err: &str| {
        assert!(!err.contains(NOTHING_TO_RESUME), "run {k}: the saved progress was not found: {err}");
    };
    // `done` of the partial file after each kill that left one.
    let mut saved: Vec<u64> = vec![];
    let mut finished_early = false;
    for k in 0..KILLS {
        assert_eq!(partial.exists(), k > 0, "run {k}: saved progress at the start");
        let mut child = bin()
            .args(args(k > 0))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        if k == 0 {
            let started = std::time::Instant::now();
            while !partial.exists() && child.try_wait().unwrap().is_none() && started.elapsed() < FIRST_SAVE_WAIT {
                std::thread::sleep(Duration::from_millis(2));
            }
            assert!(partial.exists(), "no progress saved within {FIRST_SAVE_WAIT:?}");
        } else {
            std::thread::sleep(Duration::from_millis(rng.random_range(30..400)));
        }
        // The run may finish before the kill: then it exited on its own, and its results
        // are complete.
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
        }
        let status = child.wait().unwrap();
        let mut err = String::new();
        child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
        found_saved(k, &err);
        if status.success() {
            finished_early = true;
            break;
        }
        // Killed after the results were written and the progress removed, before the exit:
        // the run is finished (the outputs are compared with the whole run's below).
        if dir.join("young-daly.csv").exists() && !partial.exists() {
            finished_early = true;
            break;
        }
        // Results before the run completes only where the kill came after they were written,
        // before the saved progress was removed: that progress is then the whole run.
        if dir.join("young-daly.csv").exists() {
            assert!(
                partial.exists() && saved_done(&partial).to_string() == reps,
                "kill {k}: a result before the run completes"
            );
        }
        if partial.exists() {
            // Never corrupt: it always parses as a partial summary.
            let o = ckptsim(&["merge", partial.to_str().unwrap(), "--out", tmp.path().join("probe").to_str().unwrap()]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains("unfinished") || o.status.success(), "kill {k}: corrupt partial file: {err}");
            let done = saved_done(&partial);
            assert!(
                saved.last().is_none_or(|&before| done >= before),
                "kill {k}: {done} replications saved, fewer than the {saved:?} before: the resumed run started over"
            );
            saved.push(done);
        }
    }
    // The first kill came after a save, before the end: the run was interrupted with progress.
    assert!(saved.first().is_some_and(|&d| d > 0), "no kill interrupted saved progress: {saved:?}");
    if !finished_early {
        assert!(partial.exists(), "saved progress before the last run");
        let o = bin().args(args(true)).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        found_saved(KILLS, &err);
        let last = saved.last().expect("saved progress");
        assert!(err.contains(&format!("resuming young-daly from {last} of {reps} replications saved in")), "{err}");
    }
    assert_eq!(outputs(&dir), outputs(&whole));
    assert!(!partial.exists(), "the partial file is removed once the run completes");
}

#[test]
fn sigterm_saves_progress_and_exits_130() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("term");
    let o = super::run_then_sigterm(&dir);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--resume"));
    assert!(dir.join("young-daly.partial.json").exists());
}

#[test]
fn shards_need_a_fixed_count_and_a_valid_index() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_str().unwrap();
    for bad in ["3/3", "1/0", "a/b", "2"] {
        let o = ckptsim(&["run", "scenarios/young-daly.toml", "--shard", bad, "--out", out]);
        assert_eq!(o.status.code(), Some(2), "--shard {bad}");
    }
    let o = ckptsim(&["run", "scenarios/young-daly.toml", "--precision", "0.01", "--shard", "0/2", "--out", out]);
    assert_eq!(o.status.code(), Some(2));
}

/// A partial of another format version (progress saved by another build) is not replaced
/// by a new run: it read as no partial at all and was overwritten silently.
#[test]
fn a_partial_of_another_format_version_is_not_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("young-daly.partial.json");
    let old = "{\"format\": \"ckptsim-partial\", \"format_version\": 2, \"done\": 7}";
    fs::write(&file, old).unwrap();
    let o = ckptsim(&["run", "scenarios/young-daly.toml", "--reps", "20", "--out", dir.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("format version 2") && err.contains("remove the file"), "{err}");
    assert_eq!(fs::read_to_string(&file).unwrap(), old, "the file is kept as it was");
    assert!(!dir.join("young-daly.csv").exists());
}

/// Half of `u64::MAX`, rounded up: two of these overflow a `u64` total.
const HALF: u64 = u64::MAX / 2 + 1;

/// The canonical limbs of an exact sum near the top of the accumulator's range (the top
/// limb of 68 at its largest): two of these add past the range.
fn huge_sum() -> serde_json::Value {
    let mut limbs = vec![0_i64; 67];
    limbs.push((1 << 32) - 1);
    serde_json::json!(limbs)
}

/// Copies the partial files `files` into `dir` and rewrites each copy's JSON with `edit`.
fn edited(files: &[String], dir: &Path, edit: &dyn Fn(&mut serde_json::Value)) -> Vec<String> {
    fs::create_dir_all(dir).unwrap();
    files
        .iter()
        .map(|f| {
            let copy = dir.join(Path::new(f).file_name().unwrap());
            let mut doc: serde_json::Value = serde_json::from_str(&fs::read_to_string(f).unwrap()).unwrap();
            edit(&mut doc);
            fs::write(&copy, serde_json::to_string(&doc).unwrap()).unwrap();
            copy.to_str().unwrap().to_string()
        })
        .collect()
}

/// Asserts that merging `files` exits 2 naming `file` and `key`, and writes nothing.
fn refused(files: &[String], out: &Path, file: &str, key: &str) {
    let o = merge(files, out);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{key}: {err}");
    assert!(err.contains(file), "{key}: expected {file} in {err}");
    assert!(err.contains(&format!("`{key}`")), "expected key `{key}` in {err}");
    assert!(err.contains("accepted"), "{key}: no accepted range in {err}");
    assert!(!err.contains("panicked"), "{key}: {err}");
    let left: Vec<_> = super::entries(out).iter().map(|p| p.file_name().unwrap().to_owned()).collect();
    assert!(left.is_empty(), "{key}: output left behind: {left:?}");
}

#[test]
fn merge_refuses_totals_that_overflow() {
    let tmp = tempfile::tempdir().unwrap();
    let a = shards(&tmp.path().join("a"), 2);
    // Each shard alone is consistent; only their sum leaves the range.
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: Vec<(&str, Edit)> = vec![
        ("points[0].counters[3]", Box::new(|d| d["points"][0]["counters"][3] = HALF.into())),
        ("points[14].counters[4]", Box::new(|d| d["points"][14]["counters"][4] = HALF.into())),
        ("points[2].lost_s", Box::new(|d| d["points"][2]["lost_s"] = huge_sum())),
        ("points[0].recovery_s", Box::new(|d| d["points"][0]["recovery_s"] = huge_sum())),
        ("points[1].overhead.sum", Box::new(|d| d["points"][1]["overhead"]["sum"] = huge_sum())),
        ("points[0].wall_s.sum_sq", Box::new(|d| d["points"][0]["wall_s"]["sum_sq"] = huge_sum())),
    ];
    for (k, (key, edit)) in cases.iter().enumerate() {
        let files = edited(&a, &tmp.path().join(format!("case{k}")), edit.as_ref());
        // The second file is the one whose totals no longer fit.
        refused(&files, &tmp.path().join(format!("m{k}")), &files[1], key);
    }
}

#[test]
fn merge_refuses_partials_with_impossible_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let a = shards(&tmp.path().join("a"), 2);
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let bump = |d: &mut serde_json::Value, p: usize| {
        let count = &mut d["points"][p]["wall_histogram_ms"][0][1];
        *count = (count.as_u64().unwrap() + HALF).into();
    };
    let cases: Vec<(&str, Edit)> = vec![
        // Replication counts: every point summarises exactly the shard's `done` replications.
        ("points[0].overhead.n", Box::new(|d| d["points"][0]["overhead"]["n"] = HALF.into())),
        ("points[3].waste.n", Box::new(|d| d["points"][3]["waste"]["n"] = HALF.into())),
        ("points[0].wall_s.n", Box::new(|d| d["points"][0]["wall_s"]["n"] = HALF.into())),
        ("points[1].failures.n", Box::new(|d| d["points"][1]["failures"]["n"] = HALF.into())),
        // Paired differences: for every replication or (without a baseline, as here) none.
        ("points[2].overhead_diff.n", Box::new(|d| d["points"][2]["overhead_diff"]["n"] = HALF.into())),
        // The per-replication failure counts add up to the failure counter: one more
        // failure in the counter, within its bound, is refused by that sum.
        (
            "points[2].failures.sum",
            Box::new(|d| {
                let c = &mut d["points"][2]["counters"][0];
                *c = (c.as_u64().unwrap() + 1).into();
            }),
        ),
        ("points[5].wall_histogram_ms", Box::new(move |d| bump(d, 5))),
        // Failures: at most the engine's limit per replication, and the other failure
        // counters count some of them.
        ("points[0].counters[0]", Box::new(|d| d["points"][0]["counters"][0] = HALF.into())),
        ("points[0].counters[1]", Box::new(|d| d["points"][0]["counters"][1] = HALF.into())),
        ("points[0].counters[2]", Box::new(|d| d["points"][0]["counters"][2] = HALF.into())),
        ("points[0].counters[5]", Box::new(|d| d["points"][0]["counters"][5] = HALF.into())),
    ];
    for (k, (key, edit)) in cases.iter().enumerate() {
        let files = edited(&a, &tmp.path().join(format!("case{k}")), edit.as_ref());
        // The first file read is refused.
        refused(&files, &tmp.path().join(format!("m{k}")), &files[0], key);
    }
    // Histogram counts that overflow within one file.
    let files = edited(&a, &tmp.path().join("dup"), &|d| {
        let hist = d["points"][0]["wall_histogram_ms"].as_array_mut().unwrap();
        let value = hist[0][0].clone();
        hist.push(serde_json::json!([value, u64::MAX]));
    });
    refused(&files, &tmp.path().join("mdup"), &files[0], "points[0].wall_histogram_ms");
}

#[test]
fn resume_refuses_saved_totals_that_overflow() {
    let tmp = tempfile::tempdir().unwrap();
    let a = shards(&tmp.path().join("a"), 2);
    // Shard 0 of a 700-replication run is the first half of shard 0 of a 1400-replication
    // run: with `replications` raised it is an unfinished shard, resumable.
    let dir = tmp.path().join("resume");
    let saved = edited(&a[..1], &dir, &|d| {
        d["replications"] = 1400.into();
        d["complete"] = false.into();
        d["points"][0]["counters"][4] = u64::MAX.into();
    });
    let before = fs::read(&saved[0]).unwrap();
    let o = ckptsim(&[
        "run",
        "scenarios/young-daly.toml",
        "--reps",
        "1400",
        "--shard",
        "0/2",
        "--resume",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(&saved[0]), "expected {} in {err}", saved[0]);
    assert!(err.contains("`points[0].counters[4]`"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(fs::read(&saved[0]).unwrap(), before, "the saved progress is left as it was");
    assert_eq!(super::entries(&dir).len(), 1, "nothing else is written");
}

/// A stop is honoured after the first chunk, which is one replication per thread: a run of
/// slow replications (a trace replay, a large per-node platform) answers SIGTERM within about
/// one replication's time, not after a block of 512. Whatever the chunks, the result resumed
/// from there is the uninterrupted one.
#[test]
fn a_stop_lands_after_one_replication_per_thread() {
    use ckptsim::runner::{self, Outcome, Progress, Shard};
    let sc = super::load("scenarios/young-daly.toml", &[]);
    let (seed, total) = (7, 3000);
    for threads in [1_usize, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let fresh = || Progress { done: 0, summaries: vec![Default::default(); sc.points.len()] };
            let checks = std::cell::Cell::new(0);
            // The first check is before any chunk; the second, after the first chunk.
            let stop = || {
                checks.set(checks.get() + 1);
                checks.get() >= 2
            };
            let mut progress = fresh();
            let mut save = |_: &Progress| Ok(());
            let outcome =
                runner::run_resumable(&sc, seed, total, Shard::WHOLE, &mut progress, 1e9, &mut save, &stop, &|_| {})
                    .unwrap();
            assert_eq!(outcome, Outcome::Interrupted);
            assert_eq!(progress.done, threads as u64, "the first chunk, {threads} thread(s)");
            let never = || false;
            let outcome =
                runner::run_resumable(&sc, seed, total, Shard::WHOLE, &mut progress, 1e9, &mut save, &never, &|_| {})
                    .unwrap();
            assert_eq!(outcome, Outcome::Complete);
            let whole = runner::run_range(&sc, seed, 0..total, &|_| {}).unwrap();
            // Summaries have no `PartialEq` (a histogram's capacity depends on how it grew):
            // compare what is written, the saved progress and the report.
            let done = Progress { done: total, summaries: whole };
            let saved = |p: &Progress| ckptsim::partial::to_json(&sc, seed, total, Shard::WHOLE, p);
            assert_eq!(saved(&progress), saved(&done), "resumed ≠ whole, {threads} thread(s)");
            let report = |p: Progress| {
                let result = runner::RunResult { replications: total, seed, summaries: p.summaries };
                ckptsim::report::Report::new(&sc, &result).json()
            };
            assert_eq!(report(progress), report(done), "resumed ≠ whole, {threads} thread(s)");
        });
    }
}

/// Merging refuses a shard of a run of another size or split, unfinished shards, and a
/// partial file of a shard that cannot exist (index ≥ count, count 0), even where the files
/// given cover every index of the first one's split.
#[test]
fn merge_refuses_other_sizes_splits_unfinished_and_impossible_shards() {
    let tmp = tempfile::tempdir().unwrap();
    // Runs of 3 replications: shard 0 of 2 holds two of them, shard 1 one.
    let two = shards_of(&tmp.path().join("two"), 3, 2);
    let refuse = |files: &[String], expect: &str| {
        let out = tmp.path().join("m");
        let o = merge(files, &out);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{expect}: {err}");
        assert!(err.contains(expect), "expected {expect:?} in {err}");
        assert!(!out.join("young-daly.csv").exists(), "{expect}: merged output written");
    };
    // Shard 1 of 2 of a run of 5 is complete with its two replications, but of another run.
    let five = shards_of(&tmp.path().join("five"), 5, 2);
    refuse(&[two[0].clone(), five[1].clone()], "replications 5 differs from 3");
    // Shards 1 and 2 of 3 complete the indices of a split in 2, but split the run otherwise.
    let three = shards_of(&tmp.path().join("three"), 3, 3);
    refuse(&[two[0].clone(), three[1].clone(), three[2].clone()], "shard count 3 differs from 2");
    // Shard 1 of a run with a --set: the message says which arguments differ.
    let set_dir = tmp.path().join("set");
    run_reps(&set_dir, 3, &["--shard", "1/2", "--set", "job.restart=5 min"]);
    let set_shard = set_dir.join("young-daly.shard-1-of-2.json").to_str().unwrap().to_string();
    refuse(
        &[two[0].clone(), set_shard],
        "(this one was run with --set job.restart=5 min, that one with no --set): shards of different runs",
    );
    // A shard of another scenario text.
    let text_dir = tmp.path().join("text");
    let text = fs::read_to_string(super::root("scenarios/young-daly.toml")).unwrap() + "\n# edited\n";
    fs::create_dir_all(&text_dir).unwrap();
    let edited_file = text_dir.join("young-daly.toml");
    fs::write(&edited_file, text).unwrap();
    let o = ckptsim(&[
        "run",
        edited_file.to_str().unwrap(),
        "--reps",
        "3",
        "--shard",
        "1/2",
        "--out",
        text_dir.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text_shard = text_dir.join("young-daly.shard-1-of-2.json").to_str().unwrap().to_string();
    refuse(&[two[0].clone(), text_shard], "(the scenario files' texts differ)");
    // Claimed runs of 5: both shards hold fewer replications than theirs.
    let unfinished = edited(&two, &tmp.path().join("unfinished"), &|d| d["replications"] = 5.into());
    refuse(&unfinished, "unfinished");
    // Shard 2 of 2 does not exist (its one replication would be index 2 of 3).
    let beyond = edited(&two[1..], &tmp.path().join("beyond"), &|d| d["shard"]["index"] = 2.into());
    refuse(&[two[0].clone(), two[1].clone(), beyond[0].clone()], "shard.index 2 is out of range: accepted is 0 to 1");
    let none = edited(&two[..1], &tmp.path().join("none"), &|d| d["shard"]["count"] = 0.into());
    refuse(&[none[0].clone(), two[1].clone()], "shard.count: accepted is an integer ≥ 1");
    let more = edited(&two[..1], &tmp.path().join("more"), &|d| d["done"] = 1_000_000.into());
    refuse(&[more[0].clone(), two[1].clone()], "done = 1000000 is out of range: accepted is 0 to 2");
    // An edited-in key would be ignored: it is named, at the top and inside.
    let extra = edited(&two[..1], &tmp.path().join("extra"), &|d| d["bogus"] = 1.into());
    refuse(&[extra[0].clone(), two[1].clone()], "unknown key `bogus` in the partial summary");
    let extra = edited(&two[..1], &tmp.path().join("extra2"), &|d| d["shard"]["extra"] = 0.into());
    refuse(&[extra[0].clone(), two[1].clone()], "unknown key `shard.extra`");
}

/// The scenario hash, a run's identity in partial files, tells apart every scenario text and
/// every list of `--set` arguments, however they split into pieces.
#[test]
fn the_scenario_hash_separates_the_text_and_each_set() {
    use ckptsim::partial::scenario_hash;
    let hash = |text: &str, sets: &[&str]| scenario_hash(text, &sets.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    assert_eq!(hash("x", &["a", "b"]), hash("x", &["a", "b"]));
    assert_ne!(hash("x", &["a", "b"]), hash("x", &["ab"]));
    assert_ne!(hash("x", &["a"]), hash("xa", &[]));
    assert_ne!(hash("x", &[""]), hash("x", &[]));
}

/// The saved progress of a finished run goes only after its results are written: it was
/// removed first, and a run that failed (or was killed) between the two lost every
/// replication. Here showing the results fails (stdout is Linux's /dev/full, exit 1) after the
/// files are written: the progress stays, complete, and `--resume` writes the same results
/// again from it, without running a replication, and removes it.
#[test]
fn finished_progress_outlives_a_failed_ending() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("skipped: no /dev/full on this system");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    let args = ["run", "scenarios/young-daly.toml", "--reps", "2000", "--save-every", "0.01", "--out"];
    let args: Vec<&str> = [&args[..], &[dir.to_str().unwrap(), "--format", "csv"]].concat();
    let o = bin().args(&args).current_dir(env!("CARGO_MANIFEST_DIR")).stdout(full).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let partial = dir.join("young-daly.partial.json");
    assert!(partial.exists(), "the saved progress went before the run ended");
    assert_eq!(saved_done(&partial), 2000);
    let written = outputs(&dir);
    std::fs::remove_file(dir.join("young-daly.csv")).unwrap();
    let o = bin().args(&args).arg("--resume").current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("resuming young-daly from 2000 of 2000 replications"), "{err}");
    assert_eq!(outputs(&dir), written);
    assert!(!partial.exists(), "the partial file is removed once the results are written");
}
