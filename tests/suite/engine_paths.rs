//! The failure-driven fast path and the per-segment general path give the same result on
//! the same stream, over many random streams and parameter sets.

use ckptsim::engine::{self, ByCause, Exposure, FinalCheckpoint, Job, Limits, OnFailure};
use ckptsim::failure::{Cause, ExponentialStream, Failure, FailureScope, FailureStream, Level, ListStream};
use ckptsim::policy::{ChunkLayout, Periodic};
use ckptsim::runner::stream_rng;
use rand::{RngExt, SeedableRng};

/// Parameter sets drawn.
const PARAMETER_SETS: u64 = 300;
/// Streams per parameter set.
const STREAMS: u64 = 40;
/// Wall times may differ by this relative amount: the fast path computes chunk ends by
/// multiplication, the general path by repeated addition.
const WALL_RTOL: f64 = 1e-9;

fn random_job(rng: &mut rand_pcg::Pcg64Mcg) -> (Job, f64, f64) {
    let mtbf_s = 10f64.powf(rng.random_range(1.0..4.0));
    let pick =
        |rng: &mut rand_pcg::Pcg64Mcg| if rng.random::<bool>() { Exposure::CanFail } else { Exposure::CannotFail };
    let job = Job {
        work_s: mtbf_s * 10f64.powf(rng.random_range(-1.0..1.0)),
        checkpoint_s: if rng.random_range(0..5) == 0 { 0.0 } else { mtbf_s * 10f64.powf(rng.random_range(-3.0..-0.5)) },
        restart_s: if rng.random_range(0..5) == 0 { 0.0 } else { mtbf_s * 10f64.powf(rng.random_range(-3.0..-0.3)) },
        downtime_s: if rng.random::<bool>() { 0.0 } else { mtbf_s * rng.random_range(0.0..0.5) },
        final_checkpoint: if rng.random::<bool>() { FinalCheckpoint::Written } else { FinalCheckpoint::Skipped },
        checkpoint_exposure: pick(rng),
        restart_exposure: pick(rng),
        on_failure: if rng.random_range(0..4) == 0 { OnFailure::EndJob } else { OnFailure::Restart },
    };
    let interval_s = match rng.random_range(0..10) {
        // No checkpoint at all only where the job can still finish: e^(W/M) attempts.
        0 if job.work_s < 3.0 * mtbf_s => f64::INFINITY,
        1 => job.work_s / rng.random_range(1..6) as f64, // divides the work
        _ => mtbf_s * 10f64.powf(rng.random_range(-2.0..0.3)),
    };
    (job, interval_s, mtbf_s)
}

/// An exponential stream whose failures come from random causes (every [`FailureScope`]), so
/// that the split by cause is exercised; a clone replays the same times and causes.
#[derive(Clone)]
struct Marked {
    times: ExponentialStream,
    rng: rand_pcg::Pcg64Mcg,
}

impl FailureStream for Marked {
    fn next_failure(&mut self) -> Failure {
        let time_s = self.times.next_failure().time_s;
        let scope = match self.rng.random_range(0..7) {
            0 => FailureScope::Job,
            1 => FailureScope::Domain(Level::Rack),
            2 => FailureScope::Domain(Level::Switch),
            3 => FailureScope::Domain(Level::Power),
            4 => FailureScope::Domain(Level::System),
            5 => FailureScope::RandomNodes,
            _ => FailureScope::Burst,
        };
        Failure { time_s, scope }
    }
}

/// A path's record of one stream, with its split by cause.
type Split = (engine::Record, ByCause);

/// The split by cause of `fast` and `slow` (the two paths' records of one stream) agree, and
/// adds up to the totals: counts exactly, times within `tol` (s).
fn causes_agree(fast: &Split, slow: &Split, tol: f64, ctx: &str) {
    for (r, by) in [fast, slow] {
        let failures: u64 = by.0.iter().map(|c| c.failures).sum();
        assert_eq!(failures, r.failures, "{ctx}: failures by cause {by:?}");
        let lost_s: f64 = by.0.iter().map(|c| c.lost_s).sum();
        let recovery_s: f64 = by.0.iter().map(|c| c.recovery_s).sum();
        assert!((lost_s - r.lost_s).abs() <= tol, "{ctx}: lost by cause {by:?}");
        assert!((recovery_s - r.recovery_s).abs() <= tol, "{ctx}: recovery by cause {by:?}");
    }
    for c in Cause::ALL {
        let (f, s) = (fast.1.of(c), slow.1.of(c));
        assert_eq!(f.failures, s.failures, "{ctx}: {} failures", c.name());
        assert!((f.lost_s - s.lost_s).abs() <= tol, "{ctx}: {} lost {f:?} vs {s:?}", c.name());
        assert!((f.recovery_s - s.recovery_s).abs() <= tol, "{ctx}: {} recovery {f:?} vs {s:?}", c.name());
    }
}

