//! Job-level renewal under any failure law (MODELS.md §2): the job's lifetime law restarts
//! when each repair ends. A cycle runs from the end of one downtime to the next failure:
//! restart first, then whole segments.
//!
//! Infinite work, by renewal-reward: H(T) = (μ + D) / (T · Σ_{j≥1} S(R + jP)) − 1, the sum
//! term by term and then, for heavy tails, with its tail in closed form within a proven bound.
//! Finite work: the exact expected wall time by a recursion over the chunks still to do,
//! so the start-up transient (the first cycle has no restart) is handled exactly.
//! Both assume failures can strike checkpoint writes and restarts.

use crate::engine::{FinalCheckpoint, Job};
use crate::failure::Law;
use crate::policy::ChunkLayout;

/// Terms of the renewal sums below this survival probability are dropped.
pub const SURVIVAL_CUTOFF: f64 = 1e-18;

/// The infinite-work sum adds at least this many terms one by one, stopping at the first
/// below [`SURVIVAL_CUTOFF`] of the running sum: a sum that stops there is exactly what it
/// was before the tail below existed (light tails, or many terms per mean lifetime).
pub const EXACT_TERMS: u64 = 4096;

/// Past [`EXACT_TERMS`] terms the rest of the infinite-work sum is taken in closed form
/// (Euler–Maclaurin, see [`survival_sum`]) once its proven error bound is at most this
/// fraction of the whole sum. A sum Σ within a relative ε gives H within (1 + H)·ε.
pub const TAIL_RTOL: f64 = 1e-12;

/// The most terms the infinite-work sum adds one by one: past it the closed-form tail is
/// taken whatever its bound (still a proven bound, returned in [`SurvivalSum`]). Heavy tails
/// meet [`TAIL_RTOL`] long before (Weibull and gamma of shape ≤ 1 at [`EXACT_TERMS`], a
/// lognormal of σ 4 by about 10⁵ terms); only a sharply peaked law (gamma of shape 10⁴,
/// lognormal of σ 10⁻³) with some 10⁶–10⁷ checkpoint periods per mean lifetime reaches it.
pub const MAX_TERMS: u64 = 1 << 20;

/// Σ_{j≥1} S(a + j·P), the renewal sum of MODELS.md §2, with a proven bound on its error.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SurvivalSum {
    /// The sum.
    pub value: f64,
    /// |value − exact sum| is at most this, rounding aside.
    pub error_bound: f64,
    /// Terms added one by one.
    pub terms: u64,
}

/// Σ_{j≥1} S(a + j·P) for `law`, a = `offset_s` (s), P = `period_s` (s, > 0).
///
/// Terms j = 1, 2, … are added one by one until one falls below [`SURVIVAL_CUTOFF`] of the
/// running sum (then the dropped rest, at most ∫ of the last term on, ≤ μ·S_e(a + J·P)/P by
/// monotony, is the bound) or, from [`EXACT_TERMS`] on at geometrically spaced checks, until
/// the tail from the next term J has a proven error bound within [`TAIL_RTOL`] of the sum (or
/// [`MAX_TERMS`] is reached). With f(x) = S(a + x·P), y = a + J·P, f′ = −P·g (g the
/// density) and μ·S_e(y) = ∫_y^∞ S (the equilibrium law), Euler–Maclaurin to first order:
///
///   Σ_{j≥J} f(j) = μ·S_e(y)/P + S(y)/2 + P·g(y)/12 + R,  |R| ≤ (1/12)∫_J^∞ |f″| = (P/12)·TV(g; [y, ∞))
///
/// (the periodic Bernoulli kernel B̃₂/2 is at most 1/12 in size). Every density here is
/// unimodal, so its total variation on [y, ∞) is g(y) past the mode and 2·g(mode) − g(y)
/// before it. For a completely monotone density (Weibull, gamma of shape ≤ 1) the bound is
/// also P³·g″(y)/360 from the second order (its remainder R₂ keeps one sign), and the
/// smaller is kept. The empirical law's tail is counted exactly instead (bound 0).
pub fn survival_sum(law: &Law, offset_s: f64, period_s: f64) -> SurvivalSum {
    let mut sum = 0.0;
    let mut next_check = EXACT_TERMS;
    let mut j: u64 = 1;
    loop {
        let s = law.survival(offset_s + j as f64 * period_s);
        sum += s;
        if s < SURVIVAL_CUTOFF * sum.max(f64::MIN_POSITIVE) || s == 0.0 {
            let rest_s = offset_s + j as f64 * period_s;
            let dropped = if s == 0.0 { 0.0 } else { law.mean_s() * law.equilibrium_survival_cdf(rest_s).0 / period_s };
            return SurvivalSum { value: sum, error_bound: dropped, terms: j };
        }
        if j >= next_check {
            let (tail, error_bound) = tail_sum(law, offset_s, period_s, j + 1);
            if error_bound <= TAIL_RTOL * (sum + tail) || j >= MAX_TERMS {
                return SurvivalSum { value: sum + tail, error_bound, terms: j };
            }
            next_check = (next_check + next_check / 4).min(MAX_TERMS);
        }
        j += 1;
    }
}

