//! Job-level renewal under any failure law (MODELS.md §2): the job's lifetime law restarts
//! when each repair ends. A cycle runs from the end of one downtime to the next failure:
//! restart first, then whole segments.
//!
//! Infinite work, by renewal-reward: H(T) = (μ + D) / (T · Σ_{j≥1} S(R + jP)) − 1.
//! Finite work: the exact expected wall time by a recursion over the chunks still to do,
//! so the start-up transient (the first cycle has no restart) is handled exactly.
//! Both assume failures can strike checkpoint writes and restarts.

use crate::engine::{FinalCheckpoint, Job};
use crate::failure::Law;
use crate::policy::ChunkLayout;

/// Terms of the renewal sums below this survival probability are dropped.
pub const SURVIVAL_CUTOFF: f64 = 1e-18;

/// Infinite-work overhead H(T) for job-level renewal of `law` (renewal-reward;
/// MODELS.md §2), with checkpoints every `interval_s` (s) of compute. Sums until the
/// survival falls below [`SURVIVAL_CUTOFF`].
pub fn infinite_work_overhead(job: &Job, interval_s: f64, law: &Law) -> f64 {
    let period_s = interval_s + job.checkpoint_s;
    let mut sum = 0.0;
    for j in 1.. {
        let s = law.survival(job.restart_s + j as f64 * period_s);
        sum += s;
        if s < SURVIVAL_CUTOFF * sum.max(f64::MIN_POSITIVE) || s == 0.0 {
            break;
        }
    }
    (law.mean_s() + job.downtime_s) / (interval_s * sum) - 1.0
}

/// E[X; X < L] (s) = ∫₀ᴸ S − L·S(L): the mean lifetime spent in failures before L.
fn partial_mean_s(law: &Law, l_s: f64) -> f64 {
    (law.integrated_survival_s(l_s) - l_s * law.survival(l_s)).max(0.0)
}

/// Exact expected wall time (s) of the whole job under job-level renewal of `law`, the
/// first lifetime starting new at time 0 and each later one when a downtime ends; chunks of
/// `interval_s` (s), both phases exposed to failures.
pub fn finite_work_wall_s(job: &Job, interval_s: f64, law: &Law) -> f64 {
    let layout = ChunkLayout::new(job.work_s, interval_s);
    let n = layout.count as usize;
    let full_s = layout.full_s + job.checkpoint_s;
    let last_write_s = match job.final_checkpoint {
        FinalCheckpoint::Written => job.checkpoint_s,
        FinalCheckpoint::Skipped => 0.0,
    };
    let last_s = layout.last_s + last_write_s;
    let d = job.downtime_s;

    // Expected time to finish chunks i.. from the start of a cycle whose first phase is
    // `lead_s` long (the restart, or nothing at the job's start), given f[i + j] for j ≥ 1.
    let cycle = |lead_s: f64, remaining: usize, f: &[f64], i: usize| -> (f64, f64) {
        // Boundary j (j = 0..remaining−1) is the end of the j-th completed full chunk; the
        // last boundary is completion.
        let boundary = |j: usize| {
            if j == remaining { lead_s + (remaining - 1) as f64 * full_s + last_s } else { lead_s + j as f64 * full_s }
        };
        let end_s = boundary(remaining);
        let (s_end, f_end) = law.survival_cdf(end_s);
        let mut rest = end_s * s_end + partial_mean_s(law, end_s) + d * f_end;
        // q_j = P(boundary j ≤ X < boundary j + 1), j ≥ 1; q_0 = P(X < boundary 1).
        let s_at = |j: usize| if j == 0 { 1.0 } else { law.survival(boundary(j)) };
        let q0 = 1.0 - s_at(1).min(1.0);
        let mut s_j = s_at(1);
        for j in 1..remaining {
            if s_j < SURVIVAL_CUTOFF {
                break;
            }
            let s_next = s_at(j + 1);
            rest += (s_j - s_next) * f[i + j];
            s_j = s_next;
        }
        (rest, q0)
    };

    // f[i]: from the end of a downtime with chunks i.. still to do (restart first).
    let mut f = vec![0.0; n + 1];
    for i in (0..n).rev() {
        let (rest, q0) = cycle(job.restart_s, n - i, &f, i);
        f[i] = rest / (1.0 - q0);
    }
    // The job's start: no restart before the first chunk, and a new lifetime.
    let (rest, q0) = cycle(0.0, n, &f, 0);
    rest + q0 * f[0]
}

/// E\[wall\]/W − 1 of [`finite_work_wall_s`].
pub fn finite_work_overhead(job: &Job, interval_s: f64, law: &Law) -> f64 {
    finite_work_wall_s(job, interval_s, law) / job.work_s - 1.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Exposure, OnFailure};

    fn job(work_s: f64, downtime_s: f64, final_checkpoint: FinalCheckpoint) -> Job {
        Job {
            work_s,
            checkpoint_s: 120.0,
            restart_s: 600.0,
            downtime_s,
            final_checkpoint,
            checkpoint_exposure: Exposure::CanFail,
            restart_exposure: Exposure::CanFail,
            on_failure: OnFailure::Restart,
        }
    }

    /// Agreement with the exponential closed forms (relative).
    const RTOL: f64 = 1e-9;

    #[test]
    fn exponential_renewal_is_daly() {
        let m = 11_160.0;
        let law = Law::exponential(m).unwrap();
        for (w, t, d, fin) in [
            (2e5, 1636.58, 0.0, FinalCheckpoint::Written),
            (2e5, 4000.0, 300.0, FinalCheckpoint::Written),
            (2e5, 777.0, 60.0, FinalCheckpoint::Skipped),
            (5000.0, 1e9, 0.0, FinalCheckpoint::Written),
        ] {
            let j = job(w, d, fin);
            let exact = crate::analytic::finite_work_overhead(&j, t, m);
            let renewal = finite_work_overhead(&j, t, &law);
            assert!((renewal - exact).abs() <= RTOL * exact, "W {w} T {t} D {d}: {renewal} vs {exact}");
        }
        let j = job(f64::INFINITY, 120.0, FinalCheckpoint::Written);
        let exact = crate::analytic::infinite_work_overhead(&j, 1636.58, m);
        let renewal = infinite_work_overhead(&j, 1636.58, &law);
        assert!((renewal - exact).abs() <= RTOL * exact, "{renewal} vs {exact}");
    }

    #[test]
    fn long_jobs_approach_the_infinite_work_overhead() {
        // The transient is O(1/W): a hundred times more work brings finite to infinite.
        let law = Law::weibull(11_160.0, 0.7).unwrap();
        let inf = infinite_work_overhead(&job(f64::INFINITY, 0.0, FinalCheckpoint::Written), 1600.0, &law);
        let short = finite_work_overhead(&job(1600.0 * 100.0, 0.0, FinalCheckpoint::Written), 1600.0, &law);
        let long = finite_work_overhead(&job(1600.0 * 10_000.0, 0.0, FinalCheckpoint::Written), 1600.0, &law);
        assert!((long - inf).abs() < (short - inf).abs() / 20.0, "inf {inf}, short {short}, long {long}");
    }
}
