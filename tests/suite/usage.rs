//! Usage domain (issue #5): job schedules, the closed forms of Graziani, Lusch & Messer (2026)
//! (MODELS.md §5) against their published Frontier numbers, and the engine's Monte Carlo of
//! whole schedules against the closed forms, in both last-segment conventions.

use std::fs;
use std::path::Path;
use std::time::Instant;

use super::{FRONTIER_SCHEDULE, shared_data};
use ckptsim::error::{Error, Origin};
use ckptsim::schedule::{JobType, Schedule, read_schedule};
use ckptsim::usage::{
    self, Cadence, JobLosses, JobPlan, LastSegment, Machine, SimulatedEfficiency, Storage, bare_exponential_loop,
    efficiency, simulate_schedule,
};

/// Published figures are given to 3 decimals: half a unit of the third.
const THREE_DECIMALS: f64 = 5e-4;
/// Simulation and closed form must agree within this many standard errors.
const SE_TOLERANCE: f64 = 4.0;
/// Replications of the whole Frontier year (each plays all 331,640 jobs once) in the paper's
/// convention: about 7 s on 2 cores in release; the standard error of e is then ~3.5e-5.
const FRONTIER_REPS: u64 = 1000;
/// Replications of the Frontier year in the truncated convention: about 2 s.
const FRONTIER_TRUNCATED_REPS: u64 = 300;
/// Replications of one-job schedules.
const SINGLE_JOB_REPS: u64 = 200_000;
/// Relative slack for quantities a simulation gets exactly (zero variance), and for the
/// engine and the bare loop agreeing up to rounding on the same draws.
const ROUNDING: f64 = 1e-9;
/// Relative slack of a machine cost against its formula evaluated again: a few roundings.
const FORMULA_RTOL: f64 = 1e-14;
/// Independent runs whose spread checks the reported standard errors.
const SE_CHECK_RUNS: u64 = 100;
/// Replications per run in the standard-error check.
const SE_CHECK_REPS: u64 = 200;

/// The Frontier CY2024 schedule (MODELS.md §5), in the shared data folder: the test fails,
/// naming it, where it is absent.
fn frontier() -> Schedule {
    read_schedule(&shared_data(FRONTIER_SCHEDULE)).unwrap_or_else(|e| panic!("{e}"))
}

/// |got − want| ≤ 4 SE (and the rounding slack when the SE is zero).
fn within_se(what: &str, got: f64, se: f64, want: f64) {
    let slack = SE_TOLERANCE * se + ROUNDING * want.abs().max(1e-300);
    assert!(
        (got - want).abs() <= slack,
        "{what}: simulated {got:.6e} ± {se:.2e} (SE) vs closed form {want:.6e}: {:.1} SE off",
        (got - want).abs() / se
    );
}

/// Whether to compare the mean of per-replication ratios with the closed form too: only for
/// schedules with many failures per replication (a year of Frontier), where the bias of a
/// mean of ratios, of order 1/(failures per replication), is far below the standard error.
#[derive(Clone, Copy, PartialEq)]
enum PerReplication {
    Check,
    Skip,
}

/// Checks a simulation of `types` against the closed form: pooled ratios, the
/// per-replication totals, and with [`PerReplication::Check`] the mean per-replication ratios.
fn check_schedule(
    what: &str,
    sim: &SimulatedEfficiency,
    types: &[JobType],
    machine: &Machine,
    (c, f, l): (Cadence, f64, LastSegment),
    per_replication: PerReplication,
) {
    let cf = efficiency(machine, types, c, f, l);
    let p = &sim.pooled;
    within_se(&format!("{what} pooled e"), p.e.value, p.e.se, cf.e);
    within_se(&format!("{what} pooled l_chk"), p.l_chk.value, p.l_chk.se, cf.l_chk);
    within_se(&format!("{what} pooled l_F"), p.l_f.value, p.l_f.se, cf.l_f);
    within_se(&format!("{what} pooled l_R"), p.l_r.value, p.l_r.se, cf.l_r);
    if per_replication == PerReplication::Check {
        let m = &sim.per_replication;
        within_se(&format!("{what} mean e"), m.e.mean, m.e.se, cf.e);
        within_se(&format!("{what} mean l_chk"), m.l_chk.mean, m.l_chk.se, cf.l_chk);
        within_se(&format!("{what} mean l_F"), m.l_f.mean, m.l_f.se, cf.l_f);
        within_se(&format!("{what} mean l_R"), m.l_r.mean, m.l_r.se, cf.l_r);
    }
    let mut sums = JobLosses { l_chk: 0.0, l_f: 0.0, l_r: 0.0, u: 0.0 };
    let mut failed = 0.0;
    for t in types {
        let plan = JobPlan::new(machine, t.nodes, t.duration_h, c, f, l);
        let j = plan.losses(machine);
        let n = t.count as f64;
        sums.l_chk += n * j.l_chk;
        sums.l_f += n * j.l_f;
        sums.l_r += n * j.l_r;
        sums.u += n * j.u;
        failed += n * plan.failure_probability(machine.failure_rate_per_node_h);
    }
    within_se(&format!("{what} ΣU"), sim.sum_u.mean, sim.sum_u.se, sums.u);
    within_se(&format!("{what} ΣL_chk"), sim.sum_l_chk.mean, sim.sum_l_chk.se, sums.l_chk);
    within_se(&format!("{what} ΣL_F"), sim.sum_l_f.mean, sim.sum_l_f.se, sums.l_f);
    within_se(&format!("{what} ΣL_R"), sim.sum_l_r.mean, sim.sum_l_r.se, sums.l_r);
    within_se(&format!("{what} failed jobs"), sim.failed_jobs.mean, sim.failed_jobs.se, failed);
}

