//! Machine-efficiency studies (`ckptsim efficiency`): what the user wrote about a machine, a
//! job schedule and a checkpoint cadence (an efficiency scenario in TOML, or a bare schedule
//! CSV with the Frontier parameters), validated into sweep points, each run as the closed form
//! and the Monte Carlo of [`crate::usage`] (MODELS.md §5).
//!
//! # Scenario keys
//!
//! ```toml
//! name = "frontier-2024"              # optional, defaults to the file's stem
//! description = "..."
//!
//! [run]
//! replications = 200                  # whole schedules per point (≥ 2); default 200
//! seed = 2024                         # default 0
//!
//! [machine]                           # every key optional: Frontier's values (Machine::frontier)
//! failure_rate = 2e-5                 # R₀, failures per node-hour (finite, > 0)
//! checkpoint_bytes = "200 GB"         # per node; units B, kB, MB, GB, TB, KiB, MiB, GiB, TiB
//! bandwidth = "6 TB/s"                # write bandwidth: a size per unit of time (> 0)
//! storage = "shared"                  # "shared" (u_chk = N²τ_c) or "local" (N·τ_c)
//! setup = "2 s"                       # τ₀, restart setup (duration ≥ 0)
//! read_write_ratio = 1.0              # α = B_w/B_r (finite, ≥ 0)
//!
//! [schedule]
//! file = "schedules/small.csv"        # required; relative to this file's folder
//! runtime_ratio = "usage-weighted"    # or a number > 0 (T = requested × r)
//! last_segment = "full"               # "full" (the paper's) or "truncated"
//!
//! [policy]
//! cadence = "optimal"                 # "optimal" (eq. 3.3), "young" (eq. 3.4) or "none"
//! factor = 1.0                        # multiplies the cadence (finite, > 0)
//!
//! [sweep]                             # cartesian product, the last key fastest
//! "policy.factor" = [0.25, 0.5, 1, 2, 4]
//! ```
//!
//! `runtime_ratio` defaults to `"usage-weighted"` when the schedule has actual durations and to
//! 1 (requested times as they are) when it has none. Any `machine.*` and `policy.*` key and
//! `schedule.last_segment` and `schedule.runtime_ratio` can be swept; every sweep point replays
//! the same failures (common random numbers: job k of replication i draws from (seed, i, k)
//! whatever the point). A `--set` of a swept key fixes it. Unknown keys, a bare number where a
//! size, bandwidth or duration belongs and out-of-range values are errors naming the file, the
//! line and column, the key and what is accepted (exit code 2), as for run scenarios.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::scenario::{
    DurationS, FieldError, Quantity, Reach, SpanMap, Sweep, SweepAxis, duration_at_least, field, missing_table,
    parse_quantity, shorten, shown_number, with_closest_key,
};
use crate::schedule::{JobType, Schedule, read_schedule};
use crate::usage::{self, Cadence, Efficiency, JobPlan, LastSegment, Machine, SimulatedEfficiency, Storage};

/// Replications (whole schedules) per point when neither the scenario nor `--reps` says.
pub const DEFAULT_REPLICATIONS: u64 = 200;

/// The units a size may carry, with their length in bytes.
pub const SIZE_UNITS: [(&str, f64); 9] = [
    ("B", 1.0),
    ("kB", 1e3),
    ("MB", 1e6),
    ("GB", 1e9),
    ("TB", 1e12),
    ("KiB", 1024.0),
    ("MiB", 1024.0 * 1024.0),
    ("GiB", 1024.0 * 1024.0 * 1024.0),
    ("TiB", 1024.0 * 1024.0 * 1024.0 * 1024.0),
];

const SIZE_HINT: &str = "units: B, kB, MB, GB, TB, KiB, MiB, GiB, TiB";

/// The largest R₀·u_r accepted: beyond it a restart of the schedule's largest jobs is struck
/// so often (about e^{R₀u_r} attempts per failure, 1.6e5 at the limit) that it practically
/// never completes, the model's restart cost is astronomically large and a simulation would
/// not end in reasonable time.
pub const MAX_RESTART_EXPOSURE: f64 = 12.0;

/// The smallest failure rate R₀ accepted (per node-hour): below it the mean usage between
/// failures, 1/R₀, overflows.
pub const MIN_FAILURE_RATE: f64 = 1e-308;

/// The most segments (checkpoints) a job may be cut into.
pub const MAX_SEGMENTS: f64 = 1e12;

/// Expected share of jobs ended by a failure above which a point carries a warning.
pub const MOST_JOBS_FAIL: f64 = 0.99;

/// Parses a size with a unit (`"200 GB"`, `"1.5 TiB"`, `"512MiB"`) into bytes. The number
/// must be finite; its sign is checked by the caller. A bare number is an error.
pub fn parse_bytes(text: &str) -> std::result::Result<f64, String> {
    let size = Quantity {
        units: &SIZE_UNITS,
        names: &[],
        hint: &format!("{SIZE_HINT}; sizes are in bytes, not bits"),
        suggest: "GB",
        examples: "\"200 GB\", \"1.5 TiB\"",
        name: "size",
        aliases: &[],
    };
    parse_quantity(text, &size)
}

/// The units a bandwidth may carry, listed for messages.
const BANDWIDTH_HINT: &str = "units: B/s, kB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, \
     GiB/s, TiB/s, or per ms, min, h, d, y, w (or their names: hour, …) instead of s; sizes are in bytes, not bits";

