//! The usage domain of Graziani, Lusch & Messer (2026) (MODELS.md §5): losses and machine
//! efficiency of a whole job schedule, in node-hours, as closed forms and by simulation with
//! the crate's engine.
//!
//! # Model
//!
//! Every quantity is a usage in node-hours (nh): a job on N nodes for t wall-clock hours uses
//! N·t. Failures strike each node at R₀ per node-hour, so a job on N nodes fails at N·R₀ per
//! wall hour while it uses N node-hours per wall hour: **measured in its own usage, every job
//! sees a Poisson stream of rate R₀ (MTBF 1/R₀ nh), whatever N**. That is the time unit the
//! simulation plays each job in.
//!
//! - Checkpoint usage `u_chk = N²τ_c` (shared storage: all N nodes contend for one bandwidth,
//!   so a write lasts N·τ_c wall time on N nodes) or `N·τ_c` (node-local), with τ_c the
//!   per-node checkpoint bytes over the bandwidth ([`Machine::u_chk`]).
//! - One restart `u_r = α·u_chk + τ₀·N` ([`Machine::u_r`]); restarts can fail and start over,
//!   so a recovery costs `u_R = (e^{R₀u_r} − 1)/R₀` on average ([`Machine::u_restart`]).
//! - A failure in an exposed stretch of length s (compute and write) loses on average
//!   `ū_F(s) = (1/R₀)(1 − z/(e^z − 1))`, z = R₀s: the mean of an Exp(R₀) time given it is
//!   below s ([`mean_failure_loss`]).
//! - Cadence u_c (compute between checkpoints, [`Machine::u_c`]): the exact root of eq. 3.3
//!   `1 − R₀u_c = e^{−R₀(u_c+u_chk)}`, which is `ln(1 − x) + x + a = 0` with x = R₀u_c and
//!   a = R₀u_chk: exactly the equation of [`analytic::optimal_interval_s`] with δ = u_chk and
//!   M = 1/R₀, so that solver is reused; or Young's eq. 3.4 `√(2u_chk/R₀)`; times a factor.
//! - A job ends at its first failure, once its restart is paid for (`on failure = end-job`).
//!   Its usage U runs until the failure or the end; the restart usage is a loss (L_R) but is
//!   not part of U.
//!
//! # The two conventions for the last segment ([`LastSegment`])
//!
//! With period P = u_c + u_chk, p = e^{−R₀P}, N_chk = ⌈NT/P⌉ segments. Segment k
//! (1-based) is reached with probability p^{k−1}; every segment but the last ends with a
//! non-final checkpoint, which is a loss (L_chk); the final checkpoint is not.
//!
//! **Full** (the paper's): all N_chk segments have length P, so a job can run longer than NT.
//!
//! ```text
//! L_chk = u_chk·Σ_{k=1}^{N_chk−1} p^k = u_chk·(p − p^{N_chk})/(1 − p)
//! L_F   = (1 − p^{N_chk})·ū_F(P)        L_R = (1 − p^{N_chk})·u_R
//! U     = (1 − p^{N_chk})/R₀
//! ```
//!
//! **Truncated**: the last segment is cut to `s_L = NT − (N_chk − 1)·P ∈ (0, P]`, so the
//! failure-free job uses exactly NT. It holds compute `s_L − u_chk` and the final write when
//! the write fits (s_L > u_chk); otherwise (s_L ≤ u_chk, including a whole job NT ≤ u_chk)
//! it is compute only, of length s_L, and the job ends at NT without a final checkpoint.
//! Either way the last segment is exposed for exactly s_L and writes no non-final
//! checkpoint, so, with p_L = e^{−R₀s_L}:
//!
//! ```text
//! L_chk = u_chk·(p − p^{N_chk})/(1 − p)                      (unchanged: the first N_chk − 1 are full)
//! L_F   = (1 − p^{N_chk−1})·ū_F(P) + p^{N_chk−1}·(1 − p_L)·ū_F(s_L)
//! L_R   = (1 − p^{N_chk−1}·p_L)·u_R = (1 − e^{−R₀NT})·u_R
//! U     = (1 − p^{N_chk−1}·p_L)/R₀  = (1 − e^{−R₀NT})/R₀     (= E[min(X, NT)], X ~ Exp(R₀))
//! ```
//!
//! L_F: a failure in full segment k (probability p^{k−1}(1 − p)) loses ū_F(P) on average;
//! summed over k < N_chk that is (1 − p^{N_chk−1})ū_F(P); one in the last segment
//! (probability p^{N_chk−1}(1 − p_L)) loses ū_F(s_L). U: usage accrues until the failure or
//! the end, so `E[U] = ∫₀^{NT} e^{−R₀t} dt`. With s_L = P both reduce to the Full forms.
//!
//! [`Cadence::None`] takes no prophylactic checkpoint: u_c = NT, one segment (N_chk = 1) of
//! compute NT plus the final write (Full), or of length NT in all (Truncated).
//!
//! # Machine efficiency
//!
//! `e = 1 − ΣL/ΣU` over a schedule (a ratio of sums, [`efficiency`]), with the three loss
//! shares `l_x = ΣL_x/ΣU`. [`simulate_schedule`] plays every job of the schedule once per
//! replication (a replication is a whole schedule, a year for Frontier) with
//! [`engine::play_periodic`] and gives both the mean of the per-replication ratios and the
//! pooled ratio of sums with a delta-method interval.

