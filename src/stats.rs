//! Statistics: exact mergeable sums, per-point summaries, Student-t intervals, quantiles.
//!
//! Every summary is *exactly* mergeable: sums of floating-point values are kept as exact
//! fixed-point integers ([`ExactSum`]), counts as integers and wall-time quantiles in an
//! HDR histogram with integer counts. Merging in any order or grouping (threads, shards,
//! resumed runs) therefore gives bit-identical results, which streaming Welford/Chan
//! updates cannot promise: their rounding depends on the grouping.

use crate::failure::Cause;
use hdrhistogram::Histogram;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Limbs of 32 bits each, enough for every finite `f64` (bit positions 2⁻¹⁰⁷⁴ to 2¹⁰²⁴)
/// plus 64 bits of head-room for the count of values added.
const LIMBS: usize = 68;
/// Bit position of 2⁰ in the accumulator.
const BIAS: i32 = 1074;
/// Adds between carry normalisations: each limb gains less than 2³² per add, so i64 limbs
/// cannot overflow before 2³¹ adds.
const ADDS_BEFORE_CARRY: u32 = 1 << 30;

/// The canonical range of the top limb, which carries the sign: the accumulator's range.
const TOP_LIMB: std::ops::Range<i64> = -(1 << 32)..1 << 32;

/// An exact sum of `f64` values (a Kulisch-style long accumulator).
///
/// Adding is exact, so the sum does not depend on the order or grouping of the additions;
/// [`ExactSum::value`] rounds the exact sum to an `f64`.
#[derive(Clone)]
pub struct ExactSum {
    limbs: [i64; LIMBS],
    pending: u32,
}

impl Default for ExactSum {
    fn default() -> Self {
        ExactSum { limbs: [0; LIMBS], pending: 0 }
    }
}

impl PartialEq for ExactSum {
    fn eq(&self, other: &Self) -> bool {
        self.canonical() == other.canonical()
    }
}

impl Eq for ExactSum {}

impl std::fmt::Debug for ExactSum {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ExactSum({})", self.value())
    }
}

impl ExactSum {
    /// Adds `x` exactly. `x` must be finite.
    #[inline]
    pub fn add(&mut self, x: f64) {
        debug_assert!(x.is_finite(), "ExactSum::add({x})");
        let bits = x.to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as i32;
        let fraction = bits & ((1 << 52) - 1);
        // The value is mantissa · 2^(position − BIAS).
        let (mantissa, position) = if exponent == 0 { (fraction, 0) } else { (fraction | (1 << 52), exponent - 1) };
        if mantissa == 0 {
            return;
        }
        let limb = (position / 32) as usize;
        let shifted = (mantissa as u128) << (position % 32);
        let parts = [shifted as u32 as i64, (shifted >> 32) as u32 as i64, (shifted >> 64) as i64];
        if bits >> 63 == 1 {
            for (k, p) in parts.iter().enumerate() {
                self.limbs[limb + k] -= p;
            }
        } else {
            for (k, p) in parts.iter().enumerate() {
                self.limbs[limb + k] += p;
            }
        }
        self.pending += 1;
        if self.pending >= ADDS_BEFORE_CARRY {
            self.carry();
        }
    }

    /// Adds another exact sum.
    pub fn merge(&mut self, other: &ExactSum) {
        let mut o = other.clone();
        o.carry();
        self.carry();
        for (a, b) in self.limbs.iter_mut().zip(o.limbs.iter()) {
            *a += b;
        }
        self.carry();
    }

    /// The exact sum of `self` and `other`; `None` when it leaves the accumulator's range,
    /// magnitudes below 2¹¹⁰² (no sum of fewer than 2⁶⁴ finite values comes near it).
    pub fn checked_sum(&self, other: &ExactSum) -> Option<ExactSum> {
        let (mut sum, mut o) = (self.clone(), other.clone());
        sum.carry();
        o.carry();
        for (a, b) in sum.limbs.iter_mut().zip(o.limbs.iter()) {
            *a = a.checked_add(*b)?;
        }
        sum.carry();
        TOP_LIMB.contains(&sum.limbs[LIMBS - 1]).then_some(sum)
    }

    /// The exact sum as its canonical limbs, lowest first, trailing zeros dropped: the
    /// lossless form written to partial-summary files.
    pub fn to_limbs(&self) -> Vec<i64> {
        let limbs = self.canonical();
        let used = limbs.iter().rposition(|&l| l != 0).map_or(0, |i| i + 1);
        limbs[..used].to_vec()
    }

    /// The exact sum of [`ExactSum::to_limbs`]'s output; `None` when there are too many limbs
    /// or one is not canonical: in [0, 2³²), or in [−2³², 2³²) for the top one.
    pub fn from_limbs(limbs: &[i64]) -> Option<ExactSum> {
        let canonical =
            |(i, l): (usize, &i64)| if i == LIMBS - 1 { TOP_LIMB.contains(l) } else { (0..1 << 32).contains(l) };
        if limbs.len() > LIMBS || !limbs.iter().enumerate().all(canonical) {
            return None;
        }
        let mut s = ExactSum::default();
        s.limbs[..limbs.len()].copy_from_slice(limbs);
        s.carry();
        Some(s)
    }

    /// The limbs in canonical form: equal exactly when the sums are equal.
    fn canonical(&self) -> [i64; LIMBS] {
        let mut s = self.clone();
        s.carry();
        s.limbs
    }

    /// Propagates carries so every limb but the top one is in [0, 2³²): a canonical form.
    fn carry(&mut self) {
        for i in 0..LIMBS - 1 {
            let c = self.limbs[i] >> 32;
            self.limbs[i] -= c << 32;
            self.limbs[i + 1] += c;
        }
        self.pending = 0;
    }

    /// The exact sum, rounded to the nearest `f64` (ties and the last bit may differ from
    /// correct rounding, but the result is a function of the exact sum alone).
    pub fn value(&self) -> f64 {
        let mut s = self.clone();
        s.carry();
        let negative = s.limbs[LIMBS - 1] < 0;
        if negative {
            for l in s.limbs.iter_mut() {
                *l = -*l;
            }
            s.carry();
        }
        let Some(top) = s.limbs.iter().rposition(|&l| l != 0) else {
            return 0.0;
        };
        // Three limbs hold 65 to 96 significant bits, more than an f64's 53.
        let low = top.saturating_sub(2);
        let mut m: u128 = 0;
        for i in (low..=top).rev() {
            m = (m << 32) | s.limbs[i] as u128;
        }
        let magnitude = ldexp(m as f64, 32 * low as i32 - BIAS);
        if negative { -magnitude } else { magnitude }
    }
}

/// x · 2^e without overflow in the intermediate powers.
fn ldexp(mut x: f64, mut e: i32) -> f64 {
    let step = |x: f64, k: i32| x * f64::from_bits(((k + 1023) as u64) << 52);
    while e > 1000 {
        x = step(x, 1000);
        e -= 1000;
    }
    while e < -1000 {
        x = step(x, -1000);
        e += 1000;
    }
    step(x, e)
}

