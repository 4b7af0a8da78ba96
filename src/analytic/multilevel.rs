//! Two-level checkpointing under Poisson failures (MODELS.md §4; Moody, Bronevetsky,
//! Mohror & de Supinski, SC'10, the SCR model): level-1 failures (rate λ₁) roll back to the
//! last checkpoint of any level, level-2 failures (λ₂) to the last level-2 one.
//!
//! The first-order waste `H(P, n)`, its optimum period `P*(n)` and the optimal count `n*` are
//! MODELS.md §4's. The exact expected wall time is a small Markov chain over the chunks of a
//! pattern (the chunks between two level-2 checkpoints), as in the SCR model: a level-2
//! checkpoint is never rolled back past, so the patterns are independent and their expected
//! times add. Every duration in seconds, every rate per second.

use crate::engine::{Exposure, Job, OnFailure, TwoLevel};
use crate::policy::ChunkLayout;

/// The two failure rates of two-level checkpointing (per s, ≥ 0, not both 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rates {
    /// λ₁: failures that leave level-1 checkpoints readable (a node's).
    pub level1_per_s: f64,
    /// λ₂: failures that destroy them (a rack, a switch, the system).
    pub level2_per_s: f64,
}

impl Rates {
    /// λ = λ₁ + λ₂.
    pub fn total_per_s(&self) -> f64 {
        self.level1_per_s + self.level2_per_s
    }
}

/// First-order waste (MODELS.md §4) of a pattern of `every` = n chunks of period/n, the last
/// ending with a level-2 write: `H(P,n) = ((n−1)C₁ + C₂)/P + λ₁P/(2n) + λ₂P/2 + λ₁R₁ + λ₂R₂`,
/// with C₁, R₁ the job's checkpoint and restart and C₂, R₂ those of `two`; `period_s` = P (s).
pub fn first_order_waste(job: &Job, two: &TwoLevel, period_s: f64, rates: Rates) -> f64 {
    let n = two.every.max(1) as f64;
    let (l1, l2) = (rates.level1_per_s, rates.level2_per_s);
    ((n - 1.0) * job.checkpoint_s + two.checkpoint_s) / period_s
        + l1 * period_s / (2.0 * n)
        + l2 * period_s / 2.0
        + l1 * job.restart_s
        + l2 * two.restart_s
}

/// The period P*(n) (s) that minimises [`first_order_waste`] for n = `two.every` (MODELS.md
/// §4): `√(2((n−1)C₁ + C₂)/(λ₁/n + λ₂))`. The chunk interval is P*(n)/n.
pub fn first_order_period_s(job: &Job, two: &TwoLevel, rates: Rates) -> f64 {
    let n = two.every.max(1) as f64;
    (2.0 * ((n - 1.0) * job.checkpoint_s + two.checkpoint_s) / (rates.level1_per_s / n + rates.level2_per_s)).sqrt()
}

/// The count n* (level-1 checkpoints per level-2 one, as a real number ≥ 0) that minimises
/// the first-order waste at its optimum period (MODELS.md §4): `√(λ₁(C₂ − C₁)/(λ₂C₁))`.
/// Infinite where λ₂ = 0 or C₁ = 0 with λ₁(C₂ − C₁) > 0; NaN where C₂ < C₁, or where both
/// numerator and denominator vanish (λ₂ = 0 and C₂ = C₁).
pub fn first_order_every(job: &Job, two: &TwoLevel, rates: Rates) -> f64 {
    (rates.level1_per_s * (two.checkpoint_s - job.checkpoint_s) / (rates.level2_per_s * job.checkpoint_s)).sqrt()
}

