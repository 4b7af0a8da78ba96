//! Failure laws (MODELS.md §2): lifetime distributions given by their mean and shape, with
//! the survival function, the cumulative hazard and its inverse, and the equilibrium
//! (stationary residual-life) law of each, all accurate in both tails.
//!
//! The cumulative hazard Λ(x) = −ln S(x) is what cohort sampling inverts: the first failure
//! among m iid lives that have accumulated hazard Λ₀ is at Λ⁻¹(Λ₀ + E/m), E ~ Exp(1)
//! (MODELS.md §2, "cohort sampling").

use std::sync::Arc;

use rand::RngExt;
use rand_distr::{Distribution, Exp1, StandardNormal};
use rand_pcg::Pcg64Mcg;
use statrs::function::erf::erfc_inv;
use statrs::function::gamma::{checked_gamma_lr, checked_gamma_ur, gamma, ln_gamma};

/// Weibull shapes accepted: below 0.05 the mean Γ(1+1/k) overflows practical ranges.
pub const WEIBULL_SHAPE_RANGE: (f64, f64) = (0.05, 50.0);
/// Lognormal σ accepted (> 0).
pub const LOGNORMAL_SIGMA_RANGE: (f64, f64) = (1e-3, 10.0);
/// Gamma shapes accepted.
pub const GAMMA_SHAPE_RANGE: (f64, f64) = (1e-3, 1e4);

/// Newton's method for Λ⁻¹ stops once its step in ln x is at most this: the error after a
/// step Δ is about (φ''/2φ')·Δ² for φ(u) = ln Λ(eᵘ), whose curvature is of order one for
/// every law here (ln Λ is nearly linear in ln x), so ≈ 1e-18, below one ulp of x.
const NEWTON_CONVERGED: f64 = 1e-9;

/// A lifetime law: the time to the next failure of one node (or of the job, for job-level
/// renewal), every parameter in seconds.
#[derive(Debug, Clone, PartialEq)]
pub enum Law {
    /// Exp(mean): constant hazard 1/mean.
    Exponential {
        /// Mean (s).
        mean_s: f64,
    },
    /// Weibull: S(x) = exp(−(x/η)^k); mean ηΓ(1+1/k).
    Weibull {
        /// Scale η (s).
        scale_s: f64,
        /// Shape k (< 1: decreasing hazard, infant mortality).
        shape: f64,
    },
    /// Lognormal: ln X ~ N(m, σ²); mean exp(m + σ²/2).
    Lognormal {
        /// m, the mean of ln X (ln s).
        log_mean: f64,
        /// σ, the standard deviation of ln X.
        sigma: f64,
    },
    /// Gamma: density ∝ x^{k−1} e^{−x/θ}; mean kθ.
    Gamma {
        /// Shape k.
        shape: f64,
        /// Scale θ (s).
        scale_s: f64,
    },
    /// The empirical law of a list of observed lifetimes (s): each equally likely.
    Empirical(Arc<Empirical>),
}

/// Observed lifetimes, sorted, with prefix sums for the equilibrium law.
#[derive(Debug, Clone, PartialEq)]
pub struct Empirical {
    /// The lifetimes (s), sorted increasing, all > 0.
    sorted_s: Vec<f64>,
    /// prefix_s[i] = sum of the first i lifetimes (s).
    prefix_s: Vec<f64>,
}

impl Empirical {
    /// The lifetimes (s), sorted.
    pub fn lifetimes_s(&self) -> &[f64] {
        &self.sorted_s
    }
}

fn in_range(name: &str, v: f64, (lo, hi): (f64, f64)) -> Result<f64, String> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(v)
    } else {
        Err(format!("{name} {} is out of range: accepted is {lo} to {hi}", value_text(v)))
    }
}

fn positive_mean(mean_s: f64) -> Result<f64, String> {
    if mean_s.is_finite() && mean_s > 0.0 {
        Ok(mean_s)
    } else {
        Err(format!("mean {} s is out of range: accepted is a finite duration > 0", value_text(mean_s)))
    }
}

/// `v` as an error message shows it: every digit it was given, in scientific notation
/// where plain would run to hundreds of digits (1e-300, not 0.000…1).
fn value_text(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-4..1e16).contains(&v.abs()) { format!("{v:e}") } else { format!("{v}") }
}

/// P(a, x) with the edges statrs refuses: P(a, 0) = 0, P(a, ∞) = 1.
fn reg_lower_gamma(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        0.0
    } else if x == f64::INFINITY {
        1.0
    } else {
        checked_gamma_lr(a, x).unwrap_or(f64::NAN)
    }
}

/// Q(a, x) = 1 − P(a, x), accurate in its upper tail.
fn reg_upper_gamma(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        1.0
    } else if x == f64::INFINITY {
        0.0
    } else {
        checked_gamma_ur(a, x).unwrap_or(f64::NAN)
    }
}