/// The 97.5% quantile of the standard normal distribution.
const Z_975: f64 = 1.959_963_984_540_054;

/// Degrees of freedom above which [`t_975`] uses the Cornish–Fisher expansion: statrs'
/// inverse CDF loses accuracy for large df (3e-4 off at df = 10⁶), while the expansion's
/// first omitted term is below 1e-10 here.
const T_EXPANSION_DF: u64 = 1000;

/// The 97.5% quantile of Student's t with `df` ≥ 1 degrees of freedom (the multiplier of a
/// two-sided 95% interval): statrs for small df, else the Cornish–Fisher expansion in 1/df
/// (Abramowitz & Stegun 26.7.5).
pub fn t_975(df: u64) -> f64 {
    if df == 0 {
        return f64::NAN;
    }
    if df <= T_EXPANSION_DF {
        return StudentsT::new(0.0, 1.0, df as f64).map_or(f64::NAN, |t| t.inverse_cdf(0.975));
    }
    t_expansion(Z_975, df)
}

/// Student's t quantile with `df` degrees of freedom at the level of the normal quantile `z`,
/// by the Cornish–Fisher expansion in 1/df (Abramowitz & Stegun 26.7.5).
fn t_expansion(z: f64, df: u64) -> f64 {
    let v = df as f64;
    let (z3, z5, z7) = (z.powi(3), z.powi(5), z.powi(7));
    z + (z3 + z) / (4.0 * v)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * v * v)
        + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * v * v * v)
}

/// The two-sided tail of a standard normal beyond ±4: the level of the tables' "|z| > 4"
/// rule, 2·(1 − Φ(4)).
pub const Z4_TAIL: f64 = 6.334_248_366_623_996e-5;

/// The |t| that a sample mean of `df` + 1 replications exceeds with probability
/// [`Z4_TAIL`] when the model is right: (mean − model)/SE follows Student's t with `df`
/// degrees of freedom, so the normal rule |z| > 4 holds only for large samples (at 2
/// replications the threshold is about 10⁴; at 30, 4.7). Infinite for `df` = 0; 4 in the
/// limit. statrs up to 1000 degrees of freedom, then the Cornish–Fisher expansion.
pub fn z4_threshold(df: u64) -> f64 {
    if df == 0 {
        return f64::INFINITY;
    }
    if df > T_EXPANSION_DF {
        return t_expansion(4.0, df);
    }
    StudentsT::new(0.0, 1.0, df as f64).map_or(f64::NAN, |t| t.inverse_cdf(1.0 - Z4_TAIL / 2.0))
}

/// Mean, standard deviation and Student-t 95% interval of a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Sample size.
    pub n: u64,
    /// Sample mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1 in the denominator).
    pub sd: f64,
    /// Standard error of the mean, sd/√n.
    pub se: f64,
    /// Half-width of the 95% interval, t_{n−1,0.975}·se (MODELS.md §6).
    pub half_width: f64,
}

impl Estimate {
    /// Lower end of the 95% interval.
    pub fn ci_low(&self) -> f64 {
        self.mean - self.half_width
    }
    /// Upper end of the 95% interval.
    pub fn ci_high(&self) -> f64 {
        self.mean + self.half_width
    }
}

/// Exactly mergeable first and second moments of a sample.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Moments {
    n: u64,
    sum: ExactSum,
    sum_sq: ExactSum,
}

impl Moments {
    /// Adds one observation (finite).
    #[inline]
    pub fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum.add(x);
        self.sum_sq.add(x * x);
    }

    /// Adds every observation of `other`.
    pub fn merge(&mut self, other: &Moments) {
        self.n += other.n;
        self.sum.merge(&other.sum);
        self.sum_sq.merge(&other.sum_sq);
    }

    /// The moments of the observations of both; a [`FieldError`] keyed `name.n`,
    /// `name.sum` or `name.sum_sq` when a total leaves its range.
    fn checked_merged(&self, other: &Moments, name: &str) -> Result<Moments, FieldError> {
        let sum = |a: &ExactSum, b: &ExactSum, k: &str| {
            a.checked_sum(b).ok_or_else(|| FieldError::sum_out_of_range(format!("{name}.{k}")))
        };
        Ok(Moments {
            n: checked_total(self.n, other.n, || format!("{name}.n"), "replications")?,
            sum: sum(&self.sum, &other.sum, "sum")?,
            sum_sq: sum(&self.sum_sq, &other.sum_sq, "sum_sq")?,
        })
    }

    /// Number of observations.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// The lossless JSON form: `{"n", "sum", "sum_sq"}` with the sums as limbs.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({"n": self.n, "sum": self.sum.to_limbs(), "sum_sq": self.sum_sq.to_limbs()})
    }

    /// Reads [`Moments::to_json`]'s form.
    pub fn from_json(v: &serde_json::Value) -> Option<Moments> {
        let limbs = |k: &str| -> Option<Vec<i64>> { v.get(k)?.as_array()?.iter().map(|x| x.as_i64()).collect() };
        Some(Moments {
            n: v.get("n")?.as_u64()?,
            sum: ExactSum::from_limbs(&limbs("sum")?)?,
            sum_sq: ExactSum::from_limbs(&limbs("sum_sq")?)?,
        })
    }

    /// Mean, standard deviation and 95% interval.
    pub fn estimate(&self) -> Estimate {
        let n = self.n as f64;
        let mean = self.sum.value() / n;
        let var =
            if self.n > 1 { ((self.sum_sq.value() - mean * self.sum.value()) / (n - 1.0)).max(0.0) } else { f64::NAN };
        let sd = var.sqrt();
        let se = sd / n.sqrt();
        let half_width = if self.n > 1 { t_975(self.n - 1) * se } else { f64::NAN };
        Estimate { n: self.n, mean, sd, se, half_width }
    }
}

/// A field of a summary that is out of range: its key in [`Summary::to_json`]'s form, and
/// what is wrong and accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("key `{key}`: {message}")]
pub struct FieldError {
    /// The key, for example `counters[3]` or `overhead.n`.
    pub key: String,
    /// What is wrong and what is accepted.
    pub message: String,
}

impl FieldError {
    fn sum_out_of_range(key: String) -> FieldError {
        FieldError {
            key,
            message: "the exact sum, added to the one merged before, leaves the accumulator's range: \
                      accepted are sums of magnitude below 2^1102"
                .into(),
        }
    }
}

/// `a + b`, or a [`FieldError`] keyed `key()` for a total of `what` past `u64::MAX`.
fn checked_total(a: u64, b: u64, key: impl Fn() -> String, what: &str) -> Result<u64, FieldError> {
    a.checked_add(b).ok_or_else(|| FieldError {
        key: key(),
        message: format!("{b} {what} added to the {a} merged before exceed {}, the largest total accepted", u64::MAX),
    })
}