use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp1};
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;

use crate::analytic;
use crate::engine::{self, EngineError, Exposure, FinalCheckpoint, Job, Limits, OnFailure};
use crate::failure::ExponentialStream;
use crate::policy::ChunkLayout;
use crate::runner;
use crate::stats::{Estimate, ExactSum, Moments, t_975};

pub use crate::schedule::JobType;

/// Sub-stream tag of the usage-domain simulation: replication i of seed s draws every job's
/// failures from `runner::stream_rng(s, i, USAGE_STREAM)`.
pub const USAGE_STREAM: u64 = 0x7573_6167_6500; // "usage"

/// Seconds per hour.
const SECONDS_PER_HOUR: f64 = 3600.0;

/// Where checkpoints are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Storage {
    /// One shared file system: all N nodes share its bandwidth, `u_chk = N²·τ_c`.
    Shared,
    /// Node-local storage: every node writes at the full bandwidth, `u_chk = N·τ_c`.
    Local,
}

/// A machine of the usage model (MODELS.md §5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Machine {
    /// R₀, failures per node-hour (finite, > 0).
    pub failure_rate_per_node_h: f64,
    /// Checkpoint size per node (bytes, ≥ 0).
    pub checkpoint_bytes: f64,
    /// Write bandwidth B_w (bytes/s, > 0): of the shared file system, or of each node's
    /// local storage.
    pub bandwidth_bytes_per_s: f64,
    /// Shared or node-local checkpoint storage.
    pub storage: Storage,
    /// τ₀, fixed restart setup time (s, ≥ 0).
    pub setup_s: f64,
    /// α = B_w/B_r, the write-to-read bandwidth ratio (≥ 0): a restart reads the checkpoint
    /// in α·u_chk.
    pub read_write_ratio: f64,
}

/// How often jobs checkpoint: the compute u_c between two checkpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cadence {
    /// The exact root of eq. 3.3, `1 − R₀u_c = e^{−R₀(u_c+u_chk)}`.
    Optimal,
    /// Young's approximation, eq. 3.4: `u_c = √(2u_chk/R₀)`.
    Young,
    /// No prophylactic checkpoint: one segment of the whole job (u_c = NT).
    None,
}

/// How the last segment of a job is laid out (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LastSegment {
    /// The paper's: `N_chk = ⌈NT/(u_c+u_chk)⌉` full segments, so a job can run past N·T.
    Full,
    /// The last segment shortened so the failure-free job uses exactly N·T.
    Truncated,
}

impl Machine {
    /// Frontier as in Graziani, Lusch & Messer (2026) §7.3 (MODELS.md §5): R₀ = 2.0e-5 per
    /// node-hour, 200 GB per node written at 6 TB/s to shared storage, α = 1, τ₀ = 2 s.
    pub fn frontier() -> Machine {
        Machine {
            failure_rate_per_node_h: 2.0e-5,
            checkpoint_bytes: 200e9,
            bandwidth_bytes_per_s: 6e12,
            storage: Storage::Shared,
            setup_s: 2.0,
            read_write_ratio: 1.0,
        }
    }

    /// τ_c = per-node checkpoint bytes / bandwidth (hours); 9.26e-6 h for Frontier.
    pub fn checkpoint_time_h(&self) -> f64 {
        self.checkpoint_bytes / self.bandwidth_bytes_per_s / SECONDS_PER_HOUR
    }