/// (Q(a, x), P(a, x)), computing only the smaller tail accurately and the other as its
/// complement: the one near 1 needs no relative precision.
fn reg_gamma_pair(a: f64, x: f64) -> (f64, f64) {
    // The median of Gamma(a, 1) is near a − 1/3: below it P < 1/2.
    if x < a - 1.0 / 3.0 || x < 1.0 {
        let p = reg_lower_gamma(a, x);
        (1.0 - p, p)
    } else {
        let q = reg_upper_gamma(a, x);
        (q, 1.0 - q)
    }
}

/// The equilibrium tails (S_e, F_e) of a Weibull law of scale `scale_s` (s) and shape `shape`
/// at `x_s` > 0 (s), and z = (x/η)^k: ∫₀ˣ S = (η/k)·γ(1/k, z), so F_e = P(1/k, z). Below
/// [`WEIBULL_SMALL_Z`], where z may lose its digits or underflow (large shapes), the series
/// P(a, z) = z^a/Γ(a+1)·(1 − a·z/(a+1) + O(z²)) with z^a = x/η exactly (Abramowitz & Stegun
/// 6.5.29).
fn weibull_equilibrium(scale_s: f64, shape: f64, x_s: f64) -> (f64, f64, f64) {
    let z = (x_s / scale_s).powf(shape);
    if z < WEIBULL_SMALL_Z {
        let a = 1.0 / shape;
        let f_e = x_s / scale_s / gamma(1.0 + a) * (1.0 - a * z / (a + 1.0));
        (1.0 - f_e, f_e, z)
    } else {
        let (s_e, f_e) = reg_gamma_pair(1.0 / shape, z);
        (s_e, f_e, z)
    }
}

/// Below this z = (x/η)^k the Weibull equilibrium law uses its two-term series: the next
/// term is of relative size z² (under 1e-18).
const WEIBULL_SMALL_Z: f64 = 1e-9;

/// Φ(x), the standard normal CDF, accurate in both tails: `libm`'s erfc is within about
/// 3e-16 relative wherever the result is a normal number (checked against mpmath); statrs's
/// was up to 1e-10 off near 0.5, which limited the lognormal renewal references.
fn normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

/// −ln S from S and F = 1 − S, whichever keeps the digits.
fn cum_hazard_from(s: f64, f: f64) -> f64 {
    if f < 0.5 { -(-f).ln_1p() } else { -s.ln() }
}

impl Law {
    /// Exponential lifetimes of mean `mean_s` (s).
    pub fn exponential(mean_s: f64) -> Result<Law, String> {
        Ok(Law::Exponential { mean_s: positive_mean(mean_s)? })
    }

    /// Weibull lifetimes of mean `mean_s` (s) and shape `shape`; scale η = mean/Γ(1+1/k).
    pub fn weibull(mean_s: f64, shape: f64) -> Result<Law, String> {
        let mean_s = positive_mean(mean_s)?;
        let shape = in_range("shape", shape, WEIBULL_SHAPE_RANGE)?;
        Ok(Law::Weibull { scale_s: mean_s / gamma(1.0 + 1.0 / shape), shape })
    }

    /// Lognormal lifetimes of mean `mean_s` (s) and log-sd `sigma`; m = ln(mean) − σ²/2.
    pub fn lognormal(mean_s: f64, sigma: f64) -> Result<Law, String> {
        let mean_s = positive_mean(mean_s)?;
        let sigma = in_range("sigma", sigma, LOGNORMAL_SIGMA_RANGE)?;
        Ok(Law::Lognormal { log_mean: mean_s.ln() - sigma * sigma / 2.0, sigma })
    }

    /// Gamma lifetimes of mean `mean_s` (s) and shape `shape`; scale θ = mean/k.
    pub fn gamma(mean_s: f64, shape: f64) -> Result<Law, String> {
        let mean_s = positive_mean(mean_s)?;
        let shape = in_range("shape", shape, GAMMA_SHAPE_RANGE)?;
        Ok(Law::Gamma { shape, scale_s: mean_s / shape })
    }

    /// The empirical law of `lifetimes_s` (s; each finite and > 0, at least one).
    pub fn empirical(lifetimes_s: &[f64]) -> Result<Law, String> {
        if lifetimes_s.is_empty() {
            return Err("the list of lifetimes is empty: accepted is at least one duration > 0".into());
        }
        if let Some((i, v)) = lifetimes_s.iter().enumerate().find(|(_, v)| !(v.is_finite() && **v > 0.0)) {
            return Err(format!("lifetime #{} ({v} s) is out of range: accepted is a finite duration > 0", i + 1));
        }
        let mut sorted_s = lifetimes_s.to_vec();
        sorted_s.sort_by(f64::total_cmp);
        let mut prefix_s = Vec::with_capacity(sorted_s.len() + 1);
        prefix_s.push(0.0);
        for v in &sorted_s {
            prefix_s.push(prefix_s.last().expect("non-empty") + v);
        }
        Ok(Law::Empirical(Arc::new(Empirical { sorted_s, prefix_s })))
    }

