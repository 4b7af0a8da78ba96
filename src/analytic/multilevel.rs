//! Two-level checkpointing under Poisson failures (MODELS.md §4; Moody, Bronevetsky,
//! Mohror & de Supinski, SC'10, the SCR model): level-1 failures (rate λ₁) roll back to the
//! last checkpoint of any level, level-2 failures (λ₂) to the last level-2 one.
//!
//! The first-order waste `H(P, n)`, its optimum period `P*(n)` and the optimal count `n*` are
//! MODELS.md §4's. The exact expected wall time is a small Markov chain over the chunks of a
//! pattern (the chunks between two level-2 checkpoints), as in the SCR model: a level-2
//! checkpoint is never rolled back past, so the patterns are independent and their expected
//! times add. Every duration in seconds, every rate per second.

use crate::engine::{CheckpointLevel, Exposure, Job, OnFailure, TwoLevel};
use crate::failure::Cause;
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
    /// The two rates of per-cause rates `per_cause` (1/s): each cause's rate goes to the
    /// level that `two` gives it ([`TwoLevel::level_of`]).
    pub fn by_level(two: &TwoLevel, per_cause: impl IntoIterator<Item = (Cause, f64)>) -> Rates {
        let mut rates = Rates { level1_per_s: 0.0, level2_per_s: 0.0 };
        for (cause, rate) in per_cause {
            match two.level_of(cause) {
                CheckpointLevel::One => rates.level1_per_s += rate,
                CheckpointLevel::Two => rates.level2_per_s += rate,
            }
        }
        rates
    }

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

/// The first-order chunk interval P*(n)/n (s) for n = `two.every` (MODELS.md §4): what the
/// rule `young` gives with two levels ([`first_order_period_s`] over n).
pub fn first_order_interval_s(job: &Job, two: &TwoLevel, rates: Rates) -> f64 {
    first_order_period_s(job, two, rates) / two.every.max(1) as f64
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
    let chain = Chain::new(job, two, rates)?;
    let layout = ChunkLayout::new(job.work_s, interval_s);
    let every = two.every.max(1);
    // The chunk k's (from 0) exposed and unexposed lengths.
    let chunk = |k: u64| -> (f64, f64) {
        let compute_s = if k + 1 == layout.count { layout.last_s } else { layout.full_s };
        chain.lengths(compute_s, two.write_s(job, k, layout.count).unwrap_or(0.0))
    };
    // Full patterns are alike but for the last, which holds the last chunk.
    let full_patterns = (layout.count - 1) / every;
    // Within a pattern only the last chunk differs: the level-2 write, or the job's last.
    let one = if full_patterns > 0 { chain.pattern((every - 1, chunk(0)), chunk(every - 1)) } else { 0.0 };
    let first_of_rest = full_patterns * every;
    let rest = chain.pattern((layout.count - 1 - first_of_rest, chunk(first_of_rest)), chunk(layout.count - 1));
    Some(full_patterns as f64 * one + rest)
}

/// Runs of alike chunks up to this long are stepped through one by one by
/// [`Chain::pattern`], longer ones composed at once ([`Chain::run`]): the committed results'
/// patterns (n ≤ 32) keep their bits, and a pattern of 10⁶ chunks costs what one of 64 does.
const STEPPED_RUN: u64 = 64;

/// The recovery chain of [`expected_wall_s`] for one job, two levels and rates, and the
/// backward recursion over a pattern's chunks.
struct Chain {
    /// λ (1/s).
    lambda: f64,
    /// λ₁/λ and λ₂/λ.
    r1: f64,
    r2: f64,
    /// T₁, T₂: expected recovery from level 1, level 2 (s).
    t1: f64,
    t2: f64,
    /// π: probability that a level-1 recovery ends at level 2.
    pi: f64,
    /// Whether writes are exposed (part of an attempt) or not.
    checkpoint_exposure: Exposure,
}