#[test]
#[ignore = "needs ../shared/data"]
fn frontier_closed_form_reproduces_the_paper() {
    let schedule = frontier();
    assert_eq!(schedule.jobs.len(), 331_640);
    let r = schedule.runtime_ratio_usage_weighted().expect("the file has actual durations");
    let plain = schedule.runtime_ratio_plain().unwrap();
    eprintln!("Frontier CY2024: usage-weighted r = {r:.6}, plain time ratio = {plain:.6}");
    assert!((r - 0.4589).abs() < 5e-5, "r = {r}");
    assert!((plain - 0.5118).abs() < 5e-5, "plain ratio = {plain}");
    let types = schedule.job_types(r);
    assert_eq!(types.len(), 3_537);
    assert_eq!(types.iter().map(|t| t.count).sum::<u64>(), 331_640);
    // The r-scaled schedule has the actual total usage, 6.008e7 node-hours.
    let scaled: f64 = types.iter().map(|t| t.count as f64 * t.usage_nh()).sum();
    assert!((scaled / 6.008e7 - 1.0).abs() < 1e-3, "Σ N·T = {scaled:.4e}");

    let m = Machine::frontier();
    let cf = efficiency(&m, &types, Cadence::Optimal, 1.0, LastSegment::Full);
    eprintln!(
        "closed form (optimal cadence, full segments): e = {:.4}, l_chk = {:.4}, l_F = {:.4}, l_R = {:.4}, \
         ΣU = {:.4e} nh",
        cf.e, cf.l_chk, cf.l_f, cf.l_r, cf.sum_u
    );
    for (name, got, published) in
        [("e", cf.e, 0.957), ("l_chk", cf.l_chk, 0.012), ("l_F", cf.l_f, 0.028), ("l_R", cf.l_r, 0.003)]
    {
        assert!((got - published).abs() <= THREE_DECIMALS, "{name} = {got:.5}, published {published}");
    }
    assert!((cf.e - (1.0 - cf.l_chk - cf.l_f - cf.l_r)).abs() < 1e-12);
    for (c, l) in [(Cadence::Young, LastSegment::Full), (Cadence::Optimal, LastSegment::Truncated)] {
        let x = efficiency(&m, &types, c, 1.0, l);
        eprintln!(
            "closed form ({c:?}, {l:?}): e = {:.4}, l_chk = {:.4}, l_F = {:.4}, l_R = {:.4}, ΣU = {:.4e} nh",
            x.e, x.l_chk, x.l_f, x.l_r, x.sum_u
        );
    }

    // N = 2000: u_chk = 37.04 nh, Young's u_c = 1925 nh, the exact root of eq. 3.3 lower.
    let u_chk = m.u_chk(2000);
    let young = m.u_c(2000, Cadence::Young, 1.0).unwrap();
    let exact = m.u_c(2000, Cadence::Optimal, 1.0).unwrap();
    eprintln!("N = 2000: u_chk = {u_chk:.4} nh, Young u_c = {young:.2} nh, exact root of eq. 3.3 u_c = {exact:.2} nh");
    assert!((u_chk - 37.04).abs() < 0.005, "u_chk = {u_chk}");
    assert!((young - 1925.0).abs() < 0.5, "Young u_c = {young}");
    assert!(exact < young);
    let r0 = m.failure_rate_per_node_h;
    let residual = 1.0 - r0 * exact - (-r0 * (exact + u_chk)).exp();
    assert!(residual.abs() < 1e-15, "eq. 3.3 residual {residual:e}");
}

