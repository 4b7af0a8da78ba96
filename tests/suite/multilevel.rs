//! Two-level checkpointing (MODELS.md §4): the engine's two-level path against the exact
//! Markov-chain value, and against the single-level paths where the two coincide.

use ckptsim::analytic::multilevel::{self, Rates};
use ckptsim::engine::{self, Exposure, FinalCheckpoint, Job, Limits, OnFailure, TwoLevel};
use ckptsim::failure::{ExponentialStream, Failure, FailureScope, FailureStream, Level, ListStream};
use ckptsim::policy::{ChunkLayout, Periodic};
use ckptsim::runner::stream_rng;
use ckptsim::stats::Moments;
use rand::{RngExt, SeedableRng};

/// |simulated mean − exact| must be below this many standard errors (of the sample).
const Z_MAX: f64 = 4.0;
/// Replications per case.
const REPS: u64 = 20_000;

/// Poisson failures of rate λ₁ + λ₂, each a system event (level 2) with probability λ₂/λ and
/// the job's own (level 1) otherwise: the superposition of two independent Poisson streams.
#[derive(Clone)]
struct TwoRates {
    times: ExponentialStream,
    rng: rand_pcg::Pcg64Mcg,
    level2_share: f64,
}

impl TwoRates {
    fn new(rates: Rates, rep: u64) -> Self {
        let mtbf_s = 1.0 / rates.total_per_s();
        TwoRates {
            times: ExponentialStream::new(mtbf_s, stream_rng(17, rep, 0)),
            rng: rand_pcg::Pcg64Mcg::seed_from_u64(rep ^ 0x5eed),
            level2_share: rates.level2_per_s / rates.total_per_s(),
        }
    }
}

impl FailureStream for TwoRates {
    fn next_failure(&mut self) -> Failure {
        let time_s = self.times.next_failure().time_s;
        let level2 = self.rng.random::<f64>() < self.level2_share;
        Failure { time_s, scope: if level2 { FailureScope::Domain(Level::System) } else { FailureScope::Job } }
    }
}

/// Asserts the sample mean of `m` within [`Z_MAX`] of its SE from `exact`.
fn agrees(m: &Moments, exact: f64, what: &str) {
    let e = m.estimate();
    let z = (e.mean - exact) / e.se;
    assert!(z.abs() < Z_MAX, "{what}: simulated {} ± {} (SE), exact {exact}, z = {z:.2}", e.mean, e.se);
}

fn job(checkpoint: Exposure, restart: Exposure, downtime_s: f64) -> Job {
    Job {
        work_s: 2e5,
        checkpoint_s: 20.0,
        restart_s: 120.0,
        downtime_s,
        final_checkpoint: FinalCheckpoint::Written,
        checkpoint_exposure: checkpoint,
        restart_exposure: restart,
        on_failure: OnFailure::Restart,
    }
}

/// The simulated mean overhead is within [`Z_MAX`] SE of the exact two-level value in all
/// four combinations of the exposure switches, with and without downtime, for a few pattern
/// lengths and intervals; and the record's parts add up to its wall time.
#[test]
fn the_two_level_path_agrees_with_the_exact_value() {
    // Node failures every 3 h, system events every 12 h; C₂ = 10 min, R₂ = 15 min.
    let rates = Rates { level1_per_s: 1.0 / (3.0 * 3600.0), level2_per_s: 1.0 / (12.0 * 3600.0) };
    let switches = [
        (Exposure::CanFail, Exposure::CanFail, 0.0),
        (Exposure::CannotFail, Exposure::CanFail, 60.0),
        (Exposure::CanFail, Exposure::CannotFail, 60.0),
        (Exposure::CannotFail, Exposure::CannotFail, 0.0),
    ];
    for (case, (ce, re, d)) in switches.into_iter().enumerate() {
        let j = job(ce, re, d);
        for (every, interval_s) in [(1, 1800.0), (4, 600.0), (10, 450.0), (50, 2000.0)] {
            let two = TwoLevel { every, checkpoint_s: 600.0, restart_s: 900.0, level2: TwoLevel::ALL_BUT_NODES };
            let layout = ChunkLayout::new(j.work_s, interval_s);
            let exact = multilevel::overhead(&j, &two, interval_s, rates).unwrap();
            let mut m = Moments::default();
            for rep in 0..REPS {
                let mut stream = TwoRates::new(rates, rep + 1_000_000 * case as u64);
                let rec = engine::play_two_level(&j, &two, &layout, &mut stream, Limits::default()).unwrap();
                m.add(rec.wall_s / j.work_s - 1.0);
            }
            agrees(&m, exact, &format!("{ce:?} {re:?} D={d} n={every} T={interval_s}"));
        }
    }
}

/// Where restarts fail often (MTBF 1000 s, R₁ = 600 s, half the failures level 2), a level-1
/// recovery often turns into a level-2 one: the recovery chain's terms (T₁'s share of T₂, the
/// chance π of ending at level 2) move the mean by tens of SE, so this case checks them (the
/// cases above barely see a failed restart).
#[test]
fn a_recovery_struck_by_level_two_failures_agrees_with_the_exact_value() {
    let rates = Rates { level1_per_s: 0.5 / 1000.0, level2_per_s: 0.5 / 1000.0 };
    let j = Job {
        downtime_s: 100.0,
        restart_s: 600.0,
        checkpoint_s: 10.0,
        work_s: 1000.0,
        ..job(Exposure::CanFail, Exposure::CanFail, 0.0)
    };
    let two = TwoLevel { every: 3, checkpoint_s: 60.0, restart_s: 200.0, level2: TwoLevel::ALL_BUT_NODES };
    for interval_s in [f64::INFINITY, 150.0] {
        let layout = ChunkLayout::new(j.work_s, interval_s);
        let exact = multilevel::expected_wall_s(&j, &two, interval_s, rates).unwrap();
        let mut m = Moments::default();
        for rep in 0..STRESS_REPS {
            let mut stream = TwoRates::new(rates, rep + 7_000_000);
            m.add(engine::play_two_level(&j, &two, &layout, &mut stream, Limits::default()).unwrap().wall_s);
        }
        agrees(&m, exact, &format!("wall time (s), T = {interval_s}"));
    }
}