/// The causes of a split, `, `-separated, for messages.
fn cause_names(causes: &[CauseSummary]) -> String {
    causes.iter().map(|c| c.cause.name()).collect::<Vec<_>>().join(", ")
}

/// The engine's integer counters, in the order of the `counters` list of
/// [`Summary::to_json`], and what each counts.
const COUNTERS: [&str; 6] =
    ["failures", "failures during checkpoints", "failed restarts", "ignored failures", "checkpoints", "restarts"];

fn counters(r: &crate::engine::Record) -> [u64; 6] {
    [r.failures, r.failures_during_checkpoint, r.failed_restarts, r.ignored_failures, r.checkpoints, r.restarts]
}

fn set_counters(r: &mut crate::engine::Record, c: [u64; 6]) {
    [r.failures, r.failures_during_checkpoint, r.failed_restarts, r.ignored_failures, r.checkpoints, r.restarts] = c;
}

/// Wall times are kept in the histogram in ticks of 1 ms, three significant digits: ticks
/// per second. Read back by dividing, so a quantile of 238288895 ticks is 238288.895 s, the
/// double nearest the decimal (multiplying by 1e-3 gave 238288.89500000002).
const HISTOGRAM_TICKS_PER_S: f64 = 1000.0;

/// How far (relative) the causes' summed lost or recovery times may be from the totals in a
/// partial summary: each replication sums its times per cause and in all, in its own order,
/// so the two differ by rounding (a few ulp of a replication's times), never by more.
const CAUSE_PARTS_RTOL: f64 = 1e-9;

/// One cause's failures and their cost over a sweep point's replications (the split of
/// [`crate::engine::ByCause`]): exactly mergeable.
#[derive(Debug, Clone)]
pub struct CauseSummary {
    /// Where the failures come from.
    pub cause: Cause,
    /// Per replication, the time the cause's failures cost over the work: (lost +
    /// recovery) / work, its share of the overhead (wall / work − 1 = the writes' share plus
    /// every cause's, when the job restarts until its work is done).
    pub overhead: Moments,
    /// The cause's failures that struck the job, in all replications.
    pub failures: u64,
    /// Time they lost (s), exactly summed over the replications.
    pub lost_s: ExactSum,
    /// Time spent recovering from them (s), exactly summed.
    pub recovery_s: ExactSum,
}

impl CauseSummary {
    /// An empty summary of `cause`.
    pub fn new(cause: Cause) -> Self {
        CauseSummary {
            cause,
            overhead: Moments::default(),
            failures: 0,
            lost_s: ExactSum::default(),
            recovery_s: ExactSum::default(),
        }
    }

    /// Both summaries' replications, keyed `causes[i]…` in errors.
    fn checked_merged(&self, other: &CauseSummary, i: usize) -> Result<CauseSummary, FieldError> {
        let key = |k: &str| format!("causes[{i}].{k}");
        let sum =
            |a: &ExactSum, b: &ExactSum, k: &str| a.checked_sum(b).ok_or_else(|| FieldError::sum_out_of_range(key(k)));
        Ok(CauseSummary {
            cause: self.cause,
            overhead: self.overhead.checked_merged(&other.overhead, &key("overhead"))?,
            failures: checked_total(self.failures, other.failures, || key("failures"), "failures")?,
            lost_s: sum(&self.lost_s, &other.lost_s, "lost_s")?,
            recovery_s: sum(&self.recovery_s, &other.recovery_s, "recovery_s")?,
        })
    }
}

/// The summary of one sweep point over its replications: exactly mergeable.
#[derive(Debug, Clone)]
pub struct Summary {
    /// Overhead per replication, wall / work − 1.
    pub overhead: Moments,
    /// Waste per replication, 1 − work / wall.
    pub waste: Moments,
    /// Wall-clock time per replication (s).
    pub wall_s: Moments,
    /// Failures that struck the job, per replication (for their spread: the totals hold
    /// their sum).
    pub failures: Moments,
    wall_hist: Histogram<u64>,
    /// Totals of the engine's integer counters over all replications (its time fields are
    /// summed exactly in `lost_s` and `recovery_s` instead).
    pub totals: crate::engine::Record,
    /// Total time lost to failures (s), exactly summed.
    pub lost_s: ExactSum,
    /// Total time spent recovering (s), exactly summed.
    pub recovery_s: ExactSum,
    /// Per replication, this point's overhead minus the baseline point's in the same
    /// replication (`[run] baseline`): paired on the same failures (common random numbers), so
    /// its interval is far narrower than the two points' own. Empty without a baseline.
    pub overhead_diff: Moments,
    /// The failures and their cost split by cause, in [`Cause`] order, where the run's
    /// failures come from two or more ([`crate::scenario::Scenario::causes`]); empty otherwise.
    pub causes: Vec<CauseSummary>,
}

impl Default for Summary {
    fn default() -> Self {
        Summary {
            overhead: Moments::default(),
            waste: Moments::default(),
            wall_s: Moments::default(),
            failures: Moments::default(),
            wall_hist: Histogram::new(3).expect("3 significant digits is valid"),
            totals: crate::engine::Record::default(),
            lost_s: ExactSum::default(),
            recovery_s: ExactSum::default(),
            overhead_diff: Moments::default(),
            causes: Vec::new(),
        }
    }
}

/// The overhead of one replication of a job with `work_s` (s) of work: wall / work − 1
/// (DESIGN.md, "Overhead of a replication").
pub fn overhead_of(work_s: f64, r: &crate::engine::Record) -> f64 {
    r.wall_s / work_s - 1.0
}

impl Summary {
    /// Adds one replication of a job with `work_s` (s) of work.
    pub fn add(&mut self, work_s: f64, r: &crate::engine::Record) {
        self.overhead.add(overhead_of(work_s, r));
        self.waste.add(1.0 - work_s / r.wall_s);
        self.wall_s.add(r.wall_s);
        self.failures.add(r.failures as f64);
        let ticks = (r.wall_s * HISTOGRAM_TICKS_PER_S).round().max(1.0) as u64;
        self.wall_hist.record(ticks).expect("an auto-resizing histogram records any u64");
        let t = &mut self.totals;
        t.failures += r.failures;
        t.failures_during_checkpoint += r.failures_during_checkpoint;
        t.failed_restarts += r.failed_restarts;
        t.ignored_failures += r.ignored_failures;
        t.checkpoints += r.checkpoints;
        t.restarts += r.restarts;
        self.lost_s.add(r.lost_s);
        self.recovery_s.add(r.recovery_s);
    }

