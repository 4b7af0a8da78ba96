//! Issue #3 acceptance: non-exponential laws, job-level and per-node renewal, cohort
//! sampling against the per-node reference.

use super::{inline, simulate};
use ckptsim::analytic;
use ckptsim::failure::{FailureModel, FailureStream, Law, NodeClass, Sampler, Start};
use ckptsim::report::{self, RENEWAL_REWARD};
use ckptsim::runner::stream_rng;

/// |simulated − model| must stay below this many standard errors.
const Z_MAX: f64 = 4.0;
/// Significance of the two-sample Kolmogorov–Smirnov tests.
const KS_ALPHA: f64 = 1e-3;
/// Streams per sampler in the two-sample tests.
const KS_STREAMS: u64 = 20_000;

fn scenario(failures: &str, extra_job: &str, sweep: &str) -> String {
    format!(
        r#"
[run]
seed = 3
[job]
work = "2e5 s"
checkpoint = "2 min"
restart = "10 min"
{extra_job}
[failures]
{failures}
[policy]
interval = "young"
[sweep]
{sweep}
"#
    )
}

/// Every point's |z| against its closed form, which must be `model`.
fn assert_matches_model(text: &str, reps: u64, model: &str) {
    let sc = inline(text);
    let result = simulate(&sc, reps, sc.run.seed);
    for (p, s) in sc.points.iter().zip(&result.summaries) {
        let (name, exact) = report::model_overhead(p).expect("a closed form applies");
        assert_eq!(name, model);
        let e = s.overhead.estimate();
        let z = (e.mean - exact) / e.se;
        assert!(
            z.abs() < Z_MAX,
            "{} {:?}: simulated {} ± {}, {model} {exact}, z = {z:.2}",
            p.failures.describe(),
            p.labels,
            e.mean,
            e.se
        );
    }
}

#[test]
fn job_level_renewal_matches_renewal_reward() {
    for law in [
        "law = \"weibull\"\nshape = 0.5",
        "law = \"weibull\"\nshape = 0.7",
        "law = \"weibull\"\nshape = 0.9",
        "law = \"lognormal\"\nsigma = 1.2",
        "law = \"gamma\"\nshape = 0.6",
        "law = \"gamma\"\nshape = 2.5",
    ] {
        let failures = format!("{law}\nmtbf = \"3.1 h\"\nrenewal = \"job\"\nstart = \"fresh\"");
        assert_matches_model(&scenario(&failures, "", "\"policy.factor\" = [0.5, 1, 3]"), 3000, RENEWAL_REWARD);
    }
}

#[test]
fn job_level_renewal_with_downtime_and_no_final_checkpoint() {
    let failures = "law = \"weibull\"\nshape = 0.6\nmtbf = \"2 h\"\nrenewal = \"job\"\nstart = \"fresh\"";
    let job = "downtime = \"15 min\"\nfinal_checkpoint = false";
    assert_matches_model(&scenario(failures, job, "\"policy.factor\" = [0.5, 2]"), 3000, RENEWAL_REWARD);
}

/// Renewal-reward (MODELS.md §2) assumes failures strike writes and restarts, and a first
/// lifetime that starts new with the job: it is the point's closed form only under those
/// switches, while Poisson failures have an exact form under every switch (MODELS.md §1).
#[test]
fn renewal_reward_is_the_model_only_under_its_switches() {
    let model = |failures: &str, job: &str| {
        let sc = inline(&scenario(failures, job, "\"policy.factor\" = [1]"));
        report::model_overhead(&sc.points[0]).map(|(name, _)| name)
    };
    let weibull = |start: &str| {
        format!("law = \"weibull\"\nshape = 0.7\nmtbf = \"3.1 h\"\nrenewal = \"job\"\nstart = \"{start}\"")
    };
    assert_eq!(model(&weibull("fresh"), ""), Some(RENEWAL_REWARD));
    assert_eq!(model(&weibull("fresh"), "downtime = \"5 min\"\nfinal_checkpoint = false"), Some(RENEWAL_REWARD));
    for job in ["failures_during_checkpoint = false", "failures_during_restart = false"] {
        assert_eq!(model(&weibull("fresh"), job), None, "{job}");
    }
    assert_eq!(model(&weibull("stationary"), ""), None, "a stationary first lifetime");
    for job in ["", "failures_during_checkpoint = false", "failures_during_restart = false"] {
        assert_eq!(model("mtbf = \"3.1 h\"", job), Some(report::EXACT_EXPONENTIAL), "{job}");
    }
}