/// Parses a bandwidth, a size per unit of time (`"6 TB/s"`, `"500 GB / s"`, `"20 TiB/h"`),
/// into bytes per second. The number must be finite; its sign is checked by the caller.
pub fn parse_bandwidth(text: &str) -> std::result::Result<f64, String> {
    let Some((size, time)) = text.split_once('/') else {
        return Err(format!(
            "\"{}\" is not a bandwidth: write a size per unit of time, for example \"6 TB/s\" ({BANDWIDTH_HINT})",
            shorten(text)
        ));
    };
    let quantity = Quantity {
        units: &SIZE_UNITS,
        names: &[],
        hint: BANDWIDTH_HINT,
        suggest: "GB/s",
        examples: "\"6 TB/s\", \"500 GB/s\"",
        name: "size",
        aliases: &[],
    };
    let bytes = parse_quantity(size, &quantity).map_err(|e| format!("\"{}\": {e}", shorten(text)))?;
    let time = time.trim();
    let Some(per_s) = crate::scenario::duration_unit_s(time) else {
        return Err(format!(
            "\"{}\": {} after the `/` ({BANDWIDTH_HINT})",
            shorten(text),
            if time.is_empty() {
                "no unit of time".to_string()
            } else {
                format!("unknown unit of time `{}`", shorten(time))
            }
        ));
    };
    Ok(bytes / per_s)
}

/// The error for a bare number `n` where a `what` with a unit goes. The example repeats `n`
/// with `unit` where that is a valid value, else it is `fallback` ("0 TB/s" would be refused).
fn bare(n: &str, what: &str, unit: &str, fallback: &str) -> String {
    let example =
        if n.parse::<f64>().is_ok_and(|x| x > 0.0 && x.is_finite()) { format!("{n} {unit}") } else { fallback.into() };
    format!("the bare number {n} is not a {what}: give it a unit, for example \"{example}\"")
}

/// A size as written: a string with a unit, read as bytes, and the text (trimmed) for messages.
#[derive(Clone, PartialEq)]
struct Bytes(f64, String);

/// A bandwidth as written: a string "size/time", read as bytes per second, and the text
/// (trimmed) for messages.
#[derive(Clone, PartialEq)]
struct Bandwidth(f64, String);

// Two sizes (bandwidths) are the same value however they are written ("200 GB" and
// "200000 MB"): the sweep's check for repeated values compares the `Debug` form of what a
// value reads as, so the text is left out of it.
impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.debug_tuple("Bytes").field(&self.0).finish()
    }
}

impl std::fmt::Debug for Bandwidth {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.debug_tuple("Bandwidth").field(&self.0).finish()
    }
}

/// A plain number (integer or float); strings are rejected with a clear message.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Real(f64);