    /// Adds one replication's split by cause, `by_cause`, over `causes` (the run's
    /// [`crate::scenario::Scenario::causes`], the same at every call), for a job with `work_s`
    /// (s) of work. Call it with [`Summary::add`], for the same replications.
    pub fn add_causes(&mut self, causes: &[Cause], work_s: f64, by_cause: &crate::engine::ByCause) {
        if self.causes.is_empty() {
            self.causes = causes.iter().map(|&c| CauseSummary::new(c)).collect();
        }
        debug_assert!(self.causes.iter().map(|c| c.cause).eq(causes.iter().copied()));
        for c in &mut self.causes {
            let t = by_cause.of(c.cause);
            c.overhead.add((t.lost_s + t.recovery_s) / work_s);
            c.failures += t.failures;
            c.lost_s.add(t.lost_s);
            c.recovery_s.add(t.recovery_s);
        }
    }

    /// Adds every replication of `other`, a summary this process simulated: its totals
    /// cannot come near the ranges they are kept in. Summaries read from files go through
    /// [`Summary::try_merge`].
    ///
    /// # Panics
    ///
    /// When a total leaves its range.
    pub fn merge(&mut self, other: &Summary) {
        if let Err(e) = self.try_merge(other) {
            panic!("merging summaries: {e}");
        }
    }

    /// Adds every replication of `other`, or leaves `self` as it was and names the first
    /// total that would leave its range (a count past `u64::MAX`, an exact sum past the
    /// accumulator's).
    pub fn try_merge(&mut self, other: &Summary) -> Result<(), FieldError> {
        let overhead = self.overhead.checked_merged(&other.overhead, "overhead")?;
        let waste = self.waste.checked_merged(&other.waste, "waste")?;
        let wall_s = self.wall_s.checked_merged(&other.wall_s, "wall_s")?;
        let failures = self.failures.checked_merged(&other.failures, "failures")?;
        let overhead_diff = self.overhead_diff.checked_merged(&other.overhead_diff, "overhead_diff")?;
        // The histogram saturates silently; with its total in range no bucket can.
        checked_total(self.wall_hist.len(), other.wall_hist.len(), || "wall_histogram_ms".into(), "replications")?;
        let (mine, theirs) = (counters(&self.totals), counters(&other.totals));
        let mut totals = [0; 6];
        for (i, total) in totals.iter_mut().enumerate() {
            *total = checked_total(mine[i], theirs[i], || format!("counters[{i}]"), COUNTERS[i])?;
        }
        let sum = |a: &ExactSum, b: &ExactSum, key: &str| {
            a.checked_sum(b).ok_or_else(|| FieldError::sum_out_of_range(key.into()))
        };
        let lost_s = sum(&self.lost_s, &other.lost_s, "lost_s")?;
        let recovery_s = sum(&self.recovery_s, &other.recovery_s, "recovery_s")?;
        // A summary of no replication may not know the causes yet: it takes the other's.
        let causes = match (self.causes.is_empty(), other.causes.is_empty()) {
            (_, true) => self.causes.clone(),
            (true, false) => other.causes.clone(),
            (false, false) => {
                if !self.causes.iter().map(|c| c.cause).eq(other.causes.iter().map(|c| c.cause)) {
                    return Err(FieldError {
                        key: "causes".into(),
                        message: format!(
                            "split by {}, but the summary merged before by {}: accepted is the same causes",
                            cause_names(&other.causes),
                            cause_names(&self.causes)
                        ),
                    });
                }
                self.causes
                    .iter()
                    .zip(&other.causes)
                    .enumerate()
                    .map(|(i, (a, b))| a.checked_merged(b, i))
                    .collect::<Result<_, _>>()?
            }
        };
        self.wall_hist.add(&other.wall_hist).expect("auto-resizing histograms always merge");
        (self.overhead, self.waste, self.wall_s, self.failures, self.lost_s, self.recovery_s) =
            (overhead, waste, wall_s, failures, lost_s, recovery_s);
        self.overhead_diff = overhead_diff;
        self.causes = causes;
        set_counters(&mut self.totals, totals);
        Ok(())
    }

    /// Checks what a summary of `replications` replications, each struck by at most
    /// `max_failures` failures (the engine's limit), must satisfy: every sample and the
    /// histogram count each replication once, and the other failure counters count some of
    /// the failures; paired differences are kept for every replication where the run has a
    /// baseline (`paired`), for none otherwise, and are 0 at the baseline itself
    /// (`is_baseline`); the failures are split by `causes` (the run's
    /// [`crate::scenario::Scenario::causes`]), each cause's sample counting every replication
    /// and the causes' failures adding up to the failures. Names the first field that does not.
    pub fn check(
        &self,
        replications: u64,
        max_failures: u64,
        paired: crate::scenario::Baseline,
        is_baseline: bool,
        causes: &[Cause],
    ) -> Result<(), FieldError> {
        let samples = [
            ("overhead.n", self.overhead.count()),
            ("waste.n", self.waste.count()),
            ("wall_s.n", self.wall_s.count()),
            ("failures.n", self.failures.count()),
            ("wall_histogram_ms", self.wall_hist.len()),
        ];
        for (key, n) in samples {
            if n != replications {
                return Err(FieldError {
                    key: key.into(),
                    message: format!(
                        "counts {n} replications, but the summary is of {replications}: accepted is exactly {replications}"
                    ),
                });
            }
        }
        let c = counters(&self.totals);
        let most = replications.saturating_mul(max_failures);
        // Ignored failures and checkpoints depend on the failure law and the scenario: no
        // bound the summary itself can show.
        let bounds = [most, c[0], c[0], u64::MAX, u64::MAX, c[0]];
        for (i, (&count, &bound)) in c.iter().zip(&bounds).enumerate() {
            if count > bound {
                let why = match i {
                    0 => format!("{replications} replications of at most {max_failures} failures each"),
                    _ => format!("the {bound} failures in all"),
                };
                return Err(FieldError {
                    key: format!("counters[{i}]"),
                    message: format!("{count} {} exceed {why}: accepted is 0 to {bound}", COUNTERS[i]),
                });
            }
        }
        // Paired differences: for every replication with a baseline, for none without. A
        // summary that lost them merged silently into a difference of fewer replications.
        let (n, wanted, why) = match paired {
            crate::scenario::Baseline::Point(b) => (self.overhead_diff.count(), replications, format!("baseline {b}")),
            crate::scenario::Baseline::None => (self.overhead_diff.count(), 0, "no baseline".to_string()),
        };
        if n != wanted {
            return Err(FieldError {
                key: "overhead_diff.n".into(),
                message: format!("counts {n} replications: accepted is exactly {wanted} (the run has {why})"),
            });
        }
        if is_baseline && (self.overhead_diff.sum.value() != 0.0 || self.overhead_diff.sum_sq.value() != 0.0) {
            return Err(FieldError {
                key: "overhead_diff.sum".into(),
                message: "the baseline point's differences from itself are not all 0: accepted is 0".into(),
            });
        }
        let split: Vec<Cause> = self.causes.iter().map(|c| c.cause).collect();
        // A summary of no replication has not met the causes yet.
        if split != causes && !(replications == 0 && split.is_empty()) {
            let names = |c: &[Cause]| {
                if c.is_empty() {
                    "none".to_string()
                } else {
                    c.iter().map(|c| c.name()).collect::<Vec<_>>().join(", ")
                }
            };
            return Err(FieldError {
                key: "causes".into(),
                message: format!("split by {}: accepted is the run's causes, {}", names(&split), names(causes)),
            });
        }
        for (i, cause) in self.causes.iter().enumerate() {
            let n = cause.overhead.count();
            if n != replications {
                return Err(FieldError {
                    key: format!("causes[{i}].overhead.n"),
                    message: format!("counts {n} replications: accepted is exactly {replications}"),
                });
            }
        }
        if !self.causes.is_empty() {
            // The causes' lost and recovery times add up to the totals, up to the rounding of
            // each replication's sums (per cause there, whole here).
            let parts = [
                ("lost_s", self.lost_s.value(), self.causes.iter().map(|c| c.lost_s.value()).collect::<Vec<_>>()),
                (
                    "recovery_s",
                    self.recovery_s.value(),
                    self.causes.iter().map(|c| c.recovery_s.value()).collect::<Vec<_>>(),
                ),
            ];
            for (key, total, by_cause) in parts {
                // A loss at a chunk's boundary can round to −1 ulp: a cause's sum of such
                // losses is 0 to rounding, not below it.
                let floor = -CAUSE_PARTS_RTOL * total.abs().max(1.0);
                if let Some(i) = by_cause.iter().position(|v| v.is_nan() || *v < floor) {
                    return Err(FieldError {
                        key: format!("causes[{i}].{key}"),
                        message: format!("is {} s: accepted is a time ≥ 0 s (to rounding)", by_cause[i]),
                    });
                }
                let sum: f64 = by_cause.iter().sum();
                let close = (sum - total).abs() <= CAUSE_PARTS_RTOL * total;
                if !close {
                    return Err(FieldError {
                        key: format!("causes[].{key}"),
                        message: format!(
                            "the causes' times add up to {sum} s, but `{key}` is {total} s: accepted is that total \
                             (to a relative {CAUSE_PARTS_RTOL:e})"
                        ),
                    });
                }
            }
            let by_cause = self.causes.iter().try_fold(0_u64, |a, c| a.checked_add(c.failures));
            if by_cause != Some(c[0]) {
                return Err(FieldError {
                    key: "causes[].failures".into(),
                    message: format!(
                        "the causes' failures add up to {}, but counters[0] counts {}: accepted is that count",
                        by_cause.map_or("more than 2^64".to_string(), |n| n.to_string()),
                        c[0]
                    ),
                });
            }
        }
        // The per-replication failure counts add up to the failure counter (exactly, as
        // integers far below 2^53 each).
        let sum = self.failures.sum.value();
        if sum != c[0] as f64 {
            return Err(FieldError {
                key: "failures.sum".into(),
                message: format!("adds up to {sum} failures, but counters[0] counts {}: accepted is that count", c[0]),
            });
        }
        Ok(())
    }

