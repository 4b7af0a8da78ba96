//! Issue acceptance 5: same scenario and seed ⇒ byte-identical CSV and JSON, for any
//! thread count and across repeated runs; and summaries of split ranges merge exactly.

use super::{ckptsim, load};
use ckptsim::runner;
use std::fs;

fn run_to(dir: &std::path::Path, extra: &[&str]) -> (Vec<u8>, Vec<u8>) {
    let out = dir.to_str().unwrap();
    let mut args = vec!["run", "scenarios/young-daly.toml", "--out", out, "--format", "csv"];
    args.extend_from_slice(extra);
    let o = ckptsim(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let csv = fs::read(dir.join("young-daly.csv")).unwrap();
    assert_eq!(o.stdout, csv, "stdout CSV is the file's CSV");
    (csv, fs::read(dir.join("young-daly.json")).unwrap())
}

#[test]
fn output_is_identical_for_any_thread_count_and_repeated_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let one = run_to(&tmp.path().join("t1"), &["--threads", "1", "--reps", "600"]);
    let two = run_to(&tmp.path().join("t2"), &["--threads", "2", "--reps", "600"]);
    let three = run_to(&tmp.path().join("t3"), &["--threads", "3", "--reps", "600"]);
    let again = run_to(&tmp.path().join("again"), &["--threads", "2", "--reps", "600"]);
    assert_eq!(one, two);
    assert_eq!(one, three);
    assert_eq!(two, again);
    // Paired differences with a baseline point, too.
    let paired = ["--reps", "600", "--set", "run.baseline=2"];
    let paired_one = run_to(&tmp.path().join("b1"), &[&["--threads", "1"][..], &paired].concat());
    let paired_two = run_to(&tmp.path().join("b2"), &[&["--threads", "2"][..], &paired].concat());
    assert_eq!(paired_one, paired_two, "with a baseline");
    assert_ne!(paired_one.0, one.0, "the baseline adds its columns");
    // A different seed changes the result: the comparison can fail.
    let other = run_to(&tmp.path().join("seed"), &["--threads", "2", "--reps", "600", "--seed", "43"]);
    assert_ne!(one.0, other.0);
}

#[test]
fn adaptive_runs_are_identical_for_any_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let one = run_to(&tmp.path().join("a1"), &["--threads", "1", "--precision", "0.01"]);
    let two = run_to(&tmp.path().join("a2"), &["--threads", "2", "--precision", "0.01"]);
    assert_eq!(one, two);
}

#[test]
fn summaries_of_split_ranges_merge_to_the_whole() {
    let sc = load("scenarios/young-daly.toml", &[]);
    let whole = runner::run_range(&sc, 5, 0..1500, &|_| {}).unwrap();
    let mut merged = runner::run_range(&sc, 5, 1000..1500, &|_| {}).unwrap();
    for (m, part) in merged.iter_mut().zip(runner::run_range(&sc, 5, 0..1000, &|_| {}).unwrap()) {
        m.merge(&part);
    }
    for (w, m) in whole.iter().zip(&merged) {
        // Every field (waste, lost and recovery time, the whole histogram), in lossless form.
        assert_eq!(w.to_json(), m.to_json());
        assert_eq!(w.wall_quantile_s(0.99).to_bits(), m.wall_quantile_s(0.99).to_bits());
    }
}

/// Replications of a run of `total` that `shard` holds, counted one by one: every
/// `count`-th index from `index` on (the interleaving `--shard I/N` documents), without
/// the closed form of [`runner::Shard::len`] under test.
fn held(shard: runner::Shard, total: u64) -> Vec<u64> {
    (shard.index..total).step_by(shard.count as usize).collect()
}

/// Interleaved shards partition the replications exactly when the shard count does not
/// divide the total, and when there are more shards than replications (the trailing ones
/// empty): `Shard::len` matches a count of the indices the shard holds, `Shard::replication`
/// visits exactly those, and the shards' summaries, run as the CLI runs a shard
/// (`run_resumable`), merge to the summaries of the unsharded run bit for bit.
#[test]
fn shards_that_do_not_divide_the_total_partition_it_exactly() {
    use runner::{Outcome, Progress, Shard};
    // Indexing alone: cheap, so many shapes, every remainder of total mod count included.
    for total in [1_u64, 2, 3, 5, 7, 10, 11, 100, 701, 1000] {
        for count in [1_u64, 2, 3, 4, 6, 7, 8, 13, 64, 1001, 2000] {
            let mut seen = vec![0_u32; total as usize];
            for index in 0..count {
                let shard = Shard { index, count };
                let expected = held(shard, total);
                let len = shard.len(total);
                assert_eq!(len, expected.len() as u64, "len of shard {index}/{count} of {total}");
                assert_eq!(shard.is_empty(total), expected.is_empty(), "shard {index}/{count} of {total}");
                let visited: Vec<u64> = (0..len).map(|j| shard.replication(j)).collect();
                assert_eq!(visited, expected, "replications of shard {index}/{count} of {total}");
                visited.iter().for_each(|&r| seen[r as usize] += 1);
            }
            assert!(seen.iter().all(|&n| n == 1), "{count} shards of {total}: not each replication once: {seen:?}");
        }
    }
    // Summaries: 701 = 3·233 + 2 in 3 shards (the last one a replication short), and 5
    // replications in 7 shards (two empty).
    let sc = load("scenarios/young-daly.toml", &[]);
    let seed = 11;
    for (total, count) in [(701_u64, 3_u64), (5, 7)] {
        let whole = runner::run_range(&sc, seed, 0..total, &|_| {}).unwrap();
        let mut merged = vec![ckptsim::stats::Summary::default(); sc.points.len()];
        for index in 0..count {
            let shard = Shard { index, count };
            let mut progress = Progress { done: 0, summaries: vec![Default::default(); sc.points.len()] };
            let outcome =
                runner::run_resumable(&sc, seed, total, shard, &mut progress, 1e9, &mut |_| Ok(()), &|| false, &|_| {})
                    .unwrap();
            assert_eq!(outcome, Outcome::Complete);
            assert_eq!(progress.done, held(shard, total).len() as u64, "shard {index}/{count} of {total}");
            merged.iter_mut().zip(&progress.summaries).for_each(|(m, s)| m.merge(s));
        }
        for (p, (w, m)) in whole.iter().zip(&merged).enumerate() {
            assert_eq!(w.to_json(), m.to_json(), "point {p}: {count} shards of {total} ≠ the whole run");
        }
    }
}