macro_rules! unit_visitor {
    ($ty:ident, $parse:path, $what:expr, $example:expr, $fallback:expr, $expecting:expr) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                struct V;
                impl serde::de::Visitor<'_> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_str<E: serde::de::Error>(self, s: &str) -> std::result::Result<$ty, E> {
                        $parse(s).map(|v| $ty(v, s.trim().to_string())).map_err(E::custom)
                    }
                    fn visit_i64<E: serde::de::Error>(self, n: i64) -> std::result::Result<$ty, E> {
                        Err(E::custom(format!("{} ({SIZE_HINT})", bare(&n.to_string(), $what, $example, $fallback))))
                    }
                    fn visit_u64<E: serde::de::Error>(self, n: u64) -> std::result::Result<$ty, E> {
                        Err(E::custom(format!("{} ({SIZE_HINT})", bare(&n.to_string(), $what, $example, $fallback))))
                    }
                    fn visit_f64<E: serde::de::Error>(self, n: f64) -> std::result::Result<$ty, E> {
                        Err(E::custom(format!("{} ({SIZE_HINT})", bare(&shown_number(n), $what, $example, $fallback))))
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

unit_visitor!(Bytes, parse_bytes, "size", "GB", "200 GB", "a size with a unit, such as \"200 GB\"");
unit_visitor!(Bandwidth, parse_bandwidth, "bandwidth", "TB/s", "6 TB/s", "a bandwidth with units, such as \"6 TB/s\"");

impl<'de> Deserialize<'de> for Real {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Real;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number, such as 2e-5")
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> std::result::Result<Real, E> {
                Ok(Real(n as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> std::result::Result<Real, E> {
                Ok(Real(n as f64))
            }
            fn visit_f64<E: serde::de::Error>(self, n: f64) -> std::result::Result<Real, E> {
                Ok(Real(n))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> std::result::Result<Real, E> {
                // A `--set` value that is no TOML arrives as text too: the words suit both.
                Err(E::custom(format!(
                    "\"{s}\" is text, not a number: accepted is a number, for example 2e-5 (in a file, without quotes)"
                )))
            }
        }
        d.deserialize_any(V)
    }
}

/// `schedule.runtime_ratio` as written.
#[derive(Debug, Clone, Copy, PartialEq)]
enum RatioSpec {
    UsageWeighted,
    Given(f64),
}

impl<'de> Deserialize<'de> for RatioSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        const EXPECTED: &str = "\"usage-weighted\" or a number > 0 such as 0.46";
        impl serde::de::Visitor<'_> for V {
            type Value = RatioSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(EXPECTED)
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> std::result::Result<RatioSpec, E> {
                Ok(RatioSpec::Given(n as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> std::result::Result<RatioSpec, E> {
                Ok(RatioSpec::Given(n as f64))
            }
            fn visit_f64<E: serde::de::Error>(self, n: f64) -> std::result::Result<RatioSpec, E> {
                Ok(RatioSpec::Given(n))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> std::result::Result<RatioSpec, E> {
                match s.trim() {
                    "usage-weighted" => Ok(RatioSpec::UsageWeighted),
                    other => Err(E::custom(format!("\"{other}\": accepted is {EXPECTED}"))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStudy {
    name: Option<String>,
    description: Option<String>,
    #[serde(default)]
    run: RawRun,
    #[serde(default)]
    machine: RawMachine,
    schedule: RawSchedule,
    #[serde(default)]
    policy: RawPolicy,
    #[allow(dead_code)] // read from the table, kept here so the key is known
    sweep: Option<toml::Table>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRun {
    #[serde(default, deserialize_with = "crate::scenario::whole_number::<_, 2>")]
    replications: Option<u64>,
    #[serde(default, deserialize_with = "crate::scenario::whole_number::<_, 0>")]
    seed: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMachine {
    failure_rate: Option<Real>,
    checkpoint_bytes: Option<Bytes>,
    bandwidth: Option<Bandwidth>,
    storage: Option<StorageName>,
    setup: Option<DurationS>,
    read_write_ratio: Option<Real>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSchedule {
    file: String,
    runtime_ratio: Option<RatioSpec>,
    last_segment: Option<LastName>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    cadence: Option<CadenceName>,
    factor: Option<Real>,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum StorageName {
    Shared,
    Local,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum CadenceName {
    Optimal,
    Young,
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum LastName {
    Full,
    Truncated,
}

/// The name of a last-segment convention, as written in scenarios and outputs.
pub fn last_segment_name(l: LastSegment) -> &'static str {
    match l {
        LastSegment::Full => "full",
        LastSegment::Truncated => "truncated",
    }
}

/// The name of a cadence, as written in scenarios and outputs.
pub fn cadence_name(c: Cadence) -> &'static str {
    match c {
        Cadence::Optimal => "optimal",
        Cadence::Young => "young",
        Cadence::None => "none",
    }
}

/// The name of a storage kind, as written in scenarios and outputs.
pub fn storage_name(s: Storage) -> &'static str {
    match s {
        Storage::Shared => "shared",
        Storage::Local => "local",
    }
}

/// How a point's runtime ratio r was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RatioSource {
    /// Σ N·T_actual / Σ N·T_requested from the schedule.
    UsageWeighted,
    /// Given in the scenario.
    Given,
    /// Not given, and the schedule has no actual durations: r = 1.
    Default,
}

impl RatioSource {
    /// The name used in outputs.
    pub fn name(self) -> &'static str {
        match self {
            RatioSource::UsageWeighted => "usage-weighted",
            RatioSource::Given => "given",
            RatioSource::Default => "default (no actual durations)",
        }
    }
}

/// One fully resolved sweep point of an efficiency study.
#[derive(Debug, Clone, PartialEq)]
pub struct EfficiencyPoint {
    /// 0-based index in the cartesian product (the last axis varies fastest).
    pub index: usize,
    /// This point's value of each sweep axis, as written.
    pub labels: Vec<String>,
    /// The machine.
    pub machine: Machine,
    /// The cadence rule.
    pub cadence: Cadence,
    /// The factor on the cadence.
    pub factor: f64,
    /// The last-segment convention.
    pub last: LastSegment,
    /// The runtime ratio r (job time = requested time × r).
    pub runtime_ratio: f64,
    /// Where r came from.
    pub runtime_ratio_source: RatioSource,
}

/// A validated efficiency study: a schedule, run settings and sweep points.
#[derive(Debug, Clone, PartialEq)]
pub struct EfficiencyScenario {
    /// The name (defaults to the file's stem); names the output files.
    pub name: String,
    /// Free text.
    pub description: Option<String>,
    /// The scenario file or schedule CSV it was read from, as named.
    pub path: PathBuf,
    /// The schedule `file` as written (for a schedule given directly, its path as named).
    pub schedule_file: String,
    /// The schedule, read from the resolved path (`schedule.path`).
    pub schedule: Schedule,
    /// Replications per point (whole schedules).
    pub replications: u64,
    /// The master seed.
    pub seed: u64,
    /// The sweep axes, in file order.
    pub axes: Vec<SweepAxis>,
    /// The points of the cartesian product of the axes (one point without a sweep).
    pub points: Vec<EfficiencyPoint>,
}

/// Whether the scenario text `text` is an efficiency study rather than a job's scenario: it
/// has `[schedule]` or `[machine]` and neither `[job]` nor `[failures]`. Text that is not
/// TOML is no study (the job scenario's reader then says what is wrong with it).
pub fn is_study(text: &str) -> bool {
    let Ok(table) = text.parse::<toml::Table>() else { return false };
    let has = |key: &str| table.contains_key(key);
    (has("schedule") || has("machine")) && !has("job") && !has("failures")
}

/// Whether `path` names an efficiency scenario (`.toml`) rather than a schedule CSV.
pub fn is_scenario(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml"))
}

/// Reads an efficiency study: a scenario when `path` ends in `.toml` or is `-` (standard
/// input), else a schedule CSV run with the Frontier parameters; then applies `sets`
/// (`KEY=VALUE`) in order.
pub fn load(path: &Path, sets: &[String]) -> Result<EfficiencyScenario> {
    if is_scenario(path) || crate::input::is_stdin(path) {
        // The reader `ckptsim run` uses, so a file that is not UTF-8 is located the same way.
        let text = crate::scenario::read_text(path)?;
        parse(&text, path, sets)
    } else {
        from_schedule(path, sets)
    }
}

/// Validates the efficiency scenario `text` (as read from `path`), then applies `sets`.
pub fn parse(text: &str, path: &Path, sets: &[String]) -> Result<EfficiencyScenario> {
    let spans = SpanMap::new(text, path)?;
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| spans.error_at(e.span(), e.message()))?;
    if let Err(e) = toml::from_str::<RawStudy>(text) {
        let required = [("schedule", "file: the schedule CSV, and how to read it")];
        if let Some(e) = crate::scenario::other_command(&spans, &table, &["job", "failures"], &["schedule"], "run") {
            return Err(e);
        }
        return Err(missing_table(&e, &table, path, &required)
            .unwrap_or_else(|| spans.error_at(e.span(), &with_closest_key(e.message()))));
    }
    let base_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    build(table, &spans, path, &base_dir, sets)
}

/// A study of the schedule CSV at `path` with the Frontier parameters (MODELS.md §5), as if
/// from a scenario holding only `[schedule] file = path`, then `sets` in order.
pub fn from_schedule(path: &Path, sets: &[String]) -> Result<EfficiencyScenario> {
    if !path.is_file() {
        return Err(Error::Usage(format!(
            "{}: {} (resolved: {}); give a schedule CSV or an efficiency scenario (.toml)",
            path.display(),
            if path.is_dir() {
                "a folder, not a schedule file"
            } else if path.exists() {
                "not a regular file (a device or a pipe), not a schedule file"
            } else {
                "no such schedule file"
            },
            absolute(path).display()
        )));
    }
    let mut table = toml::Table::new();
    let mut schedule = toml::Table::new();
    schedule.insert("file".into(), toml::Value::String(path.to_string_lossy().into_owned()));
    table.insert("schedule".into(), toml::Value::Table(schedule));
    let spans = SpanMap::new("", path)?;
    build(table, &spans, path, Path::new(""), sets)
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

fn deserialize(table: &toml::Table) -> std::result::Result<RawStudy, toml::de::Error> {
    // A table has no spans to keep: the message can be rebuilt with its hint.
    table.clone().try_into().map_err(|e: toml::de::Error| match e.span() {
        None => serde::de::Error::custom(with_closest_key(e.message())),
        Some(_) => e,
    })
}

/// Whether `key` may be swept.
fn sweepable(key: &str) -> bool {
    key.starts_with("machine.")
        || key.starts_with("policy.")
        || key == "schedule.last_segment"
        || key == "schedule.runtime_ratio"
}

fn build(
    table: toml::Table,
    spans: &SpanMap,
    path: &Path,
    base_dir: &Path,
    sets: &[String],
) -> Result<EfficiencyScenario> {
    let sweepable = |key: &str| {
        if sweepable(key) {
            Ok(())
        } else {
            Err("accepted sweep keys: machine.* (failure_rate, bandwidth, storage, ...), policy.cadence, \
                 policy.factor, schedule.last_segment, schedule.runtime_ratio")
        }
    };
    let sweep = Sweep::new(table, spans, sets, &sweepable, &deserialize)?;
    let base = deserialize(&sweep.table).map_err(|e| spans.error_at(None, e.message()))?;
    let set_origin = |key: &str| sweep.set_origin(key);
    let fail = |f: FieldError, combo: &[usize]| sweep.error(spans, f, combo, Reach::Everywhere);

    let replications = match base.run.replications {
        Some(n) if n < 2 => {
            return Err(fail(
                field("run.replications", format!("{n} is out of range: accepted is an integer ≥ 2 (a CI needs two)")),
                &[],
            ));
        }
        Some(n) => n,
        None => DEFAULT_REPLICATIONS,
    };
    let seed = base.run.seed.unwrap_or(0);

    // The schedule: one file for every point (not sweepable).
    let file = base.schedule.file.clone();
    let written = Path::new(&file);
    let from_set = set_origin("schedule.file").is_some();
    if file.trim().is_empty() {
        return Err(fail(
            field(
                "schedule.file",
                format!(
                    "the path is empty{}: accepted is the path of a schedule CSV, for example \
                     file = \"schedules/small.csv\" (relative to the scenario file's folder)",
                    if file.is_empty() { "" } else { " (only spaces)" }
                ),
            ),
            &[],
        ));
    }
    let resolved = if written.is_absolute() || from_set { written.to_path_buf() } else { base_dir.join(written) };
    if !resolved.is_file() {
        let rule = if from_set {
            "a relative path given with --set resolves against the current folder"
        } else {
            "a relative path resolves against the scenario file's folder"
        };
        return Err(fail(
            field(
                "schedule.file",
                format!(
                    "{}: {} ({rule})",
                    if resolved.is_dir() {
                        "a folder, not a file"
                    } else if resolved.exists() {
                        "not a regular file (a device or a pipe)"
                    } else {
                        "no such file"
                    },
                    absolute(&resolved).display()
                ),
            ),
            &[],
        ));
    }
    let schedule = read_schedule(&resolved)?;

    let mut cached_types: Option<(u64, Vec<JobType>)> = None;
    let points = sweep.resolve_points(spans, |index, combo, t| {
        let raw = deserialize(t).map_err(|e| spans.error_at(None, e.message()))?;
        let checked = resolve_point(index, sweep.labels(combo), &raw, &schedule).and_then(|point| {
            check_point(&point, job_types(&mut cached_types, &schedule, point.runtime_ratio), &schedule)?;
            Ok(point)
        });
        Ok(checked)
    })?;

    if let Some(name) = &base.name {
        crate::scenario::check_name(name).map_err(|f| fail(f, &[]))?;
    }
    let name = base.name.clone().unwrap_or_else(|| crate::scenario::default_name(path, "efficiency"));
    Ok(EfficiencyScenario {
        name,
        description: base.description.clone(),
        path: path.to_path_buf(),
        schedule_file: file,
        schedule,
        replications,
        seed,
        axes: sweep.axes.clone(),
        points,
    })
}

/// The job types of `schedule` at runtime ratio `r`, kept in `cache` while r stays the same.
fn job_types<'a>(cache: &'a mut Option<(u64, Vec<JobType>)>, schedule: &Schedule, r: f64) -> &'a [JobType] {
    if cache.as_ref().is_none_or(|(bits, _)| *bits != r.to_bits()) {
        *cache = Some((r.to_bits(), schedule.job_types(r)));
    }
    &cache.as_ref().expect("filled above").1
}

fn finite_at_least(key: &str, v: f64, zero_ok: bool, what: &str) -> std::result::Result<f64, FieldError> {
    if v.is_finite() && (v > 0.0 || (zero_ok && v == 0.0)) {
        Ok(v)
    } else {
        let range = if zero_ok { "≥ 0" } else { "> 0" };
        Err(field(key, format!("{} is out of range: accepted is a finite {what} {range}", shown_number(v))))
    }
}

/// `v` (a size or a bandwidth, `written` as in the scenario) if it is > 0, or ≥ 0 when
/// `zero_ok`; else an error that repeats the value as written, with its unit, and the range.
fn unit_at_least(
    key: &str,
    (v, written): (f64, &str),
    zero_ok: bool,
    what: &str,
    example: &str,
) -> std::result::Result<f64, FieldError> {
    if v > 0.0 || (zero_ok && v == 0.0) {
        // "-0 B" is zero: adding +0.0 turns −0.0 into +0.0.
        Ok(v + 0.0)
    } else {
        let range = if zero_ok { "≥ 0" } else { "> 0" };
        Err(field(
            key,
            format!(
                "\"{}\" is out of range: accepted is a {what} {range}, with units, for example \"{example}\" ({SIZE_HINT})",
                shorten(written)
            ),
        ))
    }
}

fn resolve_point(
    index: usize,
    labels: Vec<String>,
    raw: &RawStudy,
    schedule: &Schedule,
) -> std::result::Result<EfficiencyPoint, FieldError> {
    let m = &raw.machine;
    let frontier = Machine::frontier();
    let machine = Machine {
        failure_rate_per_node_h: match m.failure_rate {
            Some(Real(r)) => {
                let r = finite_at_least("machine.failure_rate", r, false, "number of failures per node-hour")?;
                // 1/R₀ (the mean usage between failures) must be finite for every cadence.
                if r < MIN_FAILURE_RATE {
                    return Err(field(
                        "machine.failure_rate",
                        format!(
                            "{} per node-hour is too small: the mean usage between failures, 1/R₀ node-hours, \
                             overflows (beyond the largest number, about 1.8e308); accepted is a finite number of \
                             failures per node-hour ≥ {MIN_FAILURE_RATE:e}",
                            shown_number(r)
                        ),
                    ));
                }
                r
            }
            None => frontier.failure_rate_per_node_h,
        },
        checkpoint_bytes: match &m.checkpoint_bytes {
            Some(Bytes(b, written)) => {
                unit_at_least("machine.checkpoint_bytes", (*b, written), true, "size", "200 GB")?
            }
            None => frontier.checkpoint_bytes,
        },
        bandwidth_bytes_per_s: match &m.bandwidth {
            Some(Bandwidth(b, written)) => {
                unit_at_least("machine.bandwidth", (*b, written), false, "bandwidth", "6 TB/s")?
            }
            None => frontier.bandwidth_bytes_per_s,
        },
        storage: match m.storage {
            None => frontier.storage,
            Some(StorageName::Shared) => Storage::Shared,
            Some(StorageName::Local) => Storage::Local,
        },
        setup_s: match &m.setup {
            Some(d) => duration_at_least("machine.setup", d, false)?,
            None => frontier.setup_s,
        },
        read_write_ratio: match m.read_write_ratio {
            Some(Real(a)) => finite_at_least("machine.read_write_ratio", a, true, "number")?,
            None => frontier.read_write_ratio,
        },
    };
    let cadence = match raw.policy.cadence {
        None | Some(CadenceName::Optimal) => Cadence::Optimal,
        Some(CadenceName::Young) => Cadence::Young,
        Some(CadenceName::None) => Cadence::None,
    };
    let factor = match raw.policy.factor {
        Some(Real(f)) => finite_at_least("policy.factor", f, false, "number")?,
        None => 1.0,
    };
    let last = match raw.schedule.last_segment {
        None | Some(LastName::Full) => LastSegment::Full,
        Some(LastName::Truncated) => LastSegment::Truncated,
    };
    let no_actual = || {
        format!(
            "the schedule {} has no actual-duration column (`Actual Duration` or `actual_s`), which \
             \"usage-weighted\" needs; give the ratio as a number, for example runtime_ratio = 1.0",
            schedule.path.display()
        )
    };
    let (runtime_ratio, runtime_ratio_source) = match raw.schedule.runtime_ratio {
        Some(RatioSpec::Given(r)) => {
            (finite_at_least("schedule.runtime_ratio", r, false, "number")?, RatioSource::Given)
        }
        Some(RatioSpec::UsageWeighted) => {
            let r =
                schedule.runtime_ratio_usage_weighted().ok_or_else(|| field("schedule.runtime_ratio", no_actual()))?;
            (r, RatioSource::UsageWeighted)
        }
        None => match schedule.runtime_ratio_usage_weighted() {
            Some(r) => (r, RatioSource::UsageWeighted),
            None => (1.0, RatioSource::Default),
        },
    };
    if !(runtime_ratio > 0.0 && runtime_ratio.is_finite()) {
        let all_zero = schedule.jobs.iter().all(|j| j.actual_s == Some(0.0));
        let why = if all_zero {
            "every job's actual duration is 0, so every job time would be 0".to_string()
        } else {
            let largest = schedule.jobs.iter().filter_map(|j| j.actual_s).fold(0.0, f64::max);
            format!(
                "the quotient {} (the actual durations, at most {} s, against requested ones of up to {} s)",
                if runtime_ratio == 0.0 {
                    "underflows to 0, so every job time would be 0"
                } else {
                    "is out of the numbers' range, so no job time would be finite"
                },
                shown_number(largest),
                shown_number(schedule.jobs.iter().map(|j| j.requested_s).fold(0.0, f64::max))
            )
        };
        return Err(field(
            "schedule.runtime_ratio",
            format!(
                "the usage-weighted ratio Σ N·T_actual / Σ N·T_requested of {} is {}: {why}; give the ratio \
                 as a number > 0",
                schedule.path.display(),
                shown_number(runtime_ratio)
            ),
        ));
    }
    Ok(EfficiencyPoint { index, labels, machine, cadence, factor, last, runtime_ratio, runtime_ratio_source })
}

/// Checks that every job type of `types` has a plan the model and the engine can play, so
/// that [`JobPlan::new`] cannot panic and the simulation ends.
fn check_point(p: &EfficiencyPoint, types: &[JobType], schedule: &Schedule) -> std::result::Result<(), FieldError> {
    let m = &p.machine;
    for t in types {
        let usage = t.usage_nh();
        // Not only 0: a usage below the normal range (subnormal) has lost its precision.
        if !usage.is_normal() {
            return Err(ratio_out_of_range(p, t, schedule));
        }
        if let Some(u_c) = m.u_c(t.nodes, p.cadence, p.factor) {
            let u_chk = m.u_chk(t.nodes);
            // N² on shared storage, N on node-local storage: u_chk = scale · bytes / bandwidth / 3600.
            let scale = |nodes: u64| match m.storage {
                Storage::Shared => nodes as f64 * nodes as f64,
                Storage::Local => nodes as f64,
            };
            if !u_chk.is_finite() {
                // The least bandwidth at which bytes/bandwidth, and u_chk of the largest jobs, are finite.
                let largest = types.iter().map(|t| t.nodes).max().unwrap_or(t.nodes);
                let least = m.checkpoint_bytes / f64::MAX * (scale(largest) / 3600.0).max(1.0) * (1.0 + 1e-3);
                return Err(field(
                    "machine.bandwidth",
                    format!(
                        "{} B/s is too slow for checkpoint_bytes = {} B per node: a checkpoint of the {}-node jobs \
                         would use u_chk = (bytes / bandwidth) · {} / 3600 node-hours, beyond the largest number \
                         (about 1.8e308); accepted for this checkpoint size and schedule is a bandwidth ≥ {} B/s",
                        shown_number(m.bandwidth_bytes_per_s),
                        shown_number(m.checkpoint_bytes),
                        t.nodes,
                        if m.storage == Storage::Shared { "N²" } else { "N" },
                        sig(least)
                    ),
                ));
            }
            if m.checkpoint_bytes > 0.0 && !u_chk.is_normal() {
                // The least size at which u_chk reaches the smallest normal number.
                // Types come by node count, so these are the smallest jobs: the bound holds for all.
                let least = f64::MIN_POSITIVE * 3600.0 * m.bandwidth_bytes_per_s / scale(t.nodes) * (1.0 + 1e-3);
                return Err(field(
                    "machine.checkpoint_bytes",
                    format!(
                        "{} B per node is so small that a checkpoint of the {}-node jobs, u_chk = (bytes / \
                         bandwidth) · {} / 3600, underflows to {} node-hours (below the smallest normal number, \
                         about 2.2e-308): policy.cadence = \"{}\" needs a checkpoint cost > 0; accepted at this \
                         bandwidth ({} B/s) is checkpoint_bytes ≥ {} B, or 0 B with policy.cadence = \"none\"",
                        shown_number(m.checkpoint_bytes),
                        t.nodes,
                        if m.storage == Storage::Shared { "N²" } else { "N" },
                        shown_number(u_chk),
                        cadence_name(p.cadence),
                        shown_number(m.bandwidth_bytes_per_s),
                        sig(least)
                    ),
                ));
            }
            let base = m.u_c(t.nodes, p.cadence, 1.0).unwrap_or(f64::NAN);
            if u_chk > 0.0 && base.is_normal() && !u_c.is_normal() {
                // The cadence at factor 1 is fine: the factor pushed it out of range. The accepted
                // factors keep every job type's cadence in range.
                let bases: Vec<f64> = types.iter().filter_map(|t| m.u_c(t.nodes, p.cadence, 1.0)).collect();
                let (low, high) =
                    (bases.iter().copied().fold(f64::INFINITY, f64::min), bases.iter().copied().fold(0.0, f64::max));
                return Err(field(
                    "policy.factor",
                    format!(
                        "{} gives the {}-node jobs a cadence u_c = factor × {} = {} node-hours, which {}; accepted \
                         here is a factor {}",
                        shown_number(p.factor),
                        t.nodes,
                        sig(base),
                        shown_number(u_c),
                        if u_c.is_finite() {
                            "underflows (below the smallest normal number, about 2.2e-308)"
                        } else {
                            "overflows (beyond the largest number, about 1.8e308)"
                        },
                        accepted_range(f64::MIN_POSITIVE / low * (1.0 + 1e-3), f64::MAX / high * (1.0 - 1e-3))
                    ),
                ));
            }
            if !(u_c > 0.0 && u_c.is_finite() && u_chk.is_finite()) {
                return Err(field(
                    "machine.checkpoint_bytes",
                    format!(
                        "the {}-node jobs get a cadence u_c = {u_c} node-hours (u_chk = {u_chk}): policy.cadence = \
                         \"{}\" needs a checkpoint cost > 0; accepted is checkpoint_bytes > 0 (and a finite \
                         bandwidth), or policy.cadence = \"none\"",
                        t.nodes,
                        cadence_name(p.cadence)
                    ),
                ));
            }
            if usage / (u_c + u_chk) > MAX_SEGMENTS {
                return Err(too_many_segments(p, types, t));
            }
        }
    }
    // u_r = α·u_chk + τ₀·N grows with N: the largest job decides.
    if let Some(big) = types.iter().map(|t| t.nodes).max() {
        let r0 = m.failure_rate_per_node_h;
        let u_r = m.u_r(big);
        let exposure = r0 * u_r;
        if exposure.is_nan() || exposure > MAX_RESTART_EXPOSURE {
            return Err(field(
                "machine.failure_rate",
                format!(
                    "{} per node-hour makes every restart of the {big}-node jobs fail: a restart uses u_r = {} \
                     node-hours (α·u_chk + τ₀·N) and is struck R₀·u_r = {} times on average, so it practically never \
                     completes (about e^{} attempts per failure); accepted for this schedule and machine \
                     is R₀·u_r ≤ {MAX_RESTART_EXPOSURE}, i.e. failure_rate ≤ {} (or a faster bandwidth, node-local \
                     storage, a shorter setup)",
                    crate::scenario::shown_number(r0),
                    sig(u_r),
                    sig(exposure),
                    sig(exposure),
                    sig(MAX_RESTART_EXPOSURE / u_r)
                ),
            ));
        }
    }
    Ok(())
}

/// The error for a runtime ratio at which the jobs of type `t` have a usage N·T that is 0,
/// below the normal range or not finite: the ratio, the job, and the ratios accepted.
fn ratio_out_of_range(p: &EfficiencyPoint, t: &JobType, schedule: &Schedule) -> FieldError {
    let r = p.runtime_ratio;
    // N·T at r = 1 (node-hours), over the schedule: r·(smallest) must be normal, r·(largest) finite.
    let usage_at_1 = |j: &crate::schedule::ScheduleJob| j.nodes as f64 * (j.requested_s / 3600.0);
    let smallest = schedule.jobs.iter().map(usage_at_1).fold(f64::INFINITY, f64::min);
    let largest = schedule.jobs.iter().map(usage_at_1).fold(0.0, f64::max);
    let requested_s = schedule
        .jobs
        .iter()
        .filter(|j| j.nodes == t.nodes)
        .map(|j| j.requested_s)
        .find(|&s| (s / 3600.0 * r).to_bits() == t.duration_h.to_bits());
    let source = match p.runtime_ratio_source {
        RatioSource::Given => String::new(),
        _ => format!(" (the usage-weighted ratio of {})", schedule.path.display()),
    };
    let usage = t.usage_nh();
    field(
        "schedule.runtime_ratio",
        format!(
            "{}{source} is out of range: the {}-node jobs{} would use N·T = N × requested × r = {} node-hours, \
             which {}; accepted for this schedule is a ratio {}",
            shown_number(r),
            t.nodes,
            requested_s.map(|s| format!(" of {} s requested", shown_number(s))).unwrap_or_default(),
            shown_number(usage),
            if usage.is_finite() {
                "underflows (below the smallest normal number, about 2.2e-308)"
            } else {
                "overflows (beyond the largest number, about 1.8e308)"
            },
            accepted_range(f64::MIN_POSITIVE / smallest * (1.0 + 1e-3), f64::MAX / largest * (1.0 - 1e-3))
        ),
    )
}

/// "from `lo` to `hi`", or "≥ `lo`" when `hi` is beyond the numbers' range. `lo` is raised
/// to the smallest normal number (with a margin over the 4 digits shown): a value below it has
/// lost its precision, whatever it multiplies.
/// The error for a job type `t` of `types` that would write more than [`MAX_SEGMENTS`]
/// checkpoints. The count is usage / (u_c + u_chk): a factor that shortens the cadence raises
/// it, and so does a given runtime ratio that stretches the jobs. The ratio is blamed when it
/// was given and even factor 1 would not do; otherwise the factor, with the factors accepted.
fn too_many_segments(p: &EfficiencyPoint, types: &[JobType], t: &JobType) -> FieldError {
    let m = &p.machine;
    // Per job type with a cadence: (usage, u_c at factor 1, u_chk) (nh).
    let costs: Vec<(f64, f64, f64)> =
        types.iter().filter_map(|t| Some((t.usage_nh(), m.u_c(t.nodes, p.cadence, 1.0)?, m.u_chk(t.nodes)))).collect();
    let segments =
        |factor: f64| costs.iter().map(|&(usage, base, chk)| usage / (factor * base + chk)).fold(0.0, f64::max);
    let u_c = m.u_c(t.nodes, p.cadence, p.factor).unwrap_or(f64::NAN);
    let u_chk = m.u_chk(t.nodes);
    if p.runtime_ratio_source == RatioSource::Given && segments(1.0) > MAX_SEGMENTS {
        // The count grows linearly with the ratio (every usage is requested time × r × N).
        let most = p.runtime_ratio * (MAX_SEGMENTS / segments(p.factor)) * (1.0 - 1e-3);
        return field(
            "schedule.runtime_ratio",
            format!(
                "{} makes the {}-node jobs use {} node-hours each, more than {MAX_SEGMENTS:e} checkpoints (u_c = {} \
                 node-hours of compute and u_chk = {} per checkpoint); accepted here is a ratio ≤ {}",
                shown_number(p.runtime_ratio),
                t.nodes,
                sig(t.usage_nh()),
                sig(u_c),
                sig(u_chk),
                sig(most)
            ),
        );
    }
    // The least factor at which every type stays within the limit: usage / (f·base + chk) ≤ MAX.
    let least =
        costs.iter().map(|&(usage, base, chk)| (usage / MAX_SEGMENTS - chk) / base).fold(f64::MIN_POSITIVE, f64::max)
            * (1.0 + 1e-3);
    field(
        "policy.factor",
        format!(
            "{} gives the {}-node jobs ({} node-hours each) more than {MAX_SEGMENTS:e} checkpoints (u_c = {} \
             node-hours of compute and u_chk = {} per checkpoint); accepted here is a factor ≥ {}{}",
            shown_number(p.factor),
            t.nodes,
            sig(t.usage_nh()),
            sig(u_c),
            sig(u_chk),
            sig(least),
            if p.runtime_ratio_source == RatioSource::Given {
                format!(" (or a schedule.runtime_ratio below {})", shown_number(p.runtime_ratio))
            } else {
                String::new()
            }
        ),
    )
}

fn accepted_range(lo: f64, hi: f64) -> String {
    let lo = lo.max(f64::MIN_POSITIVE * (1.0 + 1e-3));
    if hi.is_finite() { format!("from {} to {}", sig(lo), sig(hi)) } else { format!("≥ {}", sig(lo)) }
}

/// `x` to 4 significant digits, in scientific notation outside [10⁻³, 10⁵).
fn sig(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if (1e-3..1e5).contains(&x.abs()) {
        let decimals = (3 - x.abs().log10().floor() as i32).max(0) as usize;
        format!("{x:.decimals$}")
    } else {
        format!("{x:.3e}")
    }
}

/// The closed form and the simulation of one point.
#[derive(Debug, Clone, PartialEq)]
pub struct PointResult {
    /// The closed form (MODELS.md §5).
    pub model: Efficiency,
    /// The Monte Carlo.
    pub sim: SimulatedEfficiency,
    /// Expected jobs ended by a failure per replication (closed form).
    pub failed_jobs_model: f64,
    /// Jobs in the schedule.
    pub jobs: u64,
    /// Distinct job types (N, requested time).
    pub job_types: usize,
    /// Warnings about the point (most jobs fail, e < 0).
    pub warnings: Vec<String>,
}

/// A run of an efficiency study.
#[derive(Debug, Clone, PartialEq)]
pub struct StudyResult {
    /// Replications per point.
    pub replications: u64,
    /// The master seed.
    pub seed: u64,
    /// One result per point, in point order.
    pub points: Vec<PointResult>,
}

/// Runs every point of `sc`: closed form, then `reps` replications from `seed` of
/// [`usage::simulate_schedule`] (parallel in the current rayon pool; the result does not
/// depend on the thread count). `progress(n)` is called, from any thread, each time another
/// `n` replications of the current point are done (for progress bars: the total is
/// `reps` × the number of points).
///
/// # Errors
///
/// [`Error::Usage`] for fewer than 2 replications; [`Error::Engine`] when a simulation cannot
/// complete (not expected: [`load`] rejects points whose restarts practically never end).
pub fn run(sc: &EfficiencyScenario, reps: u64, seed: u64, progress: &(dyn Fn(u64) + Sync)) -> Result<StudyResult> {
    if reps < 2 {
        return Err(Error::Usage(format!("{reps} replications: accepted is an integer ≥ 2 (a CI needs two)")));
    }
    let mut points = vec![];
    let mut cached: Option<(u64, Vec<JobType>)> = None;
    for p in &sc.points {
        let types = job_types(&mut cached, &sc.schedule, p.runtime_ratio);
        let m = &p.machine;
        let model = usage::efficiency(m, types, p.cadence, p.factor, p.last);
        let sim = usage::simulate_schedule_with_progress(m, types, p.cadence, p.factor, p.last, reps, seed, progress)
            .map_err(|source| Error::Engine { point: p.index, source })?;
        let r0 = m.failure_rate_per_node_h;
        let failed_jobs_model: f64 = types
            .iter()
            .map(|t| {
                let plan = JobPlan::new(m, t.nodes, t.duration_h, p.cadence, p.factor, p.last);
                t.count as f64 * plan.failure_probability(r0)
            })
            .sum();
        let jobs = sc.schedule.jobs.len() as u64;
        let mut warnings = vec![];
        let failing = failed_jobs_model / jobs as f64;
        if failing > MOST_JOBS_FAIL {
            warnings.push(format!(
                "{:.2}% of the jobs are expected to end by a failure (R₀ = {r0} per node-hour): the machine \
                 barely completes a job",
                100.0 * failing
            ));
        }
        if model.e < 0.0 {
            warnings.push(format!(
                "e = {:.4} < 0: restarts cost more than the jobs use (restart usage is a loss but not part of ΣU)",
                model.e
            ));
        }
        points.push(PointResult { model, sim, failed_jobs_model, jobs, job_types: types.len(), warnings });
    }
    Ok(StudyResult { replications: reps, seed, points })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_bandwidths_need_units() {
        assert_eq!(parse_bytes("200 GB"), Ok(200e9));
        assert_eq!(parse_bytes("1.5TiB"), Ok(1.5 * 1024f64.powi(4)));
        assert_eq!(parse_bytes(" 512 MiB "), Ok(512.0 * 1024.0 * 1024.0));
        assert_eq!(parse_bytes("2e3 kB"), Ok(2e6));
        assert_eq!(parse_bytes("0 B"), Ok(0.0));
        for bad in ["200", "200 Gb", "200 gb", "x GB", "nan GB", "inf TB", "", "GB"] {
            assert!(parse_bytes(bad).is_err(), "{bad} accepted");
        }
        assert_eq!(parse_bandwidth("6 TB/s"), Ok(6e12));
        assert_eq!(parse_bandwidth("6TB / s"), Ok(6e12));
        assert_eq!(parse_bandwidth("36 TB/min"), Ok(6e11));
        for bad in ["6", "6 TB", "6 TB/", "6/s", "6 TB/fortnight"] {
            assert!(parse_bandwidth(bad).is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn significant_digits() {
        assert_eq!(sig(2.71171), "2.712");
        assert_eq!(sig(27.117), "27.12");
        assert_eq!(sig(0.004425), "0.004425");
        assert_eq!(sig(12345.6), "12346");
        assert_eq!(sig(1.5e-5), "1.500e-5");
        assert_eq!(sig(0.0), "0");
    }
}