/// Σ_{j≥first} S(a + j·P) and a bound on its error: Euler–Maclaurin with its remainder
/// bound (see [`survival_sum`]), or for the empirical law the exact count of the terms
/// j ≥ `first` with a + j·P below each lifetime.
fn tail_sum(law: &Law, offset_s: f64, period_s: f64, first: u64) -> (f64, f64) {
    let first_f = first as f64;
    if let Law::Empirical(e) = law {
        let lifetimes = e.lifetimes_s();
        let mut count = 0.0;
        for &l in lifetimes {
            // c: the first j ≥ first with a + j·P ≥ l, in the sum's own arithmetic (term j
            // counts the lifetimes above a + j·P).
            let mut c = ((l - offset_s) / period_s).ceil().max(first_f);
            if c > first_f && offset_s + (c - 1.0) * period_s >= l {
                c -= 1.0;
            }
            if offset_s + c * period_s < l {
                c += 1.0;
            }
            count += c - first_f;
        }
        return (count / lifetimes.len() as f64, 0.0);
    }
    let y = offset_s + first_f * period_s;
    let pg = period_density(law, y, period_s);
    let mode_s = density_mode_s(law);
    let variation = if y >= mode_s { pg } else { 2.0 * period_density(law, mode_s, period_s) - pg };
    let integral = law.mean_s() * law.equilibrium_survival_cdf(y).0 / period_s;
    let bound = match completely_monotone_curvature(law, y, period_s) {
        Some(p3g2) => (variation / 12.0).min(p3g2 / 360.0),
        None => variation / 12.0,
    };
    (integral + law.survival(y) / 2.0 + pg / 12.0, bound)
}

/// P³·g″(y) for a completely monotone density g (exponential, Weibull and gamma of shape
/// ≤ 1: every derivative of f(x) = S(a + x·P) keeps one sign), else `None`. Then the
/// Euler–Maclaurin remainder of [`survival_sum`] is R = f‴(J)/720 + R₂ with
/// |R₂| ≤ (1/720)∫_J^∞ |f⁗| = |f‴(J)|/720, so |R| ≤ P³·g″(y)/360: far below P·TV(g)/12
/// once the density varies slowly over a period.
fn completely_monotone_curvature(law: &Law, y: f64, period_s: f64) -> Option<f64> {
    let pg = period_density(law, y, period_s);
    let r = period_s / y;
    // g″ = g·((ln g)′² + (ln g)″).
    let factor = match *law {
        Law::Exponential { mean_s } => (period_s / mean_s).powi(2),
        Law::Weibull { scale_s, shape } if shape <= 1.0 => {
            // (ln g)′ = (k − 1 − k·z)/y, (ln g)″ = (1 − k)(1 + k·z)/y², z = (y/η)^k.
            let z = (y / scale_s).powf(shape);
            r * r * ((shape - 1.0 - shape * z).powi(2) + (1.0 - shape) * (1.0 + shape * z))
        }
        Law::Gamma { shape, scale_s } if shape <= 1.0 => {
            // (ln g)′ = (k − 1)/y − 1/θ, (ln g)″ = (1 − k)/y².
            (r * (shape - 1.0) - period_s / scale_s).powi(2) + (1.0 - shape) * r * r
        }
        _ => return None,
    };
    Some(pg * factor)
}