    /// The law's name as written in scenario files.
    pub fn name(&self) -> &'static str {
        match self {
            Law::Exponential { .. } => "exponential",
            Law::Weibull { .. } => "weibull",
            Law::Lognormal { .. } => "lognormal",
            Law::Gamma { .. } => "gamma",
            Law::Empirical(_) => "empirical",
        }
    }

    /// The law and its shape, for reports: `weibull(shape 0.7)`.
    pub fn describe(&self) -> String {
        match self {
            Law::Exponential { .. } => "exponential".into(),
            Law::Weibull { shape, .. } => format!("weibull(shape {shape})"),
            Law::Lognormal { sigma, .. } => format!("lognormal(sigma {sigma})"),
            Law::Gamma { shape, .. } => format!("gamma(shape {shape})"),
            Law::Empirical(e) => format!("empirical({} lifetimes)", e.sorted_s.len()),
        }
    }

    /// Whether the law is exponential (memoryless: every renewal model is Poisson).
    pub fn is_exponential(&self) -> bool {
        matches!(self, Law::Exponential { .. })
    }

    /// The mean lifetime μ (s).
    pub fn mean_s(&self) -> f64 {
        match self {
            Law::Exponential { mean_s } => *mean_s,
            Law::Weibull { scale_s, shape } => scale_s * gamma(1.0 + 1.0 / shape),
            Law::Lognormal { log_mean, sigma } => (log_mean + sigma * sigma / 2.0).exp(),
            Law::Gamma { shape, scale_s } => shape * scale_s,
            Law::Empirical(e) => e.prefix_s[e.sorted_s.len()] / e.sorted_s.len() as f64,
        }
    }

    /// The same law family and shape with its mean scaled by `factor` (> 0).
    pub fn scaled(&self, factor: f64) -> Law {
        match self {
            Law::Exponential { mean_s } => Law::Exponential { mean_s: mean_s * factor },
            Law::Weibull { scale_s, shape } => Law::Weibull { scale_s: scale_s * factor, shape: *shape },
            Law::Lognormal { log_mean, sigma } => Law::Lognormal { log_mean: log_mean + factor.ln(), sigma: *sigma },
            Law::Gamma { shape, scale_s } => Law::Gamma { shape: *shape, scale_s: scale_s * factor },
            Law::Empirical(e) => {
                let scaled: Vec<f64> = e.sorted_s.iter().map(|v| v * factor).collect();
                Law::empirical(&scaled).expect("scaling keeps lifetimes valid")
            }
        }
    }

    /// Survival S(x) = P(X > x) and distribution F(x) = P(X ≤ x), each accurate in its own
    /// small tail.
    pub fn survival_cdf(&self, x_s: f64) -> (f64, f64) {
        if x_s <= 0.0 {
            return (1.0, 0.0);
        }
        match self {
            Law::Exponential { mean_s } => {
                let u = x_s / mean_s;
                ((-u).exp(), -(-u).exp_m1())
            }
            Law::Weibull { scale_s, shape } => {
                let h = (x_s / scale_s).powf(*shape);
                ((-h).exp(), -(-h).exp_m1())
            }
            Law::Lognormal { log_mean, sigma } => {
                let z = (x_s.ln() - log_mean) / sigma;
                (normal_cdf(-z), normal_cdf(z))
            }
            Law::Gamma { shape, scale_s } => reg_gamma_pair(*shape, x_s / scale_s),
            Law::Empirical(e) => {
                let n = e.sorted_s.len();
                let at_most = e.sorted_s.partition_point(|v| *v <= x_s);
                ((n - at_most) as f64 / n as f64, at_most as f64 / n as f64)
            }
        }
    }

    /// S(x) = P(X > x).
    pub fn survival(&self, x_s: f64) -> f64 {
        self.survival_cdf(x_s).0
    }

    /// ∫₀ˣ S(u) du (s) = μ·F_e(x): the expected lifetime spent before x.
    pub fn integrated_survival_s(&self, x_s: f64) -> f64 {
        self.mean_s() * self.equilibrium_survival_cdf(x_s).1
    }

    /// The cumulative hazard Λ(x) = −ln S(x).
    pub fn cum_hazard(&self, x_s: f64) -> f64 {
        match self {
            Law::Exponential { mean_s } => x_s.max(0.0) / mean_s,
            Law::Weibull { scale_s, shape } => (x_s.max(0.0) / scale_s).powf(*shape),
            _ => {
                let (s, f) = self.survival_cdf(x_s);
                cum_hazard_from(s, f)
            }
        }
    }

    /// The inverse cumulative hazard: the x with Λ(x) = y (y ≥ 0), the smallest such x for
    /// the empirical law.
    pub fn inv_cum_hazard(&self, y: f64) -> f64 {
        match self {
            Law::Exponential { mean_s } => mean_s * y,
            Law::Weibull { scale_s, shape } => scale_s * y.powf(1.0 / shape),
            Law::Lognormal { log_mean, sigma } => {
                // S = e^{−y} = Φ(−z): z = √2·erfc⁻¹(2S), or from F = 1 − S when S is near 1.
                let z = if y < std::f64::consts::LN_2 {
                    -std::f64::consts::SQRT_2 * erfc_inv(-2.0 * (-y).exp_m1())
                } else {
                    std::f64::consts::SQRT_2 * erfc_inv(2.0 * (-y).exp())
                };
                let x = (log_mean + sigma * z).exp();
                self.refine_inverse(y, x, false)
            }
            Law::Gamma { .. } => {
                let guess = self.mean_s() * y.max(1e-300);
                self.refine_inverse(y, guess, false)
            }
            Law::Empirical(e) => {
                // Smallest x with S(x) ≤ e^{−y}: at least n(1 − e^{−y}) lifetimes ≤ x.
                let n = e.sorted_s.len();
                let need = (n as f64 * -(-y).exp_m1()).ceil() as usize;
                if need == 0 { 0.0 } else { e.sorted_s[(need - 1).min(n - 1)] }
            }
        }
    }

    /// Equilibrium (stationary residual life) law F_e(x) = (1/μ)∫₀ˣ S(u)du: its survival
    /// S_e(x) and distribution F_e(x), each accurate in its small tail (MODELS.md §2).
    pub fn equilibrium_survival_cdf(&self, x_s: f64) -> (f64, f64) {
        if x_s <= 0.0 {
            return (1.0, 0.0);
        }
        let complement = |f: f64, s: f64| if f < 0.5 { (1.0 - f, f) } else { (s, 1.0 - s) };
        match self {
            Law::Exponential { mean_s } => {
                let u = x_s / mean_s;
                ((-u).exp(), -(-u).exp_m1())
            }
            Law::Weibull { scale_s, shape } => {
                let (s_e, f_e, _) = weibull_equilibrium(*scale_s, *shape, x_s);
                (s_e, f_e)
            }
            Law::Lognormal { log_mean, sigma } => {
                // F_e = (x/μ)·S(x) + E[X; X ≤ x]/μ with E[X; X ≤ x] = μ·Φ(z − σ).
                let mu = (log_mean + sigma * sigma / 2.0).exp();
                let z = (x_s.ln() - log_mean) / sigma;
                let f = x_s / mu * normal_cdf(-z) + normal_cdf(z - sigma);
                let s = normal_cdf(sigma - z) - x_s / mu * normal_cdf(-z);
                complement(f, s.max(0.0))
            }
            Law::Gamma { shape, scale_s } => {
                // E[X; X ≤ x] = μ·P(k+1, x/θ).
                let u = x_s / scale_s;
                let f = u / shape * reg_upper_gamma(*shape, u) + reg_lower_gamma(shape + 1.0, u);
                let s = reg_upper_gamma(shape + 1.0, u) - u / shape * reg_upper_gamma(*shape, u);
                complement(f, s.max(0.0))
            }
            Law::Empirical(e) => {
                let n = e.sorted_s.len();
                let below = e.sorted_s.partition_point(|v| *v <= x_s);
                let integral = e.prefix_s[below] + (n - below) as f64 * x_s;
                let f = (integral / e.prefix_s[n]).min(1.0);
                (1.0 - f, f)
            }
        }
    }

    /// The equilibrium cumulative hazard Λ_e(x) = −ln S_e(x).
    pub fn equilibrium_cum_hazard(&self, x_s: f64) -> f64 {
        match self {
            Law::Exponential { mean_s } => x_s.max(0.0) / mean_s,
            _ => {
                let (s, f) = self.equilibrium_survival_cdf(x_s);
                cum_hazard_from(s, f)
            }
        }
    }

    /// The x with Λ_e(x) = y (y ≥ 0).
    pub fn inv_equilibrium_cum_hazard(&self, y: f64) -> f64 {
        match self {
            Law::Exponential { mean_s } => mean_s * y,
            _ => {
                // For small x, F_e(x) ≈ x/μ: a good start from F_e = 1 − e^{−y}.
                let guess = self.mean_s() * -(-y).exp_m1();
                self.refine_inverse(y, guess.max(1e-300), true)
            }
        }
    }

    /// Λ(x) and dΛ/dx (1/s) from one evaluation of the tails: the hazard f/S, or
    /// S/(μ·S_e) for the equilibrium law; the derivative is `None` without a density.
    fn lambda_and_hazard(&self, x_s: f64, equilibrium: bool, mean_s: f64) -> (f64, Option<f64>) {
        if equilibrium {
            let (s_e, f_e, h) = match self {
                Law::Exponential { mean_s } => {
                    let (s_e, f_e) = self.equilibrium_survival_cdf(x_s);
                    (s_e, f_e, 1.0 / mean_s)
                }
                Law::Weibull { scale_s, shape } if x_s > 0.0 => {
                    // One power for both tails (the values of `equilibrium_survival_cdf` and
                    // `survival`): F_e = P(1/k, z) and S = e^{−z}, z = (x/η)^k.
                    let (s_e, f_e, z) = weibull_equilibrium(*scale_s, *shape, x_s);
                    (s_e, f_e, (-z).exp() / (mean_s * s_e))
                }
                _ => {
                    let (s_e, f_e) = self.equilibrium_survival_cdf(x_s);
                    (s_e, f_e, self.survival(x_s) / (mean_s * s_e))
                }
            };
            (cum_hazard_from(s_e, f_e), Some(h))
        } else {
            let (s, f) = self.survival_cdf(x_s);
            let d = self.density(x_s);
            (cum_hazard_from(s, f), d.is_finite().then(|| d / s))
        }
    }

    /// Solves Λ(x) = y (or Λ_e with `equilibrium`) from a starting guess: Newton's method
    /// on ln Λ against ln x with the hazard as derivative, nearly linear for every law
    /// (Λ ∝ x^k near 0), safeguarded by a bracket (bisection whenever a step leaves it),
    /// stopped once |Λ − y| is a few ulps of y or the Newton step in ln x is at most
    /// [`NEWTON_CONVERGED`].
    fn refine_inverse(&self, y: f64, guess_s: f64, equilibrium: bool) -> f64 {
        if y <= 0.0 {
            return 0.0;
        }
        let mean_s = self.mean_s();
        let (tol, ln_y) = (4.0 * f64::EPSILON * y, y.ln());
        let mut u = if guess_s.is_finite() && guess_s > 0.0 { guess_s.ln() } else { mean_s.ln() };
        // Bracket [lo, hi] in ln x with Λ(lo) < y ≤ Λ(hi), narrowed as evaluations show.
        let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
        for _ in 0..200 {
            let x = u.exp();
            let (big_lambda, hazard) = self.lambda_and_hazard(x, equilibrium, mean_s);
            let g = big_lambda - y;
            if g.abs() <= tol {
                return x;
            }
            if g < 0.0 {
                lo = lo.max(u);
            } else {
                hi = hi.min(u);
            }
            let newton =
                hazard.filter(|_| big_lambda > 0.0).map(|h| u - (big_lambda.ln() - ln_y) * big_lambda / (x * h));
            u = match newton {
                // Converged: the step left is below what the next step would correct (its
                // error is of order the step squared), and below the noise of Λ itself at
                // small y, where |Λ − y| may never reach a few ulps.
                Some(n) if n.is_finite() && n > lo && n < hi && (n - u).abs() <= NEWTON_CONVERGED => return n.exp(),
                Some(n) if n.is_finite() && n > lo && n < hi => n,
                // Outside the bracket, or no derivative: bisect, or grow an open bracket.
                _ => match (lo.is_finite(), hi.is_finite()) {
                    (true, true) => 0.5 * (lo + hi),
                    (true, false) => lo + std::f64::consts::LN_2.max(lo.abs() * 1e-3),
                    (false, true) => hi - std::f64::consts::LN_2.max(hi.abs() * 1e-3),
                    (false, false) => unreachable!("one side is set each step"),
                },
            };
            if lo.is_finite() && hi.is_finite() && hi - lo <= 2.0 * f64::EPSILON * hi.abs().max(1.0) {
                return (0.5 * (lo + hi)).exp();
            }
            if u > 709.0 {
                return f64::INFINITY;
            }
            if u < -700.0 {
                return u.exp();
            }
        }
        u.exp()
    }

    /// One lifetime (s), drawn from `rng`.
    pub fn sample(&self, rng: &mut Pcg64Mcg) -> f64 {
        match self {
            Law::Exponential { mean_s } => {
                let e: f64 = Exp1.sample(rng);
                mean_s * e
            }
            Law::Weibull { scale_s, shape } => {
                let e: f64 = Exp1.sample(rng);
                scale_s * e.powf(1.0 / shape)
            }
            Law::Lognormal { log_mean, sigma } => {
                let z: f64 = StandardNormal.sample(rng);
                (log_mean + sigma * z).exp()
            }
            Law::Gamma { shape, scale_s } => {
                rand_distr::Gamma::new(*shape, *scale_s).expect("validated shape and scale").sample(rng)
            }
            Law::Empirical(e) => e.sorted_s[rng.random_range(0..e.sorted_s.len())],
        }
    }

    /// One residual life (s) of a node in equilibrium (a stationary renewal process seen at
    /// a random time), drawn exactly: U·X̃ with X̃ length-biased (density x f(x)/μ) and U
    /// uniform; for Weibull η·G^{1/k} with G ~ Gamma(1/k, 1) (MODELS.md §2).
    pub fn sample_residual(&self, rng: &mut Pcg64Mcg) -> f64 {
        match self {
            Law::Exponential { mean_s } => {
                let e: f64 = Exp1.sample(rng);
                mean_s * e
            }
            Law::Weibull { scale_s, shape } => {
                let g: f64 = rand_distr::Gamma::new(1.0 / shape, 1.0).expect("validated shape").sample(rng);
                scale_s * g.powf(1.0 / shape)
            }
            Law::Lognormal { log_mean, sigma } => {
                // Length-biased lognormal: the same σ, m + σ².
                let z: f64 = StandardNormal.sample(rng);
                let biased = (log_mean + sigma * sigma + sigma * z).exp();
                rng.random::<f64>() * biased
            }
            Law::Gamma { shape, scale_s } => {
                // Length-biased Gamma(k, θ) is Gamma(k + 1, θ).
                let biased: f64 = rand_distr::Gamma::new(shape + 1.0, *scale_s).expect("validated").sample(rng);
                rng.random::<f64>() * biased
            }
            Law::Empirical(e) => {
                // Pick a lifetime with probability ∝ its length, then a uniform point in it.
                let total = e.prefix_s[e.sorted_s.len()];
                let target = rng.random::<f64>() * total;
                let i = e.prefix_s.partition_point(|p| *p <= target).saturating_sub(1).min(e.sorted_s.len() - 1);
                rng.random::<f64>() * e.sorted_s[i]
            }
        }
    }

    /// The probability density f(x) (1/s), for tests and diagnostics.
    pub fn density(&self, x_s: f64) -> f64 {
        if x_s <= 0.0 {
            return 0.0;
        }
        match self {
            Law::Exponential { mean_s } => (-x_s / mean_s).exp() / mean_s,
            Law::Weibull { scale_s, shape } => {
                let u = x_s / scale_s;
                shape / scale_s * u.powf(shape - 1.0) * (-u.powf(*shape)).exp()
            }
            Law::Lognormal { log_mean, sigma } => {
                let z = (x_s.ln() - log_mean) / sigma;
                (-0.5 * z * z).exp() / (x_s * sigma * (2.0 * std::f64::consts::PI).sqrt())
            }
            Law::Gamma { shape, scale_s } => {
                let u = x_s / scale_s;
                ((shape - 1.0) * u.ln() - u - ln_gamma(*shape)).exp() / scale_s
            }
            Law::Empirical(_) => f64::NAN,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Relative accuracy of inverses and identities.
    const RTOL: f64 = 1e-10;
    /// Monte Carlo checks: |sample mean − exact| < Z_MAX · SE.
    const Z_MAX: f64 = 4.0;

    /// Relative error allowed against a 40-digit reference: a few ulps.
    const REFERENCE_RTOL: f64 = 2e-15;

    /// The lognormal survival S(x) = ½·erfc((ln x − μ)/(σ√2)) against mpmath at 40 digits
    /// (mean 1 s, σ = 1.2), the erfc argument from −0.52 to 2.19. statrs's erfc missed these
    /// by up to 1e-10.
    #[test]
    fn lognormal_survival_to_a_few_ulps() {
        let law = Law::lognormal(1.0, 1.2).unwrap();
        let reference = [
            (0.2, 0.7707133809713297),
            (0.25, 0.7106365564409828),
            (0.5, 0.49107347414071123),
            (1.0, 0.2742531177500736),
            (3.0, 0.06482161947685014),
            (20.0, 0.0009792857115979495),
        ];
        for (x_s, exact) in reference {
            let s = law.survival(x_s);
            assert!(((s - exact) / exact).abs() < REFERENCE_RTOL, "S({x_s}) = {s:e}, exact {exact:e}");
        }
    }

    fn laws() -> Vec<Law> {
        vec![
            Law::exponential(1000.0).unwrap(),
            Law::weibull(1000.0, 0.5).unwrap(),
            Law::weibull(1000.0, 0.7).unwrap(),
            Law::weibull(1000.0, 2.5).unwrap(),
            Law::lognormal(1000.0, 1.2).unwrap(),
            Law::gamma(1000.0, 0.6).unwrap(),
            Law::gamma(1000.0, 3.0).unwrap(),
        ]
    }

    #[test]
    fn means_are_the_given_mean() {
        for law in laws() {
            assert!((law.mean_s() - 1000.0).abs() < 1e-9, "{law:?}");
        }
    }

    #[test]
    fn survival_and_cdf_add_to_one() {
        for law in laws() {
            for x in [1e-6, 0.1, 10.0, 500.0, 1000.0, 3000.0, 2e4] {
                let (s, f) = law.survival_cdf(x);
                assert!((s + f - 1.0).abs() < 1e-12, "{law:?} at {x}: {s} + {f}");
                let (se, fe) = law.equilibrium_survival_cdf(x);
                assert!((se + fe - 1.0).abs() < 1e-9, "{law:?} equilibrium at {x}: {se} + {fe}");
            }
        }
    }

    #[test]
    fn inverse_cum_hazards_invert() {
        for law in laws() {
            for y in [1e-12, 1e-6, 1e-3, 0.1, 0.69, 1.0, 3.0, 20.0] {
                let x = law.inv_cum_hazard(y);
                assert!((law.cum_hazard(x) - y).abs() <= RTOL * y, "{law:?} Λ⁻¹({y}) = {x}");
                let xe = law.inv_equilibrium_cum_hazard(y);
                let back = law.equilibrium_cum_hazard(xe);
                assert!((back - y).abs() <= RTOL * y, "{law:?} Λe⁻¹({y}) = {xe}, Λe = {back}");
            }
        }
    }

    #[test]
    fn inverse_cum_hazards_invert_at_the_ends_of_the_accepted_ranges() {
        // The shapes and σ at the edges of what scenarios accept, and means far from 1 s.
        let (k, sigma, g) = (WEIBULL_SHAPE_RANGE, LOGNORMAL_SIGMA_RANGE, GAMMA_SHAPE_RANGE);
        let mut extremes = vec![];
        for mean_s in [1e-3, 3.1 * 3600.0 * 1e6] {
            extremes.extend([
                Law::weibull(mean_s, k.0).unwrap(),
                Law::weibull(mean_s, k.1).unwrap(),
                Law::lognormal(mean_s, sigma.0).unwrap(),
                Law::lognormal(mean_s, sigma.1).unwrap(),
                Law::gamma(mean_s, g.0).unwrap(),
                Law::gamma(mean_s, g.1).unwrap(),
            ]);
        }
        // Λ_e itself is only this accurate at the far ends: for a gamma of shape 10⁴ its
        // survival at y = 20 is a difference of two upper incomplete gammas (cancellation).
        const RTOL_EDGE: f64 = 1e-8;
        // An inverse below the smallest normal double may be 0 (the incomplete gamma treats
        // subnormal arguments as 0).
        let tiny_s = f64::MIN_POSITIVE;
        for law in extremes {
            for y in [1e-12, 1e-6, 1e-3, 0.1, 0.69, 1.0, 3.0, 20.0] {
                let x = law.inv_cum_hazard(y);
                let back = law.cum_hazard(x);
                let underflows = x == 0.0 && law.cum_hazard(tiny_s) >= y;
                assert!(underflows || (back - y).abs() <= RTOL_EDGE * y, "{law:?} Λ⁻¹({y}) = {x}, Λ = {back}");
                let xe = law.inv_equilibrium_cum_hazard(y);
                let back = law.equilibrium_cum_hazard(xe);
                assert!((back - y).abs() <= RTOL_EDGE * y, "{law:?} Λe⁻¹({y}) = {xe}, Λe = {back}");
            }
        }
    }

    #[test]
    fn out_of_range_values_are_shown_briefly() {
        let err = Law::weibull(1000.0, 1e-300).unwrap_err();
        assert!(err.contains("shape 1e-300 is out of range"), "{err}");
        let err = Law::lognormal(1e300, 0.0).unwrap_err();
        assert!(err.contains("sigma 0 is out of range"), "{err}");
        let err = Law::exponential(-1e-320).unwrap_err();
        assert!(err.contains("mean -1e-320 s"), "{err}");
        assert_eq!(value_text(0.7), "0.7");
    }

    #[test]
    fn equilibrium_cdf_is_the_integral_of_survival() {
        // F_e(x) = (1/μ)∫₀ˣ S, by the trapezoid rule on a fine log grid.
        for law in laws() {
            let x_max = 2500.0;
            let n = 200_000;
            let mut integral = 0.0;
            let mut prev = (0.0, 1.0);
            for i in 1..=n {
                let x = x_max * (i as f64 / n as f64).powi(3);
                let s = law.survival(x);
                integral += 0.5 * (s + prev.1) * (x - prev.0);
                prev = (x, s);
            }
            let fe = law.equilibrium_survival_cdf(x_max).1;
            assert!((integral / law.mean_s() - fe).abs() < 1e-6, "{law:?}: {} vs {fe}", integral / law.mean_s());
        }
    }

    #[test]
    fn samples_have_the_law() {
        let mut rng = Pcg64Mcg::seed_from_u64(11);
        let n = 200_000;
        for law in laws() {
            // Mean of lifetimes, and P(residual ≤ median of F_e) = 1/2.
            let xs: Vec<f64> = (0..n).map(|_| law.sample(&mut rng)).collect();
            let mean = xs.iter().sum::<f64>() / n as f64;
            let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
            assert!((mean - 1000.0).abs() < Z_MAX * sd / (n as f64).sqrt(), "{law:?} mean {mean}");
            let median_e = law.inv_equilibrium_cum_hazard(std::f64::consts::LN_2);
            let below = (0..n).filter(|_| law.sample_residual(&mut rng) <= median_e).count() as f64 / n as f64;
            let se = (0.25 / n as f64).sqrt();
            assert!((below - 0.5).abs() < Z_MAX * se, "{law:?} residual P(≤ median) = {below}");
            let median = law.inv_cum_hazard(std::f64::consts::LN_2);
            let below = xs.iter().filter(|x| **x <= median).count() as f64 / n as f64;
            assert!((below - 0.5).abs() < Z_MAX * se, "{law:?} P(X ≤ median) = {below}");
        }
    }

    #[test]
    fn empirical_law() {
        let law = Law::empirical(&[3.0, 1.0, 2.0, 2.0]).unwrap();
        assert_eq!(law.mean_s(), 2.0);
        assert_eq!(law.survival(2.0), 0.25);
        assert_eq!(law.inv_cum_hazard(-(0.5f64).ln()), 2.0);
        // F_e(2) = (1 + 2 + 2 + 2) / (4·2).
        assert_eq!(law.equilibrium_survival_cdf(2.0).1, 7.0 / 8.0);
        assert!(Law::empirical(&[]).is_err());
        assert!(Law::empirical(&[1.0, 0.0]).is_err());
        assert!(Law::empirical(&[1.0, f64::NAN]).is_err());
    }

    #[test]
    fn parameters_are_validated() {
        assert!(Law::weibull(1000.0, 0.0).is_err());
        assert!(Law::weibull(1000.0, -1.0).is_err());
        assert!(Law::weibull(1000.0, f64::NAN).is_err());
        assert!(Law::weibull(0.0, 0.7).is_err());
        assert!(Law::weibull(f64::INFINITY, 0.7).is_err());
        assert!(Law::lognormal(1000.0, -1.2).is_err());
        assert!(Law::gamma(1000.0, 0.0).is_err());
        assert!(Law::exponential(-1.0).is_err());
    }

    /// Relative agreement of the Weibull equilibrium law with its two-term series where the
    /// third term, of relative size z², is negligible.
    const SERIES_RTOL: f64 = 1e-12;

    #[test]
    fn weibull_equilibrium_law_is_continuous_across_its_series_switch() {
        // F_e(x) = (1/μ)∫₀ˣ e^{−(u/η)^k} du = (x/μ)·(1 − z/(k + 1) + O(z²)), z = (x/η)^k: on both
        // sides of WEIBULL_SMALL_Z (series below, incomplete gamma above) and far below it.
        for shape in [0.5, 1.0, 2.5, 50.0] {
            let law = Law::weibull(1000.0, shape).unwrap();
            let Law::Weibull { scale_s, .. } = law else { unreachable!() };
            for z in [1e-15, 0.999 * WEIBULL_SMALL_Z, 1.001 * WEIBULL_SMALL_Z, 1e-7] {
                let x = scale_s * z.powf(1.0 / shape);
                let z = (x / scale_s).powf(shape);
                let series = x / law.mean_s() * (1.0 - z / (shape + 1.0));
                let (s_e, f_e) = law.equilibrium_survival_cdf(x);
                assert!((f_e / series - 1.0).abs() < SERIES_RTOL, "k = {shape}, z = {z:e}: F_e {f_e:e} vs {series:e}");
                assert_eq!(s_e, 1.0 - f_e);
            }
        }
    }

    #[test]
    fn empirical_inverse_cum_hazard_is_the_first_lifetime_down_to_the_survival() {
        // Distinct lifetimes, so that an off-by-one picks another value (among repeated ones
        // it may pick an equal one). S falls 1 → 3/4 → 1/2 → 1/4 → 0 at 1, 2, 3, 4, and
        // Λ⁻¹(−ln s) is the smallest x with S(x) ≤ s.
        let law = Law::empirical(&[4.0, 1.0, 3.0, 2.0]).unwrap();
        for (s, x) in [(0.9, 1.0), (0.6, 2.0), (0.3, 3.0), (0.1, 4.0)] {
            assert_eq!(law.inv_cum_hazard(-f64::ln(s)), x, "S = {s}");
            assert!(law.survival(x) <= s && law.survival(x - 1.0) > s, "S = {s}");
        }
        assert_eq!(law.inv_cum_hazard(0.0), 0.0);
    }
}