/// The exact expected wall time (s) of `job` with two-level checkpoints `two` at the chunk
/// interval `interval_s` (s), chunked as the engine plays it ([`ChunkLayout`];
/// [`crate::engine::play_two_level`]), under independent Poisson failures of `rates`. `None`
/// where the job ends at its first failure (no closed form here) or λ = 0 with nothing to fail.
///
/// Chunk i of a pattern is an attempt of exposed length aᵢ (compute, plus the write when
/// writes can fail) and unexposed length bᵢ (a write that cannot fail). It succeeds with
/// pᵢ = e^{−λaᵢ}, taking E[min(X, aᵢ)] + pᵢbᵢ with X ~ Exp(λ). A failure is level 2 with
/// probability λ₂/λ. Recovery from level l takes Tₗ: downtime D, then restart attempts of Rₗ
/// that a failure strikes (when restarts can fail) with probability qₗ = 1 − e^{−λRₗ}, a
/// level-2 one turning a level-1 recovery into a level-2 one:
/// `T₂ = (D + E[min(X, R₂)])/(1 − q₂)`, `T₁ = (D + E[min(X, R₁)] + q₁(λ₂/λ)T₂)/(1 − q₁λ₁/λ)`,
/// and a level-1 recovery ends at level 2 with probability `π = q₁(λ₂/λ)/(1 − q₁λ₁/λ)`.
/// With Eᵢ the expected time from chunk i to the pattern's end,
/// `Eᵢ = E[min(X,aᵢ)] + pᵢbᵢ + pᵢEᵢ₊₁ + (1−pᵢ)[λ₁/λ (T₁ + (1−π)Eᵢ + πE₁) + λ₂/λ (T₂ + E₁)]`,
/// solved backwards as Eᵢ = αᵢ + βᵢE₁, so E₁ = α₁/(1 − β₁). With n = 1, C₂ = C₁ and R₂ = R₁
/// (any λ₂), or with λ₂ = 0 and C₂ = C₁, it is the single-level [`super::expected_wall_s`].
pub fn expected_wall_s(job: &Job, two: &TwoLevel, interval_s: f64, rates: Rates) -> Option<f64> {
    if job.on_failure == OnFailure::EndJob {
        return None;
    }
    let lambda = rates.total_per_s();
    if lambda.is_nan() || lambda <= 0.0 {
        return None;
    }
    let (r1, r2) = (rates.level1_per_s / lambda, rates.level2_per_s / lambda);
    // E[min(X, a)] for X ~ Exp(λ), and the probability that X < a, without cancellation.
    let fail = |a: f64| -(-lambda * a).exp_m1();
    let before = |a: f64| fail(a) / lambda;
    let restart_fail = |r: f64| match job.restart_exposure {
        Exposure::CanFail => fail(r),
        Exposure::CannotFail => 0.0,
    };
    let restart_time = |r: f64| match job.restart_exposure {
        Exposure::CanFail => before(r),
        Exposure::CannotFail => r,
    };
    let d = job.downtime_s;
    let q1 = restart_fail(job.restart_s);
    // 1 − q written as p, and 1 − q₁λ₁/λ as p₁ + q₁λ₂/λ: no cancellation where q is near 1.
    let p_of = |r: f64| match job.restart_exposure {
        Exposure::CanFail => (-lambda * r).exp(),
        Exposure::CannotFail => 1.0,
    };
    let (p1, p2) = (p_of(job.restart_s), p_of(two.restart_s));
    let t2 = (d + restart_time(two.restart_s)) / p2;
    let stays = p1 + q1 * r2;
    let t1 = (d + restart_time(job.restart_s) + q1 * r2 * t2) / stays;
    let pi = q1 * r2 / stays;
    let layout = ChunkLayout::new(job.work_s, interval_s);
    let every = two.every.max(1);
    // The chunk k's (from 0) exposed and unexposed lengths.
    let chunk = |k: u64| -> (f64, f64) {
        let compute_s = if k + 1 == layout.count { layout.last_s } else { layout.full_s };
        let write_s = two.write_s(job, k, layout.count).unwrap_or(0.0);
        match job.checkpoint_exposure {
            Exposure::CanFail => (compute_s + write_s, 0.0),
            Exposure::CannotFail => (compute_s, write_s),
        }
    };
    // A pattern of chunks [from, to): its expected time.
    // Kept as γ = 1 − β (γᵢ = pᵢγᵢ₊₁/denᵢ, since denᵢ = pᵢ + qᵢ(λ₁π + λ₂)/λ), and pᵢ as
    // e^{−λaᵢ}, so a pattern that almost surely fails keeps its digits.
    let back = r1 * pi + r2;
    let pattern = |from: u64, to: u64| -> f64 {
        let (mut alpha, mut gamma) = (0.0_f64, 1.0_f64);
        for k in (from..to).rev() {
            let (a, b) = chunk(k);
            let (q, p) = (fail(a), (-lambda * a).exp());
            let den = p + q * back;
            alpha = (before(a) + p * b + q * (r1 * t1 + r2 * t2) + p * alpha) / den;
            gamma = p * gamma / den;
        }
        alpha / gamma
    };
    // Full patterns are alike but for the last, which holds the last chunk.
    let full_patterns = (layout.count - 1) / every;
    let one = if full_patterns > 0 { pattern(0, every) } else { 0.0 };
    let rest = pattern(full_patterns * every, layout.count);
    Some(full_patterns as f64 * one + rest)
}