/// Both paths on `stream`, each with its split by cause; a panic naming `ctx` where one fails.
/// Without a ledger each path gives the same record.
fn both_paths<S: FailureStream + Clone>(job: &Job, layout: ChunkLayout, stream: &S, ctx: &str) -> (Split, Split) {
    let (mut fast_by, mut slow_by) = (ByCause::default(), ByCause::default());
    let fast = engine::play_periodic_by_cause(job, &layout, &mut stream.clone(), Limits::default(), &mut fast_by);
    let slow = engine::play_by_cause(job, &Periodic { layout }, &mut stream.clone(), Limits::default(), &mut slow_by);
    let (fast, slow) = (fast.unwrap_or_else(|e| panic!("{ctx}: {e}")), slow.unwrap_or_else(|e| panic!("{ctx}: {e}")));
    let plain = engine::play_periodic(job, &layout, &mut stream.clone(), Limits::default());
    assert_eq!(plain, Ok(fast), "{ctx}: the fast path with a ledger");
    let plain = engine::play(job, &Periodic { layout }, &mut stream.clone(), Limits::default());
    assert_eq!(plain, Ok(slow), "{ctx}: the general path with a ledger");
    ((fast, fast_by), (slow, slow_by))
}

#[test]
fn fast_and_general_paths_agree_on_random_streams() {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(2024);
    let mut failures = 0;
    for set in 0..PARAMETER_SETS {
        let (job, interval_s, mtbf_s) = random_job(&mut rng);
        let layout = ChunkLayout::new(job.work_s, interval_s);
        for s in 0..STREAMS {
            let stream = ExponentialStream::new(mtbf_s, stream_rng(set, s, 0));
            let ctx = format!("set {set} stream {s}: {job:?} T = {interval_s}, M = {mtbf_s}");
            // Every other stream's failures come from random causes.
            let (fast_split, slow_split) = if s % 2 == 0 {
                both_paths(&job, layout, &stream, &ctx)
            } else {
                both_paths(&job, layout, &Marked { times: stream, rng: stream_rng(set, s, 1) }, &ctx)
            };
            let (fast, slow) = (fast_split.0, slow_split.0);
            assert!((fast.wall_s - slow.wall_s).abs() <= WALL_RTOL * slow.wall_s, "{ctx}: {fast:?} vs {slow:?}");
            assert_eq!(
                (fast.failures, fast.failures_during_checkpoint, fast.failed_restarts, fast.ignored_failures),
                (slow.failures, slow.failures_during_checkpoint, slow.failed_restarts, slow.ignored_failures),
                "{ctx}"
            );
            assert_eq!((fast.checkpoints, fast.restarts), (slow.checkpoints, slow.restarts), "{ctx}");
            let tol = WALL_RTOL * slow.wall_s;
            assert!((fast.lost_s - slow.lost_s).abs() <= tol, "{ctx}: lost {fast:?} vs {slow:?}");
            assert!((fast.recovery_s - slow.recovery_s).abs() <= tol, "{ctx}: recovery {fast:?} vs {slow:?}");
            causes_agree(&fast_split, &slow_split, tol, &ctx);
            if s % 2 == 0 {
                let nodes = fast_split.1.of(Cause::Nodes);
                assert_eq!(nodes.failures, fast.failures, "{ctx}: a plain stream's failures are its nodes'");
            }
            // Wall time is work done, writes, time lost and recovery, nothing else.
            let writes_s = slow.checkpoints as f64 * job.checkpoint_s;
            if job.on_failure == OnFailure::Restart {
                let sum = job.work_s + writes_s + slow.lost_s + slow.recovery_s;
                assert!((slow.wall_s - sum).abs() <= tol, "{ctx}: wall {} vs parts {sum}", slow.wall_s);
            } else {
                assert!(slow.failures <= 1 + slow.failed_restarts, "{ctx}: the job ends at its first failure");
                assert!(slow.wall_s <= job.work_s + writes_s + slow.lost_s + slow.recovery_s + tol, "{ctx}");
            }
            failures += fast.failures;
        }
    }
    // The parameter sets must exercise failures, not only clean runs.
    assert!(failures > PARAMETER_SETS * STREAMS, "only {failures} failures in all");
}