    /// The mean usage between failures, 1/R₀ (node-hours).
    pub fn mtbf_nh(&self) -> f64 {
        1.0 / self.failure_rate_per_node_h
    }

    /// u_chk, the usage of one checkpoint write by a job on `nodes` nodes (node-hours):
    /// `N²τ_c` on shared storage, `N·τ_c` on node-local storage.
    pub fn u_chk(&self, nodes: u64) -> f64 {
        let n = nodes as f64;
        match self.storage {
            Storage::Shared => n * n * self.checkpoint_time_h(),
            Storage::Local => n * self.checkpoint_time_h(),
        }
    }

    /// u_r, the usage of one restart attempt on `nodes` nodes (node-hours):
    /// `α·u_chk + τ₀·N`.
    pub fn u_r(&self, nodes: u64) -> f64 {
        self.read_write_ratio * self.u_chk(nodes) + self.setup_s / SECONDS_PER_HOUR * nodes as f64
    }

    /// u_R, the expected usage of a recovery on `nodes` nodes when restarts can fail and
    /// start over (node-hours): `(e^{R₀u_r} − 1)/R₀`.
    pub fn u_restart(&self, nodes: u64) -> f64 {
        let r0 = self.failure_rate_per_node_h;
        (r0 * self.u_r(nodes)).exp_m1() / r0
    }

    /// The cadence u_c (node-hours of compute between checkpoints) of a job on `nodes` nodes,
    /// times `factor` (> 0): the exact root of eq. 3.3 for [`Cadence::Optimal`] (by
    /// [`analytic::optimal_interval_s`] with δ = u_chk, M = 1/R₀), `√(2u_chk/R₀)` for
    /// [`Cadence::Young`]. `None` for [`Cadence::None`] (one segment of the whole job; the
    /// factor does not apply).
    pub fn u_c(&self, nodes: u64, cadence: Cadence, factor: f64) -> Option<f64> {
        let (u_chk, mtbf) = (self.u_chk(nodes), self.mtbf_nh());
        match cadence {
            Cadence::Optimal => Some(factor * analytic::optimal_interval_s(u_chk, mtbf)),
            Cadence::Young => Some(factor * analytic::young_interval_s(u_chk, mtbf)),
            Cadence::None => None,
        }
    }

    /// ū_F(s), the mean usage lost by a failure that strikes an exposed segment of length
    /// `segment_nh` (node-hours): [`mean_failure_loss`] at this machine's R₀.
    pub fn mean_failure_loss(&self, segment_nh: f64) -> f64 {
        mean_failure_loss(self.failure_rate_per_node_h, segment_nh)
    }
}

/// ū_F = `(1/R₀)(1 − z/(e^z − 1))`, z = R₀·`segment_nh`: the mean usage (node-hours) lost to
/// a failure that strikes a segment of length `segment_nh` exposed throughout, i.e.
/// E[X | X < s] for X ~ Exp(R₀) (`r0` per node-hour). Accurate for small z (by its series
/// z/2 − z²/12 + z⁴/720 − z⁶/30240) and tends to 1/R₀ for large z.
pub fn mean_failure_loss(r0: f64, segment_nh: f64) -> f64 {
    let z = r0 * segment_nh;
    let fraction = if z < 1e-2 {
        let z2 = z * z;
        z * (0.5 - z * (1.0 / 12.0 - z2 * (1.0 / 720.0 - z2 / 30240.0)))
    } else {
        1.0 - z / z.exp_m1()
    };
    fraction / r0
}

/// How one job lays out its segments (every length in node-hours of that job's usage).
///
/// `segments − 1` full segments of `compute_nh` then a write of `checkpoint_nh`, then a last
/// segment of `last_compute_nh`, followed by the final write when `final_checkpoint`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JobPlan {
    /// N_chk, the number of segments (≥ 1).
    pub segments: u64,
    /// u_c, the compute of every segment but the last (nh, > 0).
    pub compute_nh: f64,
    /// u_chk, one checkpoint write (nh, ≥ 0).
    pub checkpoint_nh: f64,
    /// u_r, one restart attempt (nh, ≥ 0).
    pub restart_nh: f64,
    /// The compute of the last segment (nh, > 0).
    pub last_compute_nh: f64,
    /// Whether the last segment ends with the final write.
    pub final_checkpoint: bool,
}

