//! Closed forms for exponential failures (MODELS.md §1): the Young (1974) and Daly (2006)
//! intervals, the exact optimum, and the exact mean and variance of the wall time, against
//! which the simulator is validated.
//!
//! Failures form a Poisson process of mean inter-arrival `M` (s). A segment has an exposed part
//! of length `a` (compute, plus the checkpoint write when it can fail) that must run without
//! a failure, and an unexposed part `b` (a write that cannot fail). Each failure loses the time
//! since the segment began and costs one recovery: downtime `D`, then restart attempts of length
//! `R` until one completes (Daly 2006; Bougeret et al. 2011 with downtime). Then
//! `E[segment] = K·(e^{a/M} − 1) + b` with `K` from [`recovery_constant_s`].
//!
//! Every duration is in seconds. Evaluation avoids cancellation: `e^t − 1 − t`, `sinh u − u` and
//! `−ln(1 − x) − x` are summed as series of positive terms where they are small, so the values
//! keep full double precision for `a/M` down to 1e-12 and below.

pub mod multilevel;
pub mod renewal;

use crate::engine::{Exposure, FinalCheckpoint, Job};
use crate::policy::ChunkLayout;

/// Young (1974) first-order interval `√(2δM)` (s), from a checkpoint cost `checkpoint_s` = δ (s)
/// and an MTBF `mtbf_s` = M (s). Ignores failures during checkpoints and restarts.
pub fn young_interval_s(checkpoint_s: f64, mtbf_s: f64) -> f64 {
    (2.0 * checkpoint_s * mtbf_s).sqrt()
}

/// "Daly low order" interval (s) as commonly used: `√(2δM) − δ` for δ < M/2, else `M`
/// (Daly 2006, the first-order form; Young 1974 applied to the period `T + δ`), from a
/// checkpoint cost `checkpoint_s` = δ (s) and an MTBF `mtbf_s` = M (s).
pub fn daly_low_order_interval_s(checkpoint_s: f64, mtbf_s: f64) -> f64 {
    if checkpoint_s < 0.5 * mtbf_s { young_interval_s(checkpoint_s, mtbf_s) - checkpoint_s } else { mtbf_s }
}

/// Daly (2006) eq. 37, the higher-order interval (s):
/// `√(2δM)·[1 + ⅓√(δ/2M) + ⅑(δ/2M)] − δ` for δ < 2M, else `M`, from a checkpoint cost
/// `checkpoint_s` = δ (s) and an MTBF `mtbf_s` = M (s). It is the first three terms of the
/// series of [`optimal_interval_s`]; the error is ≈ (4/270)·δ²/M ≈ 0.0148 δ²/M.
pub fn daly_high_order_interval_s(checkpoint_s: f64, mtbf_s: f64) -> f64 {
    if checkpoint_s < 2.0 * mtbf_s {
        let q = checkpoint_s / (2.0 * mtbf_s);
        young_interval_s(checkpoint_s, mtbf_s) * (1.0 + q.sqrt() / 3.0 + q / 9.0) - checkpoint_s
    } else {
        mtbf_s
    }
}

/// The exact optimal compute interval `T* = M·(1 + W₀(−e^{−1−δ/M}))` (s) when failures can
/// strike compute, checkpoint writes and restarts (Daly 2006's exact model; Bougeret et al.
/// 2011), from a checkpoint cost `checkpoint_s` = δ (s) and an MTBF `mtbf_s` = M (s).
/// Independent of the restart cost and the downtime.
///
/// Computed without W₀ (which loses digits near its branch point): `T* = M·x` with x the root
/// of `ln(1 − x) + x + δ/M = 0`, solved by Newton's method in `y = −ln(1 − x)`, i.e.
/// `y − 1 + e^{−y} = δ/M`, which stays well conditioned both for small δ/M and as x → 1.
/// Full double precision for δ/M from below 1e-12 to beyond 20; monotone in δ/M. A zero
/// checkpoint cost gives 0.
pub fn optimal_interval_s(checkpoint_s: f64, mtbf_s: f64) -> f64 {
    if checkpoint_s == 0.0 {
        return 0.0;
    }
    if mtbf_s == f64::INFINITY {
        return f64::INFINITY;
    }
    let a = checkpoint_s / mtbf_s;
    if a < TINY_RATIO {
        // x = s − s²/3 + s³/36 + O(s⁴) with s = √(2a), exact in double precision here; Young's
        // √(2δM) is formed directly so that an underflowing δ/M cannot zero it.
        let s = (2.0 * a).sqrt();
        return young_interval_s(checkpoint_s, mtbf_s) * (1.0 - s / 3.0 + s * s / 36.0);
    }
    mtbf_s * exact_optimum_fraction(a)
}

/// K (s), the expected cost of a recovery per failed attempt, as in
/// `E[segment] = K(e^{a/M} − 1) + b` (Daly 2006; Bougeret et al. 2011 with downtime, MODELS.md
/// §1): `K = (M + D)·e^{R/M}` when `job.restart_exposure` is [`Exposure::CanFail`] (a struck
/// restart starts over after another downtime), else `K = M + D + R`. `mtbf_s` = M (s).
/// `K = M + E[V]`, with V the duration of one recovery.
pub fn recovery_constant_s(job: &Job, mtbf_s: f64) -> f64 {
    match job.restart_exposure {
        Exposure::CanFail => (mtbf_s + job.downtime_s) * (job.restart_s / mtbf_s).exp(),
        Exposure::CannotFail => mtbf_s + job.downtime_s + job.restart_s,
    }
}

/// The optimal compute interval `T* = M·x` (s) when checkpoint writes cannot fail (MODELS.md
/// §1, "Optimum when the checkpoint cannot fail"), x the root of `(1 − x)·e^x = 1 − δ/K` with
/// K from [`recovery_constant_s`], δ = `job.checkpoint_s` (s) and `mtbf_s` = M (s). It
/// minimises `H(T) = (K(e^{T/M} − 1) + δ)/T − 1`; restart cost and downtime shorten it.
/// `job.checkpoint_exposure` is not read: the write is taken as unfailing.
///
/// `None` when δ ≥ K, outside the domain MODELS.md states (the equation still has a root
/// x ≥ 1 there, but T* ≥ M is outside the regime this reference is used for). Solved by
/// Newton's method on `1 − (1 − x)e^x = Σ_{n≥2} (n − 1)xⁿ/n!`, summed without cancellation,
/// so small δ/K keeps full precision. A zero checkpoint cost gives `Some(0.0)`.
pub fn optimal_interval_unfailing_checkpoint_s(job: &Job, mtbf_s: f64) -> Option<f64> {
    let delta_s = job.checkpoint_s;
    if delta_s == 0.0 {
        return Some(0.0);
    }
    if mtbf_s == f64::INFINITY {
        return Some(f64::INFINITY);
    }
    let k_s = recovery_constant_s(job, mtbf_s);
    let c = delta_s / k_s;
    if c.is_nan() || c >= 1.0 {
        return None;
    }
    if c < TINY_RATIO {
        // x = s − s²/3 + 11s³/72 + O(s⁴) with s = √(2c), exact in double precision here.
        let s = (2.0 * c).sqrt();
        return Some((2.0 * delta_s).sqrt() * (mtbf_s / k_s.sqrt()) * (1.0 - s / 3.0));
    }
    Some(mtbf_s * unfailing_optimum_fraction(c))
}

/// Mean and variance of a random duration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moments {
    /// Expected value (s).
    pub mean_s: f64,
    /// Variance (s²).
    pub variance_s2: f64,
}

impl Moments {
    /// Standard deviation (s), the square root of [`Moments::variance_s2`].
    pub fn sd_s(&self) -> f64 {
        self.variance_s2.sqrt()
    }

    const INFINITE: Moments = Moments { mean_s: f64::INFINITY, variance_s2: f64::INFINITY };

    /// The moments of the sum of `count` independent copies of `self` and one of `other`.
    fn times_plus(self, count: u64, other: Moments) -> Moments {
        if count == 0 {
            return other;
        }
        let n = count as f64;
        Moments { mean_s: n * self.mean_s + other.mean_s, variance_s2: n * self.variance_s2 + other.variance_s2 }
    }
}