#[test]
fn weibull_shape_one_is_exponential() {
    // The closed forms agree: renewal-reward at k = 1 is Daly's exact expectation.
    let job = ckptsim::engine::Job {
        work_s: 2e5,
        checkpoint_s: 120.0,
        restart_s: 600.0,
        downtime_s: 300.0,
        final_checkpoint: ckptsim::engine::FinalCheckpoint::Written,
        checkpoint_exposure: ckptsim::engine::Exposure::CanFail,
        restart_exposure: ckptsim::engine::Exposure::CanFail,
        on_failure: ckptsim::engine::OnFailure::Restart,
    };
    let weibull = Law::weibull(11_160.0, 1.0).unwrap();
    let renewal = analytic::renewal::finite_work_overhead(&job, 1636.0, &weibull);
    let exact = analytic::finite_work_overhead(&job, 1636.0, 11_160.0);
    assert!((renewal - exact).abs() < 1e-9 * exact, "{renewal} vs {exact}");
    // And the simulation at k = 1 matches the exponential closed form.
    let sc = inline(&scenario(
        "law = \"weibull\"\nshape = 1.0\nmtbf = \"3.1 h\"\nrenewal = \"job\"\nstart = \"fresh\"",
        "",
        "\"policy.factor\" = [0.5, 1, 2]",
    ));
    let result = simulate(&sc, 3000, 11);
    for (p, s) in sc.points.iter().zip(&result.summaries) {
        let e = s.overhead.estimate();
        let z = (e.mean - report::poisson_overhead(p)) / e.se;
        assert!(z.abs() < Z_MAX, "{:?}: z = {z:.2}", p.labels);
    }
}

#[test]
fn per_node_exponential_platform_is_the_job_level_model() {
    // 64 nodes of MTBF 64 × 3.1 h, sampled node by node: Daly with M = 3.1 h.
    let failures = "law = \"exponential\"\nnode_mtbf = \"198.4 h\"\nrenewal = \"node\"\nsampler = \"per-node\"";
    let text = scenario(failures, "nodes = 64", "\"policy.factor\" = [0.5, 1, 2]");
    let sc = inline(&text);
    assert!((sc.points[0].failures.mtbf_s() - 3.1 * 3600.0).abs() < 1e-6);
    assert!(matches!(sc.points[0].failures.base, FailureModel::Platform { sampler: Sampler::PerNode, .. }));
    assert_matches_model(&text, 3000, report::EXACT_EXPONENTIAL);
}

#[test]
fn stationary_weibull_platform_of_1024_nodes_is_within_4_se_of_daly() {
    let failures = "law = \"weibull\"\nshape = 0.7\nmtbf = \"3.1 h\"\nrenewal = \"node\"\nstart = \"stationary\"";
    let sc = inline(&scenario(failures, "nodes = 1024", "\"policy.factor\" = [0.5, 1, 2]"));
    let result = simulate(&sc, 4000, 5);
    for (p, s) in sc.points.iter().zip(&result.summaries) {
        assert!(report::model_overhead(p).is_none(), "no exact closed form for a Weibull platform");
        let e = s.overhead.estimate();
        let z = (e.mean - report::poisson_overhead(p)) / e.se;
        assert!(
            z.abs() < Z_MAX,
            "{:?}: simulated {} ± {}, Daly {}, z = {z:.2}",
            p.labels,
            e.mean,
            e.se,
            report::poisson_overhead(p)
        );
    }
}