impl JobPlan {
    /// The plan of a job on `nodes` nodes for `duration_h` wall hours (usage NT =
    /// nodes × duration_h > 0) on `machine`, with `cadence` × `factor` and the `last` segment
    /// convention (module docs).
    ///
    /// # Panics
    ///
    /// If NT is not finite and > 0, R₀ is not finite and > 0, the factor is not finite and
    /// > 0, or a periodic cadence has a zero period (zero checkpoint cost).
    pub fn new(
        machine: &Machine,
        nodes: u64,
        duration_h: f64,
        cadence: Cadence,
        factor: f64,
        last: LastSegment,
    ) -> JobPlan {
        let usage = nodes as f64 * duration_h;
        let r0 = machine.failure_rate_per_node_h;
        assert!(usage.is_finite() && usage > 0.0, "a job's usage N·T must be finite and > 0, not {usage}");
        assert!(r0.is_finite() && r0 > 0.0, "R₀ must be finite and > 0 per node-hour, not {r0}");
        assert!(factor.is_finite() && factor > 0.0, "the cadence factor must be finite and > 0, not {factor}");
        let u_chk = machine.u_chk(nodes);
        let u_c = machine.u_c(nodes, cadence, factor).unwrap_or(usage);
        let period = u_c + u_chk;
        assert!(
            period > 0.0 && u_c > 0.0,
            "the cadence u_c = {u_c} nh (u_chk = {u_chk} nh) must be > 0: a periodic cadence needs a checkpoint cost > 0"
        );
        // N_chk = ⌈NT/P⌉, not one more when rounding lifts an integer NT/P above itself: the
        // last segment s_L = NT − (N_chk − 1)P must be in (0, P] beyond rounding.
        let mut segments = (usage / period).ceil().max(1.0);
        if segments > 1.0 && usage - (segments - 1.0) * period <= 8.0 * f64::EPSILON * usage {
            segments -= 1.0;
        }
        let restart_nh = machine.u_r(nodes);
        let full = JobPlan {
            segments: segments as u64,
            compute_nh: u_c,
            checkpoint_nh: u_chk,
            restart_nh,
            last_compute_nh: u_c,
            final_checkpoint: true,
        };
        match last {
            LastSegment::Full => full,
            LastSegment::Truncated => {
                let last_len = usage - (segments - 1.0) * period;
                let (last_compute_nh, final_checkpoint) =
                    if last_len > u_chk { (last_len - u_chk, true) } else { (last_len, false) };
                JobPlan { segments: segments as u64, last_compute_nh, final_checkpoint, ..full }
            }
        }
    }

    /// The period u_c + u_chk of a full segment (nh).
    pub fn period_nh(&self) -> f64 {
        self.compute_nh + self.checkpoint_nh
    }

    /// The exposed length of the last segment: its compute plus the final write, if any (nh).
    pub fn last_nh(&self) -> f64 {
        self.last_compute_nh + if self.final_checkpoint { self.checkpoint_nh } else { 0.0 }
    }

    /// The failure-free usage of the job (nh), summed as the engine sums it: N·T for
    /// [`LastSegment::Truncated`], N_chk·P for [`LastSegment::Full`].
    pub fn usage_nh(&self) -> f64 {
        let last_start = (self.segments - 1) as f64 * self.period_nh();
        last_start + self.last_compute_nh + if self.final_checkpoint { self.checkpoint_nh } else { 0.0 }
    }

    /// The probability that the job ends by a failure, `1 − e^{−R₀·usage}` (`r0` per nh).
    pub fn failure_probability(&self, r0: f64) -> f64 {
        -(-r0 * ((self.segments - 1) as f64 * self.period_nh() + self.last_nh())).exp_m1()
    }

    /// The expected losses and usage of one job of this plan on `machine` (nh; module docs).
    pub fn losses(&self, machine: &Machine) -> JobLosses {
        let r0 = machine.failure_rate_per_node_h;
        let z = r0 * self.period_nh();
        let full = (self.segments - 1) as f64;
        // Σ_{k=1}^{n−1} p^k = p(1 − p^{n−1})/(1 − p), formed from expm1 without cancellation.
        let completed = if self.segments == 1 { 0.0 } else { (-z).exp() * (-full * z).exp_m1() / (-z).exp_m1() };
        let fail_before_last = -(-full * z).exp_m1();
        let reach_last = (-full * z).exp();
        let z_last = r0 * self.last_nh();
        let fail_in_last = -(-z_last).exp_m1();
        let p_fail = -(-(full * z + z_last)).exp_m1();
        JobLosses {
            l_chk: self.checkpoint_nh * completed,
            l_f: fail_before_last * mean_failure_loss(r0, self.period_nh())
                + reach_last * fail_in_last * mean_failure_loss(r0, self.last_nh()),
            l_r: p_fail * (r0 * self.restart_nh).exp_m1() / r0,
            u: p_fail / r0,
        }
    }