#[test]
fn failure_exactly_at_a_boundary_is_treated_alike() {
    // Failures exactly at chunk and write boundaries (a ≤ f < b strikes [a, b)).
    let job = Job {
        work_s: 10.0,
        checkpoint_s: 1.0,
        restart_s: 2.0,
        downtime_s: 1.0,
        final_checkpoint: FinalCheckpoint::Written,
        checkpoint_exposure: Exposure::CanFail,
        restart_exposure: Exposure::CanFail,
        on_failure: OnFailure::Restart,
    };
    let layout = ChunkLayout::new(job.work_s, 4.0);
    for times in [vec![4.0], vec![5.0], vec![13.0], vec![4.0, 5.0], vec![4.0, 7.0], vec![9.0, 12.0, 14.0]] {
        let fast = engine::play_periodic(&job, &layout, &mut ListStream::new(times.clone()), Limits::default());
        let slow = engine::play(&job, &Periodic { layout }, &mut ListStream::new(times.clone()), Limits::default());
        assert_eq!(fast.unwrap(), slow.unwrap(), "{times:?}");
    }
}

/// The runner builds a Poisson stream itself, without the `Stream` enum
/// (`runner::Prepared::play_periodic`), and each tape of shared streams does too: it must be
/// exactly the stream `Failures::stream` gives, and give the same records. Checked on every kind of model the example scenarios hold, including a
/// platform of exponential nodes (Poisson by superposition) and models that are not Poisson.
#[test]
fn the_runner_s_own_poisson_stream_is_the_models_stream() {
    use ckptsim::failure::{FailureStream, Stream};
    use ckptsim::runner::{self, FAILURE_STREAM};
    /// Failure times compared per replication.
    const TIMES: usize = 60;
    /// Replications per point.
    const REPS: u64 = 20;
    let exponential_platform = super::inline(
        r#"
[job]
work = "2e5 s"
nodes = 64
checkpoint = "2 min"
restart = "10 min"
[failures]
law = "exponential"
mtbf = "3.1 h"
[policy]
interval = "young"
"#,
    );
    let mut kinds = (0, 0);
    let files = [
        "young-daly.toml",
        "daly-2006.toml",
        "weibull-job.toml",
        "weibull-platform.toml",
        "rack-events.toml",
        "bursts.toml",
    ];
    let scenarios = files.iter().map(|f| super::load(&format!("scenarios/{f}"), &[])).chain([exponential_platform]);
    for sc in scenarios {
        for point in &sc.points {
            let layout = ChunkLayout::new(point.job.work_s, point.interval_s);
            for rep in 0..REPS {
                let mut stream = point.failures.stream(sc.run.seed, rep, point.job.downtime_s);
                match (point.failures.exponential_stream_mtbf_s(), &stream) {
                    (Some(mtbf_s), Stream::Exponential(_)) => {
                        kinds.0 += 1;
                        let mut own = ExponentialStream::new(mtbf_s, stream_rng(sc.run.seed, rep, FAILURE_STREAM));
                        let mut model = stream.clone();
                        for i in 0..TIMES {
                            let (a, b) = (own.next_failure().time_s, model.next_failure().time_s);
                            assert_eq!(
                                a.to_bits(),
                                b.to_bits(),
                                "{}: point {}, rep {rep}, time {i}",
                                sc.name,
                                point.index
                            );
                        }
                    }
                    (None, Stream::Exponential(_)) => {
                        // A Poisson stream merged or thinned elsewhere is not the model's own.
                        panic!("{}: point {} has an exponential stream the runner does not build", sc.name, point.index)
                    }
                    (Some(_), _) => panic!("{}: point {} is not an exponential stream", sc.name, point.index),
                    (None, _) => kinds.1 += 1,
                }
                let expected = engine::play_periodic_on(&point.job, &layout, &mut stream, Limits::default(), &mut ());
                assert_eq!(
                    runner::Prepared::new(point).play_periodic(sc.run.seed, rep),
                    expected,
                    "{}: point {}",
                    sc.name,
                    point.index
                );
            }
        }
    }
    assert!(kinds.0 > 0 && kinds.1 > 0, "both kinds of stream are covered: {kinds:?}");
}

