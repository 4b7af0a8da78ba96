//! Issue #4 acceptance: correlated failures. Poisson node and rack events against Daly with
//! M = 1/λ_job for every placement, the naive estimate shown wrong, Hawkes bursts' rate and
//! cluster size.

use super::{load, simulate};
use ckptsim::analytic;
use ckptsim::failure::{Burst, BurstStream, ExponentialStream, FailureScope, FailureStream, Placement, Stream};
use ckptsim::report;
use ckptsim::runner::stream_rng;

/// |simulated − model| must stay below this many standard errors.
const Z_MAX: f64 = 4.0;
/// Immigrants in the Hawkes test.
const HAWKES_IMMIGRANTS: u64 = 1_000_000;

#[test]
fn poisson_node_and_rack_events_match_daly_for_every_placement() {
    let sc = load("scenarios/rack-events.toml", &[]);
    let result = simulate(&sc, 3000, 17);
    for (p, s) in sc.points.iter().zip(&result.summaries) {
        let (name, exact) = report::model_overhead(p).expect("Poisson streams have a closed form");
        assert_eq!(name, report::EXACT_EXPONENTIAL);
        let e = s.overhead.estimate();
        let z = (e.mean - exact) / e.se;
        assert!(z.abs() < Z_MAX, "{:?}: simulated {} ± {}, exact {exact}, z = {z:.2}", p.labels, e.mean, e.se);
    }
}

#[test]
fn job_rate_is_nodes_plus_touched_racks() {
    let sc = load("scenarios/rack-events.toml", &["policy.factor=1"]);
    let year_s = 365.0 * 86_400.0;
    let (node_rate, rack_rate) = (1.0 / (5.0 * year_s), 1.0 / (73.0 * 86_400.0));
    for p in &sc.points {
        let racks = match p.failures.placement {
            Placement::Packed => 8.0,
            Placement::Spread => 64.0,
            Placement::Random => continue,
        };
        let expected = 1.0 / (256.0 * node_rate + racks * rack_rate);
        assert!((p.failures.mtbf_s() - expected).abs() < 1e-9 * expected, "{:?}", p.labels);
    }
}

#[test]
fn counting_rack_events_as_node_failures_is_wrong_for_packed_jobs() {
    // The naive model: every node fails at λ_n + λ_r, so λ = n(λ_n + λ_r).
    let sc = load("scenarios/rack-events.toml", &["job.placement=packed"]);
    let result = simulate(&sc, 3000, 18);
    let year_s = 365.0 * 86_400.0;
    let naive_mtbf_s = 1.0 / (256.0 * (1.0 / (5.0 * year_s) + 1.0 / (73.0 * 86_400.0)));
    for (p, s) in sc.points.iter().zip(&result.summaries) {
        let e = s.overhead.estimate();
        let naive = analytic::finite_work_overhead(&p.job, p.interval_s, naive_mtbf_s);
        assert!((e.mean - naive) / e.se < -10.0, "{:?}: naive {naive} vs simulated {}", p.labels, e.mean);
        assert!(naive > 4.0 * e.mean, "the naive estimate is several times too high: {naive} vs {}", e.mean);
    }
}

#[test]
fn hawkes_rate_and_cluster_size() {
    let mtbf_s = 3600.0;
    for branching in [0.3, 0.6, 0.85] {
        let base = Stream::Exponential(ExponentialStream::new(mtbf_s, stream_rng(1, 0, 0)));
        let mut s = BurstStream::new(base, Burst { branching, decay_s: 600.0 }, stream_rng(1, 0, 1));
        let (mut immigrants, mut events, mut t) = (0u64, 0u64, 0.0);
        while immigrants < HAWKES_IMMIGRANTS {
            let f = s.next_failure();
            events += 1;
            if f.scope != FailureScope::Burst {
                immigrants += 1;
            }
            t = f.time_s;
        }
        // Relative standard errors over N immigrants: a cluster (the total progeny of a
        // Poisson(n) branching process) has mean 1/(1 − n) and variance n/(1 − n)³, so the mean
        // cluster size is off by √(n/(1 − n)/N); the rate, events over the time of N
        // immigrants (a Gamma(N) time), by √((1 + n/(1 − n))/N) = √(1/((1 − n)N)).
        let n_imm = immigrants as f64;
        let cluster_rse = (branching / (1.0 - branching) / n_imm).sqrt();
        let rate_rse = (1.0 / ((1.0 - branching) * n_imm)).sqrt();
        let rate = events as f64 / t;
        let expected_rate = 1.0 / mtbf_s / (1.0 - branching);
        let z = (rate / expected_rate - 1.0) / rate_rse;
        assert!(z.abs() < Z_MAX, "n = {branching}: rate {rate} vs {expected_rate}, z = {z:.2}");
        let cluster = events as f64 / immigrants as f64;
        let expected_cluster = 1.0 / (1.0 - branching);
        let z = (cluster / expected_cluster - 1.0) / cluster_rse;
        assert!(z.abs() < Z_MAX, "n = {branching}: cluster {cluster} vs {expected_cluster}, z = {z:.2}");
    }
}

#[test]
fn bursts_favour_the_cluster_rate_interval() {
    // Young at the cluster rate (27.28 min) beats Young at the failure rate (17.25 min).
    let sc = load("scenarios/bursts.toml", &[]);
    let result = simulate(&sc, 2000, 4);
    let at = |label: &str| {
        let i = sc.points.iter().position(|p| p.labels[0] == label).unwrap();
        let s = &result.summaries[i];
        (s.overhead.estimate().mean, s.overhead.estimate().se)
    };
    let ((cluster, se_c), (failure, se_f)) = (at("27.28 min"), at("17.25 min"));
    // Significantly: the SE of the difference of independent means bounds the paired one
    // (the points replay the same failures, so their overheads are positively correlated).
    let se = se_c.hypot(se_f);
    assert!(
        failure - cluster > Z_MAX * se,
        "cluster-rate interval {cluster} ± {se_c} vs failure-rate interval {failure} ± {se_f} (SE): not {Z_MAX} SE apart"
    );
}
