//! Helpers shared by the hand-written benchmark harnesses (`cargo bench`): medians and
//! spreads of per-round rates, number formatting, environment settings, and the measured
//! variants with their interleaved rounds.
// Each bench uses a part of this module.
#![allow(dead_code)]

use std::time::Instant;

use ckptsim::engine::{Exposure, FinalCheckpoint, Job, OnFailure};

/// The Young–Daly job of `scenarios/young-daly.toml` at checkpoint 2 min: work 2e5 s,
/// restart 10 min, no downtime, final checkpoint written, failures can strike writes and
/// restarts, restart on failure.
pub fn young_daly_job() -> Job {
    Job {
        work_s: 2e5,
        checkpoint_s: 120.0,
        restart_s: 600.0,
        downtime_s: 0.0,
        final_checkpoint: FinalCheckpoint::Written,
        checkpoint_exposure: Exposure::CanFail,
        restart_exposure: Exposure::CanFail,
        on_failure: OnFailure::Restart,
    }
}

pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { 0.5 * (v[n / 2 - 1] + v[n / 2]) }
}

pub fn min(xs: &[f64]) -> f64 {
    xs.iter().copied().fold(f64::INFINITY, f64::min)
}

pub fn max(xs: &[f64]) -> f64 {
    xs.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

/// `x` with an SI prefix and three significant digits: `4.21 M`.
pub fn si(x: f64) -> String {
    let (scale, prefix) =
        [(1e9, " G"), (1e6, " M"), (1e3, " k")].into_iter().find(|&(s, _)| x >= s).unwrap_or((1.0, ""));
    let v = x / scale;
    let decimals = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.decimals$}{prefix}")
}

/// The environment variable `name` parsed, or `default` when it is unset.
pub fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    match std::env::var(name) {
        Ok(text) => text.trim().parse().unwrap_or_else(|_| panic!("{name}={text:?} is not a valid value")),
        Err(_) => default,
    }
}

/// Work done by one call of a measured variant, summed over calls.
pub trait Tally: Copy + Default {
    /// Adds `other` to this tally.
    fn add(&mut self, other: Self);
}

/// A measured variant: `run(round, size)` does `size` steps of work for round `round`, and
/// returns what it did.
pub struct Variant<'a, W> {
    pub name: String,
    run: Box<dyn Fn(u64, u64) -> W + 'a>,
    /// Steps per round, from [`Variant::calibrate`].
    pub size: u64,
    /// Per measured round: the work done and the seconds it took.
    pub rounds: Vec<(W, f64)>,
    /// Every measured round's work (the calibration's excluded).
    pub total: W,
}

impl<'a, W: Tally> Variant<'a, W> {
    pub fn new(name: impl Into<String>, run: impl Fn(u64, u64) -> W + 'a) -> Self {
        Variant { name: name.into(), run: Box::new(run), size: 1, rounds: vec![], total: W::default() }
    }

    fn timed(&self, round: u64, size: u64) -> (W, f64) {
        let start = Instant::now();
        let work = (self.run)(round, size);
        (work, start.elapsed().as_secs_f64())
    }

    /// Grows `size` until a call of round `calibration_round` lasts about `target_s` (this
    /// is also the warm-up).
    fn calibrate(&mut self, target_s: f64, calibration_round: u64) {
        let mut size = 1_u64;
        loop {
            let (_, secs) = self.timed(calibration_round, size);
            if secs >= 0.25 * target_s {
                self.size = ((size as f64 * target_s / secs).round() as u64).max(1);
                return;
            }
            let grow = if secs > 0.0 { (target_s / secs).min(16.0) } else { 16.0 };
            size = ((size as f64 * grow).ceil() as u64).max(size + 1);
        }
    }

    fn measure(&mut self, round: u64) {
        let (work, secs) = self.timed(round, self.size);
        self.rounds.push((work, secs));
        self.total.add(work);
    }

    /// Per measured round, `per(work)` per second.
    pub fn rates(&self, per: impl Fn(&W) -> f64) -> Vec<f64> {
        self.rounds.iter().map(|(w, secs)| per(w) / secs).collect()
    }
}

/// Calibrates every variant (round `calibration_round`, whose seeds no round uses), then
/// measures `rounds` rounds, the variants interleaved in an order that rotates from round
/// to round, so a slow spell of a shared machine spreads over all of them.
pub fn measure_rounds<W: Tally>(variants: &mut [Variant<'_, W>], rounds: usize, target_s: f64, calibration_round: u64) {
    for v in variants.iter_mut() {
        v.calibrate(target_s, calibration_round);
    }
    let k = variants.len();
    for round in 0..rounds {
        for i in 0..k {
            variants[(i + round) % k].measure(round as u64);
        }
    }
}

/// A ratio's target.
#[derive(Clone, Copy)]
pub enum Target {
    AtMost(f64),
    AtLeast(f64),
    Info,
}

/// Prints an informative line of the measurement table.
pub fn info(what: &str, value: &str) {
    println!("{what:<58} {value:>10} {:>15} {:>8} {:>7}", "", "-", "info");
}

/// Prints `median(num) / median(den)` with the spread of the per-round ratios, and its
/// verdict (a miss is printed, not a panic).
pub fn ratio(what: &str, (num, den): (&[f64], &[f64]), target: Target) {
    let value = median(num) / median(den);
    let per_round: Vec<f64> = num.iter().zip(den).map(|(n, d)| n / d).collect();
    let (target_text, pass) = match target {
        Target::AtMost(t) => (format!("≤ {t}×"), Some(value <= t)),
        Target::AtLeast(t) => (format!("≥ {t}×"), Some(value >= t)),
        Target::Info => ("-".to_string(), None),
    };
    let result = match pass {
        Some(true) => "PASS",
        Some(false) => "MISS",
        None => "info",
    };
    let spread = format!("{}..{}", short(min(&per_round)), short(max(&per_round)));
    println!("{what:<58} {:>10} {spread:>15} {target_text:>8} {result:>7}", format!("{}×", short(value)));
}

/// A ratio with three significant digits (two decimals below 10).
pub fn short(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}