    /// The job and chunking the engine plays, in usage units (every `_s` field of [`Job`]
    /// holds node-hours of this job): checkpoint u_chk and restart u_r, both exposed to
    /// failures, no downtime, [`OnFailure::EndJob`], the final write as planned.
    pub fn engine_job(&self) -> (Job, ChunkLayout) {
        let job = Job {
            work_s: (self.segments - 1) as f64 * self.compute_nh + self.last_compute_nh,
            checkpoint_s: self.checkpoint_nh,
            restart_s: self.restart_nh,
            downtime_s: 0.0,
            final_checkpoint: if self.final_checkpoint { FinalCheckpoint::Written } else { FinalCheckpoint::Skipped },
            checkpoint_exposure: Exposure::CanFail,
            restart_exposure: Exposure::CanFail,
            on_failure: OnFailure::EndJob,
        };
        let layout = ChunkLayout { count: self.segments, full_s: self.compute_nh, last_s: self.last_compute_nh };
        (job, layout)
    }
}

/// Expected losses and usage of one job (node-hours), MODELS.md §5 eqs. 4.3–4.6.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JobLosses {
    /// L_chk, non-final checkpoint writes completed.
    pub l_chk: f64,
    /// L_F, compute and writes lost to the failure that ends the job.
    pub l_f: f64,
    /// L_R, the recovery (restart attempts) after that failure.
    pub l_r: f64,
    /// U, usage until the failure or the end (restarts excluded).
    pub u: f64,
}

impl JobLosses {
    /// L_chk + L_F + L_R.
    pub fn total(&self) -> f64 {
        self.l_chk + self.l_f + self.l_r
    }
}

/// The expected losses of one job on `nodes` nodes for `duration_h` wall hours (closed form;
/// [`JobPlan::new`] and [`JobPlan::losses`]).
pub fn job_losses(
    machine: &Machine,
    nodes: u64,
    duration_h: f64,
    cadence: Cadence,
    factor: f64,
    last: LastSegment,
) -> JobLosses {
    JobPlan::new(machine, nodes, duration_h, cadence, factor, last).losses(machine)
}

/// Machine efficiency over a schedule (closed form).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Efficiency {
    /// e = 1 − ΣL/ΣU.
    pub e: f64,
    /// l_chk = ΣL_chk/ΣU.
    pub l_chk: f64,
    /// l_F = ΣL_F/ΣU.
    pub l_f: f64,
    /// l_R = ΣL_R/ΣU.
    pub l_r: f64,
    /// ΣU (node-hours).
    pub sum_u: f64,
    /// ΣL = ΣL_chk + ΣL_F + ΣL_R (node-hours).
    pub sum_l: f64,
}

/// The machine efficiency of `types` (each job type weighted by its count) on `machine`,
/// with `cadence` × `factor` and the `last` segment convention: closed form.
pub fn efficiency(
    machine: &Machine,
    types: &[JobType],
    cadence: Cadence,
    factor: f64,
    last: LastSegment,
) -> Efficiency {
    let (mut u, mut chk, mut f, mut r) =
        (ExactSum::default(), ExactSum::default(), ExactSum::default(), ExactSum::default());
    for t in types {
        let l = job_losses(machine, t.nodes, t.duration_h, cadence, factor, last);
        let c = t.count as f64;
        u.add(c * l.u);
        chk.add(c * l.l_chk);
        f.add(c * l.l_f);
        r.add(c * l.l_r);
    }
    let (u, chk, f, r) = (u.value(), chk.value(), f.value(), r.value());
    let sum_l = chk + f + r;
    Efficiency { e: 1.0 - sum_l / u, l_chk: chk / u, l_f: f / u, l_r: r / u, sum_u: u, sum_l }
}

/// A value of each efficiency figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shares<T> {
    /// e = 1 − L/U.
    pub e: T,
    /// l_chk = L_chk/U.
    pub l_chk: T,
    /// l_F = L_F/U.
    pub l_f: T,
    /// l_R = L_R/U.
    pub l_r: T,
}