    /// The lossless JSON form of the summary, for partial-summary files: exact sums as
    /// limbs, the histogram as (value, count) pairs, the counters.
    pub fn to_json(&self) -> serde_json::Value {
        let t = &self.totals;
        let hist: Vec<[u64; 2]> =
            self.wall_hist.iter_recorded().map(|v| [v.value_iterated_to(), v.count_at_value()]).collect();
        serde_json::json!({
            "overhead": self.overhead.to_json(),
            "waste": self.waste.to_json(),
            "wall_s": self.wall_s.to_json(),
            "failures": self.failures.to_json(),
            "overhead_diff": self.overhead_diff.to_json(),
            "lost_s": self.lost_s.to_limbs(),
            "recovery_s": self.recovery_s.to_limbs(),
            "wall_histogram_ms": hist,
            "counters": counters(t),
            "causes": self.causes.iter().map(|c| serde_json::json!({
                "cause": c.cause.name(),
                "overhead": c.overhead.to_json(),
                "failures": c.failures,
                "lost_s": c.lost_s.to_limbs(),
                "recovery_s": c.recovery_s.to_limbs(),
            })).collect::<Vec<_>>(),
        })
    }

    /// Reads [`Summary::to_json`]'s form; names the first field that is missing or
    /// malformed (with what it accepts), or the histogram when its counts add up past
    /// `u64::MAX`.
    pub fn from_json(v: &serde_json::Value) -> Result<Summary, FieldError> {
        let malformed =
            |key: &str, accepted: &str| FieldError { key: key.into(), message: format!("accepted is {accepted}") };
        let moments = |k: &str| {
            v.get(k).and_then(Moments::from_json).ok_or_else(|| {
                malformed(k, "{\"n\": a count, \"sum\": limbs, \"sum_sq\": limbs} (limbs as written by ckptsim)")
            })
        };
        let limbs_in = |v: &serde_json::Value, k: &str| {
            v.get(k)
                .and_then(serde_json::Value::as_array)
                .and_then(|a| a.iter().map(serde_json::Value::as_i64).collect::<Option<Vec<_>>>())
                .and_then(|l| ExactSum::from_limbs(&l))
                .ok_or_else(|| malformed(k, "a list of canonical limbs (as written by ckptsim)"))
        };
        let limbs = |k: &str| limbs_in(v, k);
        let mut s = Summary {
            overhead: moments("overhead")?,
            waste: moments("waste")?,
            wall_s: moments("wall_s")?,
            failures: moments("failures")?,
            overhead_diff: moments("overhead_diff")?,
            lost_s: limbs("lost_s")?,
            recovery_s: limbs("recovery_s")?,
            ..Summary::default()
        };
        const HIST: &str = "wall_histogram_ms";
        let pairs = v.get(HIST).and_then(serde_json::Value::as_array);
        let bad_hist = || malformed(HIST, "a list of [value, count] pairs of integers ≥ 0");
        // The histogram saturates silently, so its counts are added up here first.
        let mut total: u64 = 0;
        for pair in pairs.ok_or_else(bad_hist)? {
            let value = pair.get(0).and_then(serde_json::Value::as_u64).ok_or_else(bad_hist)?;
            let count = pair.get(1).and_then(serde_json::Value::as_u64).ok_or_else(bad_hist)?;
            total = total.checked_add(count).ok_or_else(|| FieldError {
                key: HIST.into(),
                message: format!("the counts add up past {}: accepted are counts totalling at most that", u64::MAX),
            })?;
            s.wall_hist.record_n(value, count).map_err(|_| bad_hist())?;
        }
        let c: Option<[u64; 6]> = v
            .get("counters")
            .and_then(serde_json::Value::as_array)
            .and_then(|a| a.iter().map(serde_json::Value::as_u64).collect::<Option<Vec<_>>>())
            .and_then(|c| c.try_into().ok());
        set_counters(&mut s.totals, c.ok_or_else(|| malformed("counters", "a list of 6 integers ≥ 0"))?);
        let causes = v.get("causes").and_then(serde_json::Value::as_array).ok_or_else(|| {
            malformed(
                "causes",
                "a list of {\"cause\", \"overhead\", \"failures\", \"lost_s\", \"recovery_s\"} (as written by ckptsim)",
            )
        })?;
        for (i, c) in causes.iter().enumerate() {
            let key = |k: &str| format!("causes[{i}].{k}");
            let name = c.get("cause").and_then(serde_json::Value::as_str);
            let cause = name.and_then(Cause::from_name).ok_or_else(|| {
                let names: Vec<&str> = Cause::ALL.iter().map(|c| c.name()).collect();
                malformed(&key("cause"), &format!("one of {}", names.join(", ")))
            })?;
            let overhead = c.get("overhead").and_then(Moments::from_json).ok_or_else(|| {
                malformed(
                    &key("overhead"),
                    "{\"n\": a count, \"sum\": limbs, \"sum_sq\": limbs} (limbs as written by ckptsim)",
                )
            })?;
            let failures = c
                .get("failures")
                .and_then(serde_json::Value::as_u64)
                .ok_or_else(|| malformed(&key("failures"), "an integer ≥ 0"))?;
            let (lost_s, recovery_s) = (
                limbs_in(c, "lost_s").map_err(|e| FieldError { key: key("lost_s"), ..e })?,
                limbs_in(c, "recovery_s").map_err(|e| FieldError { key: key("recovery_s"), ..e })?,
            );
            s.causes.push(CauseSummary { cause, overhead, failures, lost_s, recovery_s });
        }
        Ok(s)
    }