/// Replications of the stress case: its wall times spread widely (a few restarts in ten
/// succeed), so it needs more than the others to resolve the recovery chain's terms.
const STRESS_REPS: u64 = 200_000;

/// With every checkpoint a level-2 one at level-1 costs (n = 1, C₂ = δ, R₂ = R), or with no
/// level-2 failure, the two-level path is the per-segment path on the same stream: the same
/// record, bit for bit.
#[test]
fn one_level_in_disguise_is_the_per_segment_path() {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
    for rep in 0..300 {
        let pick = |rng: &mut rand_pcg::Pcg64Mcg| if rng.random() { Exposure::CanFail } else { Exposure::CannotFail };
        let mut j = job(pick(&mut rng), pick(&mut rng), if rng.random() { 0.0 } else { 30.0 });
        j.final_checkpoint = if rng.random() { FinalCheckpoint::Written } else { FinalCheckpoint::Skipped };
        j.on_failure = if rng.random_range(0..4) == 0 { OnFailure::EndJob } else { OnFailure::Restart };
        j.work_s = 2e4;
        let interval_s = rng.random_range(200.0..5000.0);
        let layout = ChunkLayout::new(j.work_s, interval_s);
        let rates = Rates { level1_per_s: 1.0 / 2000.0, level2_per_s: 1.0 / 5000.0 };
        let stream = TwoRates::new(rates, rep);
        let plain = engine::play(&j, &Periodic { layout }, &mut stream.clone(), Limits::default()).unwrap();
        let every_one = TwoLevel { every: 1, checkpoint_s: j.checkpoint_s, restart_s: j.restart_s, level2: [true; 7] };
        let two = engine::play_two_level(&j, &every_one, &layout, &mut stream.clone(), Limits::default()).unwrap();
        assert_eq!(two, plain, "rep {rep}: n = 1");
        let no_level2 = TwoLevel { every: 7, checkpoint_s: j.checkpoint_s, restart_s: 1e9, level2: [false; 7] };
        let two = engine::play_two_level(&j, &no_level2, &layout, &mut stream.clone(), Limits::default()).unwrap();
        assert_eq!(two, plain, "rep {rep}: no level-2 failure");
    }
}

/// A hand-worked case: chunks of 10 s, C₁ = 1 s, C₂ = 3 s every third checkpoint, R₁ = 2 s,
/// R₂ = 5 s, no downtime. A node failure at 25 s (chunk 3, 3 s in) redoes chunk 3; a system
/// failure later goes back to the chunk after the level-2 checkpoint.
#[test]
fn a_level_two_failure_rolls_back_to_the_last_level_two_checkpoint() {
    let j = Job {
        work_s: 60.0,
        checkpoint_s: 1.0,
        restart_s: 2.0,
        downtime_s: 0.0,
        final_checkpoint: FinalCheckpoint::Written,
        checkpoint_exposure: Exposure::CanFail,
        restart_exposure: Exposure::CanFail,
        on_failure: OnFailure::Restart,
    };
    let two = TwoLevel { every: 3, checkpoint_s: 3.0, restart_s: 5.0, level2: TwoLevel::ALL_BUT_NODES };
    let layout = ChunkLayout::new(j.work_s, 10.0);
    // Chunks: 0–10 +1 (L1) | 11–21 +1 | 22–32 +3 (L2, ends 35) | 35–45 +1 | 46–56 +1 | 57–67 +3 (L2).
    // No failure: 60 s of work, writes 1 + 1 + 3 + 1 + 1 + 3 = 10 s.
    let clean = engine::play_two_level(&j, &two, &layout, &mut ListStream::new(vec![]), Limits::default()).unwrap();
    assert_eq!((clean.wall_s, clean.checkpoints), (70.0, 6));
    // A node failure at 25 s (the third chunk, 3 s in): restart 2 s, the third chunk again
    // from 27 s, its level-2 write ending at 40. A system failure at 50.5 s strikes the fourth
    // chunk's write (40–50, write 50–51): back to the fourth chunk after R₂ = 5 s.
    let times = vec![25.0, 50.5];
    let mut stream = MarkedList { times: ListStream::new(times), level2: vec![false, true], next: 0 };
    let rec = engine::play_two_level(&j, &two, &layout, &mut stream, Limits::default()).unwrap();
    // From 55.5 s: the last three chunks as in the clean run (10 + 1, 10 + 1, 10 + 3 s).
    assert_eq!(rec.wall_s, 55.5 + 35.0);
    assert_eq!((rec.failures, rec.failures_during_checkpoint, rec.restarts), (2, 1, 2));
    assert_eq!(rec.lost_s, 3.0 + 10.5);
    assert_eq!(rec.recovery_s, 2.0 + 5.0);
    // Checkpoints written: the first three (the third after its redo), then the last three.
    assert_eq!(rec.checkpoints, 6);
    // A system failure in the fifth chunk (46–56) at 47 s also loses the fourth, though its
    // level-1 checkpoint was written: back to the fourth at 52 s, 1 + 10 s of compute lost.
    // Writes: two level-2 (3 s), five level-1 (1 s; the fourth chunk's twice).
    let mut stream = MarkedList { times: ListStream::new(vec![47.0]), level2: vec![true], next: 0 };
    let rec = engine::play_two_level(&j, &two, &layout, &mut stream, Limits::default()).unwrap();
    assert_eq!(rec.wall_s, 52.0 + 35.0);
    assert_eq!(rec.lost_s, 1.0 + 10.0);
    assert_eq!(rec.checkpoints, 4 + 3);
    assert_eq!(rec.wall_s, j.work_s + 2.0 * 3.0 + 5.0 * 1.0 + rec.lost_s + rec.recovery_s);
}