/// A ratio of sums over replications with its delta-method 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatioEstimate {
    /// ΣᵢXᵢ/ΣᵢUᵢ over the replications (for e: 1 − ΣᵢLᵢ/ΣᵢUᵢ).
    pub value: f64,
    /// Delta-method standard error: `√(Var(X − R·U)/n)/Ū`, the sample variance over
    /// replications.
    pub se: f64,
    /// Half-width of the 95% interval, t_{n−1,0.975}·se.
    pub half_width: f64,
}

impl RatioEstimate {
    /// Lower end of the 95% interval.
    pub fn ci_low(&self) -> f64 {
        self.value - self.half_width
    }
    /// Upper end of the 95% interval.
    pub fn ci_high(&self) -> f64 {
        self.value + self.half_width
    }
}

/// Machine efficiency of a schedule by simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulatedEfficiency {
    /// Replications (each one runs every job of the schedule once).
    pub replications: u64,
    /// The mean over replications of each replication's ratio (e_i = 1 − L_i/U_i, …), with a
    /// Student-t 95% interval (replications are iid). It estimates E[L_i/U_i], which differs
    /// from the closed form's ratio of expectations E\[ΣL\]/E\[ΣU\] by a bias of order
    /// 1/(failed jobs per replication): negligible for a year of Frontier (~1,500 failed
    /// jobs), large for small schedules, where [`SimulatedEfficiency::pooled`] is the one to
    /// compare with [`efficiency`].
    pub per_replication: Shares<Estimate>,
    /// The pooled ratio of sums over all replications (1 − ΣᵢLᵢ/ΣᵢUᵢ, …): a consistent
    /// estimator of the closed form's ratio of expectations E\[ΣL\]/E\[ΣU\] for any schedule
    /// size, with a delta-method interval.
    pub pooled: Shares<RatioEstimate>,
    /// ΣU per replication (node-hours).
    pub sum_u: Estimate,
    /// ΣL_chk per replication (node-hours).
    pub sum_l_chk: Estimate,
    /// ΣL_F per replication (node-hours).
    pub sum_l_f: Estimate,
    /// ΣL_R per replication (node-hours).
    pub sum_l_r: Estimate,
    /// Jobs ended by a failure, per replication.
    pub failed_jobs: Estimate,
}

/// Job plays per parallel work item, at least: enough to amortise an accumulator (one
/// replication per item for a year of Frontier, many for small schedules).
const JOBS_PER_BLOCK: u64 = 1 << 16;

/// The totals of one replication (node-hours; a count).
#[derive(Debug, Clone, Copy, Default)]
struct RepTotals {
    u: f64,
    chk: f64,
    f: f64,
    r: f64,
    failed: u64,
}

/// Exactly mergeable sums over replications: the result does not depend on the grouping.
#[derive(Debug, Clone, Default)]
struct Accumulator {
    ratio: [Moments; 4],
    total: [Moments; 4],
    u: Moments,
    /// Σᵢ Uᵢ·Xᵢ for X = L_chk, L_F, L_R, L.
    cross: [ExactSum; 4],
    failed: Moments,
}

impl Accumulator {
    fn add(&mut self, t: &RepTotals) {
        let losses = [t.chk, t.f, t.r, t.chk + t.f + t.r];
        for (k, x) in losses.iter().enumerate() {
            self.ratio[k].add(x / t.u);
            self.total[k].add(*x);
            self.cross[k].add(x * t.u);
        }
        self.u.add(t.u);
        self.failed.add(t.failed as f64);
    }

    fn merge(&mut self, other: &Accumulator) {
        for k in 0..4 {
            self.ratio[k].merge(&other.ratio[k]);
            self.total[k].merge(&other.total[k]);
            self.cross[k].merge(&other.cross[k]);
        }
        self.u.merge(&other.u);
        self.failed.merge(&other.failed);
    }