/// The exact expected overhead `E[wall]/W − 1` of [`expected_wall_s`].
pub fn overhead(job: &Job, two: &TwoLevel, interval_s: f64, rates: Rates) -> Option<f64> {
    Some(expected_wall_s(job, two, interval_s, rates)? / job.work_s - 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::engine::FinalCheckpoint;

    fn job(checkpoint: Exposure, restart: Exposure, downtime_s: f64) -> Job {
        Job {
            work_s: 2e5,
            checkpoint_s: 120.0,
            restart_s: 600.0,
            downtime_s,
            final_checkpoint: FinalCheckpoint::Written,
            checkpoint_exposure: checkpoint,
            restart_exposure: restart,
            on_failure: OnFailure::Restart,
        }
    }

    /// How close (relative) the two-level value must be to the single-level one where the
    /// two coincide: the same sums in another order.
    const SAME_RTOL: f64 = 1e-11;

    #[test]
    fn one_level_in_disguise_is_the_single_level_value() {
        let m_s = 11_160.0;
        for (ce, re) in [
            (Exposure::CanFail, Exposure::CanFail),
            (Exposure::CannotFail, Exposure::CanFail),
            (Exposure::CanFail, Exposure::CannotFail),
            (Exposure::CannotFail, Exposure::CannotFail),
        ] {
            for d in [0.0, 60.0] {
                let j = job(ce, re, d);
                for t in [400.0, 1636.6, 7000.0, 3e5] {
                    let single = crate::analytic::expected_wall_s(&j, t, m_s);
                    // Every checkpoint a level-2 one, at level-1 costs: the split of the rate
                    // does not matter.
                    let same = TwoLevel { every: 1, checkpoint_s: 120.0, restart_s: 600.0, level2: [false; 7] };
                    // No level-2 failures, level-2 writes at level-1 cost.
                    let none = TwoLevel { every: 5, checkpoint_s: 120.0, restart_s: 9000.0, level2: [false; 7] };
                    for (two, rates) in [
                        (&same, Rates { level1_per_s: 0.3 / m_s, level2_per_s: 0.7 / m_s }),
                        (&none, Rates { level1_per_s: 1.0 / m_s, level2_per_s: 0.0 }),
                    ] {
                        let e = expected_wall_s(&j, two, t, rates).unwrap();
                        assert!((e - single).abs() <= SAME_RTOL * single, "{ce:?} {re:?} D={d} T={t}: {e} vs {single}");
                    }
                }
            }
        }
    }

    #[test]
    fn first_order_optimum_is_near_the_exact_one_at_low_rates() {
        // C₁ = 10 s, C₂ = 300 s, λ₁ = 1/day, λ₂ = 1/(30 days): n* ≈ √(30 · 29) ≈ 29.5.
        let mut j = job(Exposure::CanFail, Exposure::CanFail, 0.0);
        j.checkpoint_s = 10.0;
        j.work_s = 3e7;
        let rates = Rates { level1_per_s: 1.0 / 86_400.0, level2_per_s: 1.0 / (30.0 * 86_400.0) };
        let two = |every| TwoLevel { every, checkpoint_s: 300.0, restart_s: 600.0, level2: [false; 7] };
        let n_star = first_order_every(&j, &two(1), rates);
        assert!((n_star - (30.0_f64 * 29.0).sqrt()).abs() < 1e-9);
        // The exact overhead at the first-order optimum (P*(n)/n per chunk), against a scan
        // of n and of the period around it: within a few percent of the best found.
        let at = |every: u64, scale: f64| {
            let t = two(every);
            let period = first_order_period_s(&j, &t, rates) * scale;
            overhead(&j, &t, period / every as f64, rates).unwrap()
        };
        let first = at(n_star.round() as u64, 1.0);
        let best = (1..80).flat_map(|n| [0.7, 0.85, 1.0, 1.15, 1.3].map(|s| at(n, s))).fold(f64::INFINITY, f64::min);
        assert!(first <= best * 1.02, "first-order {first} vs best scanned {best}");
        // The first-order waste approximates the exact overhead at low rates.
        let t = two(n_star.round() as u64);
        let p = first_order_period_s(&j, &t, rates);
        let h = first_order_waste(&j, &t, p, rates);
        assert!((h - first).abs() < 0.05 * first, "H = {h}, exact {first}");
    }
}
