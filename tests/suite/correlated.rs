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

/// The least factor by which the naive estimate exceeds the packed job's overhead. Counting
/// every rack event as a failure of each of the 256 nodes, n·(λ_n + λ_r), makes the job's
/// rate 14.6 times its true n·λ_n + 8·λ_r, and the closed forms at that rate give 4.65, 9.45
/// and 15.7 times the exact overhead at policy factors 0.5, 1 and 2; 4 stays below the least
/// of them with room for the simulated mean's upper confidence bound (mean + Z_MAX·SE).
const NAIVE_FACTOR: f64 = 4.0;

/// The naive model (every node fails at λ_n + λ_r, so λ = n(λ_n + λ_r)) is rejected by the
/// simulation of a packed job: its overhead lies more than [`Z_MAX`] standard errors above the
/// simulated mean (the level at which the exact model is accepted above), and it is more than
/// [`NAIVE_FACTOR`] times the simulated overhead even at its upper confidence bound.
#[test]
fn counting_rack_events_as_node_failures_is_wrong_for_packed_jobs() {
    let sc = load("scenarios/rack-events.toml", &["job.placement=packed"]);
    let result = simulate(&sc, 3000, 18);
    let year_s = 365.0 * 86_400.0;
    let naive_mtbf_s = 1.0 / (256.0 * (1.0 / (5.0 * year_s) + 1.0 / (73.0 * 86_400.0)));
    for (p, s) in sc.points.iter().zip(&result.summaries) {
        let e = s.overhead.estimate();
        let naive = analytic::finite_work_overhead(&p.job, p.interval_s, naive_mtbf_s);
        // The factor holds between the closed forms, without noise: the derivation above.
        let (_, exact) = report::model_overhead(p).expect("Poisson streams have a closed form");
        assert!(naive > NAIVE_FACTOR * exact, "{:?}: naive {naive} vs exact {exact}", p.labels);
        let z = (naive - e.mean) / e.se;
        assert!(z > Z_MAX, "{:?}: naive {naive} vs simulated {} ± {}, z = {z:.2}", p.labels, e.mean, e.se);
        let upper = e.mean + Z_MAX * e.se;
        assert!(
            naive > NAIVE_FACTOR * upper,
            "{:?}: the naive estimate {naive} is not {NAIVE_FACTOR} times the simulated {} ± {} (SE)",
            p.labels,
            e.mean,
            e.se
        );
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

/// `policy.rate = "clusters"` puts the mean time between burst clusters, M/(1 − n), in the
/// rules' formulas: Young is then the 27.28 min the bursts scenario writes by hand, Daly's
/// rules move alike, a model without bursts is unchanged, fixed intervals ignore it; and the
/// paired difference shows the cluster-rate Young beating the failure-rate Young.
#[test]
fn the_cluster_rate_rule_follows_the_clusters() {
    let m_s = 3.1 * 3600.0;
    let n = 0.6;
    let base = ["policy.interval=young", "policy.rate=clusters"];
    let sc = load("scenarios/bursts.toml", &base);
    for p in &sc.points {
        let want = analytic::young_interval_s(120.0, m_s);
        assert!((p.interval_s - want).abs() < 1e-9 * want, "{} vs {want}", p.interval_s);
        // The job's MTBF counts every failure: the rule's is M, the job's M·(1 − n).
        assert!((p.failures.mtbf_s() - m_s * (1.0 - n)).abs() < 1e-6, "{}", p.failures.mtbf_s());
    }
    let daly = load("scenarios/bursts.toml", &["policy.interval=daly-high-order", "policy.rate=clusters"]);
    let want = analytic::daly_high_order_interval_s(120.0, m_s);
    assert!((daly.points[0].interval_s - want).abs() < 1e-9 * want);
    let fixed = load("scenarios/bursts.toml", &["policy.interval=27 min", "policy.rate=clusters"]);
    assert_eq!(fixed.points[0].interval_s, 27.0 * 60.0);
    let plain = load("scenarios/young-daly.toml", &["policy.rate=clusters"]);
    let failures = load("scenarios/young-daly.toml", &[]);
    assert!(plain.points.iter().zip(&failures.points).all(|(a, b)| a.interval_s == b.interval_s));
    // Without bursts the two rates are one, and the rule is named as usual.
    let plain_csv = ckptsim::report::Report::new(&plain, &simulate(&plain, 2, 1)).csv();
    assert!(plain_csv.contains(",young,") && !plain_csv.contains("clusters"), "{plain_csv}");
    // Paired on the same failures: the cluster-rate Young costs less, beyond 4 SE.
    let both = super::inline(&format!(
        "{}\n[run]\nbaseline = 0\n[sweep]\n\"policy.rate\" = [\"failures\", \"clusters\"]\n",
        BURST_JOB
    ));
    let result = simulate(&both, 2000, 5);
    let d = result.summaries[1].overhead_diff.estimate();
    assert!(d.mean < -Z_MAX * d.se, "clusters − failures: {} ± {} (SE)", d.mean, d.se);
    let report = ckptsim::report::Report::new(&both, &result).csv();
    assert!(report.contains("young (clusters)"), "{report}");
}

/// The bursts scenario's job with Young's rule and no sweep.
const BURST_JOB: &str = r#"
[job]
work = "2e5 s"
checkpoint = "2 min"
restart = "10 min"
[failures]
law = "exponential"
mtbf = "3.1 h"
renewal = "job"
[failures.burst]
branching = 0.6
decay = "10 min"
[policy]
interval = "young"
"#;

/// Clusters in the Hawkes kernel test.
const HAWKES_CLUSTERS: u64 = 200_000;

/// The Hawkes kernel (MODELS.md §3): with immigrants far apart, each cluster's events follow
/// its immigrant with the expected density Σₖ nᵏ·Gamma(k, β)(t) = nβ·e^{−β(1−n)t}, so their
/// mean delay after the immigrant is 1/(β(1 − n)) and a fraction e^{−β(1−n)t} of them come
/// later than t. A wrong kernel (delays of mean other than 1/β, or children without children
/// of their own) moves these; the rate and cluster size alone do not see the delays.
#[test]
fn hawkes_clusters_have_the_exponential_kernel() {
    let decay_s = 600.0;
    // Immigrants 10⁹ decays apart: clusters practically never overlap.
    let mtbf_s = 1e9 * decay_s;
    for branching in [0.3, 0.7] {
        let base = Stream::Exponential(ExponentialStream::new(mtbf_s, stream_rng(2, 0, 0)));
        let mut s = BurstStream::new(base, Burst { branching, decay_s }, stream_rng(2, 0, 1));
        // Per cluster: its descendants' count, summed delay, and count later than `late_s`.
        let late_s = 2.0 * decay_s;
        let (mut count, mut delay, mut late) = (vec![], vec![], vec![]);
        let mut first = s.next_failure();
        assert_ne!(first.scope, FailureScope::Burst);
        while (count.len() as u64) < HAWKES_CLUSTERS {
            let (mut c, mut d, mut l) = (0.0, 0.0, 0.0);
            let next = loop {
                let f = s.next_failure();
                if f.scope != FailureScope::Burst {
                    break f;
                }
                let after_s = f.time_s - first.time_s;
                assert!(after_s >= 0.0 && after_s < 1e6 * decay_s, "a child far from its immigrant");
                c += 1.0;
                d += after_s;
                l += f64::from(u8::from(after_s > late_s));
            };
            count.push(c);
            delay.push(d);
            late.push(l);
            first = next;
        }
        // Ratios of sums over iid clusters, with delta-method standard errors.
        let ratio = |num: &[f64], den: &[f64]| {
            let n = num.len() as f64;
            let (sx, su) = (num.iter().sum::<f64>(), den.iter().sum::<f64>());
            let r = sx / su;
            let var = num.iter().zip(den).map(|(x, u)| (x - r * u).powi(2)).sum::<f64>() / (n - 1.0);
            (r, (var / n).sqrt() / (su / n))
        };
        let beta = 1.0 / decay_s;
        let (mean_delay, se) = ratio(&delay, &count);
        let want = 1.0 / (beta * (1.0 - branching));
        let z = (mean_delay - want) / se;
        assert!(z.abs() < Z_MAX, "n = {branching}: mean delay {mean_delay} ± {se} vs {want}, z = {z:.2}");
        let (late_share, se) = ratio(&late, &count);
        let want = (-beta * (1.0 - branching) * late_s).exp();
        let z = (late_share - want) / se;
        assert!(z.abs() < Z_MAX, "n = {branching}: share after {late_s} s {late_share} ± {se} vs {want}, z = {z:.2}");
    }
}

/// Trials of the direct k-of-N sampling.
const HIT_TRIALS: u64 = 100_000;

/// An event that takes k random nodes of N hits an n-node job with probability
/// 1 − C(N−n, k)/C(N, k) (MODELS.md §3): the simulation thins the events by this value, so
/// the formula is checked here against drawing the k nodes and looking at them, for every
/// placement of the job (the probability must not depend on where the job sits).
#[test]
fn random_event_hit_probability_matches_drawing_the_nodes() {
    use ckptsim::failure::topology::{Topology, random_event_hit_probability, sample_distinct, touched};
    let topo = Topology { racks: 6, nodes_per_rack: 8, racks_per_switch: None, racks_per_power: None };
    let platform = topo.nodes();
    let mut rng = stream_rng(3, 0, 0);
    for (job_nodes, k) in [(1, 1), (5, 3), (12, 4), (20, 2), (30, 10), (40, 8), (40, 9)] {
        let exact = random_event_hit_probability(platform, job_nodes, k);
        for placement in [Placement::Packed, Placement::Spread, Placement::Random] {
            let hits = (0..HIT_TRIALS)
                .filter(|_| {
                    // The job's nodes: packed 0..n, spread round-robin over racks, or drawn.
                    let mine: Vec<u64> = match placement {
                        Placement::Packed => (0..job_nodes).collect(),
                        Placement::Spread => {
                            (0..job_nodes).map(|i| (i % topo.racks) * topo.nodes_per_rack + i / topo.racks).collect()
                        }
                        Placement::Random => sample_distinct(platform, job_nodes, &mut rng),
                    };
                    let mut held = vec![false; platform as usize];
                    mine.iter().for_each(|&x| held[x as usize] = true);
                    sample_distinct(platform, k, &mut rng).iter().any(|&x| held[x as usize])
                })
                .count();
            let got = hits as f64 / HIT_TRIALS as f64;
            let se = (exact * (1.0 - exact) / HIT_TRIALS as f64).sqrt();
            // A certain hit (k + n > N) has no spread: it must be exact.
            let z = if se == 0.0 { if got == exact { 0.0 } else { f64::INFINITY } } else { (got - exact) / se };
            assert!(z.abs() < Z_MAX, "n = {job_nodes}, k = {k}, {placement:?}: {got} vs {exact}, z = {z:.2}");
        }
        // The spread layout above is the one `touched` counts racks for.
        let spread = touched(&topo, job_nodes, Placement::Spread, &mut rng);
        assert_eq!(spread.of(ckptsim::failure::Level::Rack), job_nodes.min(topo.racks));
    }
}

/// Streams in the composite-rate test.
const COMPOSITE_STREAMS: u64 = 10_000;

/// The whole merged stream of [`Failures::stream`](ckptsim::failure::Failures::stream): a
/// stationary Weibull platform, non-exponential domain events at every level (rack, switch,
/// power, system), gamma k-of-N events, for each placement, with and without bursts. Every
/// part is a stationary renewal process, so without bursts E N(0, t] = t·λ exactly,
/// λ = 1/`mtbf_s()` (MODELS.md §3, λ_job = n·λ_n + g·λ_r + …; for random placements
/// averaged over the touched racks). Bursts started empty at time 0 on a base of rate λ₀
/// have intensity λ₀/(1 − n) − λ₀n/(1 − n)·e^{−β(1−n)s}, so E N(0, t] = λ₀t/(1 − n) −
/// λ₀n(1 − e^{−β(1−n)t})/(β(1 − n)²), exactly, for any stationary base.
#[test]
fn merged_streams_have_the_exact_expected_count() {
    use ckptsim::failure::topology::Topology;
    use ckptsim::failure::{DomainEvents, FailureModel, Failures, Law, Level, NodeClass, RandomEvents, Sampler, Start};
    let day_s = 86_400.0;
    // 12 racks of 16; switches over 5 racks (the last holds 2), power over 4.
    let topo = Topology { racks: 12, nodes_per_rack: 16, racks_per_switch: Some(5), racks_per_power: Some(4) };
    let racks_and_system = vec![
        DomainEvents { level: Level::Rack, law: Law::lognormal(60.0 * day_s, 1.0).unwrap(), start: Start::Stationary },
        DomainEvents { level: Level::System, law: Law::exponential(200.0 * day_s).unwrap(), start: Start::Stationary },
    ];
    let every_level = vec![
        DomainEvents { level: Level::Rack, law: Law::exponential(90.0 * day_s).unwrap(), start: Start::Stationary },
        DomainEvents { level: Level::Switch, law: Law::weibull(50.0 * day_s, 0.6).unwrap(), start: Start::Stationary },
        DomainEvents { level: Level::Power, law: Law::gamma(70.0 * day_s, 2.0).unwrap(), start: Start::Stationary },
    ];
    // The exact mean over random placements needs racks as the only domains below the
    // system; the other levels are checked on the fixed placements.
    let cases = [
        (Placement::Packed, &racks_and_system),
        (Placement::Spread, &racks_and_system),
        (Placement::Random, &racks_and_system),
        (Placement::Packed, &every_level),
        (Placement::Spread, &every_level),
    ];
    for (placement, domains) in cases {
        for burst in [None, Some(Burst { branching: 0.5, decay_s: 0.5 * day_s })] {
            let nodes = 40;
            let failures = Failures {
                base: FailureModel::Platform {
                    classes: vec![NodeClass { nodes, law: Law::weibull(400.0 * day_s, 0.7).unwrap() }],
                    start: Start::Stationary,
                    sampler: Sampler::Cohort,
                },
                topology: Some(topo.clone()),
                placement,
                job_nodes: nodes,
                domains: domains.clone(),
                random: Some(RandomEvents {
                    nodes: 20,
                    law: Law::gamma(5.0 * day_s, 0.5).unwrap(),
                    start: Start::Stationary,
                }),
                burst,
            };
            let rate = 1.0 / failures.mtbf_s();
            if placement != Placement::Random {
                // The rate by hand: packed, the 40 nodes fill racks 0–2 (switch 0, power 0);
                // spread, they touch all 12 racks, 3 switches (5 + 5 + 2 racks) and 3 power
                // domains; a 20-node event hits with 1 − C(152, 20)/C(192, 20).
                let (racks, switches, powers) =
                    if placement == Placement::Packed { (3.0, 1.0, 1.0) } else { (12.0, 3.0, 3.0) };
                let miss: f64 = (0..20).map(|i| (152.0 - i as f64) / (192.0 - i as f64)).product();
                let mut want = 40.0 / (400.0 * day_s) + (1.0 - miss) / (5.0 * day_s);
                for d in domains.iter() {
                    let touched = match d.level {
                        Level::Rack => racks,
                        Level::Switch => switches,
                        Level::Power => powers,
                        Level::System => 1.0,
                    };
                    want += touched / d.law.mean_s();
                }
                want /= 1.0 - burst.map_or(0.0, |b| b.branching);
                assert!((rate / want - 1.0).abs() < 1e-12, "{placement:?}: λ = {rate} vs {want} by hand");
            }
            // About 20 failures per window.
            let window_s = 20.0 / rate;
            let counts: Vec<f64> = (0..COMPOSITE_STREAMS)
                .map(|rep| {
                    let mut stream = failures.stream(5, rep, 0.0);
                    let (mut n, mut last) = (0.0, 0.0);
                    loop {
                        let t = stream.next_failure().time_s;
                        assert!(t >= last, "the merged stream goes back in time: {t} after {last}");
                        last = t;
                        if t >= window_s {
                            break n;
                        }
                        n += 1.0;
                    }
                })
                .collect();
            let n = counts.len() as f64;
            let mean = counts.iter().sum::<f64>() / n;
            let se = (counts.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / (n - 1.0) / n).sqrt();
            let exact = match burst {
                None => rate * window_s,
                Some(b) => {
                    let (nb, beta) = (b.branching, 1.0 / b.decay_s);
                    let base = rate * (1.0 - nb);
                    base * window_s / (1.0 - nb)
                        - base * nb * -(-beta * (1.0 - nb) * window_s).exp_m1() / (beta * (1.0 - nb).powi(2))
                }
            };
            let z = (mean - exact) / se;
            let levels: Vec<&str> = domains.iter().map(|d| d.level.name()).collect();
            assert!(
                z.abs() < Z_MAX,
                "{placement:?} {levels:?}, bursts {burst:?}: {mean} ± {se} failures in the window vs {exact}, z = {z:.2}"
            );
        }
    }
}

/// Streams drawn in the fresh-domain test.
const DOMAIN_START_STREAMS: u64 = 40_000;

/// `start = "fresh"` on a domain level: g new domains of law F have their first event after
/// t with probability S(t)^g; in equilibrium (the default) with S_e(t)^g, S_e the residual
/// life's survival (MODELS.md §2). A 20-node packed job on racks of 16 touches g = 2 racks;
/// node failures are made negligible (job MTBF 10¹⁵ s). Under Weibull k = 0.5 (infant
/// mortality) the two differ by far more than the test's band at every t checked, so each
/// start is told from the other.
#[test]
fn fresh_domains_start_new() {
    use ckptsim::failure::topology::Topology;
    use ckptsim::failure::{DomainEvents, FailureModel, Failures, Law, Level, Start};
    let day_s = 86_400.0;
    let law = Law::weibull(10.0 * day_s, 0.5).unwrap();
    let topo = Topology { racks: 4, nodes_per_rack: 16, racks_per_switch: None, racks_per_power: None };
    let ts_s = [0.1 * day_s, day_s, 5.0 * day_s];
    let g = 2;
    let fresh_s: Vec<f64> = ts_s.iter().map(|&t| law.survival(t).powi(g)).collect();
    let stationary_s: Vec<f64> = ts_s.iter().map(|&t| law.equilibrium_survival_cdf(t).0.powi(g)).collect();
    for start in [Start::Fresh, Start::Stationary] {
        let failures = Failures {
            base: FailureModel::Poisson { mtbf_s: 1e15 },
            topology: Some(topo.clone()),
            placement: Placement::Packed,
            job_nodes: 20,
            domains: vec![DomainEvents { level: Level::Rack, law: law.clone(), start }],
            random: None,
            burst: None,
        };
        let firsts: Vec<f64> =
            (0..DOMAIN_START_STREAMS).map(|rep| failures.stream(11, rep, 0.0).next_failure().time_s).collect();
        let (want, other) = if start == Start::Fresh { (&fresh_s, &stationary_s) } else { (&stationary_s, &fresh_s) };
        for (k, &t) in ts_s.iter().enumerate() {
            let got = firsts.iter().filter(|&&x| x > t).count() as f64 / DOMAIN_START_STREAMS as f64;
            let se = (want[k] * (1.0 - want[k]) / DOMAIN_START_STREAMS as f64).sqrt();
            let z = (got - want[k]) / se;
            assert!(z.abs() < Z_MAX, "{start:?}, t = {t} s: P(first > t) = {got} vs {}, z = {z:.2}", want[k]);
            assert!(
                (other[k] - want[k]).abs() > 2.0 * Z_MAX * se,
                "t = {t} s: the two starts are too close to be told apart ({} vs {})",
                want[k],
                other[k]
            );
        }
    }
    assert!(
        Failures {
            base: FailureModel::Poisson { mtbf_s: 1e15 },
            topology: Some(topo),
            placement: Placement::Packed,
            job_nodes: 20,
            domains: vec![DomainEvents { level: Level::Rack, law, start: Start::Fresh }],
            random: None,
            burst: None,
        }
        .describe()
        .ends_with("; rack weibull(shape 0.5) fresh"),
        "the failure model names a fresh domain start"
    );
}

/// The scenario key `start` of a domain table reaches the stream: swept over both starts, a
/// fresh Weibull k = 0.5 rack level (infant mortality) strikes the job more often than a
/// stationary one, by more than 4 SE of the paired difference, and the point's failure model
/// says so. Without the key the start is stationary, as before the key existed.
#[test]
fn scenario_domain_start_reaches_the_stream() {
    let text = "[topology]\nracks = 4\nnodes_per_rack = 16\n[job]\nwork = \"10 d\"\nnodes = 20\n\
                checkpoint = \"2 min\"\nrestart = \"5 min\"\n[failures]\nnode_mtbf = \"5 y\"\n\
                [failures.rack]\nlaw = \"weibull\"\nshape = 0.5\nmtbf = \"10 d\"\n[policy]\ninterval = \"young\"\n";
    let plain = super::inline(text);
    assert_eq!(plain.points[0].failures.domains[0].start, ckptsim::failure::Start::Stationary);
    let swept = super::inline(&format!("{text}[sweep]\n\"failures.rack.start\" = [\"fresh\", \"stationary\"]\n"));
    assert!(swept.points[0].failures.describe().ends_with("rack weibull(shape 0.5) fresh"));
    assert_eq!(
        swept.points[1].failures.describe(),
        "nodes 20×exponential; packed on 4×16; rack weibull(shape 0.5) stationary"
    );
    let r = simulate(&swept, 4000, 3);
    let (fresh, stationary) = (r.summaries[0].overhead.estimate(), r.summaries[1].overhead.estimate());
    // Paired points share streams only through the nodes; the rack streams differ, so the
    // difference's SE is at most the sum of the two.
    let se = fresh.se + stationary.se;
    assert!(
        fresh.mean - stationary.mean > Z_MAX * se,
        "fresh racks {} vs stationary {} (SE bound {se})",
        fresh.mean,
        stationary.mean
    );
}

/// Streams drawn in the fresh k-of-N test.
const RANDOM_START_STREAMS: u64 = 40_000;

/// `start = "fresh"` on `[failures.random]`: the platform's k-of-N process is new at time 0,
/// so its first event comes after a whole life, P(first > t) = S(t); in equilibrium (the
/// default) after a residual life, S_e(t) (MODELS.md §2), as for a domain level. Events of
/// k = 48 nodes on a platform of 64 always strike a 20-node job (k + n > N), so the job's
/// first failure is the process's first event; node failures are made negligible (job MTBF
/// 10¹⁵ s). Under Weibull k = 0.5 the two survivals differ by far more than the test's band
/// at every t checked, and each start's sample lies more than [`Z_MAX`] SE from the other
/// start's survival: a stream that ignored the key would fail. With an exponential law the
/// two starts are the same process, and draw the same stream.
#[test]
fn fresh_random_events_start_new() {
    use ckptsim::failure::topology::Topology;
    use ckptsim::failure::{FailureModel, Failures, Law, RandomEvents, Start};
    let day_s = 86_400.0;
    let law = Law::weibull(10.0 * day_s, 0.5).unwrap();
    let topo = Topology { racks: 4, nodes_per_rack: 16, racks_per_switch: None, racks_per_power: None };
    let ts_s = [0.1 * day_s, day_s, 5.0 * day_s];
    let fresh_s: Vec<f64> = ts_s.iter().map(|&t| law.survival(t)).collect();
    let stationary_s: Vec<f64> = ts_s.iter().map(|&t| law.equilibrium_survival_cdf(t).0).collect();
    let failures = |law: &Law, start| Failures {
        base: FailureModel::Poisson { mtbf_s: 1e15 },
        topology: Some(topo.clone()),
        placement: Placement::Packed,
        job_nodes: 20,
        domains: vec![],
        random: Some(RandomEvents { nodes: 48, law: law.clone(), start }),
        burst: None,
    };
    for start in [Start::Fresh, Start::Stationary] {
        let failures = failures(&law, start);
        assert_eq!(failures.random_hit(), 1.0, "every event strikes the job");
        let firsts: Vec<f64> =
            (0..RANDOM_START_STREAMS).map(|rep| failures.stream(13, rep, 0.0).next_failure().time_s).collect();
        let (want, other) = if start == Start::Fresh { (&fresh_s, &stationary_s) } else { (&stationary_s, &fresh_s) };
        for (k, &t) in ts_s.iter().enumerate() {
            let got = firsts.iter().filter(|&&x| x > t).count() as f64 / RANDOM_START_STREAMS as f64;
            let se = (want[k] * (1.0 - want[k]) / RANDOM_START_STREAMS as f64).sqrt();
            let z = (got - want[k]) / se;
            assert!(z.abs() < Z_MAX, "{start:?}, t = {t} s: P(first > t) = {got} vs {}, z = {z:.2}", want[k]);
            assert!(
                (other[k] - want[k]).abs() > 2.0 * Z_MAX * se,
                "t = {t} s: the two starts are too close to be told apart ({} vs {})",
                want[k],
                other[k]
            );
            // The z a stream that ignored the key (drawing the other start) would be judged by.
            let se_other = (other[k] * (1.0 - other[k]) / RANDOM_START_STREAMS as f64).sqrt();
            let z_other = (got - other[k]) / se_other;
            assert!(
                z_other.abs() > Z_MAX,
                "{start:?}, t = {t} s: P(first > t) = {got} is also within {Z_MAX} SE of the other start's {}",
                other[k]
            );
        }
    }
    assert!(
        failures(&law, Start::Fresh).describe().ends_with("; 48 random nodes weibull(shape 0.5) fresh"),
        "the failure model names a fresh k-of-N start"
    );
    assert!(failures(&law, Start::Stationary).describe().ends_with("; 48 random nodes weibull(shape 0.5) stationary"));
    // Exponential: no age, one process whatever the start, drawn alike; no "fresh" in its name.
    let exponential = Law::exponential(10.0 * day_s).unwrap();
    let (fresh, stationary) = (failures(&exponential, Start::Fresh), failures(&exponential, Start::Stationary));
    assert_eq!(fresh.describe(), stationary.describe());
    for rep in 0..100 {
        let (mut a, mut b) = (fresh.stream(13, rep, 0.0), stationary.stream(13, rep, 0.0));
        for _ in 0..5 {
            assert_eq!(a.next_failure().time_s.to_bits(), b.next_failure().time_s.to_bits(), "rep {rep}");
        }
    }
}

/// The scenario key `start` of `[failures.random]` reaches the stream: swept over both
/// starts, fresh Weibull k = 0.5 k-of-N events (infant mortality: the job fails about 3.4
/// times per run against 2.1) strike the job more often than stationary ones, by more than
/// 4 SE of the paired difference, and the point's failure model says so.
/// Without the key the start is stationary, as before the key existed.
#[test]
fn scenario_random_start_reaches_the_stream() {
    let text = "[topology]\nracks = 4\nnodes_per_rack = 16\n[job]\nwork = \"10 d\"\nnodes = 20\n\
                checkpoint = \"2 min\"\nrestart = \"5 min\"\n[failures]\nnode_mtbf = \"5 y\"\n\
                [failures.random]\nnodes = 8\nlaw = \"weibull\"\nshape = 0.5\nmtbf = \"5 d\"\n\
                [policy]\ninterval = \"young\"\n";
    let plain = super::inline(text);
    assert_eq!(plain.points[0].failures.random.as_ref().unwrap().start, ckptsim::failure::Start::Stationary);
    let swept = super::inline(&format!("{text}[sweep]\n\"failures.random.start\" = [\"fresh\", \"stationary\"]\n"));
    assert!(swept.points[0].failures.describe().ends_with("8 random nodes weibull(shape 0.5) fresh"));
    assert!(swept.points[1].failures.describe().ends_with("8 random nodes weibull(shape 0.5) stationary"));
    let r = simulate(&swept, 4000, 3);
    let (fresh, stationary) = (r.summaries[0].overhead.estimate(), r.summaries[1].overhead.estimate());
    // Paired points share streams only through the nodes; the k-of-N streams differ, so the
    // difference's SE is at most the sum of the two.
    let se = fresh.se + stationary.se;
    assert!(
        fresh.mean - stationary.mean > Z_MAX * se,
        "fresh k-of-N events {} vs stationary {} (SE bound {se})",
        fresh.mean,
        stationary.mean
    );
}

/// Placements drawn in the check of the random-placement MTBF.
const PLACEMENT_SAMPLES: u64 = 20_000;

/// The job's MTBF under random placement is exact at every domain level, not an estimate:
/// λ is linear in the touched counts, and a domain of s nodes is touched unless all n of
/// the job's nodes miss it, so E[g_ℓ] = Σ_d (1 − C(N − s_d, n)/C(N, n)) (MODELS.md §3's
/// hypergeometric miss, applied to a domain). Checked against the formula computed here
/// and against drawing placements, with switch and power levels (no touched-rack
/// distribution) and on a platform too large for the exact touched-rack distribution.
#[test]
fn random_placement_mtbf_is_exact_at_every_level() {
    use ckptsim::failure::topology::{Topology, touched};
    use ckptsim::failure::{DomainEvents, FailureModel, Failures, Law, Level, Start};
    /// Relative agreement of the MTBF with the formula: rounding only.
    const RTOL: f64 = 1e-9;
    let day_s = 86_400.0;
    let cases = [
        (Topology { racks: 12, nodes_per_rack: 16, racks_per_switch: Some(5), racks_per_power: Some(4) }, 40_u64),
        (Topology { racks: 7, nodes_per_rack: 3, racks_per_switch: Some(2), racks_per_power: Some(7) }, 5),
        // 400 · 601 · 1001 steps: beyond the exact touched-rack distribution's budget.
        (Topology { racks: 400, nodes_per_rack: 1000, racks_per_switch: Some(16), racks_per_power: None }, 600),
    ];
    for (topo, nodes) in cases {
        let mut domains = vec![
            DomainEvents { level: Level::Rack, law: Law::exponential(60.0 * day_s).unwrap(), start: Start::Stationary },
            DomainEvents {
                level: Level::Switch,
                law: Law::weibull(90.0 * day_s, 0.7).unwrap(),
                start: Start::Stationary,
            },
        ];
        if topo.racks_per_power.is_some() {
            domains.push(DomainEvents {
                level: Level::Power,
                law: Law::exponential(120.0 * day_s).unwrap(),
                start: Start::Stationary,
            });
        }
        let failures = Failures {
            base: FailureModel::Poisson { mtbf_s: 400.0 * day_s / nodes as f64 },
            topology: Some(topo.clone()),
            placement: Placement::Random,
            job_nodes: nodes,
            domains: domains.clone(),
            random: None,
            burst: None,
        };
        // E[g] per level: P(a domain of s nodes is touched) = 1 − Π_{i<n} (N − s − i)/(N − i).
        let platform = topo.nodes() as f64;
        let touched_p = |s: f64| {
            1.0 - (0..nodes).map(|i| ((platform - s - i as f64) / (platform - i as f64)).max(0.0)).product::<f64>()
        };
        let expected = |per: u64| {
            let full = topo.racks / per;
            let rest = topo.racks % per;
            let s = (per * topo.nodes_per_rack) as f64;
            full as f64 * touched_p(s) + if rest > 0 { touched_p((rest * topo.nodes_per_rack) as f64) } else { 0.0 }
        };
        let mut rate = 1.0 / failures.base.mtbf_s();
        for d in &domains {
            rate += expected(topo.racks_per(d.level).unwrap()) / d.law.mean_s();
        }
        let got = failures.mtbf_s();
        assert!((got * rate - 1.0).abs() < RTOL, "{topo:?}, {nodes} nodes: MTBF {got} vs {}", 1.0 / rate);
        // And the formula against drawn placements: the mean rate within 4 SE.
        let mut rng = stream_rng(6, 0, 0);
        let rates: Vec<f64> = (0..PLACEMENT_SAMPLES)
            .map(|_| failures.rate_per_s(&touched(&topo, nodes, Placement::Random, &mut rng)))
            .collect();
        let n = rates.len() as f64;
        let mean = rates.iter().sum::<f64>() / n;
        let se = (rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1.0) / n).sqrt();
        let z = (mean - rate) / se;
        assert!(z.abs() < Z_MAX, "{topo:?}, {nodes} nodes: sampled rate {mean} ± {se} vs {rate}, z = {z:.2}");
    }
}

/// Failures carry their scope (DESIGN.md: so that multilevel checkpointing can tell which
/// level survives): in a merged stream, the share of events of each origin is its share of
/// the rate, λ_part/λ (4 SE), domain events say their level, k-of-N events say so, and the
/// job's own nodes' failures are `Job`.
#[test]
fn merged_failures_carry_their_scope() {
    use ckptsim::failure::topology::Topology;
    use ckptsim::failure::{DomainEvents, FailureModel, Failures, Law, Level, RandomEvents, Start};
    const EVENTS: usize = 200_000;
    let day_s = 86_400.0;
    let topo = Topology { racks: 8, nodes_per_rack: 10, racks_per_switch: Some(4), racks_per_power: None };
    let failures = Failures {
        base: FailureModel::Poisson { mtbf_s: 10.0 * day_s },
        topology: Some(topo),
        placement: Placement::Spread,
        job_nodes: 20,
        domains: vec![
            DomainEvents { level: Level::Rack, law: Law::exponential(40.0 * day_s).unwrap(), start: Start::Stationary },
            DomainEvents {
                level: Level::Switch,
                law: Law::exponential(30.0 * day_s).unwrap(),
                start: Start::Stationary,
            },
        ],
        random: Some(RandomEvents { nodes: 5, law: Law::exponential(8.0 * day_s).unwrap(), start: Start::Stationary }),
        burst: None,
    };
    let touched = failures.fixed_touched().unwrap();
    let parts = [
        (FailureScope::Job, 1.0 / (10.0 * day_s)),
        (FailureScope::Domain(Level::Rack), touched.of(Level::Rack) as f64 / (40.0 * day_s)),
        (FailureScope::Domain(Level::Switch), touched.of(Level::Switch) as f64 / (30.0 * day_s)),
        (FailureScope::RandomNodes, failures.random_hit() / (8.0 * day_s)),
    ];
    let total: f64 = parts.iter().map(|(_, r)| r).sum();
    assert!((total * failures.mtbf_s() - 1.0).abs() < 1e-12);
    let mut stream = failures.stream(7, 0, 0.0);
    let scopes: Vec<FailureScope> = (0..EVENTS).map(|_| stream.next_failure().scope).collect();
    for (scope, rate) in parts {
        let p = rate / total;
        let got = scopes.iter().filter(|s| **s == scope).count() as f64 / EVENTS as f64;
        // Independent Poisson parts: given the number of events, their origins are iid with
        // probabilities λ_part/λ, so each share has a binomial standard error.
        let se = (p * (1.0 - p) / EVENTS as f64).sqrt();
        let z = (got - p) / se;
        assert!(z.abs() < Z_MAX, "{scope:?}: share {got} vs {p}, z = {z:.2}");
    }
}