    fn finish(&self) -> SimulatedEfficiency {
        let n = self.u.count();
        let u = self.u.estimate();
        let pooled = |k: usize| {
            let x = self.total[k].estimate();
            let r = x.mean / u.mean;
            // Var(X − rU) = Var X − 2r·Cov(X, U) + r²·Var U, Cov from Σ XU.
            let nf = n as f64;
            let cov = (self.cross[k].value() - nf * x.mean * u.mean) / (nf - 1.0);
            let var = (x.sd * x.sd - 2.0 * r * cov + r * r * u.sd * u.sd).max(0.0);
            let se = (var / nf).sqrt() / u.mean;
            RatioEstimate { value: r, se, half_width: if n > 1 { t_975(n - 1) * se } else { f64::NAN } }
        };
        let total_loss = pooled(3);
        let e_ratio = self.ratio[3].estimate();
        SimulatedEfficiency {
            replications: n,
            per_replication: Shares {
                e: Estimate { mean: 1.0 - e_ratio.mean, ..e_ratio },
                l_chk: self.ratio[0].estimate(),
                l_f: self.ratio[1].estimate(),
                l_r: self.ratio[2].estimate(),
            },
            pooled: Shares {
                e: RatioEstimate { value: 1.0 - total_loss.value, ..total_loss },
                l_chk: pooled(0),
                l_f: pooled(1),
                l_r: pooled(2),
            },
            sum_u: u,
            sum_l_chk: self.total[0].estimate(),
            sum_l_f: self.total[1].estimate(),
            sum_l_r: self.total[2].estimate(),
            failed_jobs: self.failed.estimate(),
        }
    }
}

/// The plans of every job type, in order, with their counts.
fn plans(
    machine: &Machine,
    types: &[JobType],
    cadence: Cadence,
    factor: f64,
    last: LastSegment,
) -> Vec<(JobPlan, u64)> {
    types.iter().map(|t| (JobPlan::new(machine, t.nodes, t.duration_h, cadence, factor, last), t.count)).collect()
}

/// Runs `reps` replications in parallel with `one(rep)` giving each one's totals; the result
/// is the same bits for any thread count (exact sums), in memory independent of `reps`.
fn replicate(
    reps: u64,
    jobs_per_rep: u64,
    progress: &(dyn Fn(u64) + Sync),
    one: impl Fn(u64) -> Result<RepTotals, EngineError> + Sync,
) -> Result<SimulatedEfficiency, EngineError> {
    let block = (JOBS_PER_BLOCK / jobs_per_rep.max(1)).max(1);
    // Blocks of replications per work item, each summed into one boxed accumulator (they
    // are large: exact sums), merged exactly in whatever grouping rayon picks.
    let blocks = reps.div_ceil(block);
    let acc = (0..blocks)
        .into_par_iter()
        .map(|b| {
            let mut acc = Box::<Accumulator>::default();
            let reps = b * block..((b + 1) * block).min(reps);
            for rep in reps.clone() {
                acc.add(&one(rep)?);
            }
            progress(reps.end - reps.start);
            Ok(acc)
        })
        .try_reduce(Box::<Accumulator>::default, |mut a, b| {
            a.merge(&b);
            Ok(a)
        })?;
    Ok(acc.finish())
}

/// Machine efficiency of the schedule `types` on `machine` by Monte Carlo with the crate's
/// engine, `reps` replications from `seed`.
///
/// Each replication runs every job of the schedule once (type by type in the order of
/// `types`, each type's `count` jobs in a row) with [`engine::play_periodic`] on the job of
/// [`JobPlan::engine_job`] in that job's usage units, against an [`ExponentialStream`] of MTBF
/// 1/R₀ node-hours (module docs). Per job: U = wall − recovery, L_chk = non-final checkpoints
/// written × u_chk (the final one is not a loss; a failure during it makes the job a failure),
/// L_F = the engine's lost time, L_R = its recovery time.
///
/// Seeds: replication i draws from `runner::stream_rng(seed, i, USAGE_STREAM)`; job k of it
/// gets its own generator seeded with that generator's k-th `u64`. A job's failures therefore
/// depend only on (seed, i, k): every cadence, factor and last-segment convention of the
/// same schedule replays the same failures (common random numbers).
///
/// Parallel over replications with rayon, reduced with exact sums: the same bits for any
/// thread count; memory does not grow with `reps` (≥ 2 for intervals).
///
/// # Errors
///
/// [`EngineError::TooManyFailures`] when a job's restarts practically never complete
/// (R₀·u_r beyond ~18).
///
/// # Panics
///
/// On the preconditions of [`JobPlan::new`].
pub fn simulate_schedule(
    machine: &Machine,
    types: &[JobType],
    cadence: Cadence,
    factor: f64,
    last: LastSegment,
    reps: u64,
    seed: u64,
) -> Result<SimulatedEfficiency, EngineError> {
    simulate_schedule_with_progress(machine, types, cadence, factor, last, reps, seed, &|_| {})
}

