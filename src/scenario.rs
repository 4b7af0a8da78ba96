//! What the user wrote: scenario files (TOML), `--set KEY=VALUE` overrides and sweeps,
//! validated into typed sweep points with every duration in seconds.
//!
//! Errors name the file, line and column (or the `--set` argument), the dotted key, the
//! value and what is accepted (DESIGN.md, "Scenario file contract").

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::analytic;
use crate::engine::{Exposure, FinalCheckpoint, Job, OnFailure};
use crate::error::{Error, Origin, Result};
use crate::failure::trace;
use crate::failure::{
    Burst, DomainEvents, FailureModel, Failures, Law, Level, NodeClass, Placement, RandomEvents, Renewal, Sampler,
    Start, Topology,
};

/// The units a duration may carry, with their length in seconds (`y` = 365 d, `w` = 7 d).
/// Durations are shown in these short units; [`DURATION_NAMES`] spell them out.
pub const DURATION_UNITS: [(&str, f64); 7] = [
    ("ms", 1e-3),
    ("s", 1.0),
    ("min", 60.0),
    ("h", 3600.0),
    ("d", 86_400.0),
    ("w", 7.0 * 86_400.0),
    ("y", 365.0 * 86_400.0),
];

/// Replications when the scenario gives neither `replications` nor `precision`.
pub const DEFAULT_REPLICATIONS: u64 = 1000;

/// The units of a duration, listed for messages (the short ones, and that their names are
/// accepted too).
pub(crate) const UNITS_HINT: &str =
    "units: ms, s, min, h, d, y, w, or their names: milliseconds, seconds, minutes, hours, days, years, weeks";

/// A kind of quantity written as a number and a unit: its units (with their scale), the
/// hint listing them, an example and its name in messages.
pub(crate) struct Quantity<'a> {
    /// Accepted units and their length in the base unit.
    pub units: &'a [(&'a str, f64)],
    /// Other accepted names of units, each with the unit of `units` it stands for ("hours" →
    /// "h"): read as that unit, exactly as written (lower case).
    pub names: &'a [(&'a str, &'a str)],
    /// The units, listed for messages.
    pub hint: &'a str,
    /// The unit a bare number should be given ("s", "GB").
    pub suggest: &'a str,
    /// Examples for a malformed number.
    pub examples: &'a str,
    /// The quantity's name ("duration", "size").
    pub name: &'a str,
    /// Common misspellings of units, lower case, and the unit each means ("m" → "min"): an
    /// unknown unit that is one of them, or a unit or name in another case ("H", "Hours"), is
    /// answered with the value rewritten.
    pub aliases: &'a [(&'a str, &'a str)],
}

/// The names of the units of [`DURATION_UNITS`], accepted as those units ("5 hours" is
/// "5 h"): singular, plural and the usual abbreviations.
pub const DURATION_NAMES: [(&str, &str); 24] = [
    ("msec", "ms"),
    ("msecs", "ms"),
    ("millisecond", "ms"),
    ("milliseconds", "ms"),
    ("sec", "s"),
    ("secs", "s"),
    ("second", "s"),
    ("seconds", "s"),
    ("mins", "min"),
    ("minute", "min"),
    ("minutes", "min"),
    ("hr", "h"),
    ("hrs", "h"),
    ("hour", "h"),
    ("hours", "h"),
    ("day", "d"),
    ("days", "d"),
    ("wk", "w"),
    ("week", "w"),
    ("weeks", "w"),
    ("yr", "y"),
    ("yrs", "y"),
    ("year", "y"),
    ("years", "y"),
];

/// Units people write for durations that are not accepted, and the unit each likely means:
/// `m` could be minutes, months or metres.
const DURATION_ALIASES: [(&str, &str); 1] = [("m", "min")];

/// Durations: `ms`, `s`, `min`, `h`, `d`, `w`, `y` and their names.
const DURATION: Quantity<'static> = Quantity {
    units: &DURATION_UNITS,
    names: &DURATION_NAMES,
    hint: UNITS_HINT,
    suggest: "s",
    examples: "\"120 s\", \"2e5 s\", \"3.1 h\"",
    name: "duration",
    aliases: &DURATION_ALIASES,
};

/// The length in the base unit of `unit`, one of `q`'s units or their names, as written.
fn unit_scale(unit: &str, q: &Quantity) -> Option<f64> {
    let short = q.names.iter().find(|(n, _)| *n == unit).map_or(unit, |(_, u)| *u);
    q.units.iter().find(|(u, _)| *u == short).map(|(_, scale)| *scale)
}

/// The length in seconds of the unit of time `unit` as written: a short unit (`h`) or its
/// name (`hours`, `hr`); `None` for anything else. For a rate's or a bandwidth's unit after
/// its `/`.
pub(crate) fn duration_unit_s(unit: &str) -> Option<f64> {
    unit_scale(unit, &DURATION)
}

/// Parses `"<number> <unit>"` into the base unit of `q`: the number must parse, the unit be
/// one of `q`'s, and the scaled value be finite (the sign is the caller's to check).
pub(crate) fn parse_quantity(text: &str, q: &Quantity) -> std::result::Result<f64, String> {
    let trimmed = text.trim();
    let shown = shorten(text);
    if trimmed.is_empty() {
        return Err(format!(
            "\"{shown}\" is empty: a {} is a number and a unit, for example {} ({})",
            q.name, q.examples, q.hint
        ));
    }
    // The unit is the trailing run of letters, any script: "5 µs" names the unknown unit `µs`.
    let unit_bytes: usize = trimmed.chars().rev().take_while(|c| c.is_alphabetic()).map(char::len_utf8).sum();
    let (number, unit) = trimmed.split_at(trimmed.len() - unit_bytes);
    let number = number.trim_end();
    if unit.is_empty() {
        return Err(format!(
            "\"{shown}\" has no unit: write it as \"{} {}\" ({})",
            shorten(trimmed),
            q.suggest,
            q.hint
        ));
    }
    let Some(scale) = unit_scale(unit, q) else {
        if number.is_empty() {
            return Err(format!(
                "\"{shown}\" is not a {}: it has no number (write for example {}; {})",
                q.name, q.examples, q.hint
            ));
        }
        // "5 H", "5 Hours": name the unit meant, with the value rewritten.
        if let (Some(meant), Ok(_)) = (unit_meant(unit, q), number.parse::<f64>()) {
            return Err(format!(
                "\"{shown}\": unknown unit `{}`: write it as \"{} {meant}\" ({})",
                shorten(unit),
                shorten(number),
                q.hint
            ));
        }
        return Err(format!("\"{shown}\": unknown unit `{}` ({})", shorten(unit), q.hint));
    };
    let value: f64 = number.parse().map_err(|_| {
        format!("\"{shown}\": `{}` is not a number (write for example {})", shorten(number), q.examples)
    })?;
    let scaled = scaled_decimal(number, scale).unwrap_or(value * scale);
    // Checked after the unit: "1e308 y" overflows to infinity.
    if !value.is_finite() || !scaled.is_finite() {
        return Err(format!("\"{shown}\" is not a finite {}", q.name));
    }
    Ok(scaled)
}

/// The decimal `number` times the unit length `scale`, rounded once to the nearest double:
/// "27.28 min" is the double nearest 1636.8 s, where parsing 27.28 and multiplying by 60
/// rounds twice and gives 1636.8000000000002 (and "1.1 min" 66.00000000000001 s). The
/// product of the two decimals is formed exactly in decimal digits, then parsed. `None` when
/// `number` is not plainly decimal (`inf`, `NaN`) or its exponent does not fit an `i64`.
fn scaled_decimal(number: &str, scale: f64) -> Option<f64> {
    let (negative, number_digits, number_exp) = decimal_parts(number)?;
    // Every unit length's shortest form is the decimal it stands for (1e-3, 60, 1073741824).
    let (_, scale_digits, scale_exp) = decimal_parts(&format!("{scale:e}"))?;
    // Schoolbook multiplication, least significant digit first.
    let mut product = vec![0_u32; number_digits.len() + scale_digits.len()];
    for (i, a) in number_digits.iter().rev().enumerate() {
        let mut carry = 0;
        for (j, b) in scale_digits.iter().rev().enumerate() {
            let cell = product[i + j] + a * b + carry;
            product[i + j] = cell % 10;
            carry = cell / 10;
        }
        product[i + scale_digits.len()] += carry;
    }
    let digits: String = product.iter().rev().map(|d| char::from(b'0' + *d as u8)).collect();
    let exp = number_exp.checked_add(scale_exp)?;
    format!("{}{digits}e{exp}", if negative { "-" } else { "" }).parse().ok()
}

/// A plain decimal (`-12.5e-3`, `.5`, `3.`) as its sign, its digits and the power of ten
/// they are scaled by: `-12.5e-3` is (true, [1, 2, 5], -4). `None` for anything else.
fn decimal_parts(text: &str) -> Option<(bool, Vec<u32>, i64)> {
    let (negative, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exp) = match rest.find(['e', 'E']) {
        Some(at) => (&rest[..at], rest[at + 1..].parse::<i64>().ok()?),
        None => (rest, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    let digits: Vec<u32> = whole.chars().chain(fraction.chars()).map(|c| c.to_digit(10)).collect::<Option<_>>()?;
    let exp = exp.checked_sub(i64::try_from(fraction.len()).ok()?)?;
    Some((negative, digits, exp))
}

/// The unit of `q` that `unit`, unknown, most likely means: one of `q`'s aliases ("m" →
/// "min"), or a unit or a unit's name in another case ("H", "Hours" → "h"); `None` otherwise.
pub(crate) fn unit_meant<'a>(unit: &str, q: &Quantity<'a>) -> Option<&'a str> {
    let lower = unit.to_lowercase();
    q.aliases
        .iter()
        .chain(q.names)
        .find(|(a, _)| *a == lower)
        .map(|(_, u)| *u)
        .or_else(|| q.units.iter().map(|(u, _)| *u).find(|u| *u == lower))
}

/// The unit of time that `unit`, unknown, most likely means ("H" → "h", "m" → "min"), if any.
pub fn duration_unit_meant(unit: &str) -> Option<&'static str> {
    unit_meant(unit, &DURATION)
}

/// `x` as an error message shows it: as written in plain decimals where that is short
/// (10⁻⁶ ≤ |x| < 10¹⁶, or 0), else in scientific notation, so 1e-300 is not 300 digits.
pub fn shown_number(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-6..1e16).contains(&x.abs()) { format!("{x}") } else { format!("{x:e}") }
}

/// The most characters of a user's value that an error message repeats.
pub const SHOWN_CHARS: usize = 80;

/// `text` as an error message repeats it: whole up to [`SHOWN_CHARS`] characters, else its
/// start and its length, so a huge field (a corrupt log line, a pasted blob) cannot flood
/// the terminal.
pub fn shorten(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(SHOWN_CHARS) {
        None => std::borrow::Cow::Borrowed(text),
        Some((end, _)) => std::borrow::Cow::Owned(format!("{}… ({} bytes in all)", &text[..end], text.len())),
    }
}

/// Parses a duration with a unit (`"120 s"`, `"2e5 s"`, `"3.1h"`, `"27 min"`) into seconds.
/// The number must be finite; its sign is checked by the caller, who knows the range.
pub fn parse_duration_s(text: &str) -> std::result::Result<f64, String> {
    parse_quantity(text, &DURATION)
}

/// A duration as written in a scenario: a string with a unit, read as seconds, and the text
/// (trimmed) for messages, so "-1 min" is not shown as "-60 s". A bare number is an error.
#[derive(Clone)]
pub(crate) struct DurationS(pub(crate) f64, pub(crate) Box<str>);

// Two durations are the same value however they are written ("2 min" and "120 s"): the sweep's
// check for repeated values compares the `Debug` form of what a value reads as.
impl std::fmt::Debug for DurationS {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.debug_tuple("DurationS").field(&self.0).finish()
    }
}

impl<'de> Deserialize<'de> for DurationS {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = DurationS;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "a duration with a unit, such as \"120 s\" ({UNITS_HINT})")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> std::result::Result<DurationS, E> {
                parse_duration_s(s).map(|v| DurationS(v, s.trim().into())).map_err(E::custom)
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> std::result::Result<DurationS, E> {
                Err(E::custom(bare_number(&n.to_string())))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> std::result::Result<DurationS, E> {
                Err(E::custom(bare_number(&n.to_string())))
            }
            fn visit_f64<E: serde::de::Error>(self, n: f64) -> std::result::Result<DurationS, E> {
                Err(E::custom(bare_number(&n.to_string())))
            }
        }
        d.deserialize_any(V)
    }
}

/// Deserialises an optional integer ≥ `MIN` (`run.seed`, `run.replications`, `job.nodes`),
/// saying what is accepted where serde would only say "expected u64". Values from 0 to `MIN`
/// pass: the key's own check says why they are out of range.
pub(crate) fn whole_number<'de, D: serde::Deserializer<'de>, const MIN: u64>(
    d: D,
) -> std::result::Result<Option<u64>, D::Error> {
    struct V<const MIN: u64>;
    impl<const MIN: u64> V<MIN> {
        fn accepted() -> String {
            format!("accepted is an integer ≥ {MIN} (at most 9223372036854775807, TOML's largest integer)")
        }
    }
    impl<const MIN: u64> serde::de::Visitor<'_> for V<MIN> {
        type Value = u64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "an integer ≥ {MIN}")
        }
        fn visit_u64<E: serde::de::Error>(self, n: u64) -> std::result::Result<u64, E> {
            Ok(n)
        }
        fn visit_i64<E: serde::de::Error>(self, n: i64) -> std::result::Result<u64, E> {
            u64::try_from(n).map_err(|_| E::custom(format!("{n} is out of range: {}", Self::accepted())))
        }
        fn visit_i128<E: serde::de::Error>(self, n: i128) -> std::result::Result<u64, E> {
            u64::try_from(n).map_err(|_| E::custom(format!("{n} is out of range: {}", Self::accepted())))
        }
        fn visit_f64<E: serde::de::Error>(self, n: f64) -> std::result::Result<u64, E> {
            Err(E::custom(format!("{} is not an integer: {}", shown_number(n), Self::accepted())))
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> std::result::Result<u64, E> {
            // A `--set` value too large for TOML arrives as a string of digits; one that
            // fits was quoted by the user.
            let digits = s.trim_start_matches(['-', '+']);
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && s.parse::<i64>().is_err() {
                return Err(E::custom(format!("{} is out of range: {}", shorten(s), Self::accepted())));
            }
            Err(E::custom(format!(
                "\"{}\" is text, not an integer: {} (in a file, without quotes)",
                shorten(s),
                Self::accepted()
            )))
        }
        fn visit_bool<E: serde::de::Error>(self, b: bool) -> std::result::Result<u64, E> {
            Err(E::custom(format!("{b} is not an integer: {}", Self::accepted())))
        }
    }
    d.deserialize_any(V::<MIN>).map(Some)
}

/// The error for a bare number `n` where a duration goes. The example repeats `n` in seconds
/// where that is a valid duration (> 0), else it is "300 s" ("-5 s" would be refused).
fn bare_number(n: &str) -> String {
    let example =
        if n.parse::<f64>().is_ok_and(|x| x > 0.0 && x.is_finite()) { format!("{n} s") } else { "300 s".into() };
    format!("the bare number {n} is not a duration: give it a unit, for example \"{example}\" ({UNITS_HINT})")
}