/// Replications of each start in the fresh-versus-stationary test.
const START_REPS: u64 = 500;

/// A fresh platform of Weibull nodes (shape 0.7: decreasing hazard, every node new at the
/// start) strikes a job more often than the same platform in equilibrium: the difference of
/// the mean failure counts per replication exceeds [`Z_MAX`] standard errors of the
/// difference (the two runs use different seeds, so they are independent and that SE is the
/// two SEs in quadrature). And the effect has the size the law predicts: a replication
/// lasts at least its failure-free wall time w₀, and within w₀ each of the n new nodes
/// fails at least once with probability F(w₀), so the mean count of failures in a fresh
/// replication (struck or ignored) is at least n·F(w₀) = 72, 3.75 times the w₀/M = 19 of the
/// stationary platform over the same time; the sample mean may not lie more than [`Z_MAX`]
/// SE below that bound.
#[test]
fn fresh_start_with_decreasing_hazard_sees_more_failures() {
    let text = |start: &str| {
        scenario(
            &format!("law = \"weibull\"\nshape = 0.7\nmtbf = \"3.1 h\"\nrenewal = \"node\"\nstart = \"{start}\""),
            "nodes = 1024",
            "\"policy.factor\" = [1]",
        )
    };
    // Per replication: failures that struck the job, and all that came before its end.
    let records = |start: &str, seed: u64| {
        let sc = inline(&text(start));
        let p = sc.points[0].clone();
        let records: Vec<_> = (0..START_REPS).map(|rep| ckptsim::runner::replicate(&p, seed, rep).unwrap()).collect();
        (p, records)
    };
    let struck = |rs: &[ckptsim::engine::Record]| mean_se(&rs.iter().map(|r| r.failures as f64).collect::<Vec<_>>());
    let ((p, fresh), (_, stationary)) = (records("fresh", 9), records("stationary", 10));
    let ((f, se_f), (s, se_s)) = (struck(&fresh), struck(&stationary));
    let se = se_f.hypot(se_s);
    assert!(
        f - s > Z_MAX * se,
        "fresh {f} ± {se_f} vs stationary {s} ± {se_s} (SE) failures per run: not {Z_MAX} SE apart"
    );
    // The exact lower bound on the fresh count.
    let FailureModel::Platform { classes, start: Start::Fresh, .. } = &p.failures.base else {
        panic!("a fresh per-node platform: {:?}", p.failures.base)
    };
    let [node] = classes.as_slice() else { panic!("one class of nodes: {classes:?}") };
    let free_s = p.job.work_s * (1.0 + analytic::finite_work_overhead(&p.job, p.interval_s, f64::INFINITY));
    let bound = node.nodes as f64 * (1.0 - node.law.survival(free_s));
    let (events, se_e) = mean_se(&fresh.iter().map(|r| (r.failures + r.ignored_failures) as f64).collect::<Vec<_>>());
    let z = (events - bound) / se_e;
    assert!(z > -Z_MAX, "fresh: {events} ± {se_e} (SE) failures per run, at least {bound} expected, z = {z:.2}");
}

/// The two-sample Kolmogorov–Smirnov statistic sup |F₁ − F₂|.
fn ks_statistic(a: &mut [f64], b: &mut [f64]) -> f64 {
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (mut i, mut j, mut d) = (0, 0, 0.0f64);
    while i < a.len() && j < b.len() {
        let x = a[i].min(b[j]);
        while i < a.len() && a[i] <= x {
            i += 1;
        }
        while j < b.len() && b[j] <= x {
            j += 1;
        }
        d = d.max((i as f64 / a.len() as f64 - j as f64 / b.len() as f64).abs());
    }
    d
}

/// The KS critical value at [`KS_ALPHA`] for samples of n and m.
fn ks_critical(n: usize, m: usize) -> f64 {
    (-0.5 * (KS_ALPHA / 2.0).ln()).sqrt() * ((n + m) as f64 / (n * m) as f64).sqrt()
}