/// A list of failure times, each marked level 2 (a system event) or not.
struct MarkedList {
    times: ListStream,
    level2: Vec<bool>,
    next: usize,
}

impl FailureStream for MarkedList {
    fn next_failure(&mut self) -> Failure {
        let time_s = self.times.next_failure().time_s;
        let level2 = self.level2.get(self.next).copied().unwrap_or(false);
        self.next += 1;
        Failure { time_s, scope: if level2 { FailureScope::Domain(Level::System) } else { FailureScope::Job } }
    }
}

/// `[job.level2]` in a scenario, end to end through the runner (the shared-stream tapes
/// included): every point's simulated overhead within [`Z_MAX`] SE of the exact two-level
/// value, under both exposure switches and downtime; the split by cause adds up.
#[test]
fn a_two_level_scenario_runs_against_its_closed_form() {
    for sets in [
        &[][..],
        &["job.failures_during_checkpoint=false", "job.downtime=1 min"][..],
        &["job.failures_during_restart=false", "job.level2.causes=[\"system\", \"nodes\"]"][..],
    ] {
        let sc = super::load("scenarios/two-level.toml", sets);
        let result = super::simulate(&sc, 4000, 3);
        for (p, s) in sc.points.iter().zip(&result.summaries) {
            let (name, model) = ckptsim::report::model_overhead(p).expect("Poisson: a closed form");
            assert_eq!(name, ckptsim::report::EXACT_TWO_LEVEL);
            let e = s.overhead.estimate();
            let z = (e.mean - model) / e.se;
            assert!(z.abs() < Z_MAX, "{sets:?} point {}: {} ± {} (SE) vs {model}, z = {z:.2}", p.index, e.mean, e.se);
            // The failures' parts: lost and recovery by cause add up to the totals.
            let lost: f64 = s.causes.iter().map(|c| c.lost_s.value()).sum();
            assert!((lost - s.lost_s.value()).abs() <= 1e-9 * s.lost_s.value(), "{sets:?} point {}", p.index);
        }
    }
}