impl Chain {
    /// `None` where the job ends at its first failure or λ is 0 or NaN.
    fn new(job: &Job, two: &TwoLevel, rates: Rates) -> Option<Chain> {
        if job.on_failure == OnFailure::EndJob {
            return None;
        }
        let lambda = rates.total_per_s();
        if lambda.is_nan() || lambda <= 0.0 {
            return None;
        }
        let (r1, r2) = (rates.level1_per_s / lambda, rates.level2_per_s / lambda);
        let fail = |a: f64| -(-lambda * a).exp_m1();
        let restart_fail = |r: f64| match job.restart_exposure {
            Exposure::CanFail => fail(r),
            Exposure::CannotFail => 0.0,
        };
        let restart_time = |r: f64| match job.restart_exposure {
            Exposure::CanFail => fail(r) / lambda,
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
        Some(Chain { lambda, r1, r2, t1, t2, pi, checkpoint_exposure: job.checkpoint_exposure })
    }

    /// A chunk of `compute_s` ending with a write of `write_s` (s) as (exposed, unexposed)
    /// lengths (s).
    fn lengths(&self, compute_s: f64, write_s: f64) -> (f64, f64) {
        match self.checkpoint_exposure {
            Exposure::CanFail => (compute_s + write_s, 0.0),
            Exposure::CannotFail => (compute_s, write_s),
        }
    }

    /// The expected time (s) of a pattern of `head.0` alike chunks of (exposed, unexposed)
    /// lengths `head.1` (s), then one chunk of `last`: a pattern's chunks differ only in its
    /// last (the level-2 write, or the job's shorter last chunk).
    ///
    /// The backward recursion is an affine map per chunk, `α ← A + Bα`, `γ ← Bγ` (see
    /// [`Chain::step`]); m alike chunks compose to `α ← A·(1 − Bᵐ)/(1 − B) + Bᵐα`, `γ ← Bᵐγ`,
    /// so a pattern costs O(1) whatever n. Runs of up to [`STEPPED_RUN`] chunks are stepped
    /// one by one instead (the same value, to rounding).
    fn pattern(&self, head: (u64, (f64, f64)), last: (f64, f64)) -> f64 {
        let (mut alpha, mut gamma) = self.step((0.0, 1.0), last);
        let (m, chunk) = head;
        if m <= STEPPED_RUN {
            for _ in 0..m {
                (alpha, gamma) = self.step((alpha, gamma), chunk);
            }
        } else {
            (alpha, gamma) = self.run(m, (alpha, gamma), chunk);
        }
        alpha / gamma
    }

    /// One step of the backward recursion of [`expected_wall_s`] over a chunk of (exposed,
    /// unexposed) lengths `(a, b)` (s): from (α, γ) of the chunks after it to theirs with it,
    /// where the time from the chunk to the pattern's end is α + (1 − γ)E₁. γ is 1 − β
    /// (γᵢ = pᵢγᵢ₊₁/denᵢ, since denᵢ = pᵢ + qᵢ(λ₁π + λ₂)/λ), and pᵢ is e^{−λaᵢ}, so a pattern
    /// that almost surely fails keeps its digits.
    fn step(&self, (alpha, gamma): (f64, f64), (a, b): (f64, f64)) -> (f64, f64) {
        let Chain { lambda, r1, r2, t1, t2, .. } = *self;
        let (q, p) = (-(-lambda * a).exp_m1(), (-lambda * a).exp());
        let den = p + q * self.back();
        // E[min(X, a)] = q/λ for X ~ Exp(λ).
        ((q / lambda + p * b + q * (r1 * t1 + r2 * t2) + p * alpha) / den, p * gamma / den)
    }

    /// `m` steps ([`Chain::step`]) over alike chunks of lengths `(a, b)` (s) at once:
    /// `α ← A·S + Bᵐα`, `γ ← Bᵐγ` with `A = (q/λ + pb + q(λ₁T₁ + λ₂T₂)/λ)/den`, `B = p/den`
    /// and `S = 1 + B + … + Bᵐ⁻¹ = (1 − Bᵐ)/(1 − B)`. `1 − B = q·back/den` and
    /// `ln B = −ln(den/p) = −ln(1 + (e^{λa} − 1)·back)` are formed without cancellation (B is
    /// near 1 where rollbacks are rare).
    fn run(&self, m: u64, (alpha, gamma): (f64, f64), (a, b): (f64, f64)) -> (f64, f64) {
        let Chain { lambda, r1, r2, t1, t2, .. } = *self;
        let (q, p) = (-(-lambda * a).exp_m1(), (-lambda * a).exp());
        let den = p + q * self.back();
        let m_f = m as f64;
        let ln_b = -((lambda * a).exp_m1() * self.back()).ln_1p();
        let one_minus_b = q * self.back() / den;
        let sum = if one_minus_b > 0.0 { -(m_f * ln_b).exp_m1() / one_minus_b } else { m_f };
        let b_m = (m_f * ln_b).exp();
        let a_term = (q / lambda + p * b + q * (r1 * t1 + r2 * t2)) / den;
        (a_term * sum + b_m * alpha, b_m * gamma)
    }

    /// back = λ₁π/λ + λ₂/λ: the probability that a failure sends the pattern back to its
    /// first chunk (a level-2 one, or a level-1 one whose recovery ends at level 2).
    fn back(&self) -> f64 {
        self.r1 * self.pi + self.r2
    }
}

/// The exact expected overhead per unit of work of an endless run of patterns (infinite
/// work), each of n = `two.every` chunks of `interval_s` (s) compute, the first n − 1 ending
/// with a level-1 write of the job's δ = C₁ and the last with a level-2 write of C₂:
/// `E[pattern]/(n·T) − 1` from the Markov chain of [`expected_wall_s`] (MODELS.md §4; Moody et
/// al., SC'10). The two-level counterpart of [`crate::analytic::infinite_work_overhead`]; `None`
/// where [`expected_wall_s`] has no value.
pub fn pattern_overhead(job: &Job, two: &TwoLevel, interval_s: f64, rates: Rates) -> Option<f64> {
    let chain = Chain::new(job, two, rates)?;
    let every = two.every.max(1);
    let level1 = chain.lengths(interval_s, job.checkpoint_s);
    let level2 = chain.lengths(interval_s, two.checkpoint_s);
    Some(chain.pattern((every - 1, level1), level2) / (every as f64 * interval_s) - 1.0)
}

/// Log-spaced points per decade of the coarse scan of [`optimal_interval_s`].
const SCAN_PER_DECADE: u32 = 16;
/// Decades scanned either side of the first-order interval P*(n)/n.
const SCAN_DECADES: i32 = 4;

/// The chunk interval T (s) that minimises [`pattern_overhead`] at n = `two.every`: the
/// exact two-level optimum for infinite work (MODELS.md §4), the counterpart of the
/// single-level [`crate::analytic::optimal_interval_s`]. Found by a log-spaced scan of four
/// decades either side of the first-order P*(n)/n ([`first_order_period_s`]), then
/// golden-section search between the best point's neighbours, to a relative width of 1e-12
/// (the overhead is flat at its minimum, so T is good to about 1e-8). `None` where there is
/// no finite optimum in that range: no failures, writes that cost nothing, or an overhead
/// still falling at the scan's ends.
pub fn optimal_interval_s(job: &Job, two: &TwoLevel, rates: Rates) -> Option<f64> {
    let guess_s = first_order_interval_s(job, two, rates);
    if !(guess_s.is_finite() && guess_s > 0.0) {
        return None;
    }
    let f = |ln_t: f64| pattern_overhead(job, two, ln_t.exp(), rates).unwrap_or(f64::NAN);
    let step = std::f64::consts::LN_10 / SCAN_PER_DECADE as f64;
    let points = 2 * SCAN_DECADES * SCAN_PER_DECADE as i32;
    let at = |i: i32| guess_s.ln() + step * (i - points / 2) as f64;
    let (mut best, mut best_f) = (0, f64::INFINITY);
    for i in 0..=points {
        let v = f(at(i));
        if v < best_f {
            (best, best_f) = (i, v);
        }
    }
    if best == 0 || best == points || !best_f.is_finite() {
        return None;
    }
    let (mut lo, mut hi) = (at(best - 1), at(best + 1));
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut x1, mut x2) = (hi - g * (hi - lo), lo + g * (hi - lo));
    let (mut f1, mut f2) = (f(x1), f(x2));
    while hi - lo > 1e-12 {
        if f1 <= f2 {
            (hi, x2, f2) = (x2, x1, f1);
            x1 = hi - g * (hi - lo);
            f1 = f(x1);
        } else {
            (lo, x1, f1) = (x1, x2, f2);
            x2 = lo + g * (hi - lo);
            f2 = f(x2);
        }
    }
    Some((0.5 * (lo + hi)).exp())
}