/// Per stream: the 1st, 10th and 200th failure times, and the failures in [0, window).
fn features(model: &FailureModel, seed: u64, window_s: f64) -> [Vec<f64>; 4] {
    let mut out: [Vec<f64>; 4] = Default::default();
    for rep in 0..KS_STREAMS {
        let mut stream = model.stream(stream_rng(seed, rep, 0), 0.0);
        let mut count = 0.0;
        for k in 1..=200 {
            let t = stream.next_failure().time_s;
            if t < window_s {
                count += 1.0;
            }
            match k {
                1 => out[0].push(t),
                10 => out[1].push(t),
                200 => out[2].push(t),
                _ => {}
            }
        }
        out[3].push(count);
    }
    out
}

fn platform(law: Law, nodes: u64, start: Start, sampler: Sampler) -> FailureModel {
    FailureModel::Platform { classes: vec![NodeClass { nodes, law }], start, sampler }
}

#[test]
fn cohort_and_per_node_samplers_have_the_same_distributions() {
    let names = ["first failure", "10th failure", "200th failure", "failures in the window"];
    for law in [Law::weibull(1e5, 0.6).unwrap(), Law::lognormal(1e5, 1.5).unwrap(), Law::gamma(1e5, 0.5).unwrap()] {
        for start in [Start::Fresh, Start::Stationary] {
            let nodes = 40;
            // The window holds ~ 50 failures in equilibrium; fresh nodes fail more.
            let window_s = 50.0 * law.mean_s() / nodes as f64;
            let mut cohort = features(&platform(law.clone(), nodes, start, Sampler::Cohort), 1, window_s);
            let mut per_node = features(&platform(law.clone(), nodes, start, Sampler::PerNode), 2, window_s);
            for (k, name) in names.iter().enumerate() {
                let d = ks_statistic(&mut cohort[k], &mut per_node[k]);
                let crit = ks_critical(cohort[k].len(), per_node[k].len());
                assert!(d < crit, "{} {start:?} {name}: KS D = {d:.4} ≥ {crit:.4}", law.describe());
            }
        }
    }
}

#[test]
fn the_two_sample_test_has_power() {
    // A 10% change of shape must be detected.
    let (a, b) = (Law::weibull(1e5, 0.6).unwrap(), Law::weibull(1e5, 0.66).unwrap());
    let window_s = 50.0 * 1e5 / 40.0;
    let mut x = features(&platform(a, 40, Start::Fresh, Sampler::Cohort), 1, window_s);
    let mut y = features(&platform(b, 40, Start::Fresh, Sampler::PerNode), 2, window_s);
    let d = ks_statistic(&mut x[2], &mut y[2]);
    assert!(d > ks_critical(x[2].len(), y[2].len()), "D = {d}");
}

#[test]
fn lemon_classes_set_the_job_mtbf() {
    let sc = super::load("scenarios/lemon-nodes.toml", &[]);
    let FailureModel::Platform { classes, .. } = &sc.points[0].failures.base else { panic!("a platform") };
    assert_eq!(classes.iter().map(|c| c.nodes).collect::<Vec<_>>(), vec![1004, 20]);
    let year_s = 365.0 * 86_400.0;
    let expected = 1.0 / (1004.0 / (5.0 * year_s) + 20.0 / year_s);
    assert!((sc.points[0].failures.mtbf_s() - expected).abs() < 1e-6 * expected);
}