#[test]
#[ignore = "needs ../shared/data"]
fn frontier_simulation_matches_the_closed_form() {
    let schedule = frontier();
    let types = schedule.job_types(schedule.runtime_ratio_usage_weighted().unwrap());
    let m = Machine::frontier();
    let start = Instant::now();
    let sim = simulate_schedule(&m, &types, Cadence::Optimal, 1.0, LastSegment::Full, FRONTIER_REPS, 2024).unwrap();
    let p = &sim.pooled;
    let r = &sim.per_replication;
    eprintln!(
        "Frontier, {FRONTIER_REPS} simulated years in {:.2?}: pooled e = {:.5} ± {:.5}, l_chk = {:.5} ± {:.5}, \
         l_F = {:.5} ± {:.5}, l_R = {:.5} ± {:.5}; mean of yearly e = {:.5} ± {:.5}; {:.0} failed jobs a year",
        start.elapsed(),
        p.e.value,
        p.e.half_width,
        p.l_chk.value,
        p.l_chk.half_width,
        p.l_f.value,
        p.l_f.half_width,
        p.l_r.value,
        p.l_r.half_width,
        r.e.mean,
        r.e.half_width,
        sim.failed_jobs.mean
    );
    let policy = (Cadence::Optimal, 1.0, LastSegment::Full);
    check_schedule("Frontier", &sim, &types, &m, policy, PerReplication::Check);

    let start = Instant::now();
    let (c, f, l) = (Cadence::Optimal, 1.0, LastSegment::Truncated);
    let cut = simulate_schedule(&m, &types, c, f, l, FRONTIER_TRUNCATED_REPS, 2025).unwrap();
    let p = &cut.pooled;
    eprintln!(
        "Frontier truncated, {FRONTIER_TRUNCATED_REPS} simulated years in {:.2?}: pooled e = {:.5} ± {:.5}, \
         l_chk = {:.5} ± {:.5}, l_F = {:.5} ± {:.5}, l_R = {:.5} ± {:.5}",
        start.elapsed(),
        p.e.value,
        p.e.half_width,
        p.l_chk.value,
        p.l_chk.half_width,
        p.l_f.value,
        p.l_f.half_width,
        p.l_r.value,
        p.l_r.half_width,
    );
    check_schedule("Frontier truncated", &cut, &types, &m, (c, f, l), PerReplication::Check);
}

/// A machine where failures are common and restarts often fail (R₀·u_r ≈ 0.5).
fn fragile() -> Machine {
    Machine {
        failure_rate_per_node_h: 1e-3,
        checkpoint_bytes: 1e9,
        bandwidth_bytes_per_s: 1e9 / 18.0, // τ_c = 18 s = 5e-3 h: u_chk = 50 nh on 100 nodes
        storage: Storage::Shared,
        setup_s: 30.0,
        read_write_ratio: 10.0,
    }
}

fn local() -> Machine {
    Machine { storage: Storage::Local, failure_rate_per_node_h: 1e-4, ..Machine::frontier() }
}

/// One-job schedules over several N, T, R₀, cadences and conventions.
fn single_job_cases() -> Vec<(&'static str, Machine, u64, f64, Cadence, f64)> {
    vec![
        ("Frontier N=2000 T=12h", Machine::frontier(), 2000, 12.0, Cadence::Optimal, 1.0),
        ("Frontier N=9408 T=24h (most fail)", Machine::frontier(), 9408, 24.0, Cadence::Optimal, 1.0),
        ("Frontier N=9408 T=0.05h (NT < u_chk)", Machine::frontier(), 9408, 0.05, Cadence::Optimal, 1.0),
        ("Frontier N=64 T=6h Young", Machine::frontier(), 64, 6.0, Cadence::Young, 1.0),
        ("fragile N=100 T=20h (most fail, restarts fail)", fragile(), 100, 20.0, Cadence::Optimal, 1.0),
        ("fragile N=100 T=3.3h factor 0.3", fragile(), 100, 3.3, Cadence::Optimal, 0.3),
        ("fragile N=40 T=30h no checkpoints", fragile(), 40, 30.0, Cadence::None, 1.0),
        ("local N=500 T=24h Young ×2", local(), 500, 24.0, Cadence::Young, 2.0),
    ]
}

#[test]
fn single_job_types_match_the_per_job_closed_forms() {
    for last in [LastSegment::Full, LastSegment::Truncated] {
        for (k, (what, m, nodes, hours, c, f)) in single_job_cases().into_iter().enumerate() {
            let types = [JobType { nodes, duration_h: hours, count: 1 }];
            let plan = JobPlan::new(&m, nodes, hours, c, f, last);
            let sim = simulate_schedule(&m, &types, c, f, last, SINGLE_JOB_REPS, 100 + k as u64).unwrap();
            let p_fail = plan.failure_probability(m.failure_rate_per_node_h);
            eprintln!("{what} {last:?}: {plan:?}, P(fail) = {p_fail:.3}, {:?}", plan.losses(&m));
            check_schedule(&format!("{what} {last:?}"), &sim, &types, &m, (c, f, last), PerReplication::Skip);
        }
    }
    // The cases cover what they claim.
    let m = Machine::frontier();
    let big = JobPlan::new(&m, 9408, 24.0, Cadence::Optimal, 1.0, LastSegment::Full);
    assert!(big.failure_probability(m.failure_rate_per_node_h) > 0.9);
    let tiny = JobPlan::new(&m, 9408, 0.05, Cadence::Optimal, 1.0, LastSegment::Truncated);
    assert!(tiny.segments == 1 && !tiny.final_checkpoint && tiny.usage_nh() < m.u_chk(9408));
    let fragile = fragile();
    assert!((fragile.failure_rate_per_node_h * fragile.u_r(100) - 0.5).abs() < 0.01);
}