/// The exact expected overhead `E[wall]/W − 1` of [`expected_wall_s`].
pub fn overhead(job: &Job, two: &TwoLevel, interval_s: f64, rates: Rates) -> Option<f64> {
    Some(expected_wall_s(job, two, interval_s, rates)? / job.work_s - 1.0)
}

/// How many patterns either side of W/`around_s` chunks [`finite_work_optimal_interval_s`]
/// looks for the best count.
const FINITE_WORK_PATTERNS: u64 = 4;

/// The chunk interval (s) that minimises the exact expected wall time of the job's finite
/// work ([`expected_wall_s`]) among the equal chunkings W/k with k within a factor 2 of
/// k₀ = W/`around_s` and within 4 patterns (4n + 4 chunks) of it (k ≥ 1): with finite work a
/// chunk count that is not a multiple of n ends in a short pattern that still costs a whole
/// level-2 write, so the best interval is W/k for a k that suits n, not the endless-work
/// optimum ([`optimal_interval_s`]) itself. The candidates are the equal chunkings, as for
/// one level (MODELS.md §1: with k chunks, equal ones cost least; an interval between two of
/// them ends in a short chunk that still costs a write). Why a few patterns suffice: E\[wall\]
/// over k is about a trend with its least near k₀ (the endless optimum) plus a part that
/// repeats with k mod n (the last pattern's length), so a count more than a pattern from k₀
/// is beaten by the one a pattern nearer. At most 8n + 9 candidates, each O(1). `None` with
/// infinite work or where no candidate has a value.
pub fn finite_work_optimal_interval_s(job: &Job, two: &TwoLevel, rates: Rates, around_s: f64) -> Option<f64> {
    let w = job.work_s;
    if !(w.is_finite() && around_s > 0.0 && around_s.is_finite()) {
        return None;
    }
    let k0 = (w / around_s).max(1.0);
    let reach = (FINITE_WORK_PATTERNS * two.every.max(1) + 4) as f64;
    let k_lo = (w / (2.0 * around_s)).floor().max(k0 - reach).max(1.0);
    let k_hi = (2.0 * w / around_s).ceil().min(k0 + reach).max(1.0);
    if k_hi > crate::policy::MAX_EXACT_COUNT {
        return None;
    }
    (k_lo as u64..=k_hi as u64)
        .filter_map(|k| {
            let t = w / k as f64;
            Some((t, expected_wall_s(job, two, t, rates)?))
        })
        .filter(|(_, e)| e.is_finite())
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(t, _)| t)
}