/// [`simulate_schedule`], calling `progress(n)` (from any thread) each time another `n`
/// replications are done: for progress bars. The result is the same.
///
/// # Errors
///
/// As [`simulate_schedule`].
#[allow(clippy::too_many_arguments)]
pub fn simulate_schedule_with_progress(
    machine: &Machine,
    types: &[JobType],
    cadence: Cadence,
    factor: f64,
    last: LastSegment,
    reps: u64,
    seed: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<SimulatedEfficiency, EngineError> {
    let plans = plans(machine, types, cadence, factor, last);
    let jobs: Vec<_> =
        plans.iter().map(|(p, count)| (p.engine_job(), p.final_checkpoint, p.checkpoint_nh, *count)).collect();
    let mtbf = machine.mtbf_nh();
    replicate(reps, types.iter().map(|t| t.count).sum(), progress, |rep| {
        let mut rng = runner::stream_rng(seed, rep, USAGE_STREAM);
        let mut t = RepTotals::default();
        for ((job, layout), final_checkpoint, u_chk, count) in &jobs {
            for _ in 0..*count {
                // Most jobs never fail: one time drawn ahead, not a batch.
                let mut stream = ExponentialStream::with_first_batch(mtbf, Pcg64Mcg::seed_from_u64(rng.next_u64()), 1);
                let rec = engine::play_periodic(job, layout, &mut stream, Limits::default())?;
                let failed = rec.ended_by_failure(job);
                let non_final = rec.checkpoints - u64::from(!failed && *final_checkpoint);
                t.u += rec.wall_s - rec.recovery_s;
                t.chk += non_final as f64 * u_chk;
                t.f += rec.lost_s;
                t.r += rec.recovery_s;
                t.failed += u64::from(failed);
            }
        }
        Ok(t)
    })
}

/// The same simulation as [`simulate_schedule`] written directly from the model, without the
/// engine: one exponential draw decides where the job fails (or that it does not), then
/// restart attempts are drawn until one lasts u_r. A baseline for benchmarks of the engine's
/// cost, and an independent implementation for tests.
///
/// With the same `seed` it draws the same numbers as [`simulate_schedule`] and agrees with it
/// up to rounding (the engine accumulates times where this loop compares gaps); with another
/// seed it is an independent sample.
///
/// # Errors
///
/// [`EngineError::TooManyFailures`] after `Limits::default().max_failures` failed restart
/// attempts of one job.
pub fn bare_exponential_loop(
    machine: &Machine,
    types: &[JobType],
    cadence: Cadence,
    factor: f64,
    last: LastSegment,
    reps: u64,
    seed: u64,
) -> Result<SimulatedEfficiency, EngineError> {
    let plans = plans(machine, types, cadence, factor, last);
    let mtbf = machine.mtbf_nh();
    let limit = Limits::default().max_failures;
    replicate(reps, types.iter().map(|t| t.count).sum(), &|_| {}, |rep| {
        let mut rng = runner::stream_rng(seed, rep, USAGE_STREAM);
        let mut t = RepTotals::default();
        for (plan, count) in &plans {
            let period = plan.period_nh();
            let end = plan.usage_nh();
            let last_start = (plan.segments - 1) as f64 * period;
            for _ in 0..*count {
                let mut job_rng = Pcg64Mcg::seed_from_u64(rng.next_u64());
                let mut gap = || -> f64 {
                    let unit: f64 = Exp1.sample(&mut job_rng);
                    unit * mtbf
                };
                let x = gap();
                if x >= end {
                    t.u += end;
                    t.chk += (plan.segments - 1) as f64 * plan.checkpoint_nh;
                    continue;
                }
                let (done, lost) = if x < last_start {
                    let k = ((x / period) as u64).min(plan.segments - 2);
                    (k, x - k as f64 * period)
                } else {
                    (plan.segments - 1, x - last_start)
                };
                t.u += x;
                t.chk += done as f64 * plan.checkpoint_nh;
                t.f += lost;
                t.failed += 1;
                let mut attempts = 1_u64;
                loop {
                    let y = gap();
                    if y >= plan.restart_nh {
                        t.r += plan.restart_nh;
                        break;
                    }
                    t.r += y;
                    attempts += 1;
                    if attempts > limit {
                        return Err(EngineError::TooManyFailures { limit, wall_s: x });
                    }
                }
            }
        }
        Ok(t)
    })
}
