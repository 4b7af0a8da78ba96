//! Helpers shared by the hand-written benchmark harnesses (`cargo bench`): medians and
//! spreads of per-round rates, number formatting, environment settings.

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