    /// Replications summarised.
    pub fn replications(&self) -> u64 {
        self.overhead.count()
    }

    /// The `q` quantile (0 ≤ q ≤ 1) of wall time (s), to three significant digits.
    pub fn wall_quantile_s(&self, q: f64) -> f64 {
        self.wall_hist.value_at_quantile(q) as f64 / HISTOGRAM_TICKS_PER_S
    }

    /// The wall-time distribution in at most `bins` equal bins between the 0.1% and 99.9%
    /// quantiles: (low s, high s, replications in [low, high)). Each replication is counted
    /// once. The histogram keeps three significant digits, so its buckets widen with the
    /// value (about 2,000 s at a month); a bin is a whole number of the widest bucket in the
    /// range and starts on a bucket's edge, so every bucket falls in exactly one bin (bins
    /// narrower than a bucket counted it in each bin it overlapped: 1,684 replications
    /// shown out of 1,000 for a 30-day job). Fewer bins than `bins` where the buckets are
    /// too coarse for as many.
    pub fn wall_bins(&self, bins: usize) -> Vec<(f64, f64, u64)> {
        let h = &self.wall_hist;
        if h.is_empty() || bins == 0 {
            return Vec::new();
        }
        let lo = h.lowest_equivalent(h.value_at_quantile(0.001));
        let hi_value = h.value_at_quantile(0.999);
        // Buckets are powers of two wide, narrower below `hi_value`: one of the widest
        // divides every bucket's start and width in the range.
        let bucket = h.equivalent_range(hi_value).max(1);
        let hi = h.highest_equivalent(hi_value).saturating_add(1);
        let start = lo - lo % bucket;
        let span = hi - start;
        let width = span.div_ceil(bins as u64).div_ceil(bucket).saturating_mul(bucket).max(bucket);
        let count = span.div_ceil(width) as usize;
        let mut counts = vec![0_u64; count];
        for v in h.iter_recorded() {
            let at = h.lowest_equivalent(v.value_iterated_to());
            if (lo..hi).contains(&at) {
                counts[((at - start) / width) as usize] += v.count_since_last_iteration();
            }
        }
        counts
            .into_iter()
            .enumerate()
            .map(|(b, n)| {
                let a = start.saturating_add((b as u64).saturating_mul(width));
                let z = a.saturating_add(width);
                (a as f64 / HISTOGRAM_TICKS_PER_S, z as f64 / HISTOGRAM_TICKS_PER_S, n)
            })
            .collect()
    }

    /// Mean per replication of a counter total.
    pub fn per_replication(&self, total: u64) -> f64 {
        total as f64 / self.replications() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 4-SE thresholds against closed forms of Student's t quantile: df = 1 is Cauchy,
    /// tan(π(p − ½)); df = 2 is (2p − 1)/√(2p(1 − p)). Large df meet the expansion, and the
    /// threshold falls towards 4.
    #[test]
    fn z4_thresholds_are_t_quantiles() {
        const RTOL: f64 = 1e-6;
        let p = 1.0 - Z4_TAIL / 2.0;
        let cauchy = (std::f64::consts::PI * (p - 0.5)).tan();
        let two = (2.0 * p - 1.0) / (2.0 * p * (1.0 - p)).sqrt();
        for (df, exact) in [(1, cauchy), (2, two)] {
            let got = z4_threshold(df);
            assert!((got - exact).abs() <= RTOL * exact, "df {df}: {got} vs {exact}");
        }
        // Either side of the switch to the expansion.
        let (below, above) = (z4_threshold(T_EXPANSION_DF), z4_threshold(T_EXPANSION_DF + 1));
        assert!(below > above && below - above < 1e-3, "{below} {above}");
        assert!(z4_threshold(0).is_infinite());
        assert!((z4_threshold(1 << 40) - 4.0).abs() < 1e-9);
        let mut last = f64::INFINITY;
        for df in [1, 2, 5, 10, 29, 100, 1000, 10_000] {
            let t = z4_threshold(df);
            assert!(t < last && t > 4.0, "df {df}: {t}");
            last = t;
        }
    }
    use rand::{RngExt, SeedableRng};

    #[test]
    fn exact_sum_is_exact() {
        let mut s = ExactSum::default();
        for x in [1e20, 1.0, -1e20, 1e-300, -1e-300, 0.5] {
            s.add(x);
        }
        assert_eq!(s.value(), 1.5);
        let mut t = ExactSum::default();
        t.add(f64::MAX);
        t.add(f64::MAX);
        t.add(-f64::MAX);
        assert_eq!(t.value(), f64::MAX);
        let mut u = ExactSum::default();
        u.add(5e-324);
        u.add(5e-324);
        assert_eq!(u.value(), 1e-323);
        let mut v = ExactSum::default();
        v.add(-3.25);
        assert_eq!(v.value(), -3.25);
        v.add(0.0);
        v.add(-0.0);
        assert_eq!(v.value(), -3.25);
    }

    #[test]
    fn exact_sum_does_not_depend_on_grouping() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        let xs: Vec<f64> =
            (0..10_000).map(|_| (rng.random::<f64>() - 0.3) * 10f64.powi(rng.random_range(-30..30))).collect();
        let mut whole = ExactSum::default();
        xs.iter().for_each(|&x| whole.add(x));
        for parts in [2, 3, 7, 64] {
            let mut merged = ExactSum::default();
            for p in 0..parts {
                let mut s = ExactSum::default();
                xs.iter().skip(p).step_by(parts).rev().for_each(|&x| s.add(x));
                merged.merge(&s);
            }
            assert_eq!(merged, whole, "{parts} parts");
            assert_eq!(merged.value().to_bits(), whole.value().to_bits());
        }
        // The rounded value is within an ulp-scale tolerance of a compensated sum.
        let naive: f64 = xs.iter().sum();
        assert!((whole.value() - naive).abs() <= 1e-12 * xs.iter().map(|x| x.abs()).sum::<f64>());
    }