/// The exponential stream draws its times in batches; that must not change them: the same
/// generator gives the same times as drawing one gap at a time, whatever the first batch.
#[test]
fn batched_exponential_stream_gives_the_times_of_one_draw_at_a_time() {
    use ckptsim::failure::ExponentialStream;
    use rand_distr::{Distribution, Exp1};
    const MTBF_S: f64 = 1234.5;
    const TIMES: usize = 100;
    for first_batch in [0, 1, 3, ExponentialStream::AHEAD, 100] {
        for rep in 0..5 {
            let mut rng = stream_rng(9, rep, 0);
            let mut now_s = 0.0_f64;
            let expected: Vec<f64> = (0..TIMES)
                .map(|_| {
                    let gap: f64 = Exp1.sample(&mut rng);
                    now_s += gap * MTBF_S;
                    now_s
                })
                .collect();
            let mut stream = ExponentialStream::with_first_batch(MTBF_S, stream_rng(9, rep, 0), first_batch);
            let got: Vec<f64> = (0..TIMES).map(|_| stream.next_failure().time_s).collect();
            assert_eq!(got, expected, "first batch {first_batch}, replication {rep}");
        }
    }
}

/// Streams per law in the exact checks of the sampled laws below.
const EXACT_STREAMS: u64 = 20_000;
/// Streams per law and sampler in the exact failure-count check (fourteen cases).
const COUNT_STREAMS: u64 = 10_000;

/// A stationary renewal process has E N(0, t] = t/μ exactly, whatever the law (the
/// equilibrium residual life makes the renewal rate constant in time; MODELS.md §2): so a
/// stationary platform sees exactly t·Σ nᵢ/μᵢ failures on average, in both samplers. A
/// wrong residual law (the lifetime law itself, a length-biased law without the uniform
/// factor), or replacements that are not new, break it.
#[test]
fn stationary_platforms_fail_at_the_summed_node_rate_exactly() {
    for law in [
        Law::weibull(1e5, 0.6).unwrap(),
        Law::weibull(1e5, 2.5).unwrap(),
        Law::lognormal(1e5, 1.5).unwrap(),
        Law::gamma(1e5, 0.5).unwrap(),
        Law::gamma(1e5, 3.0).unwrap(),
        Law::empirical(&[2e4, 5e4, 5e4, 1e5, 3e5]).unwrap(),
    ] {
        for sampler in [Sampler::Cohort, Sampler::PerNode] {
            let nodes = 40;
            // About 30 failures per window, and a window of several lifetimes so that the
            // renewals of replaced nodes count too.
            let window_s = 30.0 * law.mean_s() / nodes as f64;
            let model = platform(law.clone(), nodes, Start::Stationary, sampler);
            let counts: Vec<f64> = (0..COUNT_STREAMS)
                .map(|rep| {
                    let mut stream = model.stream(stream_rng(21, rep, 0), 0.0);
                    let mut n = 0.0;
                    while stream.next_failure().time_s < window_s {
                        n += 1.0;
                    }
                    n
                })
                .collect();
            let (mean, se) = mean_se(&counts);
            let exact = window_s / model.mtbf_s();
            let z = (mean - exact) / se;
            assert!(z.abs() < Z_MAX, "{} {sampler:?}: {mean} ± {se} failures vs {exact}, z = {z:.2}", law.describe());
        }
    }
    // Two classes (a few lemon nodes among many), and job-level renewal started stationary
    // without downtime: the same exact count.
    let lemons = FailureModel::Platform {
        classes: vec![
            NodeClass { nodes: 36, law: Law::weibull(2e5, 0.6).unwrap() },
            NodeClass { nodes: 4, law: Law::lognormal(2e4, 1.5).unwrap() },
        ],
        start: Start::Stationary,
        sampler: Sampler::Cohort,
    };
    let job = FailureModel::JobRenewal { law: Law::gamma(1e4, 0.4).unwrap(), start: Start::Stationary };
    for model in [lemons, job] {
        let window_s = 30.0 * model.mtbf_s();
        let counts: Vec<f64> = (0..COUNT_STREAMS)
            .map(|rep| {
                let mut stream = model.stream(stream_rng(24, rep, 0), 0.0);
                let mut n = 0.0;
                while stream.next_failure().time_s < window_s {
                    n += 1.0;
                }
                n
            })
            .collect();
        let (mean, se) = mean_se(&counts);
        let z = (mean - 30.0) / se;
        assert!(z.abs() < Z_MAX, "{}: {mean} ± {se} failures vs 30, z = {z:.2}", model.describe());
    }
}