/// A schedule whose truncated last segments take every shape: with and without the final
/// write (s_L > u_chk or not), one segment or many, NT below u_chk.
fn truncated_mix() -> (Machine, Vec<JobType>) {
    let m = fragile();
    let mut types = vec![];
    for (nodes, count) in [(10, 30), (40, 10), (100, 3), (160, 2)] {
        for hours in [0.02, 0.3, 1.0, 2.5, 7.0, 13.0, 40.0] {
            types.push(JobType { nodes, duration_h: hours, count });
        }
    }
    (m, types)
}

#[test]
fn truncated_convention_matches_its_closed_form_and_an_independent_loop() {
    let (m, types) = truncated_mix();
    let plans: Vec<_> = types
        .iter()
        .map(|t| JobPlan::new(&m, t.nodes, t.duration_h, Cadence::Optimal, 1.0, LastSegment::Truncated))
        .collect();
    assert!(plans.iter().any(|p| p.final_checkpoint && p.segments > 1));
    assert!(plans.iter().any(|p| !p.final_checkpoint && p.segments > 1));
    assert!(plans.iter().any(|p| !p.final_checkpoint && p.segments == 1));
    for (t, p) in types.iter().zip(&plans) {
        assert!((p.usage_nh() / t.usage_nh() - 1.0).abs() < 1e-12, "{t:?} {p:?}");
    }
    let reps = 20_000;
    let (c, l) = (Cadence::Optimal, LastSegment::Truncated);
    let engine = simulate_schedule(&m, &types, c, 1.0, l, reps, 7).unwrap();
    check_schedule("truncated mix, engine", &engine, &types, &m, (c, 1.0, l), PerReplication::Skip);
    // The bare loop on other seeds is an independent Monte Carlo of the same model.
    let bare = bare_exponential_loop(&m, &types, c, 1.0, l, reps, 8).unwrap();
    check_schedule("truncated mix, bare loop", &bare, &types, &m, (c, 1.0, l), PerReplication::Skip);
    // Truncation changes the answer: the full convention runs longer and loses more per job.
    let full = efficiency(&m, &types, c, 1.0, LastSegment::Full);
    let cut = efficiency(&m, &types, c, 1.0, l);
    assert!(full.sum_u > cut.sum_u && (full.e - cut.e).abs() > 1e-3, "{full:?} {cut:?}");
}

#[test]
fn engine_and_bare_loop_agree_draw_for_draw() {
    let (m, types) = truncated_mix();
    for l in [LastSegment::Full, LastSegment::Truncated] {
        let a = simulate_schedule(&m, &types, Cadence::Young, 1.3, l, 500, 11).unwrap();
        let b = bare_exponential_loop(&m, &types, Cadence::Young, 1.3, l, 500, 11).unwrap();
        for (what, x, y) in [
            ("ΣU", a.sum_u.mean, b.sum_u.mean),
            ("ΣL_chk", a.sum_l_chk.mean, b.sum_l_chk.mean),
            ("ΣL_F", a.sum_l_f.mean, b.sum_l_f.mean),
            ("ΣL_R", a.sum_l_r.mean, b.sum_l_r.mean),
            ("failed", a.failed_jobs.mean, b.failed_jobs.mean),
        ] {
            assert!((x - y).abs() <= ROUNDING * x.abs(), "{l:?} {what}: engine {x} vs bare loop {y}");
        }
    }
}

#[test]
fn simulation_is_deterministic_for_any_thread_count() {
    let (m, types) = truncated_mix();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| simulate_schedule(&m, &types, Cadence::Optimal, 1.0, LastSegment::Full, 999, 5).unwrap())
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, run(3));
    assert_ne!(one, simulate_schedule(&m, &types, Cadence::Optimal, 1.0, LastSegment::Full, 999, 6).unwrap());
}