    #[test]
    fn checked_merges_refuse_totals_out_of_range_and_change_nothing() {
        let mut huge = vec![0; LIMBS - 1];
        huge.push((1 << 32) - 1);
        let top = ExactSum::from_limbs(&huge).unwrap();
        assert_eq!(top.checked_sum(&top), None);
        let mut small = ExactSum::default();
        small.add(2.5);
        let mut merged = top.clone();
        merged.merge(&ExactSum::default());
        assert_eq!(top.checked_sum(&ExactSum::default()), Some(merged));
        assert_eq!(small.checked_sum(&small).map(|s| s.value()), Some(5.0));

        let record = crate::engine::Record { wall_s: 2.0, failures: 3, checkpoints: 4, ..Default::default() };
        let mut a = Summary::default();
        a.add(1.0, &record);
        let mut b = a.clone();
        b.totals.checkpoints = u64::MAX;
        let before = a.to_json();
        let e = a.try_merge(&b).unwrap_err();
        assert_eq!(e.key, "counters[4]");
        assert_eq!(a.to_json(), before, "a failed merge leaves the summary as it was");
        b.totals.checkpoints = 4;
        b.lost_s = top.clone();
        a.lost_s = top;
        assert_eq!(a.try_merge(&b).unwrap_err().key, "lost_s");
        a.lost_s = ExactSum::default();
        a.try_merge(&b).unwrap();
        assert_eq!((a.replications(), a.totals.failures, a.totals.checkpoints), (2, 6, 8));
        let none = crate::scenario::Baseline::None;
        assert_eq!(a.check(2, 3, none, false, &[]).map_err(|e| e.key), Ok(()));
        assert_eq!(a.check(2, 2, none, false, &[]).unwrap_err().key, "counters[0]");
        assert_eq!(a.check(3, 3, none, false, &[]).unwrap_err().key, "overhead.n");
        let paired = crate::scenario::Baseline::Point(0);
        assert_eq!(a.check(2, 3, paired, false, &[]).unwrap_err().key, "overhead_diff.n");
        a.overhead_diff.add(0.0);
        a.overhead_diff.add(0.5);
        assert_eq!(a.check(2, 3, paired, false, &[]).map_err(|e| e.key), Ok(()));
        assert_eq!(a.check(2, 3, paired, true, &[]).unwrap_err().key, "overhead_diff.sum");
        assert_eq!(a.check(2, 3, none, false, &[]).unwrap_err().key, "overhead_diff.n");
    }

    #[test]
    fn the_split_by_cause_adds_merges_checks_and_round_trips() {
        use crate::engine::{ByCause, CauseTally, Record};
        let split = [Cause::Nodes, Cause::Rack];
        let record = Record { wall_s: 14.0, failures: 3, lost_s: 2.0, recovery_s: 2.0, ..Default::default() };
        let mut by_cause = ByCause::default();
        by_cause.0[Cause::Nodes.index()] = CauseTally { failures: 1, lost_s: 0.5, recovery_s: 1.5 };
        by_cause.0[Cause::Rack.index()] = CauseTally { failures: 2, lost_s: 1.5, recovery_s: 0.5 };
        let mut a = Summary::default();
        a.add(10.0, &record);
        a.add_causes(&split, 10.0, &by_cause);
        assert_eq!(a.causes.len(), 2);
        assert_eq!((a.causes[0].overhead.estimate().mean, a.causes[1].overhead.estimate().mean), (0.2, 0.2));
        // A summary of no replication takes the other's causes; the sums add exactly.
        let mut merged = Summary::default();
        merged.try_merge(&a).unwrap();
        merged.try_merge(&a).unwrap();
        assert_eq!(merged.causes[1].failures, 4);
        assert_eq!(merged.causes[1].lost_s.value(), 3.0);
        let none = crate::scenario::Baseline::None;
        assert_eq!(merged.check(2, 10, none, false, &split).map_err(|e| e.key), Ok(()));
        assert_eq!(merged.check(2, 10, none, false, &[]).unwrap_err().key, "causes");
        assert_eq!(merged.check(2, 10, none, false, &[Cause::Nodes, Cause::Burst]).unwrap_err().key, "causes");
        // Through the partial file's JSON and back, every field survives.
        let back = Summary::from_json(&merged.to_json()).unwrap();
        assert_eq!(back.to_json(), merged.to_json());
        assert_eq!(back.check(2, 10, none, false, &split).map_err(|e| e.key), Ok(()));
        // Counts that do not add up are named.
        let mut bad = merged.clone();
        bad.causes[0].failures += 1;
        assert_eq!(bad.check(2, 10, none, false, &split).unwrap_err().key, "causes[].failures");
        let mut bad = merged.clone();
        bad.causes[1].overhead.add(0.0);
        assert_eq!(bad.check(2, 10, none, false, &split).unwrap_err().key, "causes[1].overhead.n");
        // Summaries split by other causes do not merge.
        let mut other = Summary::default();
        other.add(10.0, &record);
        other.add_causes(&[Cause::Nodes, Cause::Burst], 10.0, &by_cause);
        assert_eq!(merged.try_merge(&other).unwrap_err().key, "causes");
        // A cause's name that is not one is refused with the names accepted.
        let mut json = merged.to_json();
        json["causes"][0]["cause"] = "cosmic rays".into();
        let e = Summary::from_json(&json).unwrap_err();
        assert_eq!(e.key, "causes[0].cause");
        assert!(e.message.contains("nodes, rack, switch"), "{}", e.message);
    }