/// How the checkpoint interval (compute between checkpoints) is chosen, before `factor`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum IntervalRule {
    /// Young (1974): √(2δM).
    Young,
    /// "Daly low order" as commonly used: √(2δM) − δ (MODELS.md §1).
    Daly,
    /// Daly (2006) eq. 37.
    DalyHighOrder,
    /// The exact optimum for exponential failures under the job's checkpoint switch.
    Optimal,
    /// The exact optimum for this finite work: the equal chunking W/k with the least exact
    /// expected wall time for exponential failures, near the exact optimum (MODELS.md §1,
    /// "Finite work"; [`analytic::finite_work_optimal_interval_s`], and with two levels
    /// [`analytic::multilevel::finite_work_optimal_interval_s`]).
    OptimalWork,
    /// No checkpoint before the end of the work.
    None,
    /// A fixed interval (s).
    Fixed(f64),
}

impl IntervalRule {
    /// The rule's name as written in scenario files.
    pub fn name(&self) -> String {
        match self {
            IntervalRule::Young => "young".into(),
            IntervalRule::Daly => "daly".into(),
            IntervalRule::DalyHighOrder => "daly-high-order".into(),
            IntervalRule::Optimal => "optimal".into(),
            IntervalRule::OptimalWork => "optimal-work".into(),
            IntervalRule::None => "none".into(),
            IntervalRule::Fixed(s) => format!("{s} s"),
        }
    }
}