#[test]
fn progress_counts_every_replication_once_and_changes_nothing() {
    use std::sync::atomic::{AtomicU64, Ordering};
    const REPS: u64 = 777;
    let (m, types) = truncated_mix();
    let done = AtomicU64::new(0);
    let calls = AtomicU64::new(0);
    let with =
        usage::simulate_schedule_with_progress(&m, &types, Cadence::Optimal, 1.0, LastSegment::Full, REPS, 5, &|n| {
            done.fetch_add(n, Ordering::Relaxed);
            calls.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
    assert_eq!(done.into_inner(), REPS);
    assert!(calls.into_inner() > 1, "progress must move within a point, not only at its end");
    assert_eq!(with, simulate_schedule(&m, &types, Cadence::Optimal, 1.0, LastSegment::Full, REPS, 5).unwrap());
}

#[test]
fn closed_form_identities() {
    let m = Machine::frontier();
    let r0 = m.failure_rate_per_node_h;
    for (nodes, hours) in [(2, 0.01), (15, 3.0), (2000, 12.0), (9408, 24.0)] {
        let plan = JobPlan::new(&m, nodes, hours, Cadence::Optimal, 1.0, LastSegment::Full);
        let j = plan.losses(&m);
        // U = P·p(1 − p^n)/(1 − p) + (1 − p^n)·ū_F equals (1 − p^n)/R₀ (MODELS.md §5).
        let period = plan.period_nh();
        let p: f64 = (-r0 * period).exp();
        let pn = p.powi(plan.segments as i32);
        let u = period * p * (1.0 - pn) / (1.0 - p) + (1.0 - pn) * m.mean_failure_loss(period);
        assert!((u / j.u - 1.0).abs() < 1e-9, "{nodes} {hours}: {u} vs {}", j.u);
        assert!((j.l_chk - plan.checkpoint_nh * (p - pn) / (1.0 - p)).abs() <= 1e-9 * j.l_chk.max(1e-300));
        assert_eq!(plan.segments as f64, (nodes as f64 * hours / period).ceil());
        // Truncated: U = (1 − e^{−R₀NT})/R₀ whatever the cadence.
        let cut = usage::job_losses(&m, nodes, hours, Cadence::Young, 0.7, LastSegment::Truncated);
        let want = -(-r0 * nodes as f64 * hours).exp_m1() / r0;
        assert!((cut.u / want - 1.0).abs() < 1e-12);
    }
    // An integer NT/P gives N_chk = NT/P segments, never one more from rounding.
    let plan = JobPlan::new(&m, 2000, 1.0, Cadence::Optimal, 1.0, LastSegment::Full);
    let hours = 7.0 * plan.period_nh() / 2000.0;
    for last in [LastSegment::Full, LastSegment::Truncated] {
        let p = JobPlan::new(&m, 2000, hours, Cadence::Optimal, 1.0, last);
        assert_eq!(p.segments, 7, "{last:?} {p:?}");
        assert!(p.final_checkpoint && (p.last_compute_nh / p.compute_nh - 1.0).abs() < 1e-12, "{last:?} {p:?}");
    }
    // ū_F: the series and the closed expression meet; small and large limits.
    for z in [1e-12, 1e-6, 9.99e-3, 1.001e-2, 0.5, 40.0, 800.0] {
        let got = usage::mean_failure_loss(1.0, z);
        let want = if z < 1e-4 { z / 2.0 - z * z / 12.0 } else { 1.0 - z / z.exp_m1() };
        assert!((got / want - 1.0).abs() < 1e-12, "ū_F({z}) = {got}, want {want}");
    }
    // e goes negative when restarts cost more than jobs use: restart usage is not in ΣU.
    let mut slow = fragile();
    slow.read_write_ratio = 40.0;
    let e = efficiency(
        &slow,
        &[JobType { nodes: 100, duration_h: 2.0, count: 1 }],
        Cadence::Optimal,
        1.0,
        LastSegment::Full,
    );
    assert!(e.e < 0.0, "{e:?}");
}

#[test]
fn machine_costs_are_the_models_formulas() {
    // τ_c = 3 GB / 1.5 GB/s = 2 s; N = 50 nodes; α = 0.5, τ₀ = 36 s.
    let m = Machine {
        failure_rate_per_node_h: 2e-3,
        checkpoint_bytes: 3e9,
        bandwidth_bytes_per_s: 1.5e9,
        storage: Storage::Shared,
        setup_s: 36.0,
        read_write_ratio: 0.5,
    };
    let tau_h = 2.0 / 3600.0;
    let n = 50.0;
    let close = |got: f64, want: f64, what: &str| {
        assert!((got - want).abs() <= FORMULA_RTOL * want.abs(), "{what}: {got:e} vs {want:e}");
    };
    close(m.checkpoint_time_h(), tau_h, "τ_c");
    // Shared storage: all N nodes contend for one bandwidth, u_chk = N²τ_c.
    close(m.u_chk(50), n * n * tau_h, "shared u_chk");
    let local = Machine { storage: Storage::Local, ..m };
    // Node-local: u_chk = N·τ_c.
    close(local.u_chk(50), n * tau_h, "local u_chk");
    for machine in [m, local] {
        // u_r = α·u_chk + τ₀·N, and u_R = (e^{R₀u_r} − 1)/R₀.
        let u_r = 0.5 * machine.u_chk(50) + 36.0 / 3600.0 * n;
        close(machine.u_r(50), u_r, &format!("{:?} u_r", machine.storage));
        close(machine.u_restart(50), (2e-3 * u_r).exp_m1() / 2e-3, &format!("{:?} u_R", machine.storage));
        // A plan carries these costs into the engine's job.
        let plan = JobPlan::new(&machine, 50, 10.0, Cadence::Young, 1.0, LastSegment::Full);
        close(plan.checkpoint_nh, machine.u_chk(50), "plan u_chk");
        close(plan.restart_nh, u_r, "plan u_r");
        close(plan.compute_nh, (2.0 * machine.u_chk(50) / 2e-3).sqrt(), "Young's u_c");
    }
}

/// Each efficiency figure of a simulation: (name, pooled ratio, its SE, mean of the
/// per-replication ratios, its SE).
fn figures(s: &SimulatedEfficiency) -> [(&'static str, [f64; 4]); 4] {
    let (p, r) = (&s.pooled, &s.per_replication);
    [
        ("e", [p.e.value, p.e.se, r.e.mean, r.e.se]),
        ("l_chk", [p.l_chk.value, p.l_chk.se, r.l_chk.mean, r.l_chk.se]),
        ("l_F", [p.l_f.value, p.l_f.se, r.l_f.mean, r.l_f.se]),
        ("l_R", [p.l_r.value, p.l_r.se, r.l_r.mean, r.l_r.se]),
    ]
}

/// The reported standard errors (delta method for the pooled ratios, Student for the means of
/// per-replication ratios) are what the estimates' spread over independent runs shows: a
/// wrong SE would make every "within 4 SE" comparison above too strict or too lenient.
#[test]
fn delta_method_standard_errors_match_the_spread_of_independent_runs() {
    let (m, types) = truncated_mix();
    let (c, l) = (Cadence::Optimal, LastSegment::Full);
    let runs: Vec<_> = (0..SE_CHECK_RUNS)
        .map(|k| figures(&simulate_schedule(&m, &types, c, 1.0, l, SE_CHECK_REPS, 5000 + k).unwrap()))
        .collect();
    // The sample SD of K estimates is off by a relative SE of about 1/√(2(K − 1)).
    let band = SE_TOLERANCE / (2.0 * (SE_CHECK_RUNS as f64 - 1.0)).sqrt();
    let sd = |xs: &[f64]| {
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (xs.len() as f64 - 1.0)).sqrt()
    };
    for (f, (name, _)) in runs[0].iter().enumerate() {
        for (kind, value, se) in [("pooled", 0, 1), ("per-replication", 2, 3)] {
            let values: Vec<f64> = runs.iter().map(|r| r[f].1[value]).collect();
            let spread = sd(&values);
            let reported = runs.iter().map(|r| r[f].1[se]).sum::<f64>() / SE_CHECK_RUNS as f64;
            let ratio = reported / spread;
            eprintln!("{kind} {name}: mean reported SE / SD over {SE_CHECK_RUNS} runs = {ratio:.3}");
            assert!(
                (ratio - 1.0).abs() < band,
                "{kind} {name}: mean reported SE {reported:.3e}, SD over {SE_CHECK_RUNS} runs {spread:.3e} \
                 (ratio {ratio:.3}, band ±{band:.3})"
            );
        }
    }
}

// ---- Schedule files ----

const FRONTIER_HEADER: &str = "\
Node Count,Requested Duration,Actual Duration
2064,28800,28822
2023,43200,4
2,600,600
2023,43200,43000
";

const SIMPLE_REORDERED: &str = "\
# a small synthetic schedule: comments and blank lines are skipped
requested_s,nodes

3600,128
7200,2
3600,128
";

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    path
}

#[test]
fn schedules_read_in_both_header_formats() {
    let tmp = tempfile::tempdir().unwrap();
    let s = read_schedule(&write(tmp.path(), "frontier.csv", FRONTIER_HEADER)).unwrap();
    assert_eq!(s.jobs.len(), 4);
    assert_eq!((s.jobs[0].nodes, s.jobs[0].requested_s, s.jobs[0].actual_s), (2064, 28800.0, Some(28822.0)));
    let num = 2064.0 * 28822.0 + 2023.0 * 4.0 + 2.0 * 600.0 + 2023.0 * 43000.0;
    let den = 2064.0 * 28800.0 + 2023.0 * 43200.0 + 2.0 * 600.0 + 2023.0 * 43200.0;
    assert!((s.runtime_ratio_usage_weighted().unwrap() - num / den).abs() < 1e-15);
    let plain = (28822.0 + 4.0 + 600.0 + 43000.0) / (28800.0 + 43200.0 + 600.0 + 43200.0);
    assert!((s.runtime_ratio_plain().unwrap() - plain).abs() < 1e-15);
    let types = s.job_types(0.5);
    assert_eq!(
        types,
        vec![
            JobType { nodes: 2, duration_h: 600.0 / 3600.0 * 0.5, count: 1 },
            JobType { nodes: 2023, duration_h: 6.0, count: 2 },
            JobType { nodes: 2064, duration_h: 4.0, count: 1 },
        ]
    );

    // The simple header, columns in another order, no actual durations.
    let s = read_schedule(&write(tmp.path(), "simple.csv", SIMPLE_REORDERED)).unwrap();
    assert_eq!(s.jobs.len(), 3);
    assert_eq!((s.jobs[1].nodes, s.jobs[1].requested_s, s.jobs[1].actual_s), (2, 7200.0, None));
    assert_eq!(s.runtime_ratio_usage_weighted(), None);
    assert_eq!(s.job_types(1.0).iter().map(|t| (t.nodes, t.count)).collect::<Vec<_>>(), vec![(2, 1), (128, 2)]);
    assert!((s.requested_usage_nh() - (2.0 * 128.0 + 4.0)).abs() < 1e-12);

    // A closed form and a simulation run on a schedule file end to end.
    let m = Machine { failure_rate_per_node_h: 1e-3, ..Machine::frontier() };
    let policy = (Cadence::Optimal, 1.0, LastSegment::Full);
    let types = s.job_types(1.0);
    let e = efficiency(&m, &types, policy.0, policy.1, policy.2);
    assert!(e.e > 0.0 && e.e < 1.0, "{e:?}");
    let sim = simulate_schedule(&m, &types, policy.0, policy.1, policy.2, 50_000, 3).unwrap();
    check_schedule("simple.csv", &sim, &types, &m, policy, PerReplication::Skip);
}

/// Reads `text` as a schedule and checks the error: exit code 2, the file, `line`, the
/// column `key` and the message fragments `expected`.
fn rejects(text: &str, line: usize, key: Option<&str>, expected: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let path = write(tmp.path(), "bad.csv", text);
    let err = read_schedule(&path).expect_err(text);
    assert_eq!(err.exit_code(), 2, "{err}");
    let shown = err.to_string();
    match &err {
        Error::Scenario { origin: Origin::File { path: p, line: l, column: None }, key: k, .. } => {
            assert_eq!(p, &path, "{shown}");
            assert_eq!(*l, Some(line), "{shown}");
            assert_eq!(k.as_deref(), key, "{shown}");
        }
        other => panic!("not a scenario error: {other:?}"),
    }
    assert!(shown.contains(&format!("bad.csv:{line}:")), "{shown}");
    for e in expected {
        assert!(shown.contains(e), "{shown:?} lacks {e:?}");
    }
}

#[test]
fn bad_schedules_are_rejected_with_line_and_column() {
    let h = "nodes,requested_s,actual_s\n";
    rejects(&format!("{h}4,60,30\n4,60\n"), 3, None, &["malformed row", "2 field(s)", "header has 3"]);
    rejects(&format!("{h}4,60,30\n4,60,30,1\n"), 3, None, &["malformed row", "4 field(s)"]);
    rejects(&format!("{h}4,60,30\n0,60,30\n"), 3, Some("nodes"), &["`0`", "whole number ≥ 1"]);
    rejects(&format!("{h}2.5,60,30\n"), 2, Some("nodes"), &["whole number ≥ 1"]);
    rejects(
        "Node Count,Requested Duration,Actual Duration\n# comment\n\n4,-60,30\n",
        4,
        Some("Requested Duration"),
        &["`-60`", "> 0"],
    );
    rejects(&format!("{h}4,60,-1\n"), 2, Some("actual_s"), &["`-1`", "≥ 0"]);
    rejects(&format!("{h}4,inf,1\n"), 2, Some("requested_s"), &["finite"]);
    rejects(&format!("{h}4,NaN,1\n"), 2, Some("requested_s"), &["finite"]);
    rejects(&format!("{h}4,0,0\n"), 2, Some("requested_s"), &["zero", "> 0"]);
    rejects(&format!("{h}4,sixty,1\n"), 2, Some("requested_s"), &["not a number"]);
    rejects(
        "nodes,actual_s\n4,60\n",
        1,
        Some("Requested Duration"),
        &["missing column", "requested_s", "accepted headers"],
    );
    rejects(
        "Requested Duration\n60\n",
        1,
        Some("Node Count"),
        &["missing column", "Node Count,Requested Duration", "nodes,requested_s"],
    );
    rejects("nodes,requested_s,walltime\n4,60,1\n", 1, Some("walltime"), &["unknown column", "accepted headers"]);
    rejects("nodes,requested_s,Node Count\n4,60,4\n", 1, Some("Node Count"), &["repeats column 1"]);
    rejects(h, 1, None, &["no jobs"]);
    rejects("# only a comment\n", 1, None, &["empty", "header"]);
    rejects("", 1, None, &["empty"]);
    // A missing file is bad input naming the resolved path.
    let err = read_schedule(Path::new("/nonexistent/jobs.csv")).unwrap_err();
    assert_eq!(err.exit_code(), 2);
    assert!(err.to_string().contains("/nonexistent/jobs.csv"));
}

/// Replications whose totals the delta-method check rebuilds one by one.
const DELTA_CHECK_REPS: u64 = 12;
/// Relative slack of the reported standard error and half-width against the delta method
/// evaluated again on the rebuilt totals: the library sums exactly, the rebuild takes
/// differences of running totals and loses a few digits.
const REBUILT_RTOL: f64 = 1e-6;

/// The pooled ratio's interval is the delta method on the replications' totals: with Xᵢ the
/// loss and Uᵢ the usage of replication i, R = ΣX/ΣU, SE = √(Σ(Xᵢ − R·Uᵢ)²/((n − 1)·n))/Ū and
/// half-width t_{n−1,0.975}·SE. Replication i's totals are rebuilt as the difference of runs
/// of i + 1 and i replications (replication i draws the same failures in both).
#[test]
fn pooled_intervals_are_the_delta_method_on_each_replications_totals() {
    let (m, types) = truncated_mix();
    let (c, l) = (Cadence::Optimal, LastSegment::Full);
    let run = |reps: u64| simulate_schedule(&m, &types, c, 1.0, l, reps, 31).unwrap();
    let totals = |reps: u64| -> (f64, f64) {
        if reps == 0 {
            return (0.0, 0.0);
        }
        let s = run(reps);
        let n = reps as f64;
        (n * (s.sum_l_chk.mean + s.sum_l_f.mean + s.sum_l_r.mean), n * s.sum_u.mean)
    };
    let running: Vec<(f64, f64)> = (0..=DELTA_CHECK_REPS).map(totals).collect();
    let (xs, us): (Vec<f64>, Vec<f64>) = running.windows(2).map(|w| (w[1].0 - w[0].0, w[1].1 - w[0].1)).unzip();
    let n = DELTA_CHECK_REPS as f64;
    let r = xs.iter().sum::<f64>() / us.iter().sum::<f64>();
    let u_mean = us.iter().sum::<f64>() / n;
    let var = xs.iter().zip(&us).map(|(x, u)| (x - r * u).powi(2)).sum::<f64>() / (n - 1.0);
    let se = (var / n).sqrt() / u_mean;
    let half_width = ckptsim::stats::t_975(DELTA_CHECK_REPS - 1) * se;
    let e = run(DELTA_CHECK_REPS).pooled.e;
    for (what, got, want) in [("e", e.value, 1.0 - r), ("SE", e.se, se), ("half-width", e.half_width, half_width)] {
        assert!((got - want).abs() <= REBUILT_RTOL * want.abs(), "pooled {what}: reported {got:e}, rebuilt {want:e}");
    }
}

/// Whole numbers of periods tried for jobs whose N·T/P the division rounds above them.
const WHOLE_PERIODS: u64 = 1000;

/// A job of exactly k periods whose usage N·T, divided by P, rounds to just above k has
/// N_chk = k segments, not k + 1 with a last one of a rounding error.
#[test]
fn a_whole_number_of_periods_rounded_up_by_the_division_is_not_one_more_segment() {
    let m = Machine::frontier();
    let nodes = 2000;
    let period = JobPlan::new(&m, nodes, 1.0, Cadence::Optimal, 1.0, LastSegment::Full).period_nh();
    let mut rounded_up = 0;
    for k in 1..=WHOLE_PERIODS {
        let hours = k as f64 * period / nodes as f64;
        // The quotient the plan forms: only those above k exercise the rounding.
        if nodes as f64 * hours / period <= k as f64 {
            continue;
        }
        rounded_up += 1;
        for last in [LastSegment::Full, LastSegment::Truncated] {
            let p = JobPlan::new(&m, nodes, hours, Cadence::Optimal, 1.0, last);
            assert_eq!(p.segments, k, "{last:?}: {k} periods: {p:?}");
        }
    }
    assert!(rounded_up > 0, "no whole number of periods up to {WHOLE_PERIODS} rounds up: the test tests nothing");
}