/// Exact mean and variance (s, s²) of the wall time of one segment with `exposed_s` = a (s)
/// that must run without a failure and `unexposed_s` = b (s) during which failures are ignored,
/// with an MTBF `mtbf_s` = M (s) and the recovery of `job` (downtime, restart, restart exposure).
///
/// Mean `K(e^{a/M} − 1) + b` (Daly 2006; Bougeret et al. 2011). Variance per MODELS.md §1,
/// "Exact variance": with N ~ Geometric(e^{−a/M}) failed attempts, losses U ~ X | X < a
/// (X ~ Exp(M)) and one recovery V (D then R repeated until it completes:
/// `V = N_R·(D + U_R) + D + R` with N_R ~ Geometric(e^{−R/M}) and U_R ~ X | X < R when the
/// restart can fail, else `V = D + R`),
/// `Var Y = E[N](Var U + Var V) + Var[N](E U + E V)²`.
///
/// Infinite mean and variance when e^{a/M} (or e^{R/M}) overflows.
pub fn segment_moments(exposed_s: f64, unexposed_s: f64, job: &Job, mtbf_s: f64) -> Moments {
    let t = exposed_s / mtbf_s;
    if t.is_nan() || t <= 0.0 {
        // Nothing exposed, or no failures at all (M infinite): the segment cannot be struck.
        return Moments { mean_s: exposed_s + unexposed_s, variance_s2: 0.0 };
    }
    let failed_n = t.exp_m1();
    if failed_n == f64::INFINITY {
        return Moments::INFINITE;
    }
    let failed_var_n = failed_n * t.exp();
    let v = recovery_moments(job, mtbf_s);
    let loss_mean_s = mtbf_s * truncated_exp_mean(t);
    let loss_var_s2 = mtbf_s * mtbf_s * truncated_exp_variance(t);
    // E[N]·E[U] = M·(e^t − 1 − t) exactly: the expected lost work, free of cancellation, so the
    // mean is a sum of positive terms. It equals K(e^{a/M} − 1) + b.
    let lost_s = mtbf_s * exp_tail2(t) + mul_cost(failed_n, v.mean_s);
    let per_failure_s = loss_mean_s + v.mean_s;
    Moments {
        mean_s: exposed_s + unexposed_s + lost_s,
        variance_s2: failed_n * (loss_var_s2 + v.variance_s2) + failed_var_n * per_failure_s * per_failure_s,
    }
}

/// Exact mean and variance (s, s²) of the wall time of the whole job `job` (MODELS.md §1,
/// "Finite work"; Daly 2006; Bougeret et al. 2011), with chunks of `min(T, remaining)` where
/// T = `interval_s` (s, > 0; infinite for no checkpoints: one chunk of W) and an MTBF
/// `mtbf_s` = M (s).
///
/// The chunking is [`ChunkLayout`]'s, the one the engine plays: ⌊W/T⌋ full chunks and a
/// remainder `W − ⌊W/T⌋·T` when that is > 0. Each chunk of compute c is a segment with
/// a = c + δ, b = 0 when checkpoints can fail and a = c, b = δ when they cannot; with
/// [`FinalCheckpoint::Skipped`] the last chunk has no write (a = c, b = 0). Segments are
/// independent, so means and variances add.
pub fn finite_work_moments(job: &Job, interval_s: f64, mtbf_s: f64) -> Moments {
    let layout = ChunkLayout::new(job.work_s, interval_s);
    let last = chunk_segment(job, layout.last_s, true);
    let last = segment_moments(last.exposed_s, last.unexposed_s, job, mtbf_s);
    let full_count = layout.full_chunks();
    if full_count == 0 {
        return last;
    }
    let full = chunk_segment(job, layout.full_s, false);
    segment_moments(full.exposed_s, full.unexposed_s, job, mtbf_s).times_plus(full_count, last)
}

/// Expected overhead `E[wall]/W − 1` (dimensionless) of the whole job `job` at the interval
/// `interval_s` (s) with an MTBF `mtbf_s` = M (s), chunked as in [`finite_work_moments`]
/// (MODELS.md §1, "Finite work": `E[wall] = k·g(T+δ) + g(r+δ)`, Daly 2006; Bougeret et al.
/// 2011). Computed from the expected time beyond the work, so a small overhead keeps its
/// digits.
pub fn finite_work_overhead(job: &Job, interval_s: f64, mtbf_s: f64) -> f64 {
    let layout = ChunkLayout::new(job.work_s, interval_s);
    let last_s = chunk_excess_s(job, layout.last_s, true, mtbf_s);
    let full_count = layout.full_chunks();
    let excess_s = if full_count == 0 {
        last_s
    } else {
        full_count as f64 * chunk_excess_s(job, layout.full_s, false, mtbf_s) + last_s
    };
    excess_s / job.work_s
}

/// The most steps [`finite_work_optimal_interval_s`] walks from its first count.
const MAX_CHUNK_COUNT_STEPS: u64 = 1_000_000;

/// The equal chunking W/k (s) with the least exact expected wall time of the whole job `job`
/// ([`finite_work_moments`], MODELS.md §1 "Finite work") under Poisson failures of MTBF
/// `mtbf_s` (s): the best interval for this work, where the endless-work optimum
/// ([`optimal_interval_s`]) ends in a short last chunk that still costs a whole write.
/// Equal chunks cost least for a given count k (MODELS.md §1), so only W/k is tried, from
/// k₀ = W/`around_s` rounded, walking to the neighbouring count while E\[wall\] falls: for a
/// job that restarts, `E[wall] = k·g(W/k)` with g convex (the segment's expectation) is
/// convex in k, so the walk ends at the best count. A job that ends at its first failure
/// is chunked as one that restarts (as the other rules are). `None` with infinite work, an
/// `around_s` that is not finite and > 0, or counts beyond 2⁵³.
pub fn finite_work_optimal_interval_s(job: &Job, mtbf_s: f64, around_s: f64) -> Option<f64> {
    let w = job.work_s;
    if !(w.is_finite() && around_s > 0.0 && around_s.is_finite()) {
        return None;
    }
    let job = &Job { on_failure: crate::engine::OnFailure::Restart, ..job.clone() };
    let k0 = (w / around_s).round().max(1.0);
    if k0 > crate::policy::MAX_EXACT_COUNT {
        return None;
    }
    let wall = |k: u64| finite_work_moments(job, w / k as f64, mtbf_s).mean_s;
    let mut k = k0 as u64;
    let mut best = wall(k);
    for step in [1_i64, -1] {
        for _ in 0..MAX_CHUNK_COUNT_STEPS {
            let next = k.checked_add_signed(step).filter(|&n| n >= 1 && n as f64 <= crate::policy::MAX_EXACT_COUNT);
            match next.map(|n| (n, wall(n))) {
                Some((n, e)) if e < best => (k, best) = (n, e),
                _ => break,
            }
        }
    }
    Some(w / k as f64)
}

/// Expected overhead for infinite work, `H(T) = E[segment(T)]/T − 1` (dimensionless), at the
/// compute interval `interval_s` = T (s) with an MTBF `mtbf_s` = M (s) (Daly 2006; Bougeret et
/// al. 2011; MODELS.md §1): `H = K(e^{(T+δ)/M} − 1)/T − 1` when checkpoints can fail,
/// `(K(e^{T/M} − 1) + δ)/T − 1` when they cannot. `job.work_s` and `job.final_checkpoint` are
/// not read.
pub fn infinite_work_overhead(job: &Job, interval_s: f64, mtbf_s: f64) -> f64 {
    let excess_s = chunk_excess_s(job, interval_s, false, mtbf_s);
    if excess_s == f64::INFINITY && interval_s == f64::INFINITY {
        // Never checkpointing infinite work under failures never finishes.
        return f64::INFINITY;
    }
    excess_s / interval_s
}

/// The SCR-model efficiency `1/(1 + H)` (dimensionless) at the compute interval `interval_s`
/// (s) for infinite work, with H from [`infinite_work_overhead`] and an MTBF `mtbf_s` (s)
/// (Moody et al., SC'10, single level): the fraction of wall time spent on useful compute.
pub fn efficiency(job: &Job, interval_s: f64, mtbf_s: f64) -> f64 {
    1.0 / (1.0 + infinite_work_overhead(job, interval_s, mtbf_s))
}