/// Runs `sc` (called `name`) through the runner, which draws a replication's stream once for
/// all the points that share it (the same failure model and downtime) and replays it for
/// each, and checks that its summaries are exactly those of every point building its own
/// stream (`runner::replicate`).
fn assert_shared_streams_replay_exactly(name: &str, sc: &ckptsim::scenario::Scenario) {
    use ckptsim::report::Report;
    use ckptsim::runner::{self, RunResult};
    use ckptsim::stats::Summary;
    const REPS: u64 = 60;
    const SEED: u64 = 11;
    let shared = runner::run_range(sc, SEED, 0..REPS, &|_| {}).unwrap();
    let mut alone = vec![Summary::default(); sc.points.len()];
    let causes = sc.causes();
    for rep in 0..REPS {
        for (p, point) in sc.points.iter().enumerate() {
            let mut by_cause = ByCause::default();
            let record = runner::replicate_by_cause(point, SEED, rep, &mut by_cause).unwrap();
            alone[p].add(point.job.work_s, &record);
            if !causes.is_empty() {
                alone[p].add_causes(&causes, point.job.work_s, &by_cause);
            }
        }
    }
    let json = |summaries| Report::new(sc, &RunResult { replications: REPS, seed: SEED, summaries }).json();
    assert_eq!(json(shared), json(alone), "{name}");
}

/// The runner's shared streams ([`assert_shared_streams_replay_exactly`]) for every kind of
/// stream, for points that differ in their downtime (a job-renewal stream depends on it),
/// past the most distinct streams the runner groups (64), and for a replayed failure log
/// (`lanl-18.toml` on the synthetic log).
#[test]
fn points_sharing_a_stream_replay_it_exactly() {
    let many_mtbfs: Vec<String> = (0..70).map(|i| format!("\"{} h\"", 2 + i)).collect();
    let inline = [
        // Job renewal: the stream depends on the downtime, swept here.
        "[job]\nwork = \"2e5 s\"\ncheckpoint = \"2 min\"\nrestart = \"10 min\"\n\
         [failures]\nlaw = \"weibull\"\nshape = 0.7\nmtbf = \"3.1 h\"\nrenewal = \"job\"\nstart = \"fresh\"\n\
         [sweep]\n\"job.downtime\" = [\"0 s\", \"5 min\"]\n\"policy.factor\" = [0.5, 1, 2]\n"
            .to_string(),
        // 140 points of 70 streams: the first 64 are shared, the last 6 are not.
        format!(
            "[job]\nwork = \"2e5 s\"\ncheckpoint = \"2 min\"\nrestart = \"10 min\"\n[failures]\nmtbf = \"3 h\"\n\
             [sweep]\n\"failures.mtbf\" = [{}]\n\"policy.factor\" = [1, 2]\n",
            many_mtbfs.join(", ")
        ),
    ];
    let mut scenarios: Vec<(String, ckptsim::scenario::Scenario)> = [
        "scenarios/young-daly.toml",
        "scenarios/weibull-platform.toml",
        "scenarios/lemon-nodes.toml",
        "scenarios/rack-events.toml",
        "scenarios/bursts.toml",
    ]
    .iter()
    .map(|rel| (rel.to_string(), super::load(rel, &[])))
    .collect();
    scenarios.extend(inline.iter().enumerate().map(|(i, text)| (format!("inline {i}"), super::inline(text))));
    let set = format!("failures.trace.file={}", super::synthetic_log().display());
    scenarios
        .push(("scenarios/lanl-18.toml on the synthetic log".into(), super::load("scenarios/lanl-18.toml", &[&set])));
    for (name, sc) in &scenarios {
        assert_shared_streams_replay_exactly(name, sc);
    }
}

/// The same for `lanl-18.toml` on the LANL log it names.
#[test]
#[ignore = "needs ../shared/data"]
fn points_sharing_a_lanl_replay_replay_it_exactly() {
    super::shared_data(super::LANL_LOG);
    assert_shared_streams_replay_exactly("scenarios/lanl-18.toml", &super::load("scenarios/lanl-18.toml", &[]));
}

/// End to end: the equal chunking W/148 of 2·10⁵ s (an interval whose 148 chunks fall an ulp
/// short of the work) writes 148 checkpoints, and its simulated overhead is the exact one.
/// It wrote 149, the last after a chunk of 3·10⁻¹¹ s: 0.0006 more overhead.
#[test]
fn an_equal_chunking_writes_its_count_of_checkpoints() {
    let k = 148_u64;
    let interval_s = 2e5 / k as f64;
    assert!(2e5 - (2e5 / interval_s).floor() * interval_s > 0.0, "the premise: k·T falls short of W");
    let sc = super::inline(&format!(
        "[job]\nwork = \"2e5 s\"\ncheckpoint = \"2 min\"\nrestart = \"10 min\"\n[failures]\nmtbf = \"1e12 h\"\n\
         [policy]\ninterval = \"{interval_s:?} s\"\n"
    ));
    let r = super::simulate(&sc, 10, 1);
    let s = &r.summaries[0];
    assert_eq!(s.totals.checkpoints, 10 * k);
    let e = s.overhead.estimate();
    assert!((e.mean - k as f64 * 120.0 / 2e5).abs() < 1e-9, "{}", e.mean);
}