/// The same scenario's outputs are byte-identical for 1 and 2 threads and for merged shards.
#[test]
fn a_two_level_scenario_is_deterministic() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |dir: &std::path::Path, extra: &[&str]| {
        let mut args = vec!["run", "scenarios/two-level.toml", "--reps", "301", "--out", dir.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = super::ckptsim(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    let read = |dir: &std::path::Path| {
        ["two-level.csv", "two-level.json", "two-level-causes.csv"].map(|f| std::fs::read(dir.join(f)).unwrap())
    };
    let (one, two, shards, merged) =
        (tmp.path().join("1"), tmp.path().join("2"), tmp.path().join("s"), tmp.path().join("m"));
    run(&one, &["--threads", "1"]);
    run(&two, &["--threads", "2"]);
    assert!(read(&one) == read(&two), "threads 1 and 2 differ");
    let mut files = vec![];
    for i in 0..2 {
        run(&shards, &["--shard", &format!("{i}/2")]);
        files.push(shards.join(format!("two-level.shard-{i}-of-2.json")).to_str().unwrap().to_string());
    }
    let mut args = vec!["merge", "--out", merged.to_str().unwrap()];
    args.extend(files.iter().map(String::as_str));
    let o = super::ckptsim(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(read(&merged) == read(&one), "merged shards differ from one run");
}

/// Bad `[job.level2]` input exits 2 naming the key and what is accepted.
#[test]
fn bad_two_level_input_is_refused() {
    let cases: [(&str, &str); 10] = [
        ("job.level2.every=0", "accepted is an integer ≥ 1"),
        ("job.level2.every=1.5", "accepted is an integer ≥ 1"),
        ("job.level2.checkpoint=-1 s", "job.level2.checkpoint"),
        ("job.level2.restart=5", "job.level2.restart"),
        ("job.level2.causes=[\"racks\"]", "expected one of `nodes`, `rack`"),
        ("job.level2.often=2", "unknown field `often`"),
        (
            "job.level2.every=\"often\"",
            "accepted is an integer ≥ 1 (every n-th checkpoint is a level-2 one) or \"optimal\"",
        ),
        ("job.level2.every=-3", "-3 is out of range"),
        ("job.level2.every=1000001", "1000001 is out of range: accepted is an integer from 1 to 1000000"),
        ("policy.interval=daly", "\"daly\" is a single-level rule: with [job.level2] accepted is \"young\""),
    ];
    for (set, expected) in cases {
        let o = super::ckptsim(&[
            "run",
            "scenarios/two-level.toml",
            "--reps",
            "2",
            "--out",
            "/nonexistent/x",
            "--set",
            set,
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{set}: {err}");
        assert!(err.contains(expected), "{set}: {expected:?} missing in {err}");
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_str().unwrap();
    let o = super::ckptsim(&[
        "run",
        "scenarios/two-level.toml",
        "--reps",
        "2",
        "--out",
        out,
        "--set",
        "policy.interval=1 ms",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("at most 1e7 chunks"), "{err}");
}

/// With `[job.level2]`, "young" is MODELS.md §4's first-order P*(n)/n at the job's two rates
/// (worked out here by hand from the scenario's numbers) and "optimal" the exact optimum of
/// an endless run of patterns: its closed-form overhead is below that at "young" at every n,
/// and the simulation agrees with it.
#[test]
fn two_level_interval_rules_give_the_first_order_and_the_exact_optimum() {
    let young = super::load("scenarios/two-level.toml", &["policy.interval=young"]);
    let optimal = super::load("scenarios/two-level.toml", &["policy.interval=optimal"]);
    // 128 nodes of MTBF 16 d at level 1; system events every 12 h at level 2.
    let (l1, l2) = (128.0 / (16.0 * 86_400.0), 1.0 / (12.0 * 3600.0));
    let (c1, c2) = (20.0, 600.0);
    let result = super::simulate(&optimal, 4000, 5);
    for ((y, o), s) in young.points.iter().zip(&optimal.points).zip(&result.summaries) {
        let n = y.two_level.as_ref().unwrap().every as f64;
        let by_hand = (2.0 * ((n - 1.0) * c1 + c2) / (l1 / n + l2)).sqrt() / n;
        assert!((y.interval_s - by_hand).abs() <= 1e-12 * by_hand, "n = {n}: {} vs {by_hand}", y.interval_s);
        let (_, at_young) = ckptsim::report::model_overhead(y).unwrap();
        let (_, at_optimal) = ckptsim::report::model_overhead(o).unwrap();
        assert!(at_optimal < at_young, "n = {n}: optimal {at_optimal} vs young {at_young}");
        let e = s.overhead.estimate();
        let z = (e.mean - at_optimal) / e.se;
        assert!(z.abs() < Z_MAX, "n = {n}: {} ± {} (SE) vs {at_optimal}, z = {z:.2}", e.mean, e.se);
    }
}

/// Each cause's expected rate adds up to the job's failure rate 1/MTBF in every point of
/// the run scenario at `path`; returns the points checked.
fn assert_cause_rates_add_up(path: &std::path::Path) -> usize {
    const RATE_RTOL: f64 = 1e-12;
    let sc = ckptsim::scenario::load(path, &[]).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for p in &sc.points {
        let sum: f64 = p.failures.expected_cause_rates_per_s().iter().sum();
        let rate = 1.0 / p.failures.mtbf_s();
        assert!((sum - rate).abs() <= RATE_RTOL * rate, "{} point {}: {sum} vs {rate}", path.display(), p.index);
    }
    sc.points.len()
}

/// Each cause's expected rate adds up to the job's failure rate 1/MTBF in every example
/// scenario that needs no outside data (placements random and fixed, domains, k-of-N events,
/// bursts).
#[test]
fn the_causes_rates_add_up_to_the_job_rate() {
    let mut checked = 0;
    for (path, _) in super::forecast::committed_run_scenarios().iter().filter(|s| s.1.is_none()) {
        checked += assert_cause_rates_add_up(path);
    }
    assert!(checked > 50, "only {checked} points checked");
}

/// The same in the example scenarios that replay a log of the shared data folder.
#[test]
#[ignore = "needs ../shared/data"]
fn the_causes_rates_add_up_to_the_job_rate_in_the_replays() {
    let mut checked = 0;
    for (path, data) in super::forecast::committed_run_scenarios() {
        let Some(rel) = data else { continue };
        super::shared_data(&rel);
        checked += assert_cause_rates_add_up(&path);
    }
    assert!(checked >= 6, "only {checked} points checked");
}

/// `job.level2.every = "optimal"` picks, at each point, the n whose exact endless-pattern
/// overhead at its own interval is lowest: the argmin over n of a brute-force scan here, at
/// both interval rules and a fixed interval; it grows like √(λ₁/λ₂) (MODELS.md §4's n*) as
/// system events get rarer; the tables show n, and the CSV `level2_every`. Where no cause is
/// a level-2 one, it is refused.
#[test]
fn the_optimal_level_two_count_is_the_best_n() {
    for interval in ["optimal", "young", "10 min"] {
        let sc = super::load(
            "scenarios/two-level.toml",
            &["job.level2.every=\"optimal\"", &format!("policy.interval={interval}")],
        );
        let p = &sc.points[0];
        let chosen = p.two_level.as_ref().unwrap().every;
        let rates = ckptsim::scenario::two_level_rates(&p.failures, p.two_level.as_ref().unwrap(), p.rate);
        let overhead = |n: u64| {
            let two = TwoLevel { every: n, ..p.two_level.clone().unwrap() };
            let t = match interval {
                "optimal" => multilevel::optimal_interval_s(&p.job, &two, rates).unwrap(),
                "young" => multilevel::first_order_interval_s(&p.job, &two, rates),
                _ => 600.0,
            };
            multilevel::pattern_overhead(&p.job, &two, t, rates).unwrap()
        };
        let brute = (1..=200).min_by(|&a, &b| overhead(a).total_cmp(&overhead(b))).unwrap();
        assert_eq!(chosen, brute, "{interval}");
        // Near the first order's n* ≈ 10.8 here.
        assert!((8..=14).contains(&chosen), "{interval}: n = {chosen}");
    }
    // The example with every = "optimal" and a sweep of the system events' MTBF.
    let text = std::fs::read_to_string(super::root("scenarios/two-level.toml")).unwrap();
    let text = text.replace("every = 8", "every = \"optimal\"").replace(
        "\"job.level2.every\" = [1, 2, 4, 8, 16, 32]",
        "\"failures.system.mtbf\" = [\"3 h\", \"12 h\", \"2 d\"]",
    );
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("optimal-every.toml");
    std::fs::write(&file, &text).unwrap();
    let sc = ckptsim::scenario::load(&file, &["policy.interval=\"optimal\"".to_string()]).unwrap();
    let n: Vec<u64> = sc.points.iter().map(|p| p.two_level.as_ref().unwrap().every).collect();
    assert!(n[0] < n[1] && n[1] < n[2], "{n:?}");
    let out = tmp.path().to_str().unwrap();
    let o = super::ckptsim(&["run", file.to_str().unwrap(), "--reps", "20", "--out", out]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.contains("level 2: every n-th checkpoint (n per point)"), "{table}");
    let header = table.lines().find(|l| l.trim_start().starts_with("point")).unwrap();
    assert!(header.split_whitespace().any(|w| w == "n"), "{header}");
    let csv = std::fs::read_to_string(tmp.path().join("two-level.csv")).unwrap();
    let mut rows = csv::Reader::from_reader(csv.as_bytes());
    let col = rows.headers().unwrap().iter().position(|h| h == "level2_every").unwrap();
    let written: Vec<u64> = rows.records().map(|r| r.unwrap()[col].parse().unwrap()).collect();
    let sc = ckptsim::scenario::load(&file, &[]).unwrap();
    let chosen: Vec<u64> = sc.points.iter().map(|p| p.two_level.as_ref().unwrap().every).collect();
    assert_eq!(written, chosen);
    // Only the nodes fail, and they are level 1: longer patterns always cost less.
    let o = super::ckptsim(&[
        "run",
        "scenarios/two-level.toml",
        "--reps",
        "2",
        "--out",
        out,
        "--set",
        "job.level2.every=\"optimal\"",
        "--set",
        "job.level2.causes=[\"burst\"]",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("job.level2.every") && err.contains("no failure cause is a level-2 one"), "{err}");
}

/// At two-level points the output's time columns add up as elsewhere: wall = work + writes
/// (level-1 and level-2, done again after rollbacks) + lost + recovery.
#[test]
fn two_level_time_columns_add_up() {
    const IDENTITY_RTOL: f64 = 1e-9;
    let tmp = tempfile::tempdir().unwrap();
    let o = super::ckptsim(&[
        "run",
        "scenarios/two-level.toml",
        "--reps",
        "200",
        "--out",
        tmp.path().to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for p in doc["points"].as_array().unwrap() {
        let f = |key: &str| p[key].as_f64().unwrap_or_else(|| panic!("{key} in {p}"));
        let parts = f("work_s") + f("checkpoint_time_mean_s") + f("lost_mean_s") + f("recovery_mean_s");
        let wall = f("wall_mean_s");
        assert!((parts - wall).abs() <= IDENTITY_RTOL * wall, "point {}: {parts} vs {wall}", p["point"]);
        // More than the level-1 writes alone: level-2 ones cost C₂ = 10 min.
        assert!(f("checkpoint_time_mean_s") > f("checkpoints_mean") * f("checkpoint_s"), "point {}", p["point"]);
        assert_eq!(f("level2_checkpoint_s"), 600.0);
        assert_eq!(f("level2_restart_s"), 900.0);
    }
}

/// `optimize` on a two-level point plays two levels: the best interval's overhead (on fresh
/// replications) is within [`Z_MAX`] SE of the exact two-level value there, which is close
/// to the exact minimum over the interval; the range it reports holds the exact optimum; the
/// formulas compared are the two-level `young` and `optimal`.
#[test]
fn optimize_finds_the_two_level_optimum() {
    let sc = super::load("scenarios/two-level.toml", &["job.level2.every=8"]);
    let p = &sc.points[0];
    let two = p.two_level.as_ref().unwrap();
    let rates = ckptsim::scenario::two_level_rates(&p.failures, two, p.rate);
    let exact = |t: f64| multilevel::overhead(&p.job, two, t, rates).unwrap();
    let o = ckptsim::optimize::optimize(p, 2000, 11).unwrap();
    let se = o.best_overhead_half_width / 1.96;
    let z = (o.best_overhead_mean - exact(o.best_interval_s)) / se;
    assert!(
        z.abs() < Z_MAX,
        "best {} ± {se} (SE) vs exact {}, z = {z:.2}",
        o.best_overhead_mean,
        exact(o.best_interval_s)
    );
    // The exact finite-work optimum, by a fine scan of the equal chunkings W/k.
    let w = p.job.work_s;
    let (best_k, best) = (100..600).map(|k| (k, exact(w / k as f64))).min_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    let optimum_s = w / best_k as f64;
    assert!(
        o.interval_ci_low_s <= optimum_s && optimum_s <= o.interval_ci_high_s,
        "exact optimum {optimum_s} outside [{}, {}]",
        o.interval_ci_low_s,
        o.interval_ci_high_s
    );
    assert!(exact(o.best_interval_s) - best < Z_MAX * se, "{} vs {best}", exact(o.best_interval_s));
    let names: Vec<&str> = o.formulas.iter().map(|f| f.name).collect();
    assert_eq!(names, ["young", "optimal", "optimal-work"]);
    let young_s = multilevel::first_order_period_s(&p.job, two, rates) / 8.0;
    assert_eq!(o.formulas[0].interval_s, young_s);
    let endless_s = multilevel::optimal_interval_s(&p.job, two, rates).unwrap();
    assert_eq!(o.formulas[1].interval_s, endless_s);
    // The best chunking of the work at n = 8: W/264, 33 whole patterns, the exact optimum above.
    assert_eq!(o.formulas[2].interval_s, optimum_s);
    assert_eq!(optimum_s, multilevel::finite_work_optimal_interval_s(&p.job, two, rates, endless_s).unwrap());
}

/// `formulas --level2-checkpoint …` gives the closed forms of the scenario path: the best n
/// and interval of `every = "optimal"` with `policy.interval = "optimal"`, and the exact
/// finite-work overhead of the example's n = 8 at 10 min that `run` puts in `model`; bad
/// two-level flags exit 2 naming the flag.
#[test]
fn two_level_formulas_agree_with_the_scenario_path() {
    const SAME_RTOL: f64 = 1e-12;
    let base = [
        "formulas",
        "--checkpoint",
        "20s",
        "--node-mtbf",
        "16d",
        "--nodes",
        "128",
        "--restart",
        "2min",
        "--level2-checkpoint",
        "10min",
        "--level2-restart",
        "15min",
        "--level2-mtbf",
        "12h",
        "--work",
        "2e5s",
    ];
    let mut args = base.to_vec();
    args.extend(["--every", "8", "--interval", "10min", "--format", "json"]);
    let o = super::ckptsim(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = doc["intervals"].as_array().unwrap();
    let row = |name: &str, n: u64| {
        rows.iter()
            .find(|r| r["name"] == name && r["level2_every"] == n)
            .unwrap_or_else(|| panic!("{name} at n = {n} in {rows:?}"))
    };
    let sc = super::load("scenarios/two-level.toml", &["job.level2.every=\"optimal\"", "policy.interval=optimal"]);
    let p = &sc.points[0];
    let n = p.two_level.as_ref().unwrap().every;
    let best = &rows[0];
    assert_eq!((best["name"].as_str(), best["level2_every"].as_u64()), (Some("optimal"), Some(n)));
    let t = best["interval_s"].as_f64().unwrap();
    assert!((t - p.interval_s).abs() <= SAME_RTOL * t, "{t} vs {}", p.interval_s);
    // With the work given, the best equal chunking near the endless optimum: a brute-force
    // scan of W/k here, below the endless optimum's own job overhead.
    let work = row("optimal-work", n);
    let two = TwoLevel { every: n, ..p.two_level.clone().unwrap() };
    let rates = ckptsim::scenario::two_level_rates(&p.failures, &two, p.rate);
    let (k, _) = (150..700)
        .map(|k| (k, multilevel::overhead(&p.job, &two, 2e5 / k as f64, rates).unwrap()))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap();
    assert_eq!(work["interval_s"].as_f64().unwrap(), 2e5 / k as f64);
    assert!(work["job_overhead"].as_f64().unwrap() < best["job_overhead"].as_f64().unwrap());
    let given = row("given", 8);
    let sc = super::load("scenarios/two-level.toml", &["job.level2.every=8"]);
    let (_, model) = ckptsim::report::model_overhead(&sc.points[0]).unwrap();
    let h = given["job_overhead"].as_f64().unwrap();
    assert!((h - model).abs() <= SAME_RTOL * model, "{h} vs {model}");
    assert!(row("young", 8)["interval_s"].as_f64().unwrap() > row("optimal", 8)["interval_s"].as_f64().unwrap());
    // CSV: the same rows, with n.
    let mut args = base.to_vec();
    args.extend(["--format", "csv"]);
    let o = super::ckptsim(&args);
    let csv = String::from_utf8_lossy(&o.stdout);
    assert!(
        csv.starts_with("name,level2_every,interval_s,overhead,efficiency,wall_mean_s,job_overhead\noptimal,11,"),
        "{csv}"
    );
    for (extra, expected) in [
        (&["--every", "1000001"][..], "--every: \"1000001\" is out of range"),
        (&["--every", "0"][..], "--every: \"0\" is out of range: accepted is an integer from 1 to 1000000"),
        (&["--level2-mtbf", "0s"][..], "--level2-mtbf: \"0s\" is out of range"),
        (&["--level2-restart", "-1s"][..], "--level2-restart"),
    ] {
        let mut args: Vec<&str> = base.iter().copied().filter(|a| *a != "12h" && *a != "--level2-mtbf").collect();
        if !extra.contains(&"--level2-mtbf") {
            args.extend(["--level2-mtbf", "12h"]);
        }
        args.extend(extra);
        let o = super::ckptsim(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(expected), "{extra:?}: {expected:?} missing in {err}");
    }
    // R₂ defaults to --restart.
    let without: Vec<&str> = base.iter().copied().filter(|a| *a != "--level2-restart" && *a != "15min").collect();
    let mut same = without.clone();
    same.extend(["--level2-restart", "2min"]);
    let (a, b) = (super::ckptsim(&without), super::ckptsim(&same));
    assert!(a.status.success() && a.stdout == b.stdout, "{}", String::from_utf8_lossy(&a.stderr));
    let mut other = without.clone();
    other.extend(["--level2-restart", "0s"]);
    assert_ne!(super::ckptsim(&other).stdout, a.stdout);
    let o = super::ckptsim(&["formulas", "--checkpoint", "20s", "--mtbf", "3h", "--level2-checkpoint", "10min"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--level2-mtbf"), "{err}");
}

/// The two levels' rates under bursts: with `policy.rate = "failures"` they add up to the
/// job's failure rate 1/MTBF, burst children included at level 2 (by default); with
/// `"clusters"` the burst children are left out, 1/MTBF · (1 − n). The Poisson reference of
/// a two-level point counts every failure (burst children too).
#[test]
fn two_level_rates_follow_the_rate_basis() {
    const RATE_RTOL: f64 = 1e-12;
    let sc = super::load("scenarios/bursts.toml", &[]);
    let p = &sc.points[0];
    let branching = p.failures.burst.unwrap().branching;
    assert!(branching > 0.0);
    let two = TwoLevel { every: 4, checkpoint_s: 600.0, restart_s: 900.0, level2: TwoLevel::ALL_BUT_NODES };
    let rate = 1.0 / p.failures.mtbf_s();
    let all = ckptsim::scenario::two_level_rates(&p.failures, &two, ckptsim::scenario::RateBasis::Failures);
    let clusters = ckptsim::scenario::two_level_rates(&p.failures, &two, ckptsim::scenario::RateBasis::Clusters);
    assert!((all.total_per_s() - rate).abs() <= RATE_RTOL * rate, "{all:?} vs {rate}");
    let base = rate * (1.0 - branching);
    assert!((clusters.total_per_s() - base).abs() <= RATE_RTOL * base, "{clusters:?} vs {base}");
    assert_eq!(clusters.level1_per_s, all.level1_per_s, "burst children are level 2 by default");
    // The Poisson column of a two-level point under these bursts: every failure counts.
    let mut point = p.clone();
    point.two_level = Some(two.clone());
    let want = multilevel::overhead(&point.job, &two, point.interval_s, all).unwrap();
    assert_eq!(ckptsim::report::poisson_overhead(&point), want);
}

/// `every = "optimal"` applies the policy's factor to the interval of every n it tries, and
/// with `policy.interval = "none"` (one chunk: n does not matter) is 1.
#[test]
fn the_optimal_count_follows_the_factor_and_none() {
    let sets = ["job.level2.every=\"optimal\"", "policy.interval=young", "policy.factor=4"];
    let sc = super::load("scenarios/two-level.toml", &sets);
    let p = &sc.points[0];
    let chosen = p.two_level.as_ref().unwrap().every;
    let rates = ckptsim::scenario::two_level_rates(&p.failures, p.two_level.as_ref().unwrap(), p.rate);
    let overhead = |n: u64, factor: f64| {
        let two = TwoLevel { every: n, ..p.two_level.clone().unwrap() };
        let t = multilevel::first_order_period_s(&p.job, &two, rates) / n as f64 * factor;
        multilevel::pattern_overhead(&p.job, &two, t, rates).unwrap()
    };
    let argmin = |factor: f64| (1..=200).min_by(|&a, &b| overhead(a, factor).total_cmp(&overhead(b, factor))).unwrap();
    assert_eq!(chosen, argmin(4.0));
    assert_ne!(argmin(4.0), argmin(1.0), "the factor must matter here for the test to mean anything");
    let sc = super::load("scenarios/two-level.toml", &["job.level2.every=\"optimal\"", "policy.interval=none"]);
    assert_eq!(sc.points[0].two_level.as_ref().unwrap().every, 1);
    assert_eq!(sc.points[0].interval_s, f64::INFINITY);
}

/// [`multilevel::optimal_every`] refuses a best count at the last it tries (the overhead may
/// still fall beyond it): here level 2 fails once in 10⁹ years, n* ≈ 6·10⁶.
#[test]
fn the_optimal_count_is_refused_at_the_end_of_its_scan() {
    let j = job(Exposure::CanFail, Exposure::CanFail, 0.0);
    let two = TwoLevel { every: 1, checkpoint_s: 600.0, restart_s: 900.0, level2: [false; 7] };
    let rates = Rates { level1_per_s: 1.0 / 10_800.0, level2_per_s: 1.0 / (1e9 * 3.15e7) };
    assert!(multilevel::first_order_every(&j, &two, rates) > multilevel::MAX_OPTIMAL_EVERY as f64);
    assert_eq!(multilevel::optimal_every(&j, &two, rates, |_| Some(600.0)), None);
    // At rates whose n* is small, the same fixed interval has a best count.
    let rates = Rates { level1_per_s: 1.0 / 10_800.0, level2_per_s: 1.0 / 43_200.0 };
    assert!(multilevel::optimal_every(&j, &two, rates, |_| Some(600.0)).is_some());
}

/// A job that ends at its first failure: the two-level rules still give the policy's
/// interval and n (those of a job that restarts), and the write time, which the other parts
/// no longer determine, is left empty rather than negative. A swept "optimal" count shows
/// the n it chose; without a final checkpoint the level-2 line does not promise one.
#[test]
fn two_level_end_job_and_table_details() {
    let sets = ["job.on_failure=\"end-job\"", "policy.interval=optimal", "job.level2.every=\"optimal\""];
    let end = super::load("scenarios/two-level.toml", &sets);
    let restart = super::load("scenarios/two-level.toml", &sets[1..]);
    let (e, r) = (&end.points[0], &restart.points[0]);
    assert_eq!(
        (e.interval_s, e.two_level.as_ref().unwrap().every),
        (r.interval_s, r.two_level.as_ref().unwrap().every)
    );
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_str().unwrap();
    let o = super::ckptsim(&[
        "run",
        "scenarios/two-level.toml",
        "--reps",
        "50",
        "--out",
        out,
        "--format",
        "json",
        "--set",
        sets[0],
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(doc["points"].as_array().unwrap().iter().all(|p| p["checkpoint_time_mean_s"].is_null()), "{doc}");
    let text = std::fs::read_to_string(super::root("scenarios/two-level.toml"))
        .unwrap()
        .replace("[1, 2, 4, 8, 16, 32]", "[4, \"optimal\"]")
        .replace("restart = \"2 min\"", "restart = \"2 min\"\nfinal_checkpoint = false");
    let file = tmp.path().join("swept.toml");
    std::fs::write(&file, text).unwrap();
    let o = super::ckptsim(&["run", file.to_str().unwrap(), "--reps", "20", "--out", out]);
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let header = table.lines().find(|l| l.trim_start().starts_with("point")).unwrap();
    assert!(header.split_whitespace().any(|w| w == "n"), "{table}");
    assert!(table.contains("level 2: every n-th checkpoint (n per point) (C₂"), "{table}");
}

/// Past [`multilevel::OPTIMAL_EVERY_LINEAR`] counts the search brackets the best count
/// instead of trying each: on 40 seeded random parameter sets whose best count is between
/// about 2,000 and 100,000 (10,000 at the exact interval) it finds the same overhead as trying every count to the scan's
/// end (the same count, or one tied with it to rounding), at fixed intervals and at the
/// exact optimal interval; and a best count beyond the last tried is still refused.
#[test]
fn the_bracketed_count_search_is_the_exhaustive_one() {
    /// Relative difference allowed between the two minima: ties to rounding.
    const TIE_RTOL: f64 = 1e-12;
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(44);
    let mut bracketed = 0;
    for case in 0..40 {
        let mut j = job(Exposure::CanFail, Exposure::CanFail, 0.0);
        j.checkpoint_s = rng.random_range(0.5..5.0);
        let two =
            TwoLevel { every: 1, checkpoint_s: rng.random_range(600.0..7200.0), restart_s: 900.0, level2: [false; 7] };
        let level1_per_s = 1.0 / rng.random_range(3600.0..86_400.0);
        let exact = case % 8 == 0;
        // The exact interval costs an inversion per count: its exhaustive scans stay shorter.
        let n_target: f64 = 10f64.powf(if exact { rng.random_range(3.3..4.0) } else { rng.random_range(3.3..5.0) });
        // n* = √(λ₁(C₂ − C₁)/(λ₂C₁)) at the target.
        let level2_per_s = level1_per_s * (two.checkpoint_s - j.checkpoint_s) / (j.checkpoint_s * n_target * n_target);
        let rates = Rates { level1_per_s, level2_per_s };
        let fixed_s = rng.random_range(0.2..2.0) * (2.0 * j.checkpoint_s / level1_per_s).sqrt();
        let interval = |t: &TwoLevel| if exact { multilevel::optimal_interval_s(&j, t, rates) } else { Some(fixed_s) };
        let value = |n: u64| {
            let at = TwoLevel { every: n, ..two.clone() };
            interval(&at).and_then(|t| multilevel::pattern_overhead(&j, &at, t, rates)).unwrap_or(f64::NAN)
        };
        let last = multilevel::optimal_every_last(&j, &two, rates);
        let (mut brute, mut brute_h) = (0, f64::INFINITY);
        for n in 1..=last {
            let h = value(n);
            if h < brute_h {
                (brute, brute_h) = (n, h);
            }
        }
        let found = multilevel::optimal_every(&j, &two, rates, interval);
        if brute == last {
            assert_eq!(found, None, "case {case}: the best is the last count tried");
            continue;
        }
        let found = found.unwrap_or_else(|| panic!("case {case}: no count, the exhaustive best is {brute}"));
        let h = value(found);
        assert!(
            (h - brute_h).abs() <= TIE_RTOL * brute_h,
            "case {case}: n = {found} ({h}) against n = {brute} ({brute_h})"
        );
        bracketed += (brute > multilevel::OPTIMAL_EVERY_LINEAR) as u32;
    }
    assert!(bracketed >= 20, "only {bracketed} cases had a best count past the linear scan");
}

/// Patterns of thousands of chunks: a pattern's closed form costs O(1) whatever n (alike
/// chunks composed at once), so `every = "optimal"` with the exact interval reaches counts
/// of 10⁴ (it was capped at 4096 tries, O(n²) in all). The best pair beats its neighbours
/// near and far, and the finite-work value of 10⁴-chunk patterns is the k whole patterns'.
#[test]
fn optimal_counts_of_ten_thousand() {
    let mut j = job(Exposure::CanFail, Exposure::CanFail, 0.0);
    (j.checkpoint_s, j.restart_s, j.work_s) = (1.0, 60.0, 1e8);
    let two = TwoLevel { every: 1, checkpoint_s: 3600.0, restart_s: 3600.0, level2: [false; 7] };
    let rates = Rates { level1_per_s: 1.0 / 3600.0, level2_per_s: 1.0 / (3.0 * 365.0 * 86_400.0) };
    let n_star = multilevel::first_order_every(&j, &two, rates);
    assert!(n_star > 5000.0, "n* = {n_star}");
    let at = |n: u64| TwoLevel { every: n, ..two.clone() };
    let best = multilevel::optimal_every(&j, &two, rates, |t| multilevel::optimal_interval_s(&j, t, rates)).unwrap();
    let value = |n: u64| {
        let t = multilevel::optimal_interval_s(&j, &at(n), rates).unwrap();
        multilevel::pattern_overhead(&j, &at(n), t, rates).unwrap()
    };
    let h = value(best);
    for d in [1, 10, 100, 1000] {
        assert!(h <= value(best - d) && h <= value(best + d), "n = {best} against n ± {d}");
    }
    // k whole patterns of the finite chain: the endless overhead exactly.
    let t = multilevel::optimal_interval_s(&j, &at(best), rates).unwrap();
    let k = 3;
    let whole = Job { work_s: (k * best) as f64 * t, ..j.clone() };
    let e = multilevel::expected_wall_s(&whole, &at(best), t, rates).unwrap();
    let endless = whole.work_s * (1.0 + h);
    assert!(((e - endless) / endless).abs() < 1e-9, "{k} patterns: {e} against {endless}");
}

/// `formulas` with two levels: E[wall] for work of 10⁹ chunks (it was left out past 10⁷,
/// silently), a note where the work is over 2⁵³ chunks, and free level-1 writes blamed on
/// `--checkpoint`, not on `--level2-checkpoint`.
#[test]
fn two_level_formulas_at_huge_work_and_free_level1_writes() {
    let args = |checkpoint: &'static str, work: &'static str| {
        vec![
            "formulas",
            "--checkpoint",
            checkpoint,
            "--mtbf",
            "3h",
            "--level2-checkpoint",
            "10min",
            "--level2-mtbf",
            "12h",
            "--work",
            work,
            "--format",
            "json",
        ]
    };
    let o = super::ckptsim(&args("20s", "1e12s"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let best = &doc["intervals"][0];
    // 1.7·10⁹ chunks: the last pattern is a negligible part, so the job overhead is the endless one.
    let (job, endless) = (best["job_overhead"].as_f64().unwrap(), best["overhead"].as_f64().unwrap());
    assert!(((job - endless) / endless).abs() < 1e-6, "{job} vs {endless}");
    assert!(o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));

    let o = super::ckptsim(&args("20s", "1e20s"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("note: E[wall] left out where --work 1e20s is over 2⁵³ chunks"), "{err}");
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(doc["intervals"][0]["wall_mean_s"].is_null());

    let o = super::ckptsim(&args("0s", "1e6s"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--checkpoint 0s: level-1 writes that cost nothing make the best interval 0"), "{err}");
}