/// Expected wall time (s) of the whole job `job` at the interval `interval_s` (s; infinite
/// for no checkpoints) under Poisson failures of MTBF `mtbf_s` = M (s), chunked as the engine
/// plays it ([`ChunkLayout`]). Infinite where the expectation overflows.
///
/// With [`OnFailure::Restart`](crate::engine::OnFailure::Restart) it is the mean of
/// [`finite_work_moments`] (MODELS.md §1), exact. With
/// [`OnFailure::EndJob`](crate::engine::OnFailure::EndJob) the job stops at the first failure
/// that strikes it and pays one recovery: `E[min(first strike, L)] + P(struck)·E[V]`, with L
/// the failure-free wall time (the work and its writes), summed chunk by chunk in closed form
/// (a geometric series over the full chunks); also exact, writes that cannot fail included
/// (they pass their failures over).
pub fn expected_wall_s(job: &Job, interval_s: f64, mtbf_s: f64) -> f64 {
    if job.on_failure == crate::engine::OnFailure::Restart {
        return finite_work_moments(job, interval_s, mtbf_s).mean_s;
    }
    let layout = ChunkLayout::new(job.work_s, interval_s);
    let full = chunk_segment(job, layout.full_s, false);
    let last = chunk_segment(job, layout.last_s, true);
    let n = layout.full_chunks() as f64;
    // Survival over one full chunk's exposed part, q = e^{−a/M}, and over all n of them,
    // qⁿ = e^{n·ln q} (ln qⁿ is 0 without full chunks, whose a may be infinite).
    let log_q = -full.exposed_s / mtbf_s;
    let log_q_n = if n == 0.0 { 0.0 } else { n * log_q };
    let q_n = log_q_n.exp();
    // Σ_{k<n} q^k = (1 − qⁿ)/(1 − q), without cancellation where a ≪ M.
    let geometric = if n == 0.0 || log_q == 0.0 { n } else { log_q_n.exp_m1() / log_q.exp_m1() };
    let log_q_last = -last.exposed_s / mtbf_s;
    // A chunk whose exposed part a starts at survival S adds S·(M(1 − e^{−a/M}) + b·e^{−a/M})
    // to E[min(first strike, L)]: its exposed part until a strike, its unexposed part b only
    // without one. Over the full chunks the M terms add up to M(1 − qⁿ).
    let full_s = if n == 0.0 { 0.0 } else { -mtbf_s * log_q_n.exp_m1() + full.unexposed_s * log_q.exp() * geometric };
    let last_s = q_n * (-mtbf_s * log_q_last.exp_m1() + last.unexposed_s * log_q_last.exp());
    let struck = -(log_q_n + log_q_last).exp_m1();
    let recovery_s = if struck == 0.0 { 0.0 } else { struck * recovery_moments(job, mtbf_s).mean_s };
    full_s + last_s + recovery_s
}

/// Expected failures that arrive during one replication of `job` (s of work, costs and
/// switches as given) at the interval `interval_s` (s; infinite for no checkpoints): those
/// that strike it and those it passes over (during downtime, or a phase that cannot fail),
/// every one of which the engine plays. `mtbf_s` = M (s) is the job's MTBF.
///
/// For Poisson failures this is `E[wall]/M` exactly, with E\[wall\] from [`expected_wall_s`]:
/// N(t) − t/M is a martingale for the count N of a Poisson process and the wall time is a
/// stopping time, so E\[N(wall)\] = E\[wall\]/M (Wald's identity). For other failure laws
/// (renewal, per-node ageing, domains, bursts, a replayed log) the same formula at the job's
/// MTBF is only an estimate: it counts failures at their average rate, which the stream
/// keeps over a long run but not over the start of a fresh platform or a short job.
/// Infinite where E\[wall\] overflows.
pub fn expected_failures_per_rep(job: &Job, interval_s: f64, mtbf_s: f64) -> f64 {
    expected_wall_s(job, interval_s, mtbf_s) / mtbf_s
}

/// Below this ratio (δ/M or δ/K) the optimum's leading series terms are exact in double
/// precision (the first omitted one is below 1e-29 relative), and Newton's method is kept away
/// from underflow.
const TINY_RATIO: f64 = 1e-30;

/// Beyond this δ/M the root `x = 1 − e^{−y}` (y ≈ a + 1) is within e^{−41} ≈ 2e-18 of 1: it
/// rounds to 1.
const SATURATED_RATIO: f64 = 40.0;

/// Newton iterations allowed; convergence takes fewer than ten from the starting points used.
const MAX_NEWTON_STEPS: usize = 100;

/// The exposed and unexposed parts (s) of the segment holding one chunk.
struct ChunkSegment {
    exposed_s: f64,
    unexposed_s: f64,
}

/// The segment of a compute chunk of `compute_s` (s); `last` marks the job's last chunk.
fn chunk_segment(job: &Job, compute_s: f64, last: bool) -> ChunkSegment {
    if last && job.final_checkpoint == FinalCheckpoint::Skipped {
        return ChunkSegment { exposed_s: compute_s, unexposed_s: 0.0 };
    }
    match job.checkpoint_exposure {
        Exposure::CanFail => ChunkSegment { exposed_s: compute_s + job.checkpoint_s, unexposed_s: 0.0 },
        Exposure::CannotFail => ChunkSegment { exposed_s: compute_s, unexposed_s: job.checkpoint_s },
    }
}

/// Expected wall time of a chunk's segment beyond its compute (s): the write, if any, plus the
/// expected time lost to failures, `E[N]·(E U + E V)`.
fn chunk_excess_s(job: &Job, compute_s: f64, last: bool, mtbf_s: f64) -> f64 {
    let seg = chunk_segment(job, compute_s, last);
    let write_s = if last && job.final_checkpoint == FinalCheckpoint::Skipped { 0.0 } else { job.checkpoint_s };
    let t = seg.exposed_s / mtbf_s;
    if t.is_nan() || t <= 0.0 {
        return write_s;
    }
    let failed_n = t.exp_m1();
    if failed_n == f64::INFINITY {
        return f64::INFINITY;
    }
    let v = recovery_moments(job, mtbf_s);
    write_s + mtbf_s * exp_tail2(t) + mul_cost(failed_n, v.mean_s)
}

/// Moments (s, s²) of one recovery V: downtime, then restart attempts until one completes.
fn recovery_moments(job: &Job, mtbf_s: f64) -> Moments {
    let d_s = job.downtime_s;
    let r_s = job.restart_s;
    let t = r_s / mtbf_s;
    if job.restart_exposure == Exposure::CannotFail || t.is_nan() || t <= 0.0 {
        return Moments { mean_s: d_s + r_s, variance_s2: 0.0 };
    }
    let failed_n = t.exp_m1();
    if failed_n == f64::INFINITY {
        return Moments::INFINITE;
    }
    let failed_var_n = failed_n * t.exp();
    let loss_mean_s = mtbf_s * truncated_exp_mean(t);
    let loss_var_s2 = mtbf_s * mtbf_s * truncated_exp_variance(t);
    let per_failure_s = d_s + loss_mean_s;
    Moments {
        // D + R + E[N_R]·(D + E U_R) = D·e^t + R + M·(e^t − 1 − t): positive terms only.
        mean_s: mul_cost(d_s, t.exp()) + r_s + mtbf_s * exp_tail2(t),
        variance_s2: failed_n * loss_var_s2 + failed_var_n * per_failure_s * per_failure_s,
    }
}

/// `cost·count`, where a zero cost stays zero even if the count overflowed.
fn mul_cost(count: f64, cost_s: f64) -> f64 {
    if cost_s == 0.0 { 0.0 } else { count * cost_s }
}

/// `e^t − 1 − t = Σ_{n≥2} tⁿ/n!` for t ≥ 0.
fn exp_tail2(t: f64) -> f64 {
    if t < 2.0 {
        // Positive terms, largest first: no cancellation however small t is.
        let mut term = 0.5 * t * t;
        let mut sum = term;
        let mut n = 2.0;
        loop {
            n += 1.0;
            term *= t / n;
            let next = sum + term;
            if next == sum {
                return sum;
            }
            sum = next;
        }
    } else if t == f64::INFINITY {
        f64::INFINITY
    } else {
        // e^t ≥ 7.4 here, so subtracting 1 + t loses under one bit.
        t.exp_m1() - t
    }
}

/// `sinh u − u = Σ_{k≥1} u^{2k+1}/(2k+1)!` for 0 ≤ u < 3 (series of positive terms).
fn sinh_minus_identity(u: f64) -> f64 {
    let u2 = u * u;
    let mut term = u * u2 / 6.0;
    let mut sum = term;
    let mut n = 3.0;
    loop {
        term *= u2 / ((n + 1.0) * (n + 2.0));
        n += 2.0;
        let next = sum + term;
        if next == sum {
            return sum;
        }
        sum = next;
    }
}