/// The most level-1 checkpoints per level-2 one that [`optimal_every`] tries: as many as
/// `job.level2.every` accepts (`scenario::MAX_EVERY`). A pattern costs O(1) whatever n
/// (alike chunks are composed at once), and past [`OPTIMAL_EVERY_LINEAR`] the search
/// brackets the best count instead of trying each: a best count of 10⁵ takes a few hundred
/// evaluations.
pub const MAX_OPTIMAL_EVERY: u64 = 1_000_000;
/// [`optimal_every`] tries n up to this many times the first-order n* ([`first_order_every`]),
/// and at least [`MIN_OPTIMAL_EVERY_SCAN`].
const OPTIMAL_EVERY_SPAN: f64 = 4.0;
/// [`optimal_every`] stops once n is this much past twice the best count so far.
const OPTIMAL_EVERY_PAST: u64 = 8;
/// The fewest counts [`optimal_every`] tries, unless it stops early.
const MIN_OPTIMAL_EVERY_SCAN: u64 = 64;
/// [`optimal_every`] tries every count up to this one; beyond, it doubles n until the
/// overhead rises, then narrows the bracket by thirds (the overhead is unimodal in n).
pub const OPTIMAL_EVERY_LINEAR: u64 = 4096;
/// The bracket's width at which [`optimal_every`] tries every count left in it.
pub const OPTIMAL_EVERY_BRACKET: u64 = 16;