/// The sample mean and its standard error.
fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

/// The one-sample Kolmogorov–Smirnov statistic of `u` (values of the CDF at the sample)
/// against the uniform law.
fn ks_uniform(u: &mut [f64]) -> f64 {
    u.sort_by(f64::total_cmp);
    let n = u.len() as f64;
    u.iter().enumerate().map(|(i, &x)| (x - i as f64 / n).max((i + 1) as f64 / n - x)).fold(0.0, f64::max)
}

/// The one-sample KS critical value at [`KS_ALPHA`] for a sample of n (asymptotic).
fn ks_critical_one(n: usize) -> f64 {
    (-0.5 * (KS_ALPHA / 2.0).ln()).sqrt() / (n as f64).sqrt()
}

/// Cohort sampling (MODELS.md §2): the first failure among n iid lives of age 0 has
/// P(T > t) = S(t)ⁿ; among n stationary lives, S_e(t)ⁿ. Both samplers, every law, against
/// the exact law (one-sample KS), not only against each other.
#[test]
fn first_failure_of_a_platform_has_the_exact_law() {
    for law in [
        Law::weibull(1e5, 0.6).unwrap(),
        Law::lognormal(1e5, 1.5).unwrap(),
        Law::gamma(1e5, 0.5).unwrap(),
        Law::gamma(1e5, 3.0).unwrap(),
    ] {
        for start in [Start::Fresh, Start::Stationary] {
            for sampler in [Sampler::Cohort, Sampler::PerNode] {
                let nodes = 40;
                let model = platform(law.clone(), nodes, start, sampler);
                let mut u: Vec<f64> = (0..EXACT_STREAMS)
                    .map(|rep| {
                        let t = model.stream(stream_rng(22, rep, 0), 0.0).next_failure().time_s;
                        let s = match start {
                            Start::Fresh => law.survival(t),
                            Start::Stationary => law.equilibrium_survival_cdf(t).0,
                        };
                        1.0 - s.powi(nodes as i32)
                    })
                    .collect();
                let d = ks_uniform(&mut u);
                let crit = ks_critical_one(u.len());
                assert!(d < crit, "{} {start:?} {sampler:?}: KS D = {d:.4} ≥ {crit:.4}", law.describe());
            }
        }
    }
}

/// A fresh platform renews each node from age 0 at its failures: E N(0, t] = n·m(t), m the
/// renewal function of the law. For Gamma(2, θ) (Erlang-2, rate λ = 1/θ per phase) it is
/// m(t) = λt/2 − (1 − e^{−2λt})/4 exactly, so the replacement of failed nodes by new ones
/// (and only them: the others keep ageing) is checked against a closed form over several
/// lifetimes, in both samplers.
#[test]
fn fresh_erlang_platform_fails_as_its_renewal_function() {
    let (mean_s, nodes) = (1e5, 10);
    let law = Law::gamma(mean_s, 2.0).unwrap();
    let lambda = 2.0 / mean_s;
    let window_s = 3.0 * mean_s;
    let exact = nodes as f64 * (lambda * window_s / 2.0 + (-2.0 * lambda * window_s).exp_m1() / 4.0);
    for sampler in [Sampler::Cohort, Sampler::PerNode] {
        let model = platform(law.clone(), nodes, Start::Fresh, sampler);
        let counts: Vec<f64> = (0..EXACT_STREAMS)
            .map(|rep| {
                let mut stream = model.stream(stream_rng(23, rep, 0), 0.0);
                let mut n = 0.0;
                while stream.next_failure().time_s < window_s {
                    n += 1.0;
                }
                n
            })
            .collect();
        let (mean, se) = mean_se(&counts);
        let z = (mean - exact) / se;
        assert!(z.abs() < Z_MAX, "{sampler:?}: {mean} ± {se} failures vs n·m(t) = {exact}, z = {z:.2}");
    }
}