    #[test]
    fn exact_sum_value_is_accurate() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        for _ in 0..1000 {
            let x = rng.random::<f64>() * 1e6;
            let y = rng.random::<f64>();
            let mut s = ExactSum::default();
            s.add(x);
            s.add(y);
            let exact = x + y; // correctly rounded by IEEE
            assert!((s.value() - exact).abs() <= exact * f64::EPSILON, "{x} + {y}");
        }
    }

    #[test]
    fn moments_match_textbook() {
        let mut m = Moments::default();
        for x in [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0] {
            m.add(x);
        }
        let e = m.estimate();
        assert_eq!(e.mean, 5.0);
        assert!((e.sd - (32.0_f64 / 7.0).sqrt()).abs() < 1e-14);
        // t_{7, 0.975} = 2.364624...
        assert!((e.half_width / e.se - 2.364_624_251_6).abs() < 1e-8);
    }

    #[test]
    fn t_quantiles() {
        assert!((t_975(1) - 12.706_204_736).abs() < 1e-6);
        assert!((t_975(29) - 2.045_229_642).abs() < 1e-8);
        assert!((t_975(1_000_000) - 1.959_966_356_814).abs() < 1e-9);
        // The expansion takes over seamlessly from statrs.
        assert!((t_975(T_EXPANSION_DF) - 1.962_339_080_8).abs() < 1e-9);
        assert!((t_975(T_EXPANSION_DF + 1) - t_975(T_EXPANSION_DF)).abs() < 1e-5);
    }

    /// Relative slack between a field of an estimate and its definition, evaluated again.
    const DEFINITION_RTOL: f64 = 4.0 * f64::EPSILON;

    #[test]
    fn estimate_fields_are_their_definitions() {
        let mut m = Moments::default();
        for x in [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0] {
            m.add(x);
        }
        let e = m.estimate();
        let sd = (32.0_f64 / 7.0).sqrt();
        assert_eq!(e.n, 8);
        // The standard error is sd/√n (not sd/√(n − 1)), the half-width t_{n−1,0.975}·se.
        assert!((e.se - sd / 8f64.sqrt()).abs() <= DEFINITION_RTOL * e.se, "{e:?}");
        assert!((e.half_width - t_975(7) * e.se).abs() <= DEFINITION_RTOL * e.half_width, "{e:?}");
        assert_eq!((e.ci_low(), e.ci_high()), (e.mean - e.half_width, e.mean + e.half_width));
        // One observation has no spread and no interval.
        let mut one = Moments::default();
        one.add(3.0);
        let e = one.estimate();
        assert_eq!((e.n, e.mean), (1, 3.0));
        assert!(e.sd.is_nan() && e.half_width.is_nan(), "{e:?}");
    }

    /// t_{df, 0.975} from a 40-digit evaluation (mpmath: the root of the regularised incomplete
    /// beta), on the expansion's side of [`T_EXPANSION_DF`].
    const T_975_REFERENCES: [(u64, f64); 7] = [
        (1001, 1.962_336_705_280_88),
        (1500, 1.961_546_753_895_019),
        (2000, 1.961_150_826_099_438),
        (5000, 1.960_438_551_706_508),
        (10_000, 1.960_201_239_890_626),
        (100_000, 1.959_987_707_534_61),
        (1_000_000, 1.959_966_356_814_107),
    ];
    /// The expansion's first omitted term is below 1e-10 beyond [`T_EXPANSION_DF`].
    const T_EXPANSION_TOL: f64 = 1e-10;

    #[test]
    fn t_quantiles_of_the_expansion_match_references() {
        for (df, reference) in T_975_REFERENCES {
            let t = t_975(df);
            assert!((t - reference).abs() < T_EXPANSION_TOL, "t_975({df}) = {t}, reference {reference}");
        }
    }

    #[test]
    fn a_summary_adds_overhead_waste_and_wall_time_of_each_replication() {
        let mut s = Summary::default();
        let records = [
            crate::engine::Record { wall_s: 125.0, failures: 1, lost_s: 10.0, recovery_s: 5.0, ..Default::default() },
            crate::engine::Record { wall_s: 110.0, checkpoints: 3, ..Default::default() },
        ];
        for r in &records {
            s.add(100.0, r);
        }
        // Overhead wall/W − 1: 0.25 and 0.1; waste 1 − W/wall: 0.2 and 1/11.
        let close = |got: f64, want: f64, what: &str| {
            assert!((got - want).abs() <= DEFINITION_RTOL * want.abs(), "{what}: {got} vs {want}");
        };
        close(s.overhead.estimate().mean, 0.175, "overhead");
        close(s.waste.estimate().mean, (0.2 + 1.0 / 11.0) / 2.0, "waste");
        close(s.wall_s.estimate().mean, 117.5, "wall");
        assert_eq!((s.lost_s.value(), s.recovery_s.value()), (10.0, 5.0));
        assert_eq!((s.totals.failures, s.totals.checkpoints, s.replications()), (1, 3, 2));
        assert_eq!(s.per_replication(s.totals.checkpoints), 1.5);
    }

    /// The wall-time bins count every replication once, at a month (buckets of about
    /// 2,000 s, finer than the spread of wall times / 10) as at an hour: the bars add up
    /// to the replications between the 0.1% and 99.9% quantiles. Bins narrower than a
    /// bucket counted it in every bin it overlapped (1,684 out of 1,000 at 30 days).
    #[test]
    fn wall_bins_count_each_replication_once() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        for (centre_s, spread_s) in [(3600.0, 600.0), (30.0 * 86_400.0, 15_000.0), (30.0 * 86_400.0, 400.0)] {
            let mut s = Summary::default();
            let n = 1000;
            for _ in 0..n {
                let wall_s = centre_s + spread_s * rng.random::<f64>();
                s.add(centre_s / 2.0, &crate::engine::Record { wall_s, ..Default::default() });
            }
            let bins = s.wall_bins(10);
            assert!(!bins.is_empty() && bins.len() <= 10, "{} bins", bins.len());
            let shown: u64 = bins.iter().map(|b| b.2).sum();
            // At most the replications below the 0.1% and above the 99.9% quantile are left out.
            assert!(shown <= n && shown >= n - 2, "{shown} of {n} shown at {centre_s} s");
            let ticks = |b: &(f64, f64, u64)| ((b.1 - b.0) * HISTOGRAM_TICKS_PER_S).round();
            for w in bins.windows(2) {
                assert_eq!(w[0].1, w[1].0, "contiguous");
                assert_eq!(ticks(&w[1]), ticks(&bins[0]), "equal widths");
            }
        }
    }

    #[test]
    fn moments_merge_to_the_moments_of_the_whole() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        let xs: Vec<f64> = (0..1000).map(|_| rng.random::<f64>() * 100.0 - 20.0).collect();
        let mut whole = Moments::default();
        xs.iter().for_each(|&x| whole.add(x));
        for parts in [2, 3, 10] {
            let mut merged = Moments::default();
            let mut checked = Moments::default();
            for chunk in xs.chunks(xs.len().div_ceil(parts)) {
                let mut m = Moments::default();
                chunk.iter().for_each(|&x| m.add(x));
                merged.merge(&m);
                checked = checked.checked_merged(&m, "test").unwrap();
            }
            assert_eq!(merged, whole, "{parts} parts");
            assert_eq!(checked, whole, "{parts} parts, checked");
        }
    }

    #[test]
    fn limbs_beyond_the_accumulator_are_refused() {
        // One limb too many, even of zeros, is not a sum ckptsim wrote: refused, not a panic.
        assert_eq!(ExactSum::from_limbs(&[0; LIMBS + 1]), None);
        assert_eq!(ExactSum::from_limbs(&[0; LIMBS]), Some(ExactSum::default()));
    }
}