/// `E[Z | Z < t]` for Z ~ Exp(1), t > 0: `1 − t/(e^t − 1) = (e^t − 1 − t)/(e^t − 1)`.
fn truncated_exp_mean(t: f64) -> f64 {
    if t < 1e-20 {
        // t/2 − t²/12: the second term is below double precision here.
        0.5 * t
    } else if t < 2.0 {
        // The closed form M − Lq/(1−q) cancels badly for small t; this ratio does not.
        exp_tail2(t) / t.exp_m1()
    } else {
        1.0 - t / t.exp_m1()
    }
}

/// `Var[Z | Z < t]` for Z ~ Exp(1), t > 0: `1 − t²e^t/(e^t − 1)² = 1 − (u/sinh u)²`, u = t/2.
fn truncated_exp_variance(t: f64) -> f64 {
    let u = 0.5 * t;
    if u < 1e-20 {
        // u²/3 − u⁴/15: the second term is below double precision here.
        u * u / 3.0
    } else if u < 3.0 {
        // (sinh²u − u²)/sinh²u = (sinh u − u)(sinh u + u)/sinh²u, each factor positive.
        let s = sinh_minus_identity(u);
        let sinh = u + s;
        s * (s + 2.0 * u) / (sinh * sinh)
    } else {
        // u/sinh u = 2u·e^{−u}/(1 − e^{−2u}) ≤ 0.3 here, and cannot overflow.
        let r = 2.0 * u * (-u).exp() / -(-2.0 * u).exp_m1();
        (1.0 - r) * (1.0 + r)
    }
}

/// `y − 1 + e^{−y} = −ln(1 − x) − x` at `x = 1 − e^{−y}`, for y ≥ 0.
fn optimum_lhs(y: f64) -> f64 {
    if y < 1.0 {
        // e^{−y}·(1 − (1 − y)e^y): the series of −ln(1 − x) − x, carried in y, without
        // cancellation.
        (-y).exp() * tilted_exp_tail(y)
    } else {
        // A sum of non-negative terms.
        (y - 1.0) + (-y).exp()
    }
}

/// x in (0, 1] with `ln(1 − x) + x + a = 0`, for TINY_RATIO ≤ a.
fn exact_optimum_fraction(a: f64) -> f64 {
    if a > SATURATED_RATIO {
        return 1.0;
    }
    // Starting points: the series y = s + s²/6 + s³/36 + O(s⁴) (s = √(2a)) for small a, and
    // y ≈ a + 1 − e^{−(a+1)} for large a.
    let mut y = if a < 1.0 {
        let s = (2.0 * a).sqrt();
        s * (1.0 + s * (1.0 / 6.0 + s / 36.0))
    } else {
        a + 1.0 - (-(a + 1.0)).exp()
    };
    // h(y) = y − 1 + e^{−y} is increasing and convex (h′ = x, h″ = e^{−y}), so one Newton step
    // from anywhere lands at or above the root, and the iterates then decrease to it
    // monotonically: stopping once they stop decreasing yields the root to rounding, and
    // makes the result a monotone function of a.
    y -= (optimum_lhs(y) - a) / -(-y).exp_m1();
    for _ in 0..MAX_NEWTON_STEPS {
        let residual = optimum_lhs(y) - a;
        let next = y - residual / -(-y).exp_m1();
        if residual > 0.0 && next < y {
            y = next;
        } else {
            break;
        }
    }
    -(-y).exp_m1()
}

/// `1 − (1 − x)e^x = Σ_{n≥2} (n − 1)xⁿ/n!` for x ≥ 0.
fn tilted_exp_tail(x: f64) -> f64 {
    if x < 1.0 {
        // Positive terms: term_n = (n − 1)xⁿ/n!, term_{n+1}/term_n = n·x/((n − 1)(n + 1)).
        let mut term = 0.5 * x * x;
        let mut sum = term;
        let mut n = 2.0;
        loop {
            term *= n * x / ((n - 1.0) * (n + 1.0));
            n += 1.0;
            let next = sum + term;
            if next == sum {
                return sum;
            }
            sum = next;
        }
    } else {
        1.0 + (x - 1.0) * x.exp()
    }
}