impl<'de> Deserialize<'de> for IntervalRule {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        const EXPECTED: &str =
            "young, daly, daly-high-order, optimal, optimal-work, none, or a duration such as \"27 min\"";
        impl serde::de::Visitor<'_> for V {
            type Value = IntervalRule;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(EXPECTED)
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> std::result::Result<IntervalRule, E> {
                Ok(match s.trim() {
                    "young" => IntervalRule::Young,
                    "daly" => IntervalRule::Daly,
                    "daly-high-order" => IntervalRule::DalyHighOrder,
                    "optimal" => IntervalRule::Optimal,
                    "optimal-work" => IntervalRule::OptimalWork,
                    "none" => IntervalRule::None,
                    other => match parse_duration_s(other) {
                        Ok(v) if v > 0.0 => IntervalRule::Fixed(v),
                        // Refused here, not once resolved, so the message shows the value as written.
                        Ok(_) => {
                            return Err(E::custom(format!(
                                "\"{}\" is out of range: accepted is a duration > 0 ({UNITS_HINT}), or one of \
                                 young, daly, daly-high-order, optimal, optimal-work, none",
                                shorten(other)
                            )));
                        }
                        // "youngg": a misspelt rule, not a duration with an unknown unit.
                        Err(_) if !other.chars().any(|c| c.is_ascii_digit()) => {
                            return Err(E::custom(format!(
                                "\"{}\" is neither an interval rule nor a duration; accepted: {EXPECTED}",
                                shorten(other)
                            )));
                        }
                        Err(e) => return Err(E::custom(format!("{e}; accepted: {EXPECTED}"))),
                    },
                })
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> std::result::Result<IntervalRule, E> {
                Err(E::custom(format!("{}; or one of {EXPECTED}", bare_number(&n.to_string()))))
            }
            fn visit_f64<E: serde::de::Error>(self, n: f64) -> std::result::Result<IntervalRule, E> {
                Err(E::custom(format!("{}; or one of {EXPECTED}", bare_number(&n.to_string()))))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    name: Option<String>,
    description: Option<String>,
    #[serde(default)]
    run: RawRun,
    job: RawJob,
    failures: RawFailures,
    #[serde(default)]
    policy: RawPolicy,
    topology: Option<RawTopology>,
    #[allow(dead_code)] // read from the table, kept here so the key is known
    sweep: Option<toml::Table>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRun {
    #[serde(default, deserialize_with = "whole_number::<_, 2>")]
    replications: Option<u64>,
    precision: Option<f64>,
    #[serde(default, deserialize_with = "whole_number::<_, 0>")]
    seed: Option<u64>,
    #[serde(default, deserialize_with = "whole_number::<_, 0>")]
    baseline: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawJob {
    work: DurationS,
    #[serde(default, deserialize_with = "whole_number::<_, 1>")]
    nodes: Option<u64>,
    checkpoint: DurationS,
    restart: DurationS,
    downtime: Option<DurationS>,
    final_checkpoint: Option<bool>,
    failures_during_checkpoint: Option<bool>,
    failures_during_restart: Option<bool>,
    on_failure: Option<OnFailureName>,
    placement: Option<PlacementName>,
    level2: Option<RawLevel2>,
}

/// `[job.level2]`: two-level checkpointing (MODELS.md §4).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLevel2 {
    checkpoint: DurationS,
    restart: DurationS,
    every: Option<EveryRule>,
    causes: Option<Vec<crate::failure::Cause>>,
}

/// `job.level2.every`: a count n, or `"optimal"`, the n that minimises the exact two-level
/// overhead of endless work at the policy's interval ([`analytic::multilevel::optimal_every`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EveryRule {
    /// Every n-th checkpoint is a level-2 one (n ≥ 1 once resolved).
    Count(u64),
    /// The best n, found per point.
    Optimal,
}

impl<'de> Deserialize<'de> for EveryRule {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        const ACCEPTED: &str = "accepted is an integer ≥ 1 (every n-th checkpoint is a level-2 one) or \"optimal\"";
        impl serde::de::Visitor<'_> for V {
            type Value = EveryRule;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an integer ≥ 1 or \"optimal\"")
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> std::result::Result<EveryRule, E> {
                Ok(EveryRule::Count(n))
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> std::result::Result<EveryRule, E> {
                u64::try_from(n)
                    .map(EveryRule::Count)
                    .map_err(|_| E::custom(format!("{n} is out of range: {ACCEPTED}")))
            }
            fn visit_f64<E: serde::de::Error>(self, n: f64) -> std::result::Result<EveryRule, E> {
                Err(E::custom(format!("{} is not an integer: {ACCEPTED}", shown_number(n))))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> std::result::Result<EveryRule, E> {
                match s.trim() {
                    "optimal" => Ok(EveryRule::Optimal),
                    other => Err(E::custom(format!("\"{}\" is out of range: {ACCEPTED}", shorten(other)))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// The largest `job.level2.every` accepted: a level-2 write every 10⁶ checkpoints is already
/// none at all for any job that is not 10⁶ chunks long, and the largest count that
/// `every = "optimal"` tries (`analytic::multilevel::MAX_OPTIMAL_EVERY`). A count of 10¹¹
/// hung the closed forms when they walked a pattern's chunks one by one.
pub const MAX_EVERY: u64 = 1_000_000;

/// The most chunks a point with `[job.level2]` may have: its replications are played chunk by
/// chunk (the per-segment path), not failure by failure.
pub const MAX_TWO_LEVEL_CHUNKS: f64 = 1e7;

/// `[job.level2]` resolved, for `job` (whose checkpoint and restart are level 1's), with its
/// `every` rule; an `"optimal"` count is left at 1, for [`optimal_every`] to set.
fn resolve_level2(raw: &RawLevel2) -> std::result::Result<(crate::engine::TwoLevel, EveryRule), FieldError> {
    let rule = raw.every.ok_or_else(|| {
        field(
            "job.level2.every",
            "missing: accepted is an integer ≥ 1 (every n-th checkpoint is a level-2 one) or \"optimal\"",
        )
    })?;
    let every = match rule {
        EveryRule::Count(0) => {
            return Err(field("job.level2.every", "0 is out of range: accepted is an integer ≥ 1 or \"optimal\""));
        }
        EveryRule::Count(n) if n > MAX_EVERY => {
            return Err(field(
                "job.level2.every",
                format!(
                    "{n} is out of range: accepted is an integer from 1 to {MAX_EVERY} or \"optimal\" (the closed \
                     forms walk a pattern's n chunks)"
                ),
            ));
        }
        EveryRule::Count(n) => n,
        EveryRule::Optimal => 1,
    };
    let level2 = match &raw.causes {
        None => crate::engine::TwoLevel::ALL_BUT_NODES,
        Some(names) => {
            let mut set = [false; crate::failure::Cause::COUNT];
            for c in names {
                if set[c.index()] {
                    return Err(field(
                        "job.level2.causes",
                        format!("`{}` is listed twice: accepted is a list of distinct causes", c.name()),
                    ));
                }
                set[c.index()] = true;
            }
            set
        }
    };
    let two = crate::engine::TwoLevel {
        every,
        checkpoint_s: duration_at_least("job.level2.checkpoint", &raw.checkpoint, false)?,
        restart_s: duration_at_least("job.level2.restart", &raw.restart, false)?,
        level2,
    };
    Ok((two, rule))
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum PlacementName {
    Packed,
    Spread,
    Random,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTopology {
    racks: u64,
    nodes_per_rack: u64,
    racks_per_switch: Option<u64>,
    racks_per_power: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDomain {
    law: Option<LawName>,
    mtbf: Option<DurationS>,
    shape: Option<f64>,
    sigma: Option<f64>,
    times: Option<Vec<DurationS>>,
    start: Option<StartName>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRandom {
    nodes: u64,
    law: Option<LawName>,
    mtbf: Option<DurationS>,
    shape: Option<f64>,
    sigma: Option<f64>,
    times: Option<Vec<DurationS>>,
    start: Option<StartName>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBurst {
    branching: f64,
    decay: DurationS,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum OnFailureName {
    Restart,
    EndJob,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFailures {
    law: Option<LawName>,
    mtbf: Option<DurationS>,
    node_mtbf: Option<DurationS>,
    shape: Option<f64>,
    sigma: Option<f64>,
    times: Option<Vec<DurationS>>,
    renewal: Option<RenewalName>,
    start: Option<StartName>,
    sampler: Option<SamplerName>,
    class: Option<Vec<RawClass>>,
    rack: Option<RawDomain>,
    switch: Option<RawDomain>,
    power: Option<RawDomain>,
    system: Option<RawDomain>,
    random: Option<RawRandom>,
    burst: Option<RawBurst>,
    trace: Option<RawTrace>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTrace {
    file: String,
    system: Option<toml::Value>,
    end: Option<TraceEndName>,
    malformed: Option<MalformedName>,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum TraceEndName {
    Wrap,
    Censor,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum MalformedName {
    Fatal,
    Skip,
}

/// What resolving needs beyond the raw values: the scenario's folder (relative paths
/// resolve against it, as Cargo does) and the failure logs read so far.
struct Context {
    /// The scenario file's folder: relative paths written in the file resolve against it.
    dir: PathBuf,
    /// Whether `failures.trace.file` was given with `--set`: a relative path typed on the
    /// command line resolves against the current folder, as a shell user expects (and as
    /// `schedule.file` does in efficiency studies).
    trace_file_from_set: bool,
    logs: std::cell::RefCell<HashMap<(PathBuf, bool), std::sync::Arc<trace::Log>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClass {
    share: f64,
    law: Option<LawName>,
    node_mtbf: Option<DurationS>,
    shape: Option<f64>,
    sigma: Option<f64>,
    times: Option<Vec<DurationS>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum LawName {
    Exponential,
    Weibull,
    Lognormal,
    Gamma,
    Empirical,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum RenewalName {
    Job,
    Node,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum StartName {
    Fresh,
    Stationary,
}

/// The start a `start` key gives (nodes, domain levels, k-of-N events): stationary unless
/// it says `fresh`.
fn start_or_stationary(name: Option<StartName>) -> Start {
    match name.unwrap_or(StartName::Stationary) {
        StartName::Fresh => Start::Fresh,
        StartName::Stationary => Start::Stationary,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum SamplerName {
    Cohort,
    PerNode,
}

/// A law's parameters as written, wherever they stand ([failures] or a class).
struct LawSpec<'a> {
    prefix: String,
    law: LawName,
    shape: Option<f64>,
    sigma: Option<f64>,
    times: Option<&'a [DurationS]>,
}

/// Tolerance on the sum of class shares.
const SHARE_TOLERANCE: f64 = 1e-9;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    interval: Option<IntervalRule>,
    factor: Option<f64>,
    rate: Option<RateBasis>,
}

/// Which failure rate the interval rules (`young`, `daly`, `daly-high-order`, `optimal`) put
/// in their formulas (`policy.rate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RateBasis {
    /// Every failure that strikes the job: its MTBF (the default).
    Failures,
    /// Burst clusters counted once: the mean time between the events that start a cluster,
    /// the job's MTBF / (1 − n) under Hawkes bursts of branching ratio n (MODELS.md §3),
    /// the job's MTBF without bursts. A burst short against the interval costs about one
    /// lost half-interval plus short restarts, so the cluster rate is what the interval
    /// should follow.
    Clusters,
}

impl RateBasis {
    /// The basis's name in scenario files.
    pub fn name(&self) -> &'static str {
        match self {
            RateBasis::Failures => "failures",
            RateBasis::Clusters => "clusters",
        }
    }
}

/// When a run stops.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stop {
    /// After this many replications (≥ 2).
    Replications(u64),
    /// Once every point's 95% CI half-width of the overhead is at most this (absolute, > 0),
    /// after at least [`crate::runner::MIN_ADAPTIVE_REPLICATIONS`] replications.
    Precision(f64),
}

/// The `[run]` table: how many replications and from which seed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunSettings {
    /// The stopping rule.
    pub stop: Stop,
    /// The master seed; replication i's streams derive from (seed, i).
    pub seed: u64,
    /// The point every other is compared with, replication by replication (`[run]
    /// baseline`, a point index): each point's overhead minus the baseline's in the same
    /// replication, on the same failures, gives the difference's mean and 95% interval.
    pub baseline: Baseline,
}

/// Whether a run compares its points with one of them, pair by pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Baseline {
    /// No paired differences (the default).
    None,
    /// Every point compared with this point (its index).
    Point(usize),
}

impl Baseline {
    /// The baseline point's index, if any.
    pub fn point(self) -> Option<usize> {
        match self {
            Baseline::Point(b) => Some(b),
            Baseline::None => None,
        }
    }
}

/// One swept key and its values as written.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepAxis {
    /// The dotted key, for example `job.checkpoint`.
    pub key: String,
    /// The values, displayed as written (strings without quotes).
    pub values: Vec<String>,
    /// The same values with their TOML types, for JSON: a number stays a number (`0.25`,
    /// `4`), a boolean a boolean, a string (a duration such as `"2 min"`) a string.
    pub json_values: Vec<serde_json::Value>,
}

impl SweepAxis {
    /// The JSON value of `label`, one of [`SweepAxis::values`], with its TOML type; a label
    /// that is not one of them stays a string.
    pub fn json_value(&self, label: &str) -> serde_json::Value {
        match self.values.iter().position(|v| v == label) {
            Some(i) => self.json_values[i].clone(),
            None => serde_json::Value::String(label.to_string()),
        }
    }
}

/// A swept TOML value as JSON: integers, finite floats and booleans keep their type; strings
/// and anything else are written as displayed.
fn json_of(v: &toml::Value) -> serde_json::Value {
    match v {
        toml::Value::Integer(i) => serde_json::Value::from(*i),
        toml::Value::Float(x) if x.is_finite() => serde_json::Value::from(*x),
        toml::Value::Boolean(b) => serde_json::Value::Bool(*b),
        other => serde_json::Value::String(display_value(other)),
    }
}

/// One fully resolved sweep point.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// 0-based index in the cartesian product (the last axis varies fastest).
    pub index: usize,
    /// This point's value of each sweep axis, as written.
    pub labels: Vec<String>,
    /// The job.
    pub job: Job,
    /// Nodes the job runs on.
    pub nodes: u64,
    /// Everything that fails the job.
    pub failures: Failures,
    /// The interval rule, before the factor.
    pub rule: IntervalRule,
    /// The failure rate the rule puts in its formula.
    pub rate: RateBasis,
    /// The factor applied to the rule's interval.
    pub factor: f64,
    /// The resolved checkpoint interval (s of compute between checkpoints); infinite for
    /// `none`.
    pub interval_s: f64,
    /// Two-level checkpointing (`[job.level2]`), where given: the job's checkpoint and restart
    /// are then level 1's.
    pub two_level: Option<crate::engine::TwoLevel>,
    /// `failures.mtbf` (the whole job's MTBF) where the point's failures were given by it: its
    /// value (s) and its text as written; `None` where they come from `failures.node_mtbf`,
    /// node classes or a replayed log.
    pub given_job_mtbf: Option<(f64, String)>,
}

/// A validated scenario: its run settings and its sweep points.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The name (defaults to the file's stem); names the output files.
    pub name: String,
    /// Free text.
    pub description: Option<String>,
    /// The file it was read from.
    pub path: PathBuf,
    /// The scenario file's text, as read.
    pub text: String,
    /// The `--set KEY=VALUE` arguments applied after it, in order.
    pub sets: Vec<String>,
    /// Replications and seed.
    pub run: RunSettings,
    /// The sweep axes, in file order.
    pub axes: Vec<SweepAxis>,
    /// The points of the cartesian product of the axes (one point without a sweep).
    pub points: Vec<Point>,
}

impl Scenario {
    /// The causes the run splits every point's failures and their cost by (the `causes`
    /// outputs): every cause of its points' failure models ([`Failures::causes`]), in
    /// [`Cause`](crate::failure::Cause) order, where there are two or more; none where all the
    /// failures come from the job's nodes (the split would repeat the totals).
    ///
    /// [`Failures::causes`]: crate::failure::Failures::causes
    pub fn causes(&self) -> Vec<crate::failure::Cause> {
        let mut causes: Vec<crate::failure::Cause> = self.points.iter().flat_map(|p| p.failures.causes()).collect();
        causes.sort();
        causes.dedup();
        if causes.len() > 1 { causes } else { Vec::new() }
    }

    /// The files the scenario was built from: its own file and every failure log it replays.
    pub fn input_files(&self) -> Vec<&std::path::Path> {
        let logs = self.points.iter().filter_map(|p| match &p.failures.base {
            crate::failure::FailureModel::Trace(t) => Some(t.file.as_path()),
            _ => None,
        });
        let mut files: Vec<&std::path::Path> = std::iter::once(self.path.as_path()).chain(logs).collect();
        files.dedup();
        files
    }

    /// What in this scenario is valid but probably not meant, one line per cause, naming the
    /// points it concerns: a replayed log none of whose failures hit the job, a job whose
    /// work is less than one checkpoint write, or a job MTBF on many nodes that looks like a
    /// node's ([`SUSPECT_JOB_MTBF_NODES`], [`SUSPECT_JOB_MTBF_TO_WORK`]).
    pub fn warnings(&self) -> Vec<String> {
        let mut found: Vec<(String, Vec<usize>)> = vec![];
        for p in &self.points {
            for w in point_warnings(p) {
                match found.iter_mut().find(|(seen, _)| *seen == w) {
                    Some((_, points)) => points.push(p.index),
                    None => found.push((w, vec![p.index])),
                }
            }
        }
        found
            .into_iter()
            .map(|(w, points)| match (self.points.len(), points.len()) {
                (1, _) => w,
                (_, 1) => format!("point {}: {w}", points[0]),
                _ => format!("points {}: {w}", points.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ")),
            })
            .collect()
    }
}

/// What at one point is valid but probably not meant, one line per cause, without the
/// point's index ([`Scenario::warnings`] adds it):
/// - a replayed log none of whose failures hit the job ([`TraceReplay::warning`]);
/// - `job.work` less than one checkpoint write, `job.checkpoint`: the job computes for less
///   time than it takes to save once, most likely the two swapped or a unit mistyped;
/// - `failures.mtbf`, the whole job's MTBF, over [`SUSPECT_JOB_MTBF_TO_WORK`] times the work
///   of a job on [`SUSPECT_JOB_MTBF_NODES`] nodes or more, making each node's over
///   [`SUSPECT_NODE_MTBF_Y`] years: most likely one node's MTBF (`failures.node_mtbf`)
///   written as the job's.
///
/// [`TraceReplay::warning`]: crate::failure::TraceReplay::warning
fn point_warnings(p: &Point) -> Vec<String> {
    let mut found = vec![];
    if let crate::failure::FailureModel::Trace(t) = &p.failures.base
        && let Some(w) = t.warning()
    {
        found.push(w);
    }
    let job = &p.job;
    if job.work_s < job.checkpoint_s {
        found.push(format!(
            "job.work = {} is less than one checkpoint write, job.checkpoint = {}: the job computes for less time \
             than it takes to save once; were the two swapped, or a unit mistyped?",
            crate::report::human_duration(job.work_s),
            crate::report::human_duration(job.checkpoint_s)
        ));
    }
    if let Some((mtbf_s, written)) = &p.given_job_mtbf
        && p.nodes >= SUSPECT_JOB_MTBF_NODES
        && *mtbf_s > SUSPECT_JOB_MTBF_TO_WORK * job.work_s
        && *mtbf_s * p.nodes as f64 > SUSPECT_NODE_MTBF_Y * YEAR_S
    {
        let node_s = mtbf_s * p.nodes as f64;
        let node = if node_s >= YEAR_S {
            format!("{} y", crate::forecast::about(node_s / YEAR_S))
        } else {
            crate::report::human_duration(node_s)
        };
        found.push(format!(
            "failures.mtbf = \"{written}\" is the whole job's MTBF, over {} × its work (job.work = {}) on job.nodes = \
             {}: each node would fail once in {node}, and the job almost never; if \"{written}\" is one node's MTBF, \
             write failures.node_mtbf = \"{written}\" instead",
            SUSPECT_JOB_MTBF_TO_WORK,
            crate::report::human_duration(job.work_s),
            p.nodes
        ));
    }
    found
}

/// Nodes from which a job whose `failures.mtbf` is over [`SUSPECT_JOB_MTBF_TO_WORK`] times its
/// work is warned about ([`Scenario::warnings`]): the mirror of the slow-run warning
/// ([`crate::forecast`]), which catches a job MTBF far too short.
///
/// Why 64: `failures.mtbf` is the whole job's, a node's MTBF over the nodes. On one node or a
/// few, a job MTBF of hundreds of times the work is an ordinary node's (5 years are 1825
/// one-day works); on 64 nodes it makes each node's at least 6400 times the work (18 years
/// for a day's work), beyond the few years production nodes reach. A short job on a reliable
/// machine (64 nodes of 5 years, a work under 7 h) is not warned about: the node MTBF it
/// implies must also exceed [`SUSPECT_NODE_MTBF_Y`].
pub const SUSPECT_JOB_MTBF_NODES: u64 = 64;

/// The node MTBF (years) that `failures.mtbf` × `job.nodes` must exceed for the warning of
/// [`SUSPECT_JOB_MTBF_NODES`]: production nodes fail every few years to a few decades
/// (LANL's 1996–2005 systems: about 1 to 10 years a node), not every century.
pub const SUSPECT_NODE_MTBF_Y: f64 = 100.0;

/// A year of 365 days (s).
const YEAR_S: f64 = 365.0 * 86_400.0;

/// Ratio of `failures.mtbf` to `job.work` above which a job on [`SUSPECT_JOB_MTBF_NODES`] nodes
/// or more is warned about: the job then expects under 1 failure in 100 runs, so checkpointing
/// hardly matters and the run shows next to no overhead, the mark of one node's MTBF written
/// where the job's was meant (`failures.node_mtbf` is a node's).
pub const SUSPECT_JOB_MTBF_TO_WORK: f64 = 100.0;

/// Reads and validates the scenario at `path` (`-`: standard input), then applies `sets`
/// (`KEY=VALUE`) in order.
pub fn load(path: &Path, sets: &[String]) -> Result<Scenario> {
    let text = read_text(path)?;
    parse(&text, path, sets)
}

/// The name of a scenario read from standard input that does not give its `name`.
pub const STDIN_NAME: &str = "stdin";

/// The name of a scenario read from `path` that does not give its `name`: the file's stem,
/// [`STDIN_NAME`] for standard input (`-`, or the absolute `-` a partial summary stores),
/// else `fallback`.
pub(crate) fn default_name(path: &Path, fallback: &str) -> String {
    if path.file_name().is_some_and(|n| n == crate::input::STDIN_PATH) {
        return STDIN_NAME.into();
    }
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| fallback.into())
}

/// Reads the scenario file at `path` as text, or standard input to its end when `path` is
/// `-`; text that is not UTF-8 is an error at the line and column of its first bad byte.
pub(crate) fn read_text(path: &Path) -> Result<String> {
    let at = |line, column, message: String| Error::Scenario {
        origin: Origin::File { path: path.to_path_buf(), line, column },
        key: None,
        message,
    };
    let bytes = if crate::input::is_stdin(path) {
        crate::input::read_stdin_bounded(crate::input::MAX_INPUT_BYTES)
            .map_err(|e| at(None, None, format!("cannot read the scenario from standard input: {e}")))?
    } else {
        crate::input::read_bounded(path, crate::input::MAX_INPUT_BYTES)
            .map_err(|e| at(None, None, format!("cannot read the scenario file: {e}")))?
    };
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let good = e.utf8_error().valid_up_to();
        let before = std::str::from_utf8(&bytes[..good]).expect("valid up to here");
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        at(
            Some(line),
            Some(column),
            format!(
                "byte 0x{:02X} is not UTF-8 text: accepted is a TOML text file in UTF-8 (is this the scenario, or a \
                 binary or compressed file?)",
                bytes[good]
            ),
        )
    })
}

/// Validates the scenario `text` (as read from `path`), then applies `sets` in order.
pub fn parse(text: &str, path: &Path, sets: &[String]) -> Result<Scenario> {
    let spans = SpanMap::new(text, path)?;
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| spans.error_at(e.span(), e.message()))?;
    if let Err(e) = toml::from_str::<RawScenario>(text) {
        let required = [
            ("job", "work, checkpoint and restart"),
            ("failures", "the failure model: mtbf or node_mtbf, law, …, or [failures.trace]"),
        ];
        if let Some(e) = other_command(&spans, &table, &["machine", "schedule"], &["job", "failures"], "efficiency") {
            return Err(e);
        }
        return Err(missing_table(&e, &table, path, &required)
            .unwrap_or_else(|| spans.error_at(e.span(), &key_hint(e.message()))));
    }
    let sweepable = |key: &str| match key.split('.').next().unwrap_or_default() {
        "job" | "failures" | "policy" => Ok(()),
        _ => Err("only job.*, failures.* and policy.* keys can be swept"),
    };
    let sweep = Sweep::new(table, &spans, sets, &sweepable, &deserialize)?;
    let base = deserialize(&sweep.table).map_err(|e| spans.error_at(None, e.message()))?;
    let fail = |f: FieldError, combo: &[usize]| sweep.error(&spans, f, combo, Reach::Everywhere);
    let run = resolve_run(&base.run).map_err(|f| fail(f, &[]))?;

    let context = Context {
        dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        trace_file_from_set: sweep.set_origin("failures.trace.file").is_some(),
        logs: std::cell::RefCell::new(HashMap::new()),
    };
    let points = sweep.resolve_points(&spans, |index, combo, t| {
        let raw = deserialize(t).map_err(|e| spans.error_at(None, e.message()))?;
        Ok(resolve_point(index, sweep.labels(combo), &raw, &context))
    })?;
    let axes = sweep.axes.clone();
    if let Baseline::Point(b) = run.baseline
        && b >= points.len()
    {
        let (count, last) = (points.len(), points.len() - 1);
        let shown = raw_baseline(&base.run);
        return Err(fail(
            field(
                "run.baseline",
                format!(
                    "{shown} is out of range: accepted is a point of this run, 0 to {last} (the sweep has {count} \
                     point{}; the table's `point` column numbers them)",
                    if count == 1 { "" } else { "s" }
                ),
            ),
            &[],
        ));
    }

    if let Some(name) = &base.name {
        check_name(name).map_err(|f| fail(f, &[]))?;
    }
    let name = base.name.clone().unwrap_or_else(|| default_name(path, "scenario"));
    Ok(Scenario {
        name,
        description: base.description.clone(),
        path: path.to_path_buf(),
        text: text.to_string(),
        sets: sets.to_vec(),
        run,
        axes,
        points,
    })
}

/// A scenario's table with its `--set` overrides applied and its `[sweep]` axes checked,
/// one value at a time: the machinery that every kind of scenario file shares (runs here,
/// efficiency studies in [`crate::efficiency`]).
pub(crate) struct Sweep {
    /// The table without `[sweep]`, the `--set` overrides applied.
    pub table: toml::Table,
    /// The axes, in file order (a `--set` of a swept key drops its axis).
    pub axes: Vec<SweepAxis>,
    /// Each axis' values.
    pub values: Vec<Vec<toml::Value>>,
    /// The `--set` argument behind each overridden key (the last one wins).
    sets: Vec<(String, Origin)>,
}

impl Sweep {
    /// Applies `sets` to `table` and checks `[sweep]`: every key must pass `sweepable`
    /// (else its message is the error) and every value must deserialise with `deserialize`.
    pub(crate) fn new<R: std::fmt::Debug>(
        mut table: toml::Table,
        spans: &SpanMap,
        sets: &[String],
        sweepable: &dyn Fn(&str) -> std::result::Result<(), &'static str>,
        deserialize: &dyn Fn(&toml::Table) -> std::result::Result<R, toml::de::Error>,
    ) -> Result<Sweep> {
        let sweep = table.remove("sweep");
        let mut set_keys: Vec<(String, Origin)> = vec![];
        let mut parsed: Vec<(String, toml::Value, Origin)> = vec![];
        for arg in sets {
            let origin = Origin::Set(arg.clone());
            let (key, value) = parse_set(arg)?;
            if key == "sweep" || key.starts_with("sweep.") {
                return Err(scenario_error(origin, &key, "sweeps cannot be set from the command line; edit [sweep]"));
            }
            // Checked on a scratch copy: the path must take a value (not cross a number).
            set_path(&mut table.clone(), &key, value.clone()).map_err(|m| scenario_error(origin.clone(), &key, &m))?;
            parsed.retain(|(k, _, _)| *k != key);
            parsed.push((key.clone(), value, origin.clone()));
            set_keys.retain(|(k, _)| *k != key);
            set_keys.push((key, origin));
        }
        // The last `--set` of each key is in force, in the order they were given. The table is
        // checked after each, but a failure stands only if none after it mends it: `--set
        // failures.burst.branching=0.5 --set failures.burst.decay="30 min"` adds a table whose
        // keys come one at a time. The blame goes to the `--set` after which the final error
        // first appeared and stayed; one overridden later is never blamed.
        let mut pending: Option<(Origin, String, String)> = None;
        for (key, value, origin) in parsed {
            set_path(&mut table, &key, value).map_err(|m| scenario_error(origin.clone(), &key, &m))?;
            pending = match deserialize(&table) {
                Ok(_) => None,
                Err(e) => match pending {
                    Some(p) if p.2 == e.message() => Some(p),
                    _ => Some((origin, key, e.message().to_string())),
                },
            };
        }
        if let Some((origin, key, message)) = pending {
            return Err(scenario_error(origin, &key, &message));
        }
        let mut axes = vec![];
        let mut values_of: Vec<Vec<toml::Value>> = vec![];
        // The points are resolved one by one before any run: a product of three axes of 1000
        // values each (10⁹ points) ran for ever, its memory growing.
        let mut points = 1usize;
        if let Some(sweep) = sweep {
            let toml::Value::Table(sweep) = sweep else {
                return Err(spans.key_error(&["sweep"], "sweep", "must be a table of KEY = [values]"));
            };
            for (key, values) in sweep {
                // A `--set` of a swept key fixes it: the user asked for that one value.
                if set_keys.iter().any(|(k, _)| *k == key) {
                    continue;
                }
                let at = ["sweep", key.as_str()];
                if let toml::Value::Table(inner) = &values
                    && !inner.is_empty()
                {
                    // `policy.factor = [...]` unquoted is TOML for a table `policy` holding
                    // `factor`: name the key the user meant and how to write it.
                    let mut dotted = key.clone();
                    let mut table = inner;
                    while let Some((k, v)) = table.iter().next() {
                        dotted = format!("{dotted}.{k}");
                        match v {
                            toml::Value::Table(t) => table = t,
                            _ => break,
                        }
                    }
                    return Err(spans.key_error(
                        &at,
                        &dotted,
                        &format!(
                            "a dotted key in [sweep] must be quoted, \"{dotted}\" = [...]: unquoted, TOML reads it \
                             as a table `{key}`"
                        ),
                    ));
                }
                let toml::Value::Array(values) = values else {
                    return Err(spans.key_error(
                        &at,
                        &key,
                        "a sweep entry must be an array of values, for example [\"20 s\", \"2 min\"] or [0.5, 1, 2]",
                    ));
                };
                if values.is_empty() {
                    return Err(spans.key_error(&at, &key, "a sweep entry needs at least one value"));
                }
                sweepable(&key).map_err(|m| spans.key_error(&at, &key, m))?;
                // Each value as read (`"2 min"` and `"120 s"`, `1` and `1.0` read the same).
                let mut read: HashMap<String, usize> = HashMap::new();
                let mut written: HashMap<String, usize> = HashMap::new();
                match points.checked_mul(values.len()).filter(|n| *n <= MAX_SWEEP_POINTS) {
                    Some(n) => points = n,
                    None => return Err(too_many_points(spans, &values_of, values.len())),
                }
                for (i, v) in values.iter().enumerate() {
                    let element = [at[0], at[1], &i.to_string()];
                    if v.is_table() {
                        // Setting a whole table would drop the file's other keys in it silently.
                        return Err(spans.key_error(
                            &element,
                            &key,
                            &format!(
                                "a sweep value must be one value, not a table: sweep the keys inside it, for \
                                 example \"{key}.{}\"",
                                v.as_table().and_then(|t| t.keys().next()).map_or("factor", |k| k.as_str())
                            ),
                        ));
                    }
                    // By a canonical text, not a scan of the earlier values: an axis may be long.
                    let canonical = match v {
                        toml::Value::Float(f) => format!("float {:?}", f + 0.0),
                        other => other.to_string(),
                    };
                    if let Some(&j) = written.get(&canonical) {
                        return Err(spans.key_error(
                            &element,
                            &key,
                            &format!(
                                "value #{} ({}) repeats value #{}: accepted are distinct values (a repeat gives \
                                 the same point twice)",
                                i + 1,
                                display_value(v),
                                j + 1
                            ),
                        ));
                    }
                    let mut t = table.clone();
                    set_path(&mut t, &key, v.clone()).map_err(|m| spans.key_error(&element, &key, &m))?;
                    let this =
                        format!("{:?}", deserialize(&t).map_err(|e| spans.key_error(&element, &key, e.message()))?);
                    if let Some(&j) = read.get(&this) {
                        return Err(spans.key_error(
                            &element,
                            &key,
                            &format!(
                                "value #{} ({}) is the same as value #{} ({}): accepted are distinct values (a \
                                 repeat gives the same point twice)",
                                i + 1,
                                display_value(v),
                                j + 1,
                                display_value(&values[j])
                            ),
                        ));
                    }
                    read.insert(this, i);
                    written.insert(canonical, i);
                }
                axes.push(SweepAxis {
                    key: key.clone(),
                    values: values.iter().map(display_value).collect(),
                    json_values: values.iter().map(json_of).collect(),
                });
                values_of.push(values);
            }
        }
        Ok(Sweep { table, axes, values: values_of, sets: set_keys })
    }

    /// The `--set` argument that set `key`, if one did.
    pub(crate) fn set_origin(&self, key: &str) -> Option<Origin> {
        // The last `--set` of a key is the one in force.
        self.sets.iter().rev().find(|(k, _)| k == key).map(|(_, o)| o.clone())
    }

    /// Points of the cartesian product (the last axis varies fastest).
    pub(crate) fn count(&self) -> usize {
        self.values.iter().map(Vec::len).product()
    }

    /// Point `index`: its value index on each axis, and the table with those values set.
    pub(crate) fn point(&self, index: usize) -> (Vec<usize>, toml::Table) {
        let mut combo = vec![0; self.values.len()];
        let mut rest = index;
        for a in (0..self.values.len()).rev() {
            combo[a] = rest % self.values[a].len();
            rest /= self.values[a].len();
        }
        let mut t = self.table.clone();
        for (a, &i) in combo.iter().enumerate() {
            set_path(&mut t, &self.axes[a].key, self.values[a][i].clone()).expect("checked by Sweep::new");
        }
        (combo, t)
    }

    /// The point's labels: each axis' value as written.
    pub(crate) fn labels(&self, combo: &[usize]) -> Vec<String> {
        combo.iter().enumerate().map(|(a, &i)| self.axes[a].values[i].clone()).collect()
    }

    /// Every point, resolved by `resolve` (its index, its combination of axis values, its
    /// table), in order; the first field error is located by [`Sweep::error`], which is told
    /// whether the same key resolves at another point: at point 0 up to
    /// [`POINTS_TRIED_AFTER_AN_ERROR`] more points are tried, past it earlier points did.
    /// An error of `resolve` itself ends the walk as it is.
    pub(crate) fn resolve_points<T>(
        &self,
        spans: &SpanMap,
        mut resolve: impl FnMut(usize, &[usize], &toml::Table) -> Result<std::result::Result<T, FieldError>>,
    ) -> Result<Vec<T>> {
        let mut points = Vec::with_capacity(self.count());
        for index in 0..self.count() {
            let (combo, t) = self.point(index);
            match resolve(index, &combo, &t)? {
                Ok(p) => points.push(p),
                Err(f) => {
                    let mut others_resolve = index > 0;
                    for j in 1..self.count().min(1 + POINTS_TRIED_AFTER_AN_ERROR) {
                        if others_resolve {
                            break;
                        }
                        let (combo, t) = self.point(j);
                        others_resolve = matches!(resolve(j, &combo, &t), Ok(Ok(_)));
                    }
                    let reach = if others_resolve { Reach::ThisPoint } else { Reach::Everywhere };
                    return Err(self.error(spans, f, &combo, reach));
                }
            }
        }
        // A swept key's value in the file is replaced at every point, so no point checks it:
        // check it at point 0 with that one value put back. A range error of its own key is
        // the file's (a negative checkpoint left beside a sweep of good ones is a typo all
        // the same); any other error is the combination's (`interval = "young"` with a free
        // checkpoint, beside a sweep of fixed intervals), which no point runs.
        for axis in &self.axes {
            let Some(value) = get_path(&self.table, &axis.key) else { continue };
            let (combo, mut t) = self.point(0);
            set_path(&mut t, &axis.key, value.clone()).expect("the table holds the key");
            if let Err(f) = resolve(0, &combo, &t)?
                && f.key == axis.key
                && f.message.contains(OUT_OF_RANGE)
            {
                let origin = spans.origin(&axis.key.split('.').collect::<Vec<_>>());
                let message = format!(
                    "{} (this is the file's value, which [sweep] replaces at every point; it is checked all the same)",
                    f.message
                );
                return Err(scenario_error(origin, &f.key, &message));
            }
        }
        Ok(points)
    }

    /// The error `f` at the point `combo`, located where its key's value came from
    /// ([`Sweep::origin_of`]). Where the error is at this point only ([`Reach::ThisPoint`]),
    /// the message ends with the point and its swept values: the same line is fine at other
    /// points (`shape` with `failures.law` swept over weibull and exponential), and a swept
    /// key's value may be wrong only beside the other keys of its point (`failures.law` swept
    /// over exponential and weibull without a `shape`: the error is `failures.law`'s).
    pub(crate) fn error(&self, spans: &SpanMap, f: FieldError, combo: &[usize], reach: Reach) -> Error {
        let origin = self.origin_of(spans, &f.key, combo);
        if reach == Reach::Everywhere || combo.is_empty() || self.count() < 2 {
            return scenario_error(origin, &f.key, &f.message);
        }
        let index = combo.iter().zip(&self.values).fold(0, |acc, (&i, values)| acc * values.len() + i);
        let values: Vec<String> =
            self.axes.iter().zip(self.labels(combo)).map(|(a, v)| format!("{} = {v}", a.key)).collect();
        let message = format!("{} (at sweep point {index}: {})", f.message, values.join(", "));
        scenario_error(origin, &f.key, &message)
    }

    /// Where `key`'s value came from at the point `combo`: its sweep element, its `--set`,
    /// or its place in the file.
    pub(crate) fn origin_of(&self, spans: &SpanMap, key: &str, combo: &[usize]) -> Origin {
        if let Some(&i) = self.axes.iter().position(|a| a.key == key).and_then(|a| combo.get(a)) {
            return spans.origin(&["sweep", key, &i.to_string()]);
        }
        if let Some(o) = self.set_origin(key) {
            return o;
        }
        spans.origin(&key.split('.').collect::<Vec<_>>())
    }
}

/// Whether a sweep point's error is at that point only (another point resolves) or at
/// every point tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Another point resolves: the message names this one.
    ThisPoint,
    /// No point tried resolves: the point is no part of what is wrong.
    Everywhere,
}

/// After an error at a sweep's first point, how many further points are tried to tell an
/// error of that point from one of every point (each a resolve, on the error path only).
const POINTS_TRIED_AFTER_AN_ERROR: usize = 10_000;

/// The error for a sweep whose axes so far (`axes`) and the next one, of `next` values, make
/// more than [`MAX_SWEEP_POINTS`] points.
fn too_many_points(spans: &SpanMap, axes: &[Vec<toml::Value>], next: usize) -> Error {
    let sizes: Vec<usize> = axes.iter().map(Vec::len).chain([next]).collect();
    let total = sizes.iter().map(|&n| n as f64).product::<f64>();
    let shown: Vec<String> = sizes.iter().map(usize::to_string).collect();
    spans.key_error(
        &["sweep"],
        "sweep",
        &format!(
            "the sweep has {} = {} points or more: accepted is at most {MAX_SWEEP_POINTS} points (the product of \
             the axes' lengths); split the study over several scenarios",
            shown.join(" × "),
            shown_number(total)
        ),
    )
}

fn deserialize(table: &toml::Table) -> std::result::Result<RawScenario, toml::de::Error> {
    // A table has no spans to keep: the message can be rebuilt with its hint.
    table.clone().try_into().map_err(|e: toml::de::Error| match e.span() {
        None => serde::de::Error::custom(key_hint(e.message())),
        Some(_) => e,
    })
}

/// The fields a `Deserialize` struct asks for, or the names a `Deserialize` enum accepts:
/// what serde's derive passes to `deserialize_struct` or `deserialize_enum`, caught by a
/// deserializer that only records them.
fn field_names<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    struct Catch<'a>(&'a std::cell::Cell<&'static [&'static str]>);
    impl<'de> serde::Deserializer<'de> for Catch<'_> {
        type Error = serde::de::value::Error;
        fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> std::result::Result<V::Value, Self::Error> {
            Err(serde::de::Error::custom("only the field names are wanted"))
        }
        fn deserialize_struct<V: serde::de::Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> std::result::Result<V::Value, Self::Error> {
            self.0.set(fields);
            Err(serde::de::Error::custom("only the field names are wanted"))
        }
        fn deserialize_enum<V: serde::de::Visitor<'de>>(
            self,
            _: &'static str,
            variants: &'static [&'static str],
            _: V,
        ) -> std::result::Result<V::Value, Self::Error> {
            self.0.set(variants);
            Err(serde::de::Error::custom("only the variant names are wanted"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
            unit_struct newtype_struct seq tuple tuple_struct map identifier ignored_any
        }
    }
    let fields = std::cell::Cell::new(&[][..]);
    let _ = T::deserialize(Catch(&fields));
    fields.get()
}

/// `message` with a hint where it is serde's "unknown field `KEY`, expected …": the table
/// the key belongs to ([`with_table_hint`]) or, failing that, the listed key it most likely
/// misspells ([`with_closest_key`]).
fn key_hint(message: &str) -> String {
    let hinted = with_table_hint(message);
    let closest = with_closest_key(message);
    match (hinted.strip_prefix(message), closest != message) {
        // Both: a near-miss of this table's key comes first, the other table after
        // (`[failures.racks]` means `rack` here, though `racks` is a key of [topology]).
        (Some(table), true) if !table.is_empty() => {
            format!("{closest} ({})", table.trim_start_matches("; "))
        }
        (Some(table), false) if !table.is_empty() => hinted,
        _ => closest,
    }
}

/// Keys closer than this (normalised Damerau–Levenshtein similarity, 1 = equal) to a listed
/// key are offered as what was meant: `chekpoint` → `checkpoint` (0.9), `mtfb` → `mtbf`
/// (0.75), but not `law` → `mtbf`.
const CLOSEST_KEY_SIMILARITY: f64 = 0.7;

/// `message` ending in "did you mean `KEY`?" where it is serde's "unknown field `X`,
/// expected …" and one listed key is similar enough to X ([`CLOSEST_KEY_SIMILARITY`]).
pub(crate) fn with_closest_key(message: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else {
        return message.to_string();
    };
    let Some((key, expected)) = rest.split_once('`') else {
        return message.to_string();
    };
    let listed = expected.split('`').skip(1).step_by(2);
    let best = listed
        .map(|k| (strsim::normalized_damerau_levenshtein(&key.to_lowercase(), k), k))
        .filter(|&(score, _)| score >= CLOSEST_KEY_SIMILARITY)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match best {
        Some((_, k)) => format!("{message}; did you mean `{k}`?"),
        None => message.to_string(),
    }
}

/// `message` with a hint where it is serde's "unknown field `KEY`, expected …" in a top-level
/// table of a run scenario (or at the top level) and KEY is a key of another table:
/// `failures_during_checkpoint` under `[failures]` is told it belongs in `[job]`, `file`
/// under `[failures]` that it belongs in `[failures.trace]`. Within a nested table (a class,
/// a domain, a burst) the user is in the right place with a wrong name: no hint.
fn with_table_hint(message: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else {
        return message.to_string();
    };
    let Some((key, expected)) = rest.split_once('`') else {
        return message.to_string();
    };
    // The fields serde lists: every other back-quoted word.
    let mut listed: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    listed.sort_unstable();
    let top: [(&str, &[&str]); 6] = [
        ("the top level (before any table)", field_names::<RawScenario>()),
        ("[run]", field_names::<RawRun>()),
        ("[job]", field_names::<RawJob>()),
        ("[failures]", field_names::<RawFailures>()),
        ("[policy]", field_names::<RawPolicy>()),
        ("[topology]", field_names::<RawTopology>()),
    ];
    let nested: [(&str, &[&str]); 4] = [
        ("[failures.trace]", field_names::<RawTrace>()),
        ("[failures.burst]", field_names::<RawBurst>()),
        ("[failures.random]", field_names::<RawRandom>()),
        ("[[failures.class]]", field_names::<RawClass>()),
    ];
    let same = |fields: &[&str]| {
        let mut f = fields.to_vec();
        f.sort_unstable();
        f == listed
    };
    let Some(here) = top.iter().position(|(_, fields)| same(fields)) else {
        return message.to_string();
    };
    let homes: Vec<&str> = top
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != here)
        .map(|(_, t)| t)
        .chain(&nested)
        .filter(|(_, fields)| fields.contains(&key))
        .map(|(name, _)| *name)
        .collect();
    if homes.is_empty() {
        return message.to_string();
    }
    format!("{message}; `{key}` is a key of {}", homes.join(" and "))
}

/// The error for a file's deserialization error `e` when it is a missing top-level table of
/// `required` (name, what it holds); `None` for any other error. Serde's own error for it spans
/// the whole document, so it named whichever table spans it too (`key `failures`: missing
/// field `job``).
pub(crate) fn missing_table(
    e: &toml::de::Error,
    table: &toml::Table,
    path: &Path,
    required: &[(&str, &str)],
) -> Option<Error> {
    let (name, holds) = required
        .iter()
        .find(|(name, _)| e.message().starts_with(&format!("missing field `{name}`")) && !table.contains_key(*name))?;
    Some(Error::Scenario {
        origin: Origin::File { path: path.to_path_buf(), line: None, column: None },
        key: Some((*name).to_string()),
        message: format!("missing: accepted is a file with a [{name}] table ({holds})"),
    })
}

/// Where a file holds a table (`theirs`) that only another command's files hold and none of
/// this command's own (`ours`): an error at that table saying which command takes the file.
pub(crate) fn other_command(
    spans: &SpanMap,
    table: &toml::Table,
    theirs: &[&str],
    ours: &[&str],
    command: &str,
) -> Option<Error> {
    let found = theirs.iter().find(|k| table.contains_key(**k))?;
    if ours.iter().any(|k| table.contains_key(*k)) {
        return None;
    }
    let tables = |keys: &[&str]| keys.iter().map(|k| format!("[{k}]")).collect::<Vec<_>>().join(", ");
    Some(spans.key_error(
        &[found],
        found,
        &format!(
            "this file has {} but no {}: it is for `ckptsim {command}`, not this command (accepted here is a \
             file with {})",
            tables(&theirs.iter().copied().filter(|k| table.contains_key(*k)).collect::<Vec<_>>()),
            tables(ours),
            tables(ours)
        ),
    ))
}

pub(crate) fn scenario_error(origin: Origin, key: &str, message: &str) -> Error {
    Error::Scenario { origin, key: Some(key.to_string()), message: with_names(Some(key), &plain(message)) }
}

/// The names a key of a scenario accepts, where its value is one of a few names: by the
/// key's last part (`policy.rate`, `failures.rack.law`), which means the same in every table
/// it appears in.
fn names_of(key: &str) -> Option<&'static [&'static str]> {
    Some(match key.rsplit('.').next()? {
        "on_failure" => field_names::<OnFailureName>(),
        "placement" => field_names::<PlacementName>(),
        "law" => field_names::<LawName>(),
        "start" => field_names::<StartName>(),
        "renewal" => field_names::<RenewalName>(),
        "sampler" => field_names::<SamplerName>(),
        "end" => field_names::<TraceEndName>(),
        "malformed" => field_names::<MalformedName>(),
        "rate" => field_names::<RateBasis>(),
        "causes" => field_names::<crate::failure::Cause>(),
        _ => return None,
    })
}

/// `message` in the user's words where a key that takes one of a few names ([`names_of`])
/// was given another type of value: TOML's "wanted string or table" (in a file) and serde's
/// "invalid type: …, expected string only" (from `--set`) name neither the type wanted nor
/// the names. Other messages are unchanged.
fn with_names(key: Option<&str>, message: &str) -> String {
    let wrong_type = message == "wanted string or table"
        || (message.starts_with("invalid type:") && message.ends_with("expected string only"));
    match key.and_then(names_of).filter(|names| wrong_type && !names.is_empty()) {
        Some(names) => {
            let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
            let (last, rest) = quoted.split_last().expect("not empty");
            let listed = if rest.is_empty() { last.clone() } else { format!("{} or {last}", rest.join(", ")) };
            format!("wanted a name: accepted is {listed}")
        }
        None => message.to_string(),
    }
}

/// A deserializer's message in the user's words: Rust type names become what a scenario
/// writes (`expected f64` → `expected a number`, `expected struct RawJob` → `expected a
/// table of keys`); other messages are unchanged.
pub(crate) fn plain(message: &str) -> String {
    let mut text = message.trim().to_string();
    for (rust, user) in [
        ("expected f64", "expected a number"),
        ("expected u64", "expected an integer ≥ 0"),
        ("expected i64", "expected an integer"),
        ("expected usize", "expected an integer ≥ 0"),
    ] {
        text = text.replace(rust, user);
    }
    // `--set policy.factor=1e400` (or `NaN`, `.5`): TOML did not read the value as a number,
    // so it stayed text; say why.
    if let Some(value) =
        text.strip_prefix("invalid type: string \"").and_then(|r| r.strip_suffix("\", expected a number"))
        && let Ok(x) = value.trim().parse::<f64>()
    {
        // A number TOML reads once unquoted (`shape = "0.7"` in a file): the quotes made it text.
        let toml_number = format!("x = {}", value.trim())
            .parse::<toml::Table>()
            .is_ok_and(|t| t.get("x").is_some_and(|v| v.is_float() || v.is_integer()));
        let why = if toml_number {
            format!("it is quoted, so TOML reads it as text: write it without quotes, {}", value.trim())
        } else if x.is_infinite() && !value.to_ascii_lowercase().contains("inf") {
            "it is beyond the range of numbers (about ±1.8e308)".to_string()
        } else {
            "TOML writes numbers as 0.5, 5.0, 1e3, inf and nan (lower case)".to_string()
        };
        text = format!("`{}` is not read as a number: {why}", shorten(value));
    } else if let Some(value) =
        text.strip_prefix("invalid type: string \"").and_then(|r| r.strip_suffix("\", expected a number"))
    {
        // Text that is no number at all (`--set policy.factor=abc`), in the integer keys' words.
        text = format!(
            "\"{}\" is text, not a number: accepted is a number such as 0.5, 5.0 or 1e3 (in a file, without quotes)",
            shorten(value)
        );
    } else if let Some(value) =
        text.strip_prefix("invalid type: string \"").and_then(|r| r.strip_suffix("\", expected a boolean"))
    {
        text = format!("\"{}\" is text, not a boolean: accepted is true or false (without quotes)", shorten(value));
    }
    const STRUCT: &str = "expected struct ";
    while let Some(at) = text.find(STRUCT) {
        let name_end = text[at + STRUCT.len()..]
            .find(|c: char| !c.is_alphanumeric() && c != '_')
            .map_or(text.len(), |n| at + STRUCT.len() + n);
        text.replace_range(at..name_end, "expected a table of keys");
    }
    text
}

/// Splits `KEY=VALUE`; the value is read as TOML (`true`, `0.5`, `"300 s"`) and otherwise
/// taken as a string, so `--set job.checkpoint=300s` needs no shell quoting.
pub(crate) fn parse_set(arg: &str) -> Result<(String, toml::Value)> {
    let origin = Origin::Set(arg.to_string());
    let Some((key, value)) = arg.split_once('=') else {
        return Err(Error::Scenario {
            origin,
            key: None,
            message: "expected KEY=VALUE, for example job.checkpoint=\"300 s\"".into(),
        });
    };
    let key = key.trim();
    if key.is_empty() || key.split('.').any(str::is_empty) {
        return Err(Error::Scenario {
            origin,
            key: None,
            message: format!("`{key}` is not a dotted key such as job.checkpoint"),
        });
    }
    let value = value.trim();
    let table = toml::from_str::<toml::Table>(&format!("v = {value}")).ok();
    // `"1 h"` and a newline, then `[job]` and more lines, reads as a table of more keys than
    // `v`: those would be dropped without a word.
    // A key that only takes text keeps what was typed, lines and all, as before.
    if let Some(extra) = table.as_ref().and_then(|t| t.keys().find(|k| *k != "v")).filter(|_| !TEXT_KEYS.contains(&key))
    {
        return Err(Error::Scenario {
            origin,
            key: Some(key.to_string()),
            message: format!(
                "the value holds more than one TOML value (`{}` follows on another line): accepted is one value, \
                 and one --set per key",
                shorten(extra)
            ),
        });
    }
    let parsed = table.and_then(|mut t| t.remove("v"));
    let parsed = match parsed {
        // A key that only takes text keeps what was typed (`--set name=2024`), unless quoted.
        Some(v) if TEXT_KEYS.contains(&key) && !v.is_str() => None,
        other => other,
    };
    Ok((key.to_string(), parsed.unwrap_or_else(|| toml::Value::String(value.to_string()))))
}

/// Scenario keys whose value is always text (a name or a path): `--set` takes a value that
/// would read as a number or a bool (`2024`, `true`) as that text.
const TEXT_KEYS: &[&str] = &["name", "description", "failures.trace.file", "schedule.file"];

pub(crate) fn set_path(table: &mut toml::Table, key: &str, value: toml::Value) -> std::result::Result<(), String> {
    let parts: Vec<&str> = key.split('.').collect();
    let (last, parents) = parts.split_last().expect("split yields at least one part");
    let mut t = table;
    for (i, p) in parents.iter().enumerate() {
        let entry = t.entry(p.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = match entry {
            toml::Value::Table(inner) => inner,
            _ => return Err(format!("`{}` is a value, not a table", parts[..=i].join("."))),
        };
    }
    t.insert(last.to_string(), value);
    Ok(())
}

/// What every range error of a single value says ([`field`] messages such as `"-5 s" is out
/// of range: accepted is a duration ≥ 0`): the swept keys' file values are checked for these.
const OUT_OF_RANGE: &str = " is out of range: accepted is ";

/// The value at the dotted `key` of `table`, if it holds one.
fn get_path<'t>(table: &'t toml::Table, key: &str) -> Option<&'t toml::Value> {
    let (parents, last) = key.rsplit_once('.').map_or((None, key), |(p, l)| (Some(p), l));
    let mut t = table;
    for p in parents.into_iter().flat_map(|p| p.split('.')) {
        t = t.get(p)?.as_table()?;
    }
    t.get(last)
}

pub(crate) fn display_value(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A range violation found while resolving: the key and what is accepted.
pub(crate) struct FieldError {
    pub(crate) key: String,
    pub(crate) message: String,
}

pub(crate) fn field(key: &str, message: impl Into<String>) -> FieldError {
    FieldError { key: key.to_string(), message: message.into() }
}

pub(crate) fn duration_at_least(
    key: &str,
    v: &DurationS,
    strictly_positive: bool,
) -> std::result::Result<f64, FieldError> {
    let ok = if strictly_positive { v.0 > 0.0 } else { v.0 >= 0.0 };
    if ok {
        // "-0 s" is zero: adding +0.0 turns −0.0 into +0.0, so messages never say "-0 s".
        Ok(v.0 + 0.0)
    } else {
        let range = if strictly_positive { "a duration > 0" } else { "a duration ≥ 0" };
        Err(field(
            key,
            format!("\"{}\" is out of range: accepted is {range}, with a unit ({UNITS_HINT})", shorten(&v.1)),
        ))
    }
}

/// `run.baseline` as written, for messages.
fn raw_baseline(raw: &RawRun) -> String {
    raw.baseline.map_or_else(String::new, |b| b.to_string())
}

fn resolve_run(raw: &RawRun) -> std::result::Result<RunSettings, FieldError> {
    let stop = match (raw.replications, raw.precision) {
        (Some(_), Some(_)) => {
            return Err(field("run.precision", "give either run.replications or run.precision, not both"));
        }
        (Some(n), None) if n < 2 => {
            return Err(field(
                "run.replications",
                format!("{n} is out of range: accepted is an integer ≥ 2 (a CI needs two)"),
            ));
        }
        (Some(n), None) => Stop::Replications(n),
        (None, Some(h)) if !(h > 0.0 && h.is_finite()) => {
            return Err(field(
                "run.precision",
                format!(
                    "{h} is out of range: accepted is a finite number > 0 (absolute 95% CI half-width of the overhead)"
                ),
            ));
        }
        (None, Some(h)) => Stop::Precision(h),
        (None, None) => Stop::Replications(DEFAULT_REPLICATIONS),
    };
    // Checked against the points once they are known.
    let baseline = raw.baseline.map_or(Baseline::None, |b| Baseline::Point(usize::try_from(b).unwrap_or(usize::MAX)));
    Ok(RunSettings { stop, seed: raw.seed.unwrap_or(0), baseline })
}

fn exposure(flag: Option<bool>) -> Exposure {
    if flag.unwrap_or(true) { Exposure::CanFail } else { Exposure::CannotFail }
}

fn resolve_point(
    index: usize,
    labels: Vec<String>,
    raw: &RawScenario,
    context: &Context,
) -> std::result::Result<Point, FieldError> {
    let j = &raw.job;
    let job = Job {
        work_s: duration_at_least("job.work", &j.work, true)?,
        checkpoint_s: duration_at_least("job.checkpoint", &j.checkpoint, false)?,
        restart_s: duration_at_least("job.restart", &j.restart, false)?,
        downtime_s: match &j.downtime {
            Some(d) => duration_at_least("job.downtime", d, false)?,
            None => 0.0,
        },
        final_checkpoint: if j.final_checkpoint.unwrap_or(true) {
            FinalCheckpoint::Written
        } else {
            FinalCheckpoint::Skipped
        },
        checkpoint_exposure: exposure(j.failures_during_checkpoint),
        restart_exposure: exposure(j.failures_during_restart),
        on_failure: match j.on_failure.unwrap_or(OnFailureName::Restart) {
            OnFailureName::Restart => OnFailure::Restart,
            OnFailureName::EndJob => OnFailure::EndJob,
        },
    };
    check_job_scales(&job)?;
    let level2 = j.level2.as_ref().map(resolve_level2).transpose()?;
    let nodes = j.nodes.unwrap_or(1);
    if nodes == 0 {
        return Err(field("job.nodes", "0 is out of range: accepted is an integer ≥ 1"));
    }
    let base = match &raw.failures.trace {
        Some(t) => resolve_trace(&raw.failures, t, nodes, raw.job.placement, context)?,
        None => resolve_failures(&raw.failures, nodes)?,
    };
    let base_mtbf_s = base.mtbf_s();
    let failures = resolve_correlated(raw, base, nodes)?;
    let mtbf_s = failures.mtbf_s();
    if mtbf_s.is_nan() || mtbf_s < f64::MIN_POSITIVE {
        // 0 or subnormal: the job's failure rate overflowed (a mean of 1e-320 s), and the
        // interval rules gave 0 s, blamed on the interval.
        let key = if base_mtbf_s >= f64::MIN_POSITIVE {
            // The base is fine: blame the correlated cause of the highest rate (a domain's or
            // the random events' mean, or the bursts' branching), at its key.
            let rates = failures.expected_cause_rates_per_s();
            let worst = crate::failure::Cause::ALL
                .into_iter()
                .filter(|c| *c != crate::failure::Cause::Nodes)
                .max_by(|a, b| rates[a.index()].total_cmp(&rates[b.index()]));
            let f = &raw.failures;
            // The mean's key where the file gives one, else the empirical law's times.
            let has_mtbf = |c: crate::failure::Cause| match c {
                crate::failure::Cause::Rack => f.rack.as_ref().is_some_and(|d| d.mtbf.is_some()),
                crate::failure::Cause::Switch => f.switch.as_ref().is_some_and(|d| d.mtbf.is_some()),
                crate::failure::Cause::Power => f.power.as_ref().is_some_and(|d| d.mtbf.is_some()),
                crate::failure::Cause::System => f.system.as_ref().is_some_and(|d| d.mtbf.is_some()),
                crate::failure::Cause::Random => f.random.as_ref().is_some_and(|d| d.mtbf.is_some()),
                _ => true,
            };
            match worst {
                Some(crate::failure::Cause::Burst) => "failures.burst.branching".to_string(),
                Some(c) if has_mtbf(c) => format!("failures.{}.mtbf", c.name()),
                Some(c) => format!("failures.{}.times", c.name()),
                None => "failures".to_string(),
            }
        } else if raw.failures.node_mtbf.is_some() {
            "failures.node_mtbf".to_string()
        } else if raw.failures.class.is_some() {
            "failures.class".to_string()
        } else {
            "failures.mtbf".to_string()
        };
        return Err(field(
            &key,
            format!(
                "the job's MTBF comes to {} s here, too small to simulate (its failure rate overflows): accepted is a \
                 job MTBF ≥ 2.2e-308 s (the smallest normal floating-point number)",
                shown_number(mtbf_s),
            ),
        ));
    }
    let rule = raw.policy.interval.unwrap_or(IntervalRule::Young);
    let factor = raw.policy.factor.unwrap_or(1.0);
    if !(factor > 0.0 && factor.is_finite()) {
        return Err(field(
            "policy.factor",
            format!("{} is out of range: accepted is a finite number > 0", shown_number(factor)),
        ));
    }
    let rate = raw.policy.rate.unwrap_or(RateBasis::Failures);
    let rule_mtbf_s = match rate {
        RateBasis::Failures => mtbf_s,
        RateBasis::Clusters => mtbf_s / (1.0 - failures.burst.map_or(0.0, |b| b.branching)),
    };
    let two_level = match level2 {
        Some((mut two, EveryRule::Optimal)) => {
            two.every = optimal_every(rule, factor, &job, &two, &failures, rate)?;
            Some(two)
        }
        other => other.map(|(two, _)| two),
    };
    let base_s = match &two_level {
        Some(two) => two_level_interval_of(rule, &job, two, &failures, rate)?,
        None => interval_of(rule, &job, rule_mtbf_s)?,
    };
    let interval_s = base_s * factor;
    if interval_s <= 0.0 || interval_s.is_nan() {
        return Err(field(
            "policy.interval",
            format!(
                "\"{}\" gives an interval of {interval_s} s here (job.checkpoint = {} s): accepted is an interval > 0; give a duration instead",
                rule.name(),
                job.checkpoint_s
            ),
        ));
    }
    let chunks = job.work_s / interval_s;
    if chunks > MAX_CHUNKS {
        // Blame the factor where the rule's own interval would have been fine.
        let key = if job.work_s / base_s <= MAX_CHUNKS { "policy.factor" } else { "policy.interval" };
        let n = shown_number;
        let rule_name = match rule {
            IntervalRule::Fixed(s) => format!("{} s", n(s)),
            _ => format!("\"{}\"", rule.name()),
        };
        let times = match (rule, factor == 1.0) {
            (IntervalRule::Fixed(_), true) => String::new(),
            (_, true) => format!(" = {} s", n(interval_s)),
            _ => format!(" × factor {} = {} s", n(factor), n(interval_s)),
        };
        return Err(field(
            key,
            format!(
                "the interval {rule_name}{times} cuts job.work = {} s into {} chunks: accepted is at most \
                 {MAX_CHUNKS:e} chunks, an interval ≥ {} s",
                n(job.work_s),
                n(chunks),
                n(job.work_s / MAX_CHUNKS)
            ),
        ));
    }
    if two_level.is_some() && chunks > MAX_TWO_LEVEL_CHUNKS {
        return Err(field(
            "policy.interval",
            format!(
                "{} s cuts job.work = {} s into {} chunks: with [job.level2] accepted is at most \
                 {MAX_TWO_LEVEL_CHUNKS:e} chunks (played one by one), an interval ≥ {} s",
                shown_number(interval_s),
                shown_number(job.work_s),
                shown_number(chunks),
                shown_number(job.work_s / MAX_TWO_LEVEL_CHUNKS)
            ),
        ));
    }
    let given_job_mtbf = raw.failures.mtbf.as_ref().map(|d| (d.0, d.1.to_string()));
    Ok(Point { index, labels, job, nodes, failures, rule, rate, factor, interval_s, two_level, given_job_mtbf })
}

/// The longest of a job's durations (work, checkpoint, restart, downtime) that is accepted
/// (s). With at most [`MAX_CHUNKS`] chunks and [`Limits::max_failures`](crate::engine::Limits)
/// failures, a replication's wall time then stays below 10¹²·(W + δ + R + D) ≤ 4·10¹¹² s,
/// whose square the summaries can hold (it overflows past about 1.3·10¹⁵⁴).
pub const MAX_JOB_DURATION_S: f64 = 1e100;

/// The largest ratio of a job's fixed costs (checkpoint + restart + downtime) to its work
/// that is accepted: the overhead then stays below 10¹²·(1 + 10¹⁰⁰), whose square the
/// summaries can hold.
pub const MAX_COST_TO_WORK: f64 = 1e100;

/// Refuses job durations whose replications could not be summarised: a duration past
/// [`MAX_JOB_DURATION_S`], or costs past [`MAX_COST_TO_WORK`] × the work (such runs used to
/// fail only once they ran, exit 1).
fn check_job_scales(job: &Job) -> std::result::Result<(), FieldError> {
    let n = shown_number;
    let durations = [
        ("job.work", job.work_s),
        ("job.checkpoint", job.checkpoint_s),
        ("job.restart", job.restart_s),
        ("job.downtime", job.downtime_s),
    ];
    for (key, value_s) in durations {
        if value_s > MAX_JOB_DURATION_S {
            return Err(field(
                key,
                format!("{} s is out of range: accepted is a duration ≤ {MAX_JOB_DURATION_S:e} s", n(value_s)),
            ));
        }
    }
    let costs_s = job.checkpoint_s + job.restart_s + job.downtime_s;
    if costs_s > MAX_COST_TO_WORK * job.work_s {
        return Err(field(
            "job.work",
            format!(
                "{} s is too small beside job.checkpoint + job.restart + job.downtime = {} s: the overhead could \
                 not be summarised; accepted is a work ≥ {} s (the costs at most {MAX_COST_TO_WORK:e} × the work)",
                n(job.work_s),
                n(costs_s),
                n(costs_s / MAX_COST_TO_WORK)
            ),
        ));
    }
    Ok(())
}

/// The most nodes the per-node reference sampler (`failures.sampler = "per-node"`) accepts:
/// it keeps every node on a heap, so its memory and set-up time grow with the nodes.
pub const MAX_PER_NODE_SAMPLER_NODES: u64 = 10_000_000;

/// The most nodes a `[topology]` may hold: 2⁵³, below which node counts are exact as f64.
pub const MAX_PLATFORM_NODES: u64 = 1 << 53;

/// The most points a `[sweep]` may have (the product of its axes' lengths): every point is
/// resolved before the study runs, and keeps its summaries while it runs (a run's summaries
/// take about 0.5 MB a point, mostly the wall-time histogram: 10,000 points about 5 GB).
pub const MAX_SWEEP_POINTS: usize = 10_000;

/// The most chunks (checkpoint intervals) a job's work may be cut into. Chunk counts are
/// integers in the engine and the closed forms; far below 2⁵³ they stay exact, and no real
/// study checkpoints a job 10¹² times.
pub const MAX_CHUNKS: f64 = 1e12;

/// Checks a scenario's `name`, which names its output files inside `--out`: a plain file name,
/// not empty, without path separators and not `.` or `..`, so no file lands outside `--out`.
pub(crate) fn check_name(name: &str) -> std::result::Result<(), FieldError> {
    let bad = name.trim().is_empty()
        || name == "."
        || name == ".."
        || name.chars().any(|c| c == '/' || c == '\\' || c.is_control());
    if bad {
        return Err(field(
            "name",
            format!(
                "{:?} cannot name the output files: accepted is a non-empty file name without `/`, `\\` or \
                 control characters, other than `.` and `..`",
                shorten(name)
            ),
        ));
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(field(
            "name",
            format!(
                "{:?} is {} bytes long: accepted is a name of at most {MAX_NAME_BYTES} bytes (file systems allow 255 \
                 in a file name, and the output files add suffixes such as .shard-I-of-N.json)",
                shorten(name),
                name.len()
            ),
        ));
    }
    Ok(())
}

/// The longest `name` (bytes, UTF-8) that a scenario accepts: the 255 bytes that Linux,
/// macOS and Windows allow in a file name, less the longest suffix an output file adds
/// (`.shard-I-of-N.json` with two 20-digit numbers is 56 bytes).
pub const MAX_NAME_BYTES: usize = 199;

/// The law of `spec` with mean `mean_s` (s); the empirical list is rescaled to that mean
/// when one is given.
fn build_law(spec: &LawSpec, mean_s: Option<f64>) -> std::result::Result<Law, FieldError> {
    let key = |k: &str| format!("{}.{k}", spec.prefix);
    let unused = |k: &str, present: bool, applies: &str| {
        if present { Err(field(&key(k), format!("`{k}` applies to {applies} only"))) } else { Ok(()) }
    };
    let need_mean = || {
        mean_s.ok_or_else(|| {
            field(&key("mtbf"), "give the mean: failures.mtbf (the job's MTBF) or failures.node_mtbf (per node)")
        })
    };
    let range = |k: &str, r: Result<Law, String>| r.map_err(|m| field(&key(k), m));
    match spec.law {
        LawName::Exponential => {
            unused("shape", spec.shape.is_some(), "weibull and gamma")?;
            unused("sigma", spec.sigma.is_some(), "lognormal")?;
            unused("times", spec.times.is_some(), "empirical")?;
            range("mtbf", Law::exponential(need_mean()?))
        }
        LawName::Weibull | LawName::Gamma => {
            unused("sigma", spec.sigma.is_some(), "lognormal")?;
            unused("times", spec.times.is_some(), "empirical")?;
            // A missing key has no place of its own: the law that needs it is blamed, where
            // it was written or set (`--set failures.law=weibull` was blamed on the file).
            let shape = spec.shape.ok_or_else(|| {
                let (law, (lo, hi)) = if spec.law == LawName::Weibull {
                    ("weibull", crate::failure::law::WEIBULL_SHAPE_RANGE)
                } else {
                    ("gamma", crate::failure::law::GAMMA_SHAPE_RANGE)
                };
                field(&key("law"), format!("{law} needs a shape: give {} (accepted is {lo} to {hi})", key("shape")))
            })?;
            let mean = need_mean()?;
            if spec.law == LawName::Weibull {
                range("shape", Law::weibull(mean, shape))
            } else {
                range("shape", Law::gamma(mean, shape))
            }
        }
        LawName::Lognormal => {
            unused("shape", spec.shape.is_some(), "weibull and gamma (lognormal takes sigma)")?;
            unused("times", spec.times.is_some(), "empirical")?;
            let sigma = spec.sigma.ok_or_else(|| {
                field(&key("law"), {
                    let (lo, hi) = crate::failure::law::LOGNORMAL_SIGMA_RANGE;
                    format!("lognormal needs {}, the sd of ln X (accepted is {lo} to {hi})", key("sigma"))
                })
            })?;
            range("sigma", Law::lognormal(need_mean()?, sigma))
        }
        LawName::Empirical => {
            unused("shape", spec.shape.is_some(), "weibull and gamma")?;
            unused("sigma", spec.sigma.is_some(), "lognormal")?;
            let times = spec
                .times
                .ok_or_else(|| field(&key("law"), format!("empirical needs {} = [\"…\", …]", key("times"))))?;
            let list: Vec<f64> = times.iter().map(|d| d.0).collect();
            let law = range("times", Law::empirical(&list))?;
            Ok(match mean_s {
                Some(m) if m > 0.0 && m.is_finite() => {
                    let factor = m / law.mean_s();
                    let (lo, hi) = list.iter().fold((f64::INFINITY, 0.0_f64), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
                    if !(lo * factor > 0.0 && (hi * factor).is_finite()) {
                        return Err(field(
                            &key("times"),
                            format!(
                                "rescaled to the mean {m} s, these times would run from {} s to {} s: accepted are \
                                 times and a mean that keep every rescaled time finite and > 0",
                                lo * factor,
                                hi * factor
                            ),
                        ));
                    }
                    law.scaled(factor)
                }
                Some(m) => {
                    return Err(field(&key("mtbf"), format!("{m} s is out of range: accepted is a duration > 0")));
                }
                None => law,
            })
        }
    }
}

/// Topology, placement, domain events, random multi-node events and bursts around the
/// job's own failure model.
fn resolve_correlated(raw: &RawScenario, base: FailureModel, nodes: u64) -> std::result::Result<Failures, FieldError> {
    let f = &raw.failures;
    let topology = match &raw.topology {
        None => None,
        Some(t) => {
            for (key, v) in [
                ("topology.racks", Some(t.racks)),
                ("topology.nodes_per_rack", Some(t.nodes_per_rack)),
                ("topology.racks_per_switch", t.racks_per_switch),
                ("topology.racks_per_power", t.racks_per_power),
            ] {
                if v == Some(0) {
                    return Err(field(key, "0 is out of range: accepted is an integer ≥ 1"));
                }
            }
            // The node count must not wrap (it did: 2⁶³ racks × 2⁶³ nodes made "1 nodes").
            if t.racks.checked_mul(t.nodes_per_rack).is_none_or(|n| n > MAX_PLATFORM_NODES) {
                return Err(field(
                    "topology.nodes_per_rack",
                    format!(
                        "{} racks × {} nodes per rack is too large a platform: accepted is racks × nodes_per_rack \
                         ≤ 2⁵³ = {MAX_PLATFORM_NODES} nodes",
                        t.racks, t.nodes_per_rack
                    ),
                ));
            }
            Some(Topology {
                racks: t.racks,
                nodes_per_rack: t.nodes_per_rack,
                racks_per_switch: t.racks_per_switch,
                racks_per_power: t.racks_per_power,
            })
        }
    };
    let placement = match raw.job.placement {
        None | Some(PlacementName::Packed) => Placement::Packed,
        Some(PlacementName::Spread) => Placement::Spread,
        Some(PlacementName::Random) => Placement::Random,
    };
    let mut domains = vec![];
    for (level, d) in
        [(Level::Rack, &f.rack), (Level::Switch, &f.switch), (Level::Power, &f.power), (Level::System, &f.system)]
    {
        let Some(d) = d else { continue };
        let prefix = format!("failures.{}", level.name());
        let Some(topo) = &topology else {
            return Err(field(&prefix, "domain events need a [topology] (racks, nodes_per_rack)"));
        };
        if topo.racks_per(level).is_none() {
            let key = format!("topology.racks_per_{}", level.name());
            return Err(field(&prefix, format!("{} domains need {key} in [topology]", level.name())));
        }
        let mean = d.mtbf.as_ref().map(|m| duration_at_least(&format!("{prefix}.mtbf"), m, true)).transpose()?;
        let spec = LawSpec {
            prefix: prefix.clone(),
            law: d.law.unwrap_or(LawName::Exponential),
            shape: d.shape,
            sigma: d.sigma,
            times: d.times.as_deref(),
        };
        let law = build_law(&spec, mean).map_err(|mut e| {
            if e.key.ends_with(".mtbf") {
                e.message = format!("give {prefix}.mtbf, the mean time between failures of one {}", level.name());
            }
            e
        })?;
        domains.push(DomainEvents { level, law, start: start_or_stationary(d.start) });
    }
    let random = match &f.random {
        None => None,
        Some(r) => {
            let Some(topo) = &topology else {
                return Err(field("failures.random", "random multi-node events need a [topology]"));
            };
            if r.nodes == 0 || r.nodes > topo.nodes() {
                return Err(field(
                    "failures.random.nodes",
                    format!("{} is out of range: accepted is 1 to the platform's {} nodes", r.nodes, topo.nodes()),
                ));
            }
            let mean = r.mtbf.as_ref().map(|m| duration_at_least("failures.random.mtbf", m, true)).transpose()?;
            let spec = LawSpec {
                prefix: "failures.random".into(),
                law: r.law.unwrap_or(LawName::Exponential),
                shape: r.shape,
                sigma: r.sigma,
                times: r.times.as_deref(),
            };
            Some(RandomEvents { nodes: r.nodes, law: build_law(&spec, mean)?, start: start_or_stationary(r.start) })
        }
    };
    let burst = match &f.burst {
        None => None,
        Some(b) => {
            if !(0.0..1.0).contains(&b.branching) {
                return Err(field(
                    "failures.burst.branching",
                    format!("{} is out of range: accepted is 0 ≤ n < 1 (n ≥ 1 bursts never end)", b.branching),
                ));
            }
            Some(Burst { branching: b.branching, decay_s: duration_at_least("failures.burst.decay", &b.decay, true)? })
        }
    };
    if let Some(topo) = &topology {
        if nodes > topo.nodes() {
            return Err(field(
                "job.nodes",
                format!(
                    "{nodes} nodes do not fit: the platform has {} racks × {} = {} nodes",
                    topo.racks,
                    topo.nodes_per_rack,
                    topo.nodes()
                ),
            ));
        }
    } else if raw.job.placement.is_some() && !matches!(base, FailureModel::Trace(_)) {
        return Err(field(
            "job.placement",
            "a placement needs a [topology] (or a [failures.trace]) to place the job on",
        ));
    }
    Ok(Failures { base, topology, placement, job_nodes: nodes, domains, random, burst })
}

/// A failure log replayed onto the job's nodes.
fn resolve_trace(
    raw: &RawFailures,
    t: &RawTrace,
    nodes: u64,
    placement: Option<PlacementName>,
    context: &Context,
) -> std::result::Result<FailureModel, FieldError> {
    for (k, present) in [
        ("law", raw.law.is_some()),
        ("mtbf", raw.mtbf.is_some()),
        ("node_mtbf", raw.node_mtbf.is_some()),
        ("shape", raw.shape.is_some()),
        ("sigma", raw.sigma.is_some()),
        ("times", raw.times.is_some()),
        ("class", raw.class.is_some()),
        ("renewal", raw.renewal.is_some()),
        ("start", raw.start.is_some()),
        ("sampler", raw.sampler.is_some()),
    ] {
        if present {
            return Err(field(&format!("failures.{k}"), "a replayed [failures.trace] takes no law: remove this key"));
        }
    }
    if t.file.trim().is_empty() {
        return Err(field(
            "failures.trace.file",
            format!(
                "the path is empty{}: accepted is the path of a failure log, for example file = \"failures.csv\" \
                 (relative to the scenario file's folder)",
                if t.file.is_empty() { "" } else { " (only spaces)" }
            ),
        ));
    }
    let written = Path::new(&t.file);
    let path = if written.is_absolute() || context.trace_file_from_set {
        written.to_path_buf()
    } else {
        context.dir.join(written)
    };
    // Only where the path surely does not exist (not where it cannot be looked at: the log's
    // reader names that error).
    if matches!(path.try_exists(), Ok(false)) {
        let rule = match (written.is_absolute(), context.trace_file_from_set) {
            (true, _) => String::new(),
            (false, true) => " (a relative path given with --set resolves against the current folder)".into(),
            (false, false) => " (a relative path resolves against the scenario file's folder)".into(),
        };
        // A log kept elsewhere (the LANL scenarios name the shared data folder beside the
        // checkout) is replayed without editing the scenario.
        let elsewhere = if context.trace_file_from_set {
            ""
        } else {
            "; accepted is the path of a failure log: for a log kept elsewhere, give its path with --set \
             failures.trace.file=PATH (relative to the current folder)"
        };
        return Err(field(
            "failures.trace.file",
            format!("cannot read {}: no such file{rule}{elsewhere}", path.display()),
        ));
    }
    let skip = t.malformed == Some(MalformedName::Skip);
    let log = {
        let mut cache = context.logs.borrow_mut();
        match cache.get(&(path.clone(), skip)) {
            Some(log) => log.clone(),
            None => {
                let malformed = if skip { trace::Malformed::Skip } else { trace::Malformed::Fatal };
                let log = trace::read_log(&path, malformed).map_err(|e| field("failures.trace.file", e.to_string()))?;
                let log = std::sync::Arc::new(log);
                cache.insert((path.clone(), skip), log.clone());
                log
            }
        }
    };
    let name = match &t.system {
        None if log.systems.len() == 1 => log.system_names()[0].to_string(),
        None => {
            return Err(field(
                "failures.trace.system",
                format!("the log has {} systems: choose one of {}", log.systems.len(), log.system_names().join(", ")),
            ));
        }
        Some(toml::Value::String(s)) => s.clone(),
        Some(toml::Value::Integer(i)) => i.to_string(),
        Some(other) => return Err(field("failures.trace.system", format!("{other} is not a system name or number"))),
    };
    let sys = log.system(&name).map_err(|e| field("failures.trace.system", format!("{}: {e}", path.display())))?;
    let system_nodes = sys.nodes.unwrap_or_else(|| sys.events.iter().map(|e| e.node + 1).max().unwrap_or(0));
    if nodes > system_nodes {
        return Err(field(
            "job.nodes",
            format!(
                "{nodes} nodes do not fit: system {name} of the log has {system_nodes} node{}",
                if system_nodes == 1 { "" } else { "s" }
            ),
        ));
    }
    let placement = match placement {
        None | Some(PlacementName::Packed) => Placement::Packed,
        Some(PlacementName::Random) => Placement::Random,
        Some(PlacementName::Spread) => {
            return Err(field(
                "job.placement",
                "a log has no racks to spread over: accepted for a trace are packed, random",
            ));
        }
    };
    let period_s = trace::wrap_period_s(sys);
    if period_s.is_nan() || period_s <= 0.0 {
        // One failure, or all at one instant: no MTBF, and a wrapped replay would strike the
        // job again and again at the same instant.
        return Err(field(
            "failures.trace.file",
            format!(
                "system {name} of {} has {} failure(s), all at one instant: it spans 0 s and has no MTBF; \
                 accepted for a replay is a log with failures at two or more distinct times",
                path.display(),
                sys.events.len()
            ),
        ));
    }
    let span_s = sys.end_s - sys.start_s;
    if span_s.is_nan() || span_s > MAX_JOB_DURATION_S {
        // Replay times (offset + passes × period) would overflow: NaN wall times, and a
        // warning that the job's nodes see no failure.
        return Err(field(
            "failures.trace.file",
            format!(
                "system {name} of {} spans {} s from its first to its last failure: accepted for a replay is a log \
                 spanning at most {MAX_JOB_DURATION_S:e} s",
                path.display(),
                shown_number(sys.end_s - sys.start_s)
            ),
        ));
    }
    let start_s = sys.start_s;
    // Node numbers beyond the declared size (the log has some) fold back onto the system.
    let events: Vec<(f64, u64)> =
        sys.events.iter().map(|e| (e.time_s - start_s, e.node % system_nodes.max(1))).collect();
    let low = sys.events.iter().map(|e| e.node).min().unwrap_or(0);
    let high = sys.events.iter().map(|e| e.node).max().unwrap_or(0);
    let folded = (high >= system_nodes).then_some((low, high));
    Ok(FailureModel::Trace(crate::failure::TraceReplay {
        file: path,
        system: name,
        system_nodes,
        job_nodes: nodes,
        placement,
        end: match t.end.unwrap_or(TraceEndName::Wrap) {
            TraceEndName::Wrap => trace::TraceEnd::Wrap,
            TraceEndName::Censor => trace::TraceEnd::Censor,
        },
        events: std::sync::Arc::new(events),
        period_s,
        folded,
        skipped_lines: log.skipped,
    }))
}

fn resolve_failures(raw: &RawFailures, nodes: u64) -> std::result::Result<FailureModel, FieldError> {
    let renewal = match raw.renewal.unwrap_or(RenewalName::Node) {
        RenewalName::Job => Renewal::Job,
        RenewalName::Node => Renewal::Node,
    };
    let start = start_or_stationary(raw.start);
    let sampler = match raw.sampler.unwrap_or(SamplerName::Cohort) {
        SamplerName::Cohort => Sampler::Cohort,
        SamplerName::PerNode => Sampler::PerNode,
    };
    let n = nodes as f64;
    let positive = |key: &str, d: Option<&DurationS>| d.map(|d| duration_at_least(key, d, true)).transpose();
    let job_mtbf_s = positive("failures.mtbf", raw.mtbf.as_ref())?;
    let node_mtbf_s = positive("failures.node_mtbf", raw.node_mtbf.as_ref())?;
    if job_mtbf_s.is_some() && node_mtbf_s.is_some() {
        return Err(field(
            "failures.node_mtbf",
            "give failures.mtbf (the job's) or failures.node_mtbf (per node), not both",
        ));
    }
    if let Some(classes) = &raw.class {
        if renewal == Renewal::Job {
            return Err(field("failures.renewal", "node classes need renewal = \"node\""));
        }
        for (k, present) in [
            ("law", raw.law.is_some()),
            ("mtbf", job_mtbf_s.is_some()),
            ("node_mtbf", node_mtbf_s.is_some()),
            ("shape", raw.shape.is_some()),
            ("sigma", raw.sigma.is_some()),
            ("times", raw.times.is_some()),
        ] {
            if present {
                return Err(field(
                    &format!("failures.{k}"),
                    "with [[failures.class]] tables, give the law of each class in its table",
                ));
            }
        }
        let model = resolve_classes(classes, nodes, start, sampler)?;
        check_sampler(sampler, nodes)?;
        return Ok(model);
    }
    let spec = LawSpec {
        prefix: "failures".into(),
        law: raw.law.unwrap_or(LawName::Exponential),
        shape: raw.shape,
        sigma: raw.sigma,
        times: raw.times.as_deref(),
    };
    let law = match renewal {
        Renewal::Job => build_law(&spec, job_mtbf_s.or(node_mtbf_s.map(|m| m / n)))?,
        Renewal::Node => build_law(&spec, node_mtbf_s.or(job_mtbf_s.map(|m| m * n)))?,
    };
    check_sampler(sampler, nodes)?;
    Ok(match (law.is_exponential(), renewal) {
        (true, Renewal::Job) => FailureModel::Poisson { mtbf_s: law.mean_s() },
        (_, Renewal::Job) => FailureModel::JobRenewal { law, start },
        (_, Renewal::Node) => FailureModel::Platform { classes: vec![NodeClass { nodes, law }], start, sampler },
    })
}

/// Refuses the per-node reference sampler on more than [`MAX_PER_NODE_SAMPLER_NODES`] nodes
/// (checked after the laws, whose errors say more).
fn check_sampler(sampler: Sampler, nodes: u64) -> std::result::Result<(), FieldError> {
    if sampler == Sampler::PerNode && nodes > MAX_PER_NODE_SAMPLER_NODES {
        Err(field(
            "failures.sampler",
            format!(
                "\"per-node\" keeps every node on a heap, its memory and time growing with them: {nodes} nodes \
                 are too many; accepted for it is job.nodes ≤ {MAX_PER_NODE_SAMPLER_NODES}, or \"cohort\" (the \
                 default, whose cost does not grow with the nodes)"
            ),
        ))
    } else {
        Ok(())
    }
}

fn resolve_classes(
    raw: &[RawClass],
    nodes: u64,
    start: Start,
    sampler: Sampler,
) -> std::result::Result<FailureModel, FieldError> {
    if raw.is_empty() {
        return Err(field("failures.class", "give at least one [[failures.class]]"));
    }
    let mut total = 0.0;
    for (i, c) in raw.iter().enumerate() {
        if !(c.share > 0.0 && c.share <= 1.0) {
            return Err(field(
                &format!("failures.class.{i}.share"),
                format!("{} is out of range (class #{}): accepted is a share in (0, 1]", c.share, i + 1),
            ));
        }
        total += c.share;
    }
    if (total - 1.0).abs() > SHARE_TOLERANCE {
        return Err(field("failures.class.0.share", format!("the class shares add up to {total}: they must sum to 1")));
    }
    // Largest-remainder rounding, so the class counts add up to the job's nodes.
    let exact: Vec<f64> = raw.iter().map(|c| c.share * nodes as f64).collect();
    let mut counts: Vec<u64> = exact.iter().map(|x| x.floor() as u64).collect();
    let mut order: Vec<usize> = (0..raw.len()).collect();
    order.sort_by(|&a, &b| (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())).then(a.cmp(&b)));
    let rounded = counts.iter().try_fold(0u64, |a, &c| a.checked_add(c));
    let Some(short) = rounded.and_then(|r| nodes.checked_sub(r)) else {
        return Err(field(
            "failures.class.0.share",
            format!(
                "the class shares add up to {total}: rounded to the job's {nodes} nodes they give more nodes than it \
                 has; make them sum to exactly 1 (with at most 2⁵³ nodes, exact in floating point)"
            ),
        ));
    };
    for &i in order.iter().take(short as usize) {
        counts[i] += 1;
    }
    let mut classes = vec![];
    for (i, c) in raw.iter().enumerate() {
        let prefix = format!("failures.class.{i}");
        if counts[i] == 0 {
            return Err(field(
                &format!("{prefix}.share"),
                format!(
                    "class #{} (share {}) gets no node of the job's {nodes}: raise job.nodes or the share",
                    i + 1,
                    c.share
                ),
            ));
        }
        let mean_s =
            c.node_mtbf.as_ref().map(|d| duration_at_least(&format!("{prefix}.node_mtbf"), d, true)).transpose()?;
        let spec = LawSpec {
            prefix: prefix.clone(),
            law: c.law.unwrap_or(LawName::Exponential),
            shape: c.shape,
            sigma: c.sigma,
            times: c.times.as_deref(),
        };
        let law = build_law(&spec, mean_s).map_err(|mut e| {
            if e.key.ends_with(".mtbf") {
                e.key = format!("{prefix}.node_mtbf");
                e.message = format!("class #{} needs node_mtbf, the mean life of one of its nodes", i + 1);
            }
            e
        })?;
        classes.push(NodeClass { nodes: counts[i], law });
    }
    Ok(FailureModel::Platform { classes, start, sampler })
}

/// The interval (s) of `rule` for `job` under exponential failures of MTBF `mtbf_s` (s).
fn interval_of(rule: IntervalRule, job: &Job, mtbf_s: f64) -> std::result::Result<f64, FieldError> {
    let (d, m) = (job.checkpoint_s, mtbf_s);
    Ok(match rule {
        IntervalRule::Young => analytic::young_interval_s(d, m),
        IntervalRule::Daly => analytic::daly_low_order_interval_s(d, m),
        IntervalRule::DalyHighOrder => analytic::daly_high_order_interval_s(d, m),
        IntervalRule::Optimal => match job.checkpoint_exposure {
            Exposure::CanFail => analytic::optimal_interval_s(d, m),
            Exposure::CannotFail => analytic::optimal_interval_unfailing_checkpoint_s(job, m).ok_or_else(|| {
                field(
                    "policy.interval",
                    "\"optimal\" has no finite optimum here: the checkpoint costs at least a recovery (δ ≥ K)",
                )
            })?,
        },
        IntervalRule::OptimalWork => {
            let around_s = interval_of(IntervalRule::Optimal, job, m).map_err(|mut e| {
                e.message = e.message.replace("\"optimal\"", "\"optimal-work\" (the best chunking near \"optimal\")");
                e
            })?;
            analytic::finite_work_optimal_interval_s(job, m, around_s).ok_or_else(|| {
                field(
                    "policy.interval",
                    format!(
                        "\"optimal-work\" finds no equal chunking of job.work = {} s near the optimum of {} s (over 2^53 \
                         chunks): accepted here is \"optimal\", another rule or a duration",
                        shown_number(job.work_s),
                        shown_number(around_s)
                    ),
                )
            })?
        }
        IntervalRule::None => f64::INFINITY,
        IntervalRule::Fixed(s) if s > 0.0 => s,
        IntervalRule::Fixed(s) => {
            return Err(field("policy.interval", format!("{s} s is out of range: accepted is a duration > 0")));
        }
    })
}

/// The two failure rates (1/s) of two-level checkpointing `two` under `failures`: each
/// cause's expected rate ([`Failures::expected_cause_rates_per_s`]) goes to the level that
/// `two` gives it; with `policy.rate = "clusters"` burst children are left out, as they are
/// from the single-level rules' MTBF.
pub fn two_level_rates(
    failures: &Failures,
    two: &crate::engine::TwoLevel,
    basis: RateBasis,
) -> analytic::multilevel::Rates {
    let per_cause = crate::failure::Cause::ALL.into_iter().zip(failures.expected_cause_rates_per_s());
    analytic::multilevel::Rates::by_level(
        two,
        per_cause.filter(|(cause, _)| !(*cause == crate::failure::Cause::Burst && basis == RateBasis::Clusters)),
    )
}

/// The interval (s) of `rule` for a job with two-level checkpoints `two` (MODELS.md §4):
/// "young" is the first-order P*(n)/n, "optimal" the exact optimum of an endless run of
/// patterns ([`analytic::multilevel::optimal_interval_s`]), both at the rates of
/// [`two_level_rates`]; the Daly rules have no two-level form.
fn two_level_interval_of(
    rule: IntervalRule,
    job: &Job,
    two: &crate::engine::TwoLevel,
    failures: &Failures,
    basis: RateBasis,
) -> std::result::Result<f64, FieldError> {
    let rates = two_level_rates(failures, two, basis);
    let no_failures = rates.total_per_s() <= 0.0;
    // The interval is the policy's, whatever the job does at a failure: the rules' closed
    // forms are those of a job that restarts (as for one level).
    let job = &Job { on_failure: crate::engine::OnFailure::Restart, ..job.clone() };
    Ok(match rule {
        IntervalRule::Fixed(_) | IntervalRule::None => interval_of(rule, job, failures.mtbf_s())?,
        IntervalRule::Daly | IntervalRule::DalyHighOrder => {
            return Err(field(
                "policy.interval",
                format!(
                    "\"{}\" is a single-level rule: with [job.level2] accepted is \"young\" (the first-order \
                     P*(n)/n of MODELS.md §4), \"optimal\" (the exact two-level optimum), \"optimal-work\" (the best \
                     chunking of the work near it), a duration (the compute between two checkpoints of any level) or \
                     \"none\"",
                    rule.name()
                ),
            ));
        }
        _ if no_failures => f64::INFINITY,
        IntervalRule::Young => analytic::multilevel::first_order_interval_s(job, two, rates),
        IntervalRule::OptimalWork => {
            let around_s =
                two_level_interval_of(IntervalRule::Optimal, job, two, failures, basis).map_err(|mut e| {
                    e.message =
                        e.message.replacen("\"optimal\"", "\"optimal-work\" (the best chunking near \"optimal\")", 1);
                    e
                })?;
            analytic::multilevel::finite_work_optimal_interval_s(job, two, rates, around_s).ok_or_else(|| {
                field(
                    "policy.interval",
                    format!(
                        "\"optimal-work\" finds no equal chunking of job.work = {} s near the two-level optimum of {} s \
                         with a value: accepted here is \"optimal\", \"young\", a duration or \"none\"",
                        shown_number(job.work_s),
                        shown_number(around_s)
                    ),
                )
            })?
        }
        IntervalRule::Optimal => analytic::multilevel::optimal_interval_s(job, two, rates).ok_or_else(|| {
            field(
                "policy.interval",
                format!(
                    "\"optimal\" finds no finite two-level optimum here (job.checkpoint = {} s, job.level2.checkpoint \
                     = {} s, job.level2.every = {}): the overhead keeps falling as the interval shrinks or grows; \
                     accepted here is \"young\", a duration or \"none\"",
                    shown_number(job.checkpoint_s),
                    shown_number(two.checkpoint_s),
                    two.every
                ),
            )
        })?,
    })
}

/// `job.level2.every = "optimal"`: the count n ≥ 1 that minimises the exact overhead of an
/// endless run of patterns ([`analytic::multilevel::pattern_overhead`]) at the interval that
/// `rule` × `factor` gives at each n (for "optimal", the exact optimum at that n: together the
/// best (n, interval) pair), by [`analytic::multilevel::optimal_every`]; refused where level 2
/// never fails (larger patterns always cost less) or the best count is the last tried.
fn optimal_every(
    rule: IntervalRule,
    factor: f64,
    job: &Job,
    two: &crate::engine::TwoLevel,
    failures: &Failures,
    basis: RateBasis,
) -> std::result::Result<u64, FieldError> {
    if rule == IntervalRule::None {
        return Ok(1);
    }
    let job = &Job { on_failure: crate::engine::OnFailure::Restart, ..job.clone() };
    let rates = two_level_rates(failures, two, basis);
    if rates.level2_per_s.is_nan() || rates.level2_per_s <= 0.0 {
        return Err(field(
            "job.level2.every",
            format!(
                "\"optimal\" has no optimum here: no failure cause is a level-2 one (job.level2.causes){}, so \
                 longer patterns always cost less; accepted here is an integer ≥ 1",
                if basis == RateBasis::Clusters && failures.burst.is_some() {
                    " once policy.rate = \"clusters\" leaves the burst children out"
                } else {
                    ""
                }
            ),
        ));
    }
    // The rule's interval at each n; a rule refused at some n is refused at all (the errors
    // depend on the rule, not on n), so the first error is the one to report.
    // "optimal-work" takes the count of the best endless (n, interval) pair, then the best
    // chunking of the work at that n: the endless overhead compares counts, not a chunking.
    let rule = if rule == IntervalRule::OptimalWork { IntervalRule::Optimal } else { rule };
    let mut refused = None;
    let best = analytic::multilevel::optimal_every(job, two, rates, |at| {
        match two_level_interval_of(rule, job, at, failures, basis) {
            Ok(t) => Some(t * factor),
            Err(e) => {
                refused.get_or_insert(e);
                None
            }
        }
    });
    if let Some(e) = refused {
        return Err(e);
    }
    best.ok_or_else(|| {
        field(
            "job.level2.every",
            format!(
                "\"optimal\" finds the overhead still falling at n = {}, the most tried: accepted here is an \
                 integer ≥ 1",
                analytic::multilevel::optimal_every_last(job, two, rates)
            ),
        )
    })
}

/// Byte spans of every key and value in the file, to point errors at line and column.
pub(crate) struct SpanMap {
    path: PathBuf,
    text: String,
    /// (dotted path, span of the value); array elements have their index as last part.
    entries: Vec<(Vec<String>, Range<usize>)>,
    /// (dotted path, span of the key as written): where serde's "unknown field" points.
    keys: Vec<(Vec<String>, Range<usize>)>,
}

impl SpanMap {
    pub(crate) fn new(text: &str, path: &Path) -> Result<SpanMap> {
        let mut map = SpanMap { path: path.to_path_buf(), text: text.to_string(), entries: vec![], keys: vec![] };
        let root = toml::de::DeTable::parse(text).map_err(|e| map.syntax_error(&e))?;
        map.walk_table(&mut vec![], root.get_ref());
        Ok(map)
    }

    fn walk_table(&mut self, prefix: &mut Vec<String>, t: &toml::de::DeTable<'_>) {
        for (k, v) in t {
            prefix.push(k.get_ref().to_string());
            self.keys.push((prefix.clone(), k.span()));
            self.walk_value(prefix, v);
            prefix.pop();
        }
    }

    fn walk_value(&mut self, prefix: &mut Vec<String>, v: &toml::Spanned<toml::de::DeValue<'_>>) {
        self.entries.push((prefix.clone(), v.span()));
        match v.get_ref() {
            toml::de::DeValue::Table(t) => self.walk_table(prefix, t),
            toml::de::DeValue::Array(a) => {
                for (i, e) in a.iter().enumerate() {
                    prefix.push(i.to_string());
                    self.walk_value(prefix, e);
                    prefix.pop();
                }
            }
            _ => {}
        }
    }

    /// The error for a key or table given twice, naming it (the parser only says "duplicate
    /// key"): the key as written, inside the table whose header comes before it.
    fn duplicate_key(&self, e: &toml::de::Error) -> Option<Error> {
        let span = e.span().filter(|s| e.message().trim() == "duplicate key" && s.end <= self.text.len())?;
        let written = self.text.get(span.clone())?.trim();
        if written.is_empty() {
            return None;
        }
        let line_start = self.text[..span.start].rfind('\n').map_or(0, |i| i + 1);
        let line = &self.text[line_start..];
        let in_header = line.trim_start().starts_with('[');
        let in_inline_table = self.text[line_start..span.start].contains('{');
        let header = || self.table_above(line_start);
        let (key, message) = if in_header {
            (
                written.to_string(),
                format!("the table [{written}] is given twice: accepted is one [{written}] holding all its keys"),
            )
        } else {
            match header().filter(|_| !in_inline_table) {
                Some(h) => (
                    format!("{h}.{written}"),
                    format!("`{written}` is given twice in [{h}]: accepted is each key once (remove one of them)"),
                ),
                None => (
                    written.to_string(),
                    format!("`{written}` is given twice: accepted is each key once (remove one of them)"),
                ),
            }
        };
        Some(Error::Scenario { origin: self.origin_at(Some(span)), key: Some(key), message })
    }

    /// A syntax error of the file, naming the key of its line where there is one (the parser
    /// names none: `f.toml:16:10: invalid float, expected `nan``).
    fn syntax_error(&self, e: &toml::de::Error) -> Error {
        if let Some(error) = self.duplicate_key(e) {
            return error;
        }
        let mut error = self.error_at(e.span(), e.message());
        if let (Error::Scenario { key: key @ None, .. }, Some(span)) = (&mut error, e.span()) {
            *key = self.key_on_line(span.start);
        }
        error
    }

    /// The dotted key of the `key = value` line that holds `offset`, when `offset` lies in
    /// its value: the key as written, inside the table whose header comes before it.
    fn key_on_line(&self, offset: usize) -> Option<String> {
        let before = self.text.get(..offset)?;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let (key, _) = before[line_start..].split_once('=')?;
        let key = key.trim();
        let plain = !key.is_empty() && !key.starts_with(['[', '#']) && !key.contains(['{', ',', '=']);
        if !plain {
            return None;
        }
        Some(match self.table_above(line_start) {
            Some(table) => format!("{table}.{key}"),
            None => key.to_string(),
        })
    }

    /// The name of the table whose header is the last one before the line at `line_start`.
    fn table_above(&self, line_start: usize) -> Option<String> {
        self.text[..line_start].lines().rev().map(str::trim).find(|l| l.starts_with('[')).map(|l| {
            let l = l.split('#').next().unwrap_or(l).trim();
            l.trim_start_matches('[').trim_end_matches(']').trim().to_string()
        })
    }

    fn line_column(&self, offset: usize) -> (usize, usize) {
        let before = &self.text[..offset.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, column)
    }

    fn origin_at(&self, span: Option<Range<usize>>) -> Origin {
        let (line, column) = match span {
            Some(s) => {
                let (l, c) = self.line_column(s.start);
                (Some(l), Some(c))
            }
            None => (None, None),
        };
        Origin::File { path: self.path.clone(), line, column }
    }

    pub(crate) fn origin(&self, key: &[&str]) -> Origin {
        let span = self
            .entries
            .iter()
            .find(|(p, _)| p.iter().map(String::as_str).eq(key.iter().copied()))
            .map(|(_, s)| s.clone());
        self.origin_at(span)
    }

    /// An error at `span`, naming the innermost key whose value contains it.
    pub(crate) fn error_at(&self, span: Option<Range<usize>>, message: &str) -> Error {
        let dotted = |p: &Vec<String>| {
            p.iter().filter(|part| part.parse::<usize>().is_err()).cloned().collect::<Vec<_>>().join(".")
        };
        let key = span.as_ref().and_then(|s| {
            self.entries
                .iter()
                .filter(|(p, v)| v.start <= s.start && s.end <= v.end && !p.is_empty())
                .min_by_key(|(_, v)| v.end - v.start)
                // An error at a key itself (an unknown field) is in no value: the key names it.
                .or_else(|| self.keys.iter().find(|(_, k)| k.start <= s.start && s.end <= k.end))
                .map(|(p, _)| dotted(p))
        });
        let message = with_names(key.as_deref(), &plain(message));
        Error::Scenario { origin: self.origin_at(span), key, message }
    }

    pub(crate) fn key_error(&self, at: &[&str], key: &str, message: &str) -> Error {
        let message = with_names(Some(key), &plain(message));
        Error::Scenario { origin: self.origin(at), key: Some(key.to_string()), message }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_need_units() {
        assert_eq!(parse_duration_s("2e5 s"), Ok(2e5));
        assert_eq!(parse_duration_s("3.1h"), Ok(3.1 * 3600.0));
        assert_eq!(parse_duration_s(" 27 min "), Ok(27.0 * 60.0));
        assert_eq!(parse_duration_s("1 y"), Ok(365.0 * 86400.0));
        assert_eq!(parse_duration_s("250ms"), Ok(0.25));
        assert_eq!(parse_duration_s("-5 s"), Ok(-5.0));
        for bad in ["120", "5 fortnights", "5 m", "5 Hours", "abc s", "nan s", "inf s", "", "s", "1e308 y"] {
            assert!(parse_duration_s(bad).is_err(), "{bad} accepted");
        }
    }

    /// A duration is the double nearest the decimal written times its unit, rounded once:
    /// each pair below differs from parsing the number and then multiplying.
    #[test]
    fn durations_round_once() {
        for (text, seconds, twice) in [
            ("27.28 min", 1636.8, 27.28 * 60.0),
            ("0.07 h", 252.0, 0.07 * 3600.0),
            ("0.7 d", 60480.0, 0.7 * 86400.0),
            ("0.13 ms", 0.00013, 0.13 * 1e-3),
            ("-0.03 min", -1.8, -0.03 * 60.0),
        ] {
            assert_eq!(parse_duration_s(text), Ok(seconds), "{text}");
            assert_ne!(seconds, twice, "{text}: the case does not tell rounding once from twice");
        }
        // Written forms the decimal route reads like the float parser does.
        for (text, seconds) in [(".5 min", 30.0), ("2. min", 120.0), ("+1E+1 s", 10.0), ("1e-400 s", 0.0)] {
            assert_eq!(parse_duration_s(text), Ok(seconds), "{text}");
        }
        assert!(parse_duration_s("1e400 ms").is_err());
        assert_eq!(scaled_decimal("inf", 60.0), None);
        assert_eq!(scaled_decimal("1e99999999999999999999", 60.0), None);
        // Never more than an ulp or so from the product of the parsed number.
        let mut x = 0.123_456_789_f64;
        for _ in 0..2000 {
            x = (x * 7919.0 + 0.618_033_988_7).fract();
            for &(unit, scale) in &DURATION_UNITS {
                let text = format!("{} {unit}", x * 1e3);
                let exact = parse_duration_s(&text).unwrap();
                let twice = (x * 1e3) * scale;
                assert!((exact - twice).abs() <= 2.0 * f64::EPSILON * twice.abs(), "{text}: {exact} vs {twice}");
            }
        }
    }

    #[test]
    fn set_values_parse_as_toml_or_string() {
        let (k, v) = parse_set("job.checkpoint=300 s").unwrap();
        assert_eq!((k.as_str(), v), ("job.checkpoint", toml::Value::String("300 s".into())));
        assert_eq!(parse_set("policy.factor=0.5").unwrap().1, toml::Value::Float(0.5));
        assert_eq!(parse_set("job.final_checkpoint=false").unwrap().1, toml::Value::Boolean(false));
        assert!(parse_set("no-equals").is_err());
        assert!(parse_set("job..x=1").is_err());
    }
}