/// P·g(x): the density at `x_s` (s) times the period `period_s` (s); for Weibull as
/// S·k·z·(P/x), z = (x/η)^k, which stays finite where k/η or (x/η)^{k−1} would not.
fn period_density(law: &Law, x_s: f64, period_s: f64) -> f64 {
    match *law {
        Law::Weibull { scale_s, shape } => {
            let z = (x_s / scale_s).powf(shape);
            (-z).exp() * shape * z * (period_s / x_s)
        }
        _ => period_s * law.density(x_s),
    }
}

/// Where the density peaks (s): 0 for a density decreasing from the start.
fn density_mode_s(law: &Law) -> f64 {
    match *law {
        Law::Weibull { scale_s, shape } if shape > 1.0 => scale_s * ((shape - 1.0) / shape).powf(1.0 / shape),
        Law::Lognormal { log_mean, sigma } => (log_mean - sigma * sigma).exp(),
        Law::Gamma { shape, scale_s } if shape > 1.0 => (shape - 1.0) * scale_s,
        _ => 0.0,
    }
}

/// Infinite-work overhead H(T) for job-level renewal of `law` (renewal-reward;
/// MODELS.md §2), with checkpoints every `interval_s` (s) of compute:
/// H(T) = (μ + D) / (T · Σ_{j≥1} S(R + j·P)) − 1, P = T + δ, the sum by [`survival_sum`]:
/// within a relative [`TAIL_RTOL`] (proven, rounding aside) whenever its tail is taken, so
/// H within (1 + H)·[`TAIL_RTOL`]; bit for bit as before when the first [`EXACT_TERMS`]
/// terms reach [`SURVIVAL_CUTOFF`].
pub fn infinite_work_overhead(job: &Job, interval_s: f64, law: &Law) -> f64 {
    let period_s = interval_s + job.checkpoint_s;
    let sum = survival_sum(law, job.restart_s, period_s).value;
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

    /// Job of the audit's heavy-tail cases: T = 1600 s, δ = 120 s, R = 600 s, D = 0.
    fn audit_overhead(law: &Law) -> f64 {
        infinite_work_overhead(&job(f64::INFINITY, 0.0, FinalCheckpoint::Written), 1600.0, law)
    }

    /// Relative agreement of H with the 40-digit references below (mpmath: terms j < J
    /// exactly, the rest by Euler–Maclaurin to the 5th derivative with a quadrature tail;
    /// J = 200 and 400 agree to 20 digits). The sum's truncation is proven within
    /// TAIL_RTOL = 1e-12, i.e. 1.4e-11 on H ≈ 0.08 ((1 + H)/H ≈ 14); rounding of the ≤ 10⁵
    /// terms adds at most about 1e-11. So 1e-10, except where the law's own survival is
    /// less accurate (LAW_RTOL).
    const REF_RTOL: f64 = 1e-10;
    /// The lognormal survival rests on statrs' erfc, good to about 4e-11 relative (checked
    /// against mpmath at x = 2320 s), i.e. about 5e-10 on H.
    const LAW_RTOL: f64 = 2e-9;

    #[test]
    fn heavy_tails_match_independent_references() {
        // Before the closed-form tail these took ~4e10 (shape 0.1) and ~1e15 (0.05) terms.
        let m = 11_160.0;
        for (law, reference, rtol) in [
            (Law::weibull(m, 0.1).unwrap(), 0.08026101849717938, REF_RTOL),
            (Law::weibull(m, 0.05).unwrap(), 0.07512088716404271, REF_RTOL),
            (Law::weibull(m, 0.3).unwrap(), 0.1434477225523227, REF_RTOL),
            (Law::gamma(m, 0.001).unwrap(), 0.076320078072613, REF_RTOL),
            (Law::lognormal(m, 10.0).unwrap(), 0.07500022158883335, LAW_RTOL),
            (Law::lognormal(m, 4.0).unwrap(), 0.09156132393573456, LAW_RTOL),
        ] {
            let h = audit_overhead(&law);
            assert!((h / reference - 1.0).abs() <= rtol, "{law:?}: {h} vs {reference}");
        }
    }

    #[test]
    fn every_accepted_shape_ends_within_its_bound() {
        // The edges of the accepted ranges, and periods short and long against the mean:
        // each sum stops by MAX_TERMS and its proven bound meets TAIL_RTOL (the cap is for
        // sharply peaked laws with far more periods per mean lifetime than these).
        use crate::failure::law::{GAMMA_SHAPE_RANGE, LOGNORMAL_SIGMA_RANGE, WEIBULL_SHAPE_RANGE};
        let (k, sigma, g) = (WEIBULL_SHAPE_RANGE, LOGNORMAL_SIGMA_RANGE, GAMMA_SHAPE_RANGE);
        for mean_s in [100.0, 11_160.0, 1e6] {
            for law in [
                Law::weibull(mean_s, k.0).unwrap(),
                Law::weibull(mean_s, 0.1).unwrap(),
                Law::weibull(mean_s, k.1).unwrap(),
                Law::lognormal(mean_s, sigma.0).unwrap(),
                Law::lognormal(mean_s, 4.0).unwrap(),
                Law::lognormal(mean_s, sigma.1).unwrap(),
                Law::gamma(mean_s, g.0).unwrap(),
                Law::gamma(mean_s, g.1).unwrap(),
            ] {
                for period_s in [180.0, 1720.0, 1e5] {
                    let sum = survival_sum(&law, 600.0, period_s);
                    // 0 where even the first period outlives every lifetime (H = ∞).
                    assert!(sum.terms <= MAX_TERMS && sum.value.is_finite() && sum.value >= 0.0, "{law:?} {sum:?}");
                    assert!(sum.error_bound <= TAIL_RTOL * sum.value, "{law:?} P {period_s}: {sum:?}");
                }
            }
        }
    }

    #[test]
    fn exponential_with_many_periods_per_mean_is_daly() {
        // 6e8 periods per mean: the old term-by-term sum needed ~1.6e10 terms.
        let m = 1e12;
        let law = Law::exponential(m).unwrap();
        let j = job(f64::INFINITY, 120.0, FinalCheckpoint::Written);
        let exact = crate::analytic::infinite_work_overhead(&j, 1600.0, m);
        let renewal = infinite_work_overhead(&j, 1600.0, &law);
        assert!((renewal - exact).abs() <= RTOL * exact, "{renewal} vs {exact}");
    }

    #[test]
    fn empirical_tail_is_counted_exactly() {
        // Lifetimes up to 1e7 s with P = 100 s: 1e5 terms, the tail from EXACT_TERMS counted;
        // the sum of the first terms, in floating point, is within a few ulps per term.
        let lifetimes: Vec<f64> = (1..=500).map(|i| (i as f64).powi(3) * 0.08 + 0.5).collect();
        let law = Law::empirical(&lifetimes).unwrap();
        let (a, p) = (600.0, 100.0);
        // Term by term in whole lifetimes counted (no rounding), then divided once.
        let count: u64 =
            (1..).map(|j| (law.survival(a + j as f64 * p) * 500.0).round() as u64).take_while(|c| *c > 0).sum();
        let brute = count as f64 / 500.0;
        let sum = survival_sum(&law, a, p);
        assert_eq!(sum.error_bound, 0.0);
        assert!((sum.value / brute - 1.0).abs() < 1e-12, "{} vs {brute}", sum.value);
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