/// x in (0, 1) with `(1 − x)e^x = 1 − c`, for TINY_RATIO ≤ c < 1.
fn unfailing_optimum_fraction(c: f64) -> f64 {
    // Start from the series x = s − s²/3 + 11s³/72 + O(s⁴), s = √(2c), capped at 1 (f(1) = 1 > c).
    let s = (2.0 * c).sqrt();
    let mut x = (s * (1.0 + s * (-1.0 / 3.0 + s * 11.0 / 72.0))).min(1.0);
    // f(x) = 1 − (1 − x)e^x is increasing and convex (f′ = x e^x, f″ = (1 + x)e^x): as in
    // exact_optimum_fraction, one step lands above the root and the rest decrease to it.
    x -= (tilted_exp_tail(x) - c) / (x * x.exp());
    for _ in 0..MAX_NEWTON_STEPS {
        let residual = tilted_exp_tail(x) - c;
        let next = x - residual / (x * x.exp());
        if residual > 0.0 && next < x {
            x = next;
        } else {
            break;
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::OnFailure;
    use rand::{RngExt, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    /// Relative error allowed against 60-digit references: a few units in the last place.
    const ULP_REL_TOL: f64 = 8.0 * f64::EPSILON;
    /// Relative error allowed between two exact evaluations of one quantity by different
    /// (algebraically equal) double-precision routes.
    const ROUTE_REL_TOL: f64 = 1e-13;
    /// Location error of a golden-section minimum: H is flat there, so a minimiser found by
    /// comparing H values is only good to about √ε.
    const GOLDEN_REL_TOL: f64 = 1e-6;
    /// Monte Carlo agreement: within this many standard errors.
    const MC_SIGMAS: f64 = 4.0;
    /// Agreement with the first-step recursion whose truncated moments come from Simpson's rule.
    const QUADRATURE_REL_TOL: f64 = 1e-9;
    /// Published SCR-model efficiency, given to 6 decimals.
    const SCR_DECIMALS_TOL: f64 = 0.5e-6;

    const MIN: f64 = 60.0;
    const HOUR: f64 = 3600.0;

    fn job(restart: Exposure, checkpoint: Exposure) -> Job {
        Job {
            work_s: 1e6,
            checkpoint_s: 300.0,
            restart_s: 600.0,
            downtime_s: 120.0,
            final_checkpoint: FinalCheckpoint::Written,
            checkpoint_exposure: checkpoint,
            restart_exposure: restart,
            on_failure: OnFailure::Restart,
        }
    }

    /// The finite-work optimum is the brute-force best equal chunking: every count from 1 to
    /// 3 × W/T* tried, over both switches, a final checkpoint written or skipped, work of a
    /// fraction of a chunk to hundreds, and MTBFs from 10 min to 100 h; its E[wall] is never
    /// above the endless optimum's, and below it where W/T* is not a whole count.
    #[test]
    fn finite_work_optimum_is_the_best_equal_chunking() {
        let mut strictly_better = 0;
        for restart in [Exposure::CanFail, Exposure::CannotFail] {
            for checkpoint in [Exposure::CanFail, Exposure::CannotFail] {
                for final_checkpoint in [FinalCheckpoint::Written, FinalCheckpoint::Skipped] {
                    for work_s in [200.0, 3e4, 1e6, 7.3e6] {
                        for m in [10.0 * MIN, 3.1 * HOUR, 100.0 * HOUR] {
                            let j = Job { work_s, final_checkpoint, ..job(restart, checkpoint) };
                            let around = match checkpoint {
                                Exposure::CanFail => optimal_interval_s(j.checkpoint_s, m),
                                Exposure::CannotFail => match optimal_interval_unfailing_checkpoint_s(&j, m) {
                                    Some(t) => t,
                                    None => continue,
                                },
                            };
                            let t = finite_work_optimal_interval_s(&j, m, around).unwrap();
                            let wall = |t: f64| finite_work_moments(&j, t, m).mean_s;
                            let k_max = (3.0 * work_s / around).ceil().max(3.0) as u64;
                            let (k_best, _) = (1..=k_max)
                                .map(|k| (k, wall(work_s / k as f64)))
                                .min_by(|a, b| a.1.total_cmp(&b.1))
                                .unwrap();
                            let what = format!("{restart:?} {checkpoint:?} {final_checkpoint:?} W={work_s} M={m}");
                            assert_eq!(t, work_s / k_best as f64, "{what}");
                            assert!(wall(t) <= wall(around), "{what}");
                            strictly_better += usize::from(wall(t) < wall(around));
                        }
                    }
                }
            }
        }
        assert!(strictly_better > 20, "{strictly_better}");
        assert_eq!(
            finite_work_optimal_interval_s(
                &Job { work_s: f64::INFINITY, ..job(Exposure::CanFail, Exposure::CanFail) },
                HOUR,
                600.0
            ),
            None
        );
    }

    fn rel(x: f64, reference: f64) -> f64 {
        ((x - reference) / reference).abs()
    }

    fn assert_rel(x: f64, reference: f64, tol: f64, what: &str) {
        assert!(rel(x, reference) <= tol, "{what}: {x:e} vs {reference:e} (rel {:e} > {tol:e})", rel(x, reference));
    }

    /// Minimiser of a unimodal `f` on [lo, hi] by golden-section search.
    fn golden_min(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
        let g = (5f64.sqrt() - 1.0) / 2.0;
        let mut x1 = hi - g * (hi - lo);
        let mut x2 = lo + g * (hi - lo);
        let (mut f1, mut f2) = (f(x1), f(x2));
        for _ in 0..400 {
            if f1 <= f2 {
                hi = x2;
                x2 = x1;
                f2 = f1;
                x1 = hi - g * (hi - lo);
                f1 = f(x1);
            } else {
                lo = x1;
                x1 = x2;
                f1 = f2;
                x2 = lo + g * (hi - lo);
                f2 = f(x2);
            }
        }
        0.5 * (lo + hi)
    }

    #[test]
    fn young_and_daly_forms() {
        assert_eq!(young_interval_s(300.0, 86400.0), 7200.0);
        assert_eq!(daly_low_order_interval_s(300.0, 86400.0), 6900.0);
        // Branches: M once δ ≥ M/2 (low order) and once δ ≥ 2M (eq. 37).
        assert_eq!(daly_low_order_interval_s(60.0, 100.0), 100.0);
        assert_eq!(daly_high_order_interval_s(250.0, 100.0), 100.0);
        // Eq. 37 at δ/2M = 1/4: √(2δM)(1 + 1/6 + 1/36) − δ with δ = M/2, √(2δM) = M.
        let m = 100.0;
        assert_rel(
            daly_high_order_interval_s(50.0, m),
            m * (1.0 + 1.0 / 6.0 + 1.0 / 36.0) - 50.0,
            ROUTE_REL_TOL,
            "eq. 37",
        );
    }

    /// Daly (2006) Figs. 3–5: δ = 5 min, R = 10 min, 500 h of work.
    #[test]
    fn daly_2006_published_intervals() {
        let delta = 5.0 * MIN;
        // (M, published optimum in minutes, decimals it is given to)
        let figures = [(24.0 * HOUR, 117.0, 0), (6.0 * HOUR, 57.0, 0), (15.0 * MIN, 9.1, 1)];
        let round = |x: f64, decimals: i32| (x * 10f64.powi(decimals)).round() / 10f64.powi(decimals);
        for (m, published, decimals) in figures {
            let high = daly_high_order_interval_s(delta, m) / MIN;
            assert_eq!(round(high, decimals), published, "eq. 37 at M = {m} s: {high} min");
        }
        // The exact optimum reproduces the first two figures; at M = 15 min it is 9.1665 min,
        // which rounds to 9.2: Fig. 5's 9.1 min is eq. 37's 9.1409 min.
        assert_eq!(round(optimal_interval_s(delta, 24.0 * HOUR) / MIN, 0), 117.0);
        assert_eq!(round(optimal_interval_s(delta, 6.0 * HOUR) / MIN, 0), 57.0);
        let exact_15 = optimal_interval_s(delta, 15.0 * MIN) / MIN;
        assert_rel(exact_15, 9.166_502_8, 1e-8, "exact optimum at M = 15 min (mpmath)");
        assert_eq!(round(exact_15, 1), 9.2);
        // Not a finite-work effect: the best equal chunking of 500 h is still 9.17 min.
        let m = 15.0 * MIN;
        let mut j = job(Exposure::CanFail, Exposure::CanFail);
        j.work_s = 500.0 * HOUR;
        j.restart_s = 10.0 * MIN;
        j.downtime_s = 0.0;
        j.checkpoint_s = delta;
        let k_star = (j.work_s / (exact_15 * MIN)).floor();
        let best = [k_star, k_star + 1.0]
            .into_iter()
            .map(|k| j.work_s / k)
            .min_by(|x, y| finite_work_overhead(&j, *x, m).total_cmp(&finite_work_overhead(&j, *y, m)))
            .unwrap();
        assert_eq!(round(best / MIN, 2), 9.17);
    }

    /// LLNL SCR model, single level: λ = 8.329e-6 /s, C = R = 438 s, T = 10,000 s.
    #[test]
    fn scr_model_efficiency() {
        let m = 1.0 / 8.329e-6;
        let mut j = job(Exposure::CanFail, Exposure::CanFail);
        j.checkpoint_s = 438.0;
        j.restart_s = 438.0;
        j.downtime_s = 0.0;
        let e = efficiency(&j, 10_000.0, m);
        assert!((e - 0.913657).abs() < SCR_DECIMALS_TOL, "{e}");
        // 50-digit evaluation of T/(K(e^{(T+C)/M} − 1)) with K = M e^{R/M}.
        assert_rel(e, 0.913_657_083_773_876_7, ULP_REL_TOL, "SCR efficiency (mpmath)");
        // Other readings of the model miss the published digits.
        let mut other = j.clone();
        other.restart_exposure = Exposure::CannotFail;
        assert!((efficiency(&other, 10_000.0, m) - 0.913657).abs() > 5e-6);
        other = j.clone();
        other.checkpoint_exposure = Exposure::CannotFail;
        assert!((efficiency(&other, 10_000.0, m) - 0.913657).abs() > 5e-6);
        let h = infinite_work_overhead(&j, 10_000.0, m);
        assert!((1.0 - h - 0.913657).abs() > 5e-6);
    }

    /// x = 1 + W₀(−e^{−1−a}), correctly rounded from a 60-digit mpmath evaluation.
    const OPTIMUM_REFERENCES: [(f64, f64); 13] = [
        (1e-12, 1.414212895706507e-06),
        (1e-8, 0.00014141468964921173),
        (1e-6, 0.0014135469742886646),
        (1e-4, 0.014075547672763037),
        (1e-3, 0.044057192259048084),
        (0.01, 0.13483475106683468),
        (0.1, 0.38318316820829484),
        (0.5, 0.698290437315664),
        (1.0, 0.8414056604369606),
        (2.0, 0.9475309025422851),
        (5.0, 0.9975150806648505),
        (10.0, 0.999983298020256),
        (20.0, 0.999999999241744),
    ];

    #[test]
    fn exact_optimum_matches_lambert_w_references() {
        let m = 3.7e4;
        for (a, x) in OPTIMUM_REFERENCES {
            assert_rel(optimal_interval_s(a * m, m), m * x, ULP_REL_TOL, &format!("a = {a}"));
        }
        assert_eq!(optimal_interval_s(0.0, m), 0.0);
        assert_eq!(optimal_interval_s(50.0 * m, m), m);
        assert_eq!(optimal_interval_s(1.0, f64::INFINITY), f64::INFINITY);
        // Below TINY_RATIO the series takes over: continuous across the switch.
        let below = optimal_interval_s(0.999_999e-30 * m, m);
        let above = optimal_interval_s(1.000_001e-30 * m, m);
        assert!(below < above && rel(below, above) < 2e-6);
    }

    #[test]
    fn exact_optimum_matches_its_series_for_small_ratios() {
        // T*/M = s − s²/3 + s³/36 + s⁴/270 + s⁵/4320 − s⁶/17010 − 139s⁷/5443200 − s⁸/204120 + …;
        // the first omitted term is below 1e-22 relative for a ≤ 1e-4.
        let coefficients = [
            1.0,
            -1.0 / 3.0,
            1.0 / 36.0,
            1.0 / 270.0,
            1.0 / 4320.0,
            -1.0 / 17010.0,
            -139.0 / 5_443_200.0,
            -1.0 / 204_120.0,
        ];
        let m = 86400.0;
        for i in 0..=80 {
            let a = 10f64.powf(-12.0 + 0.1 * i as f64);
            let s = (2.0 * a).sqrt();
            let series = coefficients.iter().rev().fold(0.0, |acc, c| acc * s + c) * s;
            assert_rel(optimal_interval_s(a * m, m) / m, series, ULP_REL_TOL, &format!("a = {a:e}"));
        }
    }

    /// `−ln(1 − x) − x − a` at the computed x, as the relative error of x it implies
    /// (residual over x·g′(x), g′ = x/(1 − x)), evaluated without cancellation.
    fn implied_relative_error(x: f64, a: f64) -> f64 {
        let g = if x < 0.5 {
            // Σ_{n≥2} xⁿ/n, positive terms.
            let (mut power, mut sum) = (x * x, 0.0);
            for n in 2..2000 {
                let term = power / n as f64;
                if term < sum * 1e-18 {
                    break;
                }
                sum += term;
                power *= x;
            }
            sum
        } else {
            // 1 − x is exact here (Sterbenz).
            let u = 1.0 - x;
            (-u.ln() - 1.0) + u
        };
        (g - a).abs() * (1.0 - x) / (x * x)
    }

    #[test]
    fn exact_optimum_residual_and_monotonicity() {
        let m = 1.0;
        let mut previous = 0.0;
        let mut a = 1e-12;
        while a <= 40.0 {
            let x = optimal_interval_s(a, m);
            assert!(x >= previous, "not monotone at a = {a:e}: {x} < {previous}");
            if x < 1.0 - 1e-6 {
                let e = implied_relative_error(x, a);
                assert!(e <= ULP_REL_TOL, "a = {a:e}: residual implies rel error {e:e}");
            }
            previous = x;
            a *= 1.003;
        }
    }

    #[test]
    fn exact_optimum_minimises_the_infinite_work_overhead() {
        let m = 5e4;
        for restart in [Exposure::CanFail, Exposure::CannotFail] {
            for a in [1e-3, 0.1, 1.0, 5.0, 20.0] {
                let mut j = job(restart, Exposure::CanFail);
                j.checkpoint_s = a * m;
                let brute = golden_min(|t| infinite_work_overhead(&j, t, m), 1e-9 * m, 4.0 * m);
                assert_rel(optimal_interval_s(j.checkpoint_s, m), brute, GOLDEN_REL_TOL, &format!("a = {a}"));
            }
        }
    }

    #[test]
    fn daly_high_order_error_is_four_over_270_delta_squared_over_m() {
        let m = 1e7;
        for a in [1e-3, 1e-4, 1e-5] {
            let delta = a * m;
            let error = optimal_interval_s(delta, m) - daly_high_order_interval_s(delta, m);
            let ratio = error / (delta * delta / m);
            // ratio = (4/270)(1 + s/16 + O(s²)), s = √(2a).
            let s = (2.0 * a).sqrt();
            assert!(rel(ratio, 4.0 / 270.0) <= s / 8.0, "a = {a}: {ratio}");
            assert!((ratio - 0.0148).abs() < 1e-4);
        }
    }

    /// Roots of (1 − x)e^x = 1 − c, correctly rounded from a 60-digit mpmath evaluation.
    const UNFAILING_REFERENCES: [(f64, f64); 8] = [
        (1e-12, 1.4142128957068605e-06),
        (1e-8, 0.0001414146900027318),
        (1e-4, 0.01407589791765801),
        (0.01, 0.1351572843587896),
        (0.1, 0.39165871526656815),
        (0.5, 0.7680390470134656),
        (0.9, 0.9617787582532006),
        (0.999, 0.9996319851488158),
    ];

    #[test]
    fn unfailing_optimum_matches_references() {
        let m = 2.5e4;
        // R = D = 0 with an unfailing restart: K = M, so c = δ/M.
        let mut j = job(Exposure::CannotFail, Exposure::CannotFail);
        j.restart_s = 0.0;
        j.downtime_s = 0.0;
        for (c, x) in UNFAILING_REFERENCES {
            j.checkpoint_s = c * m;
            let t = optimal_interval_unfailing_checkpoint_s(&j, m).unwrap();
            assert_rel(t, m * x, ULP_REL_TOL, &format!("c = {c}"));
        }
        j.checkpoint_s = 0.0;
        assert_eq!(optimal_interval_unfailing_checkpoint_s(&j, m), Some(0.0));
    }

    #[test]
    fn unfailing_optimum_minimises_the_overhead_and_needs_delta_below_k() {
        let m = 3e4;
        for restart in [Exposure::CanFail, Exposure::CannotFail] {
            for (delta, r, d) in [(30.0, 600.0, 120.0), (3000.0, 6000.0, 0.0), (2e4, 1e4, 5e3), (100.0, 0.0, 0.0)] {
                let mut j = job(restart, Exposure::CannotFail);
                (j.checkpoint_s, j.restart_s, j.downtime_s) = (delta, r, d);
                let t = optimal_interval_unfailing_checkpoint_s(&j, m).unwrap();
                let brute = golden_min(|t| infinite_work_overhead(&j, t, m), 1e-9 * m, 2.0 * m);
                assert_rel(t, brute, GOLDEN_REL_TOL, &format!("δ = {delta}, R = {r}, D = {d}, {restart:?}"));
                // Restart cost and downtime shorten the interval.
                let mut cheaper = j.clone();
                cheaper.restart_s = 0.0;
                cheaper.downtime_s = 0.0;
                if r + d > 0.0 {
                    assert!(optimal_interval_unfailing_checkpoint_s(&cheaper, m).unwrap() > t);
                }
            }
            let mut j = job(restart, Exposure::CannotFail);
            let k = recovery_constant_s(&j, m);
            j.checkpoint_s = k;
            assert_eq!(optimal_interval_unfailing_checkpoint_s(&j, m), None);
            j.checkpoint_s = 2.0 * k;
            assert_eq!(optimal_interval_unfailing_checkpoint_s(&j, m), None);
            j.checkpoint_s = 0.999 * k;
            assert!(optimal_interval_unfailing_checkpoint_s(&j, m).unwrap() < m);
        }
    }

    #[test]
    fn recovery_constant_forms() {
        let j = job(Exposure::CanFail, Exposure::CanFail);
        let m = 1e4;
        assert_rel(recovery_constant_s(&j, m), (m + 120.0) * (600.0f64 / m).exp(), ROUTE_REL_TOL, "can fail");
        let j = job(Exposure::CannotFail, Exposure::CanFail);
        assert_eq!(recovery_constant_s(&j, m), m + 120.0 + 600.0);
    }

    /// E[Z | Z < t] and Var[Z | Z < t] for Z ~ Exp(1), rounded from a 60-digit mpmath evaluation
    /// of the closed forms, on both sides of each switch between series and closed form.
    #[test]
    fn truncated_exponential_moments_match_references() {
        let references = [
            (1e-8, 4.999999991666667e-09, 8.333333333333334e-18),
            (1e-4, 4.99991666666668e-05, 8.333333329166667e-10),
            (0.01, 0.004991666680555522, 8.33329166683201e-06),
            (0.5, 0.22925295873160087, 0.02057547774180906),
            (1.9, 0.6658397338733643, 0.253432410901568),
            (2.1, 0.7069564320101969, 0.29873397448121897),
            (3.0, 0.8428129105262322, 0.5037309504814621),
            (5.9, 0.9837928770502748, 0.9041153037623141),
            (6.1, 0.9862877521530792, 0.9161672623927675),
            (10.0, 0.9995459800899031, 0.9954595947649525),
            (50.0, 1.0, 1.0),
        ];
        for (t, mean, var) in references {
            assert_rel(truncated_exp_mean(t), mean, ULP_REL_TOL, &format!("mean at {t}"));
            assert_rel(truncated_exp_variance(t), var, ULP_REL_TOL, &format!("variance at {t}"));
        }
        assert_eq!(truncated_exp_mean(1e-25), 0.5e-25);
        assert_rel(truncated_exp_variance(1e-25), 1e-50 / 12.0, ULP_REL_TOL, "tiny t");
    }

    #[test]
    fn segment_moments_match_references() {
        // (a, b, M, R, D, restart can fail, mean, variance), rounded from a 60-digit
        // evaluation of the MODELS.md formulas as written.
        let references = [
            (0.1, 0.0, 1e5, 1.0, 0.2, true, 0.1000012500076167, 1.5633588902124597e-06),
            (0.1, 0.0, 1e5, 1.0, 0.2, false, 0.10000125000061667, 1.5633356566684586e-06),
            (700.0, 50.0, 1000.0, 300.0, 40.0, true, 1473.1599417183638, 1097821.7563295723),
            (700.0, 50.0, 1000.0, 300.0, 40.0, false, 1408.4286280104386, 901575.3271881726),
            (3e4, 0.0, 1e4, 2e4, 5e3, true, 2115361.5450546895, 4707855902204.092),
            (1e-3, 2.0, 1e9, 5.0, 0.0, true, 2.0010000000050003, 2.5005000500050008e-11),
        ];
        for (a, b, m, r, d, can_fail, mean, var) in references {
            let mut j = job(if can_fail { Exposure::CanFail } else { Exposure::CannotFail }, Exposure::CanFail);
            (j.restart_s, j.downtime_s) = (r, d);
            let got = segment_moments(a, b, &j, m);
            let what = format!("a = {a}, M = {m}, {:?}", j.restart_exposure);
            assert_rel(got.mean_s, mean, ULP_REL_TOL, &what);
            assert_rel(got.variance_s2, var, 4.0 * ULP_REL_TOL, &what);
            // The mean is the closed form K(e^{a/M} − 1) + b.
            let closed = recovery_constant_s(&j, m) * (a / m).exp_m1() + b;
            assert_rel(got.mean_s, closed, ROUTE_REL_TOL, &what);
            assert_eq!(got.sd_s(), got.variance_s2.sqrt());
        }
    }

    /// Moments of X | X < l, X ~ Exp(m): (E X, E X²) by composite Simpson's rule.
    fn truncated_raw_moments_by_quadrature(l: f64, m: f64) -> (f64, f64) {
        let n = 4000;
        let h = l / n as f64;
        let (mut p, mut m1, mut m2) = (0.0, 0.0, 0.0);
        for i in 0..=n {
            let x = i as f64 * h;
            let w = if i == 0 || i == n {
                1.0
            } else if i % 2 == 1 {
                4.0
            } else {
                2.0
            };
            let density = (-x / m).exp() / m;
            p += w * density;
            m1 += w * x * density;
            m2 += w * x * x * density;
        }
        (m1 / p, m2 / p)
    }

    /// Segment moments by first-step analysis (Y = a + b if the first attempt survives, else
    /// X + V + Y′ with Y′ an independent copy), with truncated moments by quadrature: an
    /// independent route to the mean and variance.
    fn segment_moments_by_first_step(a: f64, b: f64, j: &Job, m: f64) -> Moments {
        let (d, r) = (j.downtime_s, j.restart_s);
        let (v1, v2) = match j.restart_exposure {
            Exposure::CannotFail => (d + r, (d + r) * (d + r)),
            Exposure::CanFail => {
                // W = R if the attempt survives, else X_R + D + W′; V = D + W.
                let p = (-r / m).exp();
                let (x1, x2) = truncated_raw_moments_by_quadrature(r, m);
                let (f1, f2) = (x1 + d, x2 + 2.0 * d * x1 + d * d);
                let w1 = (p * r + (1.0 - p) * f1) / p;
                let w2 = (p * r * r + (1.0 - p) * (f2 + 2.0 * f1 * w1)) / p;
                (d + w1, d * d + 2.0 * d * w1 + w2)
            }
        };
        let p = (-a / m).exp();
        let (u1, u2) = truncated_raw_moments_by_quadrature(a, m);
        let (z1, z2) = (u1 + v1, u2 + 2.0 * u1 * v1 + v2);
        let y1 = (p * (a + b) + (1.0 - p) * z1) / p;
        let y2 = (p * (a + b) * (a + b) + (1.0 - p) * (z2 + 2.0 * z1 * y1)) / p;
        Moments { mean_s: y1, variance_s2: y2 - y1 * y1 }
    }

    #[test]
    fn segment_moments_match_first_step_recursion() {
        for restart in [Exposure::CanFail, Exposure::CannotFail] {
            for (a, b, m, r, d) in
                [(800.0, 0.0, 1000.0, 300.0, 60.0), (2500.0, 40.0, 1000.0, 900.0, 0.0), (50.0, 10.0, 400.0, 0.0, 30.0)]
            {
                let mut j = job(restart, Exposure::CanFail);
                (j.restart_s, j.downtime_s) = (r, d);
                let exact = segment_moments(a, b, &j, m);
                let recursion = segment_moments_by_first_step(a, b, &j, m);
                let what = format!("a = {a}, R = {r}, D = {d}, {restart:?}");
                assert_rel(exact.mean_s, recursion.mean_s, QUADRATURE_REL_TOL, &what);
                assert_rel(exact.variance_s2, recursion.variance_s2, QUADRATURE_REL_TOL, &what);
            }
        }
    }

    /// Draws one segment's wall time, attempt by attempt, as the engine plays it.
    fn simulate_segment(a: f64, b: f64, j: &Job, m: f64, rng: &mut Pcg64Mcg) -> f64 {
        let mut draw = || -m * (1.0 - rng.random::<f64>()).ln();
        let mut wall = 0.0;
        loop {
            let x = draw();
            if x >= a {
                return wall + a + b;
            }
            wall += x;
            loop {
                wall += j.downtime_s;
                if j.restart_exposure == Exposure::CanFail {
                    let xr = draw();
                    if xr < j.restart_s {
                        wall += xr;
                        continue;
                    }
                }
                wall += j.restart_s;
                break;
            }
        }
    }

    #[test]
    fn segment_moments_match_monte_carlo() {
        let n = 200_000;
        for (seed, restart) in [(1, Exposure::CanFail), (2, Exposure::CannotFail)] {
            let (a, b, m) = (900.0, 30.0, 1000.0);
            let mut j = job(restart, Exposure::CannotFail);
            (j.restart_s, j.downtime_s) = (500.0, 80.0);
            let exact = segment_moments(a, b, &j, m);
            let mut rng = Pcg64Mcg::seed_from_u64(seed);
            let samples: Vec<f64> = (0..n).map(|_| simulate_segment(a, b, &j, m, &mut rng)).collect();
            let nf = n as f64;
            let mean = samples.iter().sum::<f64>() / nf;
            let m2 = samples.iter().map(|y| (y - mean).powi(2)).sum::<f64>() / nf;
            let m4 = samples.iter().map(|y| (y - mean).powi(4)).sum::<f64>() / nf;
            let var = m2 * nf / (nf - 1.0);
            let se_mean = exact.sd_s() / nf.sqrt();
            let se_var = ((m4 - m2 * m2) / nf).sqrt();
            assert!(
                (mean - exact.mean_s).abs() < MC_SIGMAS * se_mean,
                "{restart:?}: mean {mean} vs {exact:?} (SE {se_mean})"
            );
            assert!(
                (var - exact.variance_s2).abs() < MC_SIGMAS * se_var,
                "{restart:?}: variance {var} vs {exact:?} (SE {se_var})"
            );
        }
    }

    #[test]
    fn overflow_gives_infinity_not_nan() {
        let j = job(Exposure::CanFail, Exposure::CanFail);
        let m = 1.0;
        let s = segment_moments(1000.0, 0.0, &j, m);
        assert_eq!((s.mean_s, s.variance_s2), (f64::INFINITY, f64::INFINITY));
        // Overflowing restarts with a short exposed part.
        let s = segment_moments(0.25, 0.0, &j, 0.5);
        assert_eq!((s.mean_s, s.variance_s2), (f64::INFINITY, f64::INFINITY));
        let mut j0 = j.clone();
        (j0.restart_s, j0.downtime_s) = (0.0, 0.0);
        let s = segment_moments(800.0, 0.0, &j0, m);
        assert_eq!((s.mean_s, s.variance_s2), (f64::INFINITY, f64::INFINITY));
        assert_eq!(infinite_work_overhead(&j, 1e4, m), f64::INFINITY);
        assert_eq!(infinite_work_overhead(&j, f64::INFINITY, 1e3), f64::INFINITY);
        assert_eq!(finite_work_overhead(&j, f64::INFINITY, 1e3), f64::INFINITY);
        assert_eq!(efficiency(&j, 1e4, m), 0.0);
        let f = finite_work_moments(&j, 1e4, m);
        assert_eq!((f.mean_s, f.variance_s2), (f64::INFINITY, f64::INFINITY));
        // No failures at all.
        let s = segment_moments(10.0, 2.0, &j, f64::INFINITY);
        assert_eq!((s.mean_s, s.variance_s2), (12.0, 0.0));
        assert_eq!(infinite_work_overhead(&j, f64::INFINITY, f64::INFINITY), 0.0);
    }

    fn sum(parts: &[(Moments, f64)]) -> Moments {
        Moments {
            mean_s: parts.iter().map(|(m, n)| n * m.mean_s).sum(),
            variance_s2: parts.iter().map(|(m, n)| n * m.variance_s2).sum(),
        }
    }

    fn assert_moments(got: Moments, want: Moments, what: &str) {
        assert_rel(got.mean_s, want.mean_s, ROUTE_REL_TOL, what);
        assert_rel(got.variance_s2, want.variance_s2, ROUTE_REL_TOL, what);
    }

    #[test]
    fn finite_work_is_a_sum_of_segments() {
        let m = 2e4;
        for ckpt in [Exposure::CanFail, Exposure::CannotFail] {
            let mut j = job(Exposure::CanFail, ckpt);
            j.work_s = 1e5;
            let delta = j.checkpoint_s;
            let seg = |c: f64| match ckpt {
                Exposure::CanFail => segment_moments(c + delta, 0.0, &j, m),
                Exposure::CannotFail => segment_moments(c, delta, &j, m),
            };
            // W a multiple of T: k equal segments.
            let got = finite_work_moments(&j, 2e4, m);
            assert_moments(got, sum(&[(seg(2e4), 5.0)]), &format!("multiple, {ckpt:?}"));
            assert_rel(finite_work_overhead(&j, 2e4, m), got.mean_s / j.work_s - 1.0, ROUTE_REL_TOL, "overhead");
            // A multiple of T: the infinite-work overhead exactly.
            assert_rel(finite_work_overhead(&j, 2e4, m), infinite_work_overhead(&j, 2e4, m), ROUTE_REL_TOL, "H");
            // A remainder r = W − 3T > 0.
            let got = finite_work_moments(&j, 3e4, m);
            assert_moments(got, sum(&[(seg(3e4), 3.0), (seg(1e4), 1.0)]), &format!("remainder, {ckpt:?}"));
            assert_rel(finite_work_overhead(&j, 3e4, m), got.mean_s / j.work_s - 1.0, ROUTE_REL_TOL, "overhead r");
            // No checkpoints: one chunk of W; T > W likewise.
            assert_moments(finite_work_moments(&j, f64::INFINITY, m), seg(1e5), "infinite interval");
            assert_moments(finite_work_moments(&j, 3e5, m), seg(1e5), "T > W");
            // Final checkpoint skipped: the last chunk is all exposed compute, no write.
            let mut skip = j.clone();
            skip.final_checkpoint = FinalCheckpoint::Skipped;
            let bare = |c: f64| segment_moments(c, 0.0, &skip, m);
            assert_moments(finite_work_moments(&skip, 3e4, m), sum(&[(seg(3e4), 3.0), (bare(1e4), 1.0)]), "skipped r");
            assert_moments(finite_work_moments(&skip, 2e4, m), sum(&[(seg(2e4), 4.0), (bare(2e4), 1.0)]), "skipped");
            assert_moments(finite_work_moments(&skip, f64::INFINITY, m), bare(1e5), "skipped, none");
            let got = finite_work_moments(&skip, 3e4, m);
            assert_rel(finite_work_overhead(&skip, 3e4, m), got.mean_s / skip.work_s - 1.0, ROUTE_REL_TOL, "skipped H");
        }
        // Without failures the overhead is the writes alone, to full precision.
        let j = job(Exposure::CanFail, Exposure::CanFail);
        assert_rel(finite_work_overhead(&j, 1e5, 1e300), 10.0 * 300.0 / 1e6, ROUTE_REL_TOL, "no failures");
    }

    #[test]
    fn infinite_work_overhead_is_daly_formula() {
        let m = 1e4;
        let j = job(Exposure::CanFail, Exposure::CanFail);
        let k = recovery_constant_s(&j, m);
        let t = 2000.0;
        let daly = k * ((t + 300.0) / m).exp_m1() / t - 1.0;
        assert_rel(infinite_work_overhead(&j, t, m), daly, ROUTE_REL_TOL, "can fail");
        assert_rel(efficiency(&j, t, m), 1.0 / (1.0 + daly), ROUTE_REL_TOL, "efficiency");
        let j = job(Exposure::CanFail, Exposure::CannotFail);
        let unfailing = (k * (t / m).exp_m1() + 300.0) / t - 1.0;
        assert_rel(infinite_work_overhead(&j, t, m), unfailing, ROUTE_REL_TOL, "cannot fail");
    }

    /// A relative step of 1e-12 below a bound moves the forms by about as much.
    const BELOW_BOUND_REL_TOL: f64 = 1e-11;

    #[test]
    fn daly_forms_switch_to_m_exactly_at_their_bounds() {
        let m = 100.0;
        // Low order: √(2δM) − δ for δ < M/2 (M/2 as δ → M/2), M from δ = M/2 on.
        assert_eq!(daly_low_order_interval_s(0.5 * m, m), m);
        let below = 0.5 * m * (1.0 - 1e-12);
        assert_rel(daly_low_order_interval_s(below, m), 0.5 * m, BELOW_BOUND_REL_TOL, "δ just below M/2");
        // Eq. 37 for δ < 2M (q → 1, √(2δM) → 2M: 2M(1 + 1/3 + 1/9) − 2M = 8M/9), M from δ = 2M on.
        assert_eq!(daly_high_order_interval_s(2.0 * m, m), m);
        let below = 2.0 * m * (1.0 - 1e-12);
        assert_rel(daly_high_order_interval_s(below, m), 8.0 * m / 9.0, BELOW_BOUND_REL_TOL, "δ just below 2M");
    }

    /// Expected failures per replication against values worked out by hand from the closed
    /// forms (MODELS.md §1), one chunk and several, both failure policies.
    #[test]
    fn expected_failures_match_hand_computed_values() {
        let m = 1000.0;
        let bare = Job {
            work_s: 2000.0,
            checkpoint_s: 0.0,
            restart_s: 0.0,
            downtime_s: 0.0,
            final_checkpoint: FinalCheckpoint::Skipped,
            checkpoint_exposure: Exposure::CanFail,
            restart_exposure: Exposure::CanFail,
            on_failure: OnFailure::Restart,
        };
        // One chunk of W = 2M without costs: Geometric(e^{−2}) failed attempts, e² − 1.
        assert_rel(expected_failures_per_rep(&bare, f64::INFINITY, m), 6.389_056_098_930_65, ROUTE_REL_TOL, "e² − 1");
        // Three chunks of T = M with δ = 0.1 M, R = 0.2 M (can fail), D = 0.05 M:
        // E[wall] = 3·K(e^{1.1} − 1), K = (M + D)e^{R/M}; failures E[wall]/M.
        let costly = Job {
            work_s: 3000.0,
            checkpoint_s: 100.0,
            restart_s: 200.0,
            downtime_s: 50.0,
            final_checkpoint: FinalCheckpoint::Written,
            ..bare.clone()
        };
        let k = 1050.0 * 0.2_f64.exp();
        let want = 3.0 * k * 1.1_f64.exp_m1() / m;
        assert_rel(expected_failures_per_rep(&costly, 1000.0, m), want, ROUTE_REL_TOL, "three chunks");
        assert_rel(expected_wall_s(&costly, 1000.0, m), want * m, ROUTE_REL_TOL, "three chunks' wall");
        // End-job, every phase exposed: struck with probability 1 − e^{−L/M} (L = W + δ,
        // the final write included), then one recovery of mean D·e^{R/M} + R + M(e^{R/M} − 1 − R/M),
        // whose failures are E[V]/M.
        let end = Job { work_s: 2000.0, on_failure: OnFailure::EndJob, ..costly.clone() };
        let recovery = 50.0 * 0.2_f64.exp() + 200.0 + m * (0.2_f64.exp_m1() - 0.2);
        let want = -(-2.1_f64).exp_m1() * (1.0 + recovery / m);
        assert_rel(expected_failures_per_rep(&end, f64::INFINITY, m), want, ROUTE_REL_TOL, "end-job, one chunk");
        // End-job, two chunks of T = M whose writes cannot fail (failures during them are
        // passed over): E[min(strike, L)] = M(1 − e^{−1}) + δe^{−1}, twice, the second from
        // survival e^{−1}; struck with probability 1 − e^{−2}. The failures, E[wall]/M, count the
        // one that strikes and those passed over during the writes.
        let unfailing = Job { checkpoint_exposure: Exposure::CannotFail, ..end.clone() };
        let q = (-1.0_f64).exp();
        let chunk = m * (1.0 - q) + 100.0 * q;
        let want = (chunk + q * chunk) / m + -(-2.0_f64).exp_m1() * recovery / m;
        assert_rel(expected_failures_per_rep(&unfailing, 1000.0, m), want, ROUTE_REL_TOL, "end-job, two chunks");
        // Restarts that never complete: infinite, not NaN.
        let hopeless = Job { restart_s: 1e6, ..end };
        assert_eq!(expected_failures_per_rep(&hopeless, 1000.0, m), f64::INFINITY);
    }
}