/// The last count [`optimal_every`] would try: 4 n* rounded up, at least 64, at most
/// [`MAX_OPTIMAL_EVERY`] (that where n* is not finite).
pub fn optimal_every_last(job: &Job, two: &TwoLevel, rates: Rates) -> u64 {
    let n_star = first_order_every(job, two, rates);
    let span = if n_star.is_finite() { (OPTIMAL_EVERY_SPAN * n_star).ceil() as u64 } else { MAX_OPTIMAL_EVERY };
    span.clamp(MIN_OPTIMAL_EVERY_SCAN, MAX_OPTIMAL_EVERY)
}

/// The count n ≥ 1 of checkpoints per level-2 one that minimises the exact overhead of an
/// endless run of patterns ([`pattern_overhead`]) at the chunk interval `interval_s(two at
/// n)` (s; `None` counts as no value): with [`optimal_interval_s`], the best (n, interval)
/// pair (MODELS.md §4). The overhead is unimodal in n (a falling write cost plus a rising
/// rollback cost): every count is tried from n = 1, stopping once n is past twice the best
/// so far plus 8 with the overhead above the best; where that has not happened by
/// [`OPTIMAL_EVERY_LINEAR`], n doubles until the overhead rises (or [`optimal_every_last`]
/// is reached), and the bracket around the best is narrowed by thirds to
/// [`OPTIMAL_EVERY_BRACKET`] counts, each then tried. `None` where λ₂ = 0 (longer patterns
/// always cost less), or the best is the last count tried, or no count has a value.
pub fn optimal_every(
    job: &Job,
    two: &TwoLevel,
    rates: Rates,
    mut interval_s: impl FnMut(&TwoLevel) -> Option<f64>,
) -> Option<u64> {
    if rates.level2_per_s.is_nan() || rates.level2_per_s <= 0.0 {
        return None;
    }
    let last = optimal_every_last(job, two, rates);
    let mut overhead = |n: u64| {
        let at = TwoLevel { every: n, ..two.clone() };
        interval_s(&at).and_then(|t| pattern_overhead(job, &at, t, rates)).unwrap_or(f64::NAN)
    };
    let (mut best, mut best_overhead) = (None, f64::INFINITY);
    let linear_end = last.min(OPTIMAL_EVERY_LINEAR);
    for n in 1..=linear_end {
        let h = overhead(n);
        if h < best_overhead {
            (best, best_overhead) = (Some(n), h);
        } else if best.is_some_and(|b| n >= 2 * b + OPTIMAL_EVERY_PAST) {
            return best.filter(|&b| b < last);
        }
    }
    let Some(mut b) = best.filter(|_| linear_end < last) else {
        return best.filter(|&b| b < last);
    };
    // Doubling: `low` is the count tried before the best, `high` the first beyond it that is
    // worse; the best lies between them.
    let (mut low, mut n) = (b, linear_end);
    let mut high = loop {
        if n == last {
            // The last count is the best so far: where the one before it is worse, the
            // overhead is still falling there, and may fall further beyond.
            if overhead(last - 1) > best_overhead {
                return None;
            }
            break last;
        }
        n = (2 * n).min(last);
        let h = overhead(n);
        if h < best_overhead {
            (low, b, best_overhead) = (b, n, h);
        } else {
            break n;
        }
    };
    while high - low > OPTIMAL_EVERY_BRACKET {
        let third = (high - low) / 3;
        let (m1, m2) = (low + third, high - third);
        if overhead(m1) <= overhead(m2) {
            high = m2;
        } else {
            low = m1;
        }
    }
    let (mut best, mut best_overhead) = (b, best_overhead);
    for n in low..=high {
        let h = overhead(n);
        if h < best_overhead || (h == best_overhead && n < best) {
            (best, best_overhead) = (n, h);
        }
    }
    Some(best).filter(|&b| b < last)
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

    /// How close (relative) m alike chunks composed at once ([`Chain::run`]) must be to the
    /// same chunks stepped one by one: each step rounds, so the stepped value carries about
    /// m·ε of error; at m = 10⁴ that is 2e-12.
    const RUN_RTOL: f64 = 1e-11;

    /// [`Chain::run`] against [`Chain::step`] repeated, over both exposures, downtime, a
    /// rollback chance from 10⁻⁹ to 1 and chunk failure chances from 10⁻⁸ to about 1 − 10⁻⁹,
    /// from 65 to 10⁴ alike chunks, after a different last chunk.
    #[test]
    fn alike_chunks_composed_at_once_are_the_stepped_ones() {
        let mut worst: f64 = 0.0;
        for (ce, re) in [(Exposure::CanFail, Exposure::CanFail), (Exposure::CannotFail, Exposure::CannotFail)] {
            for d in [0.0, 60.0] {
                let j = job(ce, re, d);
                for level2_share in [1e-9, 0.01, 0.5, 1.0] {
                    for m_s in [1e3, 1e6, 1e9] {
                        let rates =
                            Rates { level1_per_s: (1.0 - level2_share) / m_s, level2_per_s: level2_share / m_s };
                        let two = TwoLevel { every: 1, checkpoint_s: 300.0, restart_s: 900.0, level2: [false; 7] };
                        let chain = Chain::new(&j, &two, rates).unwrap();
                        for a in [1e-5, 10.0, 1e3, 2e4] {
                            let chunk = chain.lengths(a, 20.0);
                            let start = chain.step((0.0, 1.0), chain.lengths(a / 3.0, 300.0));
                            for m in [65, 200, 10_000] {
                                let mut stepped = start;
                                for _ in 0..m {
                                    stepped = chain.step(stepped, chunk);
                                }
                                let run = chain.run(m, start, chunk);
                                let (want, got) = (stepped.0 / stepped.1, run.0 / run.1);
                                if !want.is_finite() {
                                    assert_eq!(
                                        got, want,
                                        "overflowed: {ce:?} D={d} share={level2_share} M={m_s} a={a} m={m}"
                                    );
                                    continue;
                                }
                                let rel = ((got - want) / want).abs();
                                worst = worst.max(rel);
                                assert!(
                                    rel <= RUN_RTOL,
                                    "{ce:?} D={d} share={level2_share} M={m_s} a={a} m={m}: run {got} vs stepped {want}"
                                );
                            }
                        }
                    }
                }
            }
        }
        // Not all cases agree trivially: the composition does round differently.
        assert!(worst > 0.0);
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

    /// How close (relative) the two-level optimum must be to the single-level one where the
    /// two coincide: both are minimisers of a function flat at its minimum (the overhead is
    /// good to about 1e-16, so its minimiser to about 1e-8; the single-level one is Newton's).
    const OPTIMUM_RTOL: f64 = 1e-6;

    #[test]
    fn one_level_in_disguise_has_the_single_level_pattern_overhead_and_optimum() {
        let m_s = 11_160.0;
        let rates = Rates { level1_per_s: 0.25 / m_s, level2_per_s: 0.75 / m_s };
        for (ce, re) in [(Exposure::CanFail, Exposure::CanFail), (Exposure::CannotFail, Exposure::CannotFail)] {
            for d in [0.0, 60.0] {
                let j = job(ce, re, d);
                let same =
                    TwoLevel { every: 1, checkpoint_s: j.checkpoint_s, restart_s: j.restart_s, level2: [false; 7] };
                for t in [50.0, 1636.6, 40_000.0] {
                    let single = crate::analytic::infinite_work_overhead(&j, t, m_s);
                    let two = pattern_overhead(&j, &same, t, rates).unwrap();
                    assert!((two - single).abs() <= SAME_RTOL * single, "{ce:?} D={d} T={t}: {two} vs {single}");
                }
                let single = match ce {
                    Exposure::CanFail => crate::analytic::optimal_interval_s(j.checkpoint_s, m_s),
                    Exposure::CannotFail => crate::analytic::optimal_interval_unfailing_checkpoint_s(&j, m_s).unwrap(),
                };
                let two = optimal_interval_s(&j, &same, rates).unwrap();
                assert!(((two - single) / single).abs() <= OPTIMUM_RTOL, "{ce:?} D={d}: {two} vs {single}");
            }
        }
    }

    #[test]
    fn the_exact_optimum_beats_its_neighbours_and_the_first_order_interval() {
        let j = job(Exposure::CanFail, Exposure::CanFail, 30.0);
        let rates = Rates { level1_per_s: 1.0 / 10_800.0, level2_per_s: 1.0 / 43_200.0 };
        for every in [1, 2, 8, 16, 64] {
            let two = TwoLevel { every, checkpoint_s: 600.0, restart_s: 900.0, level2: [false; 7] };
            let t = optimal_interval_s(&j, &two, rates).unwrap();
            let at = |t: f64| pattern_overhead(&j, &two, t, rates).unwrap();
            let best = at(t);
            for scale in [0.99, 1.01, 0.9, 1.1] {
                assert!(best <= at(t * scale), "n = {every}: T = {t} loses to {scale}·T");
            }
            let first = first_order_interval_s(&j, &two, rates);
            assert!(best <= at(first), "n = {every}: exact {t} vs first order {first}");
            // The first order is not far off at these rates (it would be a bug if it were).
            assert!((t / first - 1.0).abs() < 0.25, "n = {every}: {t} vs {first}");
        }
        // An endless run of patterns is k whole patterns of finite work, each chunk full and
        // the last a level-2 one: the same sums as the finite-work chain, which the engine's
        // tests check.
        let cannot = job(Exposure::CannotFail, Exposure::CanFail, 30.0);
        for (every, j) in [(1, &j), (3, &j), (8, &j), (3, &cannot), (8, &cannot)] {
            let two = TwoLevel { every, checkpoint_s: 600.0, restart_s: 900.0, level2: [false; 7] };
            let t = 1200.0;
            let mut finite = j.clone();
            finite.work_s = 5.0 * every as f64 * t;
            let whole = overhead(&finite, &two, t, rates).unwrap();
            let endless = pattern_overhead(j, &two, t, rates).unwrap();
            assert!((whole - endless).abs() <= SAME_RTOL * endless, "n = {every}: {whole} vs {endless}");
        }
        // No failures at level 2 and level-2 writes dearer than level-1 ones: bigger patterns
        // are always better, but at a fixed n the optimum is finite.
        let two = TwoLevel { every: 4, checkpoint_s: 600.0, restart_s: 900.0, level2: [false; 7] };
        let only1 = Rates { level1_per_s: 1.0 / 10_800.0, level2_per_s: 0.0 };
        assert!(optimal_interval_s(&j, &two, only1).is_some());
        // Writes that cost nothing: no finite optimum.
        let mut free = j.clone();
        free.checkpoint_s = 0.0;
        let two = TwoLevel { every: 4, checkpoint_s: 0.0, restart_s: 900.0, level2: [false; 7] };
        assert_eq!(optimal_interval_s(&free, &two, rates), None);
    }
}
