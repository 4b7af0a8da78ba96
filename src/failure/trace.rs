//! Failure logs (issue #4): reading real logs, per-system statistics, and replay.
//!
//! Real machines do not fail as Poisson processes. Schroeder & Gibson ("A large-scale study of
//! failures in high-performance computing systems", DSN 2006) found, on the LANL log read
//! here, that a system's time between failures is well modelled by a Weibull law with a
//! decreasing hazard (shape below 1), and that failures cluster in time. This module reads
//! such logs, measures both effects per system, writes the fitted law as a scenario fragment,
//! and cuts windows out of a log for replay.
//!
//! # Formats
//!
//! [`read_log`] detects the format from the header line (the first line that is neither blank
//! nor a `#` comment), and xz compression from the magic bytes `FD 37 7A 58 5A 00` whatever the
//! file is called.
//!
//! - **LANL** ([`LogFormat::Lanl`]): the CSV of LA-UR-05-7318 exactly as shipped (header
//!   `System,machine type,nodes,…,Prob Started,Prob Fixed,Down Time,Facilities,…,Same Event`).
//!   Columns are found by name. Read are `System`, `nodes` (declared system size; empty = not
//!   declared), `nodenumz` (node number from zero; empty = unknown, read as node 0: system 17
//!   has no node columns at all), `Prob Started` (`m/d/yyyy h:mm`, minute resolution), `Down
//!   Time` (minutes; empty = unknown) and the cause: the name of the one non-empty column
//!   among [`LANL_CAUSE_COLUMNS`] (none filled = no cause; two filled = malformed). Times are
//!   naive wall-clock times read as if they were UTC and converted to seconds since
//!   1970-01-01 00:00; the log's local daylight-saving shifts are not undone, so a gap that
//!   spans a change is off by one hour.
//! - **Simple** ([`LogFormat::Simple`]): a CSV with the header `time,node` or
//!   `time,node,cause`, where `time` is a duration with a unit since the log's start (`"3.5
//!   h"`, `"90 s"`: [`crate::scenario::parse_duration_s`]), or the header `time_s,node[,cause]`
//!   where `time_s` is a plain number of seconds. Times are ≥ 0; `node` is an integer ≥ 0; an
//!   empty cause is no cause. Header names are matched without regard to case or surrounding
//!   spaces. Rows need not be sorted. The file holds one system, named after the file's stem
//!   with `.xz` and `.csv` removed (`runs/failures.csv.xz` → `failures`). Times are taken as
//!   recorded to [`SIMPLE_RESOLUTION_S`].
//!
//! In both formats blank lines and lines starting with `#` are skipped, fields may be quoted
//! as in RFC 4180, and every row must have as many fields as the header.
//!
//! # Conventions
//!
//! - **Observation window**: a system is observed from its first to its last failure
//!   ([`SystemLog::start_s`], [`SystemLog::end_s`]). The log records neither when a system
//!   entered production nor when it left (the node dates are month-coarse, and systems were
//!   retired years before the log ends), so any wider window would be a guess: extending every
//!   system to the end of the whole log would add years of spurious failure-free time to
//!   systems retired early and bias their MTBF up and their shape down. The price: the window
//!   ends at a failure, so the right-censored tail after the last failure is empty, and the
//!   time before the first failure (left-censored, not a whole gap) is not used.
//! - **MTBF** = span / failures ([`SystemStats::mtbf_s`]), the rate convention of Schroeder &
//!   Gibson (failures per unit of observed time). It is (n − 1)/n times the mean gap.
//! - **Censoring**: times are recorded to a clock resolution r ([`SystemLog::resolution_s`]:
//!   60 s for LANL). A recorded gap of g ticks is the difference of two truncated stamps: with
//!   the failures' phase within the tick uniform, a true gap x is recorded as g with
//!   probability max(0, 1 − |x/r − g|), so the fit uses that likelihood (a one-tick interval
//!   probability averaged over the phase: [`Observation::Rounded`]). A zero gap, a quarter of
//!   system 2's, is then a gap shorter than one tick, not a zero lifetime. (The cruder
//!   interval [max(g − r, 0), g + r) has the same support, but its box kernel under-weights
//!   zero gaps and biased the shape by two standard errors on average in 40 synthetic logs
//!   of 5000 gaps, shape 0.7, a fifth of them zero; it only gives the fit its starting
//!   point.) The time from the last failure to the window's
//!   end, less r, is right-censored: empty here, since the window ends at the last failure.
//! - **Bursts**: a burst at threshold τ is a maximal run of consecutive failures (by time)
//!   each at most τ after the previous one, that touches at least two distinct nodes; the
//!   share is failures in bursts / all failures ([`BurstShare`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use statrs::function::gamma::{gamma, ln_gamma};

use crate::error::{Error, Origin};
use crate::failure::Law;
use crate::report::csv_number;
use crate::scenario::{parse_duration_s, shorten};

/// The magic bytes that open an xz stream.
pub const XZ_MAGIC: [u8; 6] = [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00];

/// The clock resolution of the LANL log (s): `Prob Started` has minutes, no seconds.
pub const LANL_RESOLUTION_S: f64 = 60.0;

/// The clock resolution assumed for the simple format (s): times are taken as exact to the
/// second.
pub const SIMPLE_RESOLUTION_S: f64 = 1.0;

/// The LANL root-cause columns, in the file's order; a record's cause is the name of the one
/// that is filled (Schroeder & Gibson, DSN 2006, §3: the six high-level categories).
pub const LANL_CAUSE_COLUMNS: [&str; 6] =
    ["Facilities", "Hardware", "Human Error", "Network", "Undetermined", "Software"];

/// The burst thresholds of [`system_stats`] (s): 1, 10 and 60 min.
pub const BURST_THRESHOLDS_S: [f64; 3] = [60.0, 600.0, 3600.0];

/// What [`read_log`] does with a malformed line (wrong field count, bad date, bad number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Malformed {
    /// The first malformed line is an error naming the file, the line and what is wrong.
    Fatal,
    /// Malformed lines are counted in [`Log::skipped`] and left out.
    Skip,
}

/// The format a log was read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// The LANL failure data (LA-UR-05-7318), as shipped.
    Lanl,
    /// The simple `time,node[,cause]` (or `time_s,node[,cause]`) CSV.
    Simple,
}

/// One failure record.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// When the failure started (s): since 1970-01-01 00:00 for LANL (naive local time read
    /// as UTC), since the log's start for the simple format; since the window's start in the
    /// output of [`events_in_window`].
    pub time_s: f64,
    /// The failed node, numbered from zero (0 where the log does not say).
    pub node: u64,
    /// The cause category (for LANL, the name of the filled cause column), if recorded.
    pub cause: Option<String>,
    /// How long the node was down (s), if recorded (LANL `Down Time`, given in minutes).
    pub downtime_s: Option<f64>,
}

/// The failures of one system, with its observation window.
#[derive(Debug, Clone, PartialEq)]
pub struct SystemLog {
    /// The system's name (LANL: its number, `"2"` … `"24"`).
    pub name: String,
    /// The declared system size (nodes), if the log gives one.
    pub nodes: Option<u64>,
    /// The failures, sorted by time; ties keep the file's order.
    pub events: Vec<Event>,
    /// Start of the observation window (s, the events' clock): the first failure.
    pub start_s: f64,
    /// End of the observation window (s): the last failure. Time after the last failure up
    /// to here is right-censored in the fit.
    pub end_s: f64,
    /// The clock resolution of the recorded times (s): [`LANL_RESOLUTION_S`] or
    /// [`SIMPLE_RESOLUTION_S`]; 0 for exact times.
    pub resolution_s: f64,
}

/// A failure log: every system in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Log {
    /// The systems by name.
    pub systems: BTreeMap<String, SystemLog>,
    /// Malformed lines left out (with [`Malformed::Skip`]; always 0 with `Fatal`).
    pub skipped: usize,
    /// The format the log was read in.
    pub format: LogFormat,
}

impl Log {
    /// The system called `name`, or an error (exit code 2) listing the systems there are.
    pub fn system(&self, name: &str) -> Result<&SystemLog, Error> {
        self.systems.get(name).ok_or_else(|| {
            Error::Usage(format!(
                "the failure log has no system `{name}`: its systems are {}",
                self.system_names().join(", ")
            ))
        })
    }

    /// The systems' names in natural order: numeric names by value first (`2, 3, …, 24`),
    /// then the others alphabetically.
    pub fn system_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.systems.keys().map(String::as_str).collect();
        names.sort_by_key(|n| (n.parse::<u64>().map_or((1, 0), |v| (0, v)), n.to_string()));
        names
    }

    /// The number of failure records over all systems.
    pub fn event_count(&self) -> usize {
        self.systems.values().map(|s| s.events.len()).sum()
    }
}

fn file_error(path: &Path, line: Option<usize>, message: impl Into<String>) -> Error {
    Error::Scenario {
        origin: Origin::File { path: path.to_path_buf(), line, column: None },
        key: None,
        message: message.into(),
    }
}

/// Reads a failure log (LANL or simple format, plain or xz-compressed; see the module
/// documentation for the exact rules).
///
/// Errors (all exit code 2) name the file, and the 1-based line where there is one: an
/// unreadable file, a broken xz stream, an empty file, an unknown header, a malformed line
/// (with [`Malformed::Fatal`]), or no valid record at all.
pub fn read_log(path: &Path, malformed: Malformed) -> Result<Log, Error> {
    let bytes = crate::input::read_bounded(path, crate::input::MAX_INPUT_BYTES)
        .map_err(|e| file_error(path, None, format!("cannot read the failure log: {e}")))?;
    parse_log(&bytes, path, malformed)
}

/// Parses the bytes of a failure log as [`read_log`] does; `path` names the log in errors
/// (and, for the simple format, names its system).
pub fn parse_log(bytes: &[u8], path: &Path, malformed: Malformed) -> Result<Log, Error> {
    let decompressed;
    let mut text = bytes;
    if text.starts_with(&XZ_MAGIC) {
        decompressed = crate::input::xz_decompress_bounded(text, crate::input::MAX_INPUT_BYTES)
            .map_err(|e| file_error(path, None, e))?;
        text = &decompressed;
    }
    if text.starts_with(&[0x1f, 0x8b]) {
        return Err(file_error(
            path,
            None,
            "the file is gzip-compressed: accepted is a failure log in plain text or xz; decompress it first \
             (`gunzip -k FILE`)",
        ));
    }
    if let Some(rest) = text.strip_prefix(b"\xEF\xBB\xBF") {
        text = rest;
    }
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).comment(Some(b'#')).from_reader(text);
    let mut record = csv::ByteRecord::new();
    let read = |reader: &mut csv::Reader<&[u8]>, record: &mut csv::ByteRecord| {
        reader.read_byte_record(record).map_err(|e| file_error(path, None, format!("cannot be read as CSV: {e}")))
    };
    if !read(&mut reader, &mut record)? {
        return Err(file_error(
            path,
            None,
            "the failure log is empty: expected a header line (the LANL header, or `time,node[,cause]`)",
        ));
    }
    let header_line = line_of(&record);
    if record.iter().any(|f| std::str::from_utf8(f).is_err()) {
        // A binary file: its header was shown as mojibake, "unknown failure-log header `�7z…`".
        return Err(file_error(
            path,
            Some(header_line),
            "the header line is not UTF-8 text: accepted is a failure log in plain text (CSV) or xz; is this a \
             binary file?",
        ));
    }
    let header: Vec<String> = record.iter().map(|f| String::from_utf8_lossy(f).trim().to_string()).collect();
    let parser = RowParser::new(&header, path).map_err(|m| file_error(path, Some(header_line), m))?;
    let mut skipped = 0;
    let mut rows = 0;
    let mut systems: BTreeMap<String, (Option<u64>, Vec<Event>)> = BTreeMap::new();
    while read(&mut reader, &mut record)? {
        rows += 1;
        match parser.row(&record, &mut systems) {
            Ok(()) => {}
            Err(message) => match malformed {
                Malformed::Fatal => return Err(file_error(path, Some(line_of(&record)), message)),
                Malformed::Skip => skipped += 1,
            },
        }
    }
    if systems.is_empty() {
        let message = if rows == 0 {
            "the failure log has a header but no failure records".to_string()
        } else {
            format!("the failure log has no valid failure record: all {rows} were malformed and skipped")
        };
        return Err(file_error(path, None, message));
    }
    let resolution_s = match parser.format() {
        LogFormat::Lanl => LANL_RESOLUTION_S,
        LogFormat::Simple => SIMPLE_RESOLUTION_S,
    };
    let systems = systems
        .into_iter()
        .map(|(name, (nodes, mut events))| {
            events.sort_by(|a, b| a.time_s.total_cmp(&b.time_s));
            let start_s = events[0].time_s;
            let end_s = events[events.len() - 1].time_s;
            (name.clone(), SystemLog { name, nodes, events, start_s, end_s, resolution_s })
        })
        .collect();
    Ok(Log { systems, skipped, format: parser.format() })
}

fn line_of(record: &csv::ByteRecord) -> usize {
    record.position().map_or(0, |p| p.line() as usize)
}

/// Column indexes of a LANL header.
struct LanlColumns {
    fields: usize,
    system: usize,
    nodes: usize,
    node: usize,
    started: usize,
    down: usize,
    causes: [usize; 6],
}

/// How the simple format gives its times.
#[derive(Clone, Copy)]
enum SimpleTime {
    /// `time`: a duration with a unit.
    WithUnit,
    /// `time_s`: plain seconds.
    Seconds,
}

enum RowParser {
    Lanl(LanlColumns),
    Simple { time: SimpleTime, fields: usize, system: String },
}

impl RowParser {
    fn new(header: &[String], path: &Path) -> Result<RowParser, String> {
        let lower: Vec<String> = header.iter().map(|h| h.to_ascii_lowercase()).collect();
        let time = match lower.first().map(String::as_str) {
            Some("time") => Some(SimpleTime::WithUnit),
            Some("time_s") => Some(SimpleTime::Seconds),
            _ => None,
        };
        if let Some(time) = time
            && (header.len() == 2 || header.len() == 3)
            && lower[1] == "node"
            && (header.len() == 2 || lower[2] == "cause")
        {
            return Ok(RowParser::Simple { time, fields: header.len(), system: simple_system_name(path) });
        }
        if header.iter().any(|h| h == "Prob Started") && header.iter().any(|h| h == "System") {
            let find = |name: &str| {
                header
                    .iter()
                    .position(|h| h == name)
                    .ok_or_else(|| format!("the LANL header lacks the column `{name}` (LA-UR-05-7318 layout expected)"))
            };
            let mut causes = [0; 6];
            for (slot, name) in causes.iter_mut().zip(LANL_CAUSE_COLUMNS) {
                *slot = find(name)?;
            }
            return Ok(RowParser::Lanl(LanlColumns {
                fields: header.len(),
                system: find("System")?,
                nodes: find("nodes")?,
                node: find("nodenumz")?,
                started: find("Prob Started")?,
                down: find("Down Time")?,
                causes,
            }));
        }
        Err(format!(
            "unknown failure-log header `{}`: expected the LANL header (System,machine type,nodes,…,Prob Started,…) \
             or `time,node[,cause]` (durations with a unit) or `time_s,node[,cause]` (seconds)",
            shorten(&header.join(","))
        ))
    }

    fn format(&self) -> LogFormat {
        match self {
            RowParser::Lanl(_) => LogFormat::Lanl,
            RowParser::Simple { .. } => LogFormat::Simple,
        }
    }

    /// Parses one row into `systems`, or says what is wrong with it.
    fn row(
        &self,
        record: &csv::ByteRecord,
        systems: &mut BTreeMap<String, (Option<u64>, Vec<Event>)>,
    ) -> Result<(), String> {
        let expected = match self {
            RowParser::Lanl(c) => c.fields,
            RowParser::Simple { fields, .. } => *fields,
        };
        if record.len() != expected {
            return Err(format!("the line has {} fields, the header has {expected}", record.len()));
        }
        let mut fields = Vec::with_capacity(record.len());
        for (i, f) in record.iter().enumerate() {
            fields.push(std::str::from_utf8(f).map_err(|_| format!("field {} is not valid UTF-8", i + 1))?.trim());
        }
        match self {
            RowParser::Lanl(c) => {
                let system = fields[c.system];
                if system.is_empty() {
                    return Err("column `System` is empty".into());
                }
                let nodes = match fields[c.nodes] {
                    "" => None,
                    t => Some(t.parse::<u64>().map_err(|_| {
                        format!("column `nodes`: `{}` is not a system size (an integer ≥ 0, or empty)", shorten(t))
                    })?),
                };
                let node = match fields[c.node] {
                    "" => 0,
                    t => t.parse::<u64>().map_err(|_| {
                        format!("column `nodenumz`: `{}` is not a node number (an integer ≥ 0, or empty)", shorten(t))
                    })?,
                };
                let time_s = lanl_time_s(fields[c.started]).map_err(|m| format!("column `Prob Started`: {m}"))?;
                let downtime_s = match fields[c.down] {
                    "" => None,
                    t => match t.parse::<f64>() {
                        Ok(v) if v.is_finite() && v >= 0.0 => Some(v * 60.0),
                        _ => {
                            return Err(format!("column `Down Time`: `{}` is not a number of minutes ≥ 0", shorten(t)));
                        }
                    },
                };
                let filled: Vec<&str> = LANL_CAUSE_COLUMNS
                    .iter()
                    .zip(c.causes)
                    .filter(|(_, i)| !fields[*i].is_empty())
                    .map(|(n, _)| *n)
                    .collect();
                if filled.len() > 1 {
                    return Err(format!(
                        "more than one cause column is filled ({}): a record has one root cause",
                        filled.join(", ")
                    ));
                }
                let entry = systems.entry(system.to_string()).or_insert((nodes, Vec::new()));
                match (entry.0, nodes) {
                    (Some(a), Some(b)) if a != b => {
                        return Err(format!(
                            "column `nodes`: {b}, but earlier records of system {system} declare {a} nodes"
                        ));
                    }
                    (None, Some(b)) => entry.0 = Some(b),
                    _ => {}
                }
                entry.1.push(Event { time_s, node, cause: filled.first().map(|s| s.to_string()), downtime_s });
            }
            RowParser::Simple { time, system, .. } => {
                let t = fields[0];
                let time_s = match time {
                    SimpleTime::WithUnit => parse_duration_s(t).map_err(|m| format!("column `time`: {m}"))?,
                    SimpleTime::Seconds => t.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| {
                        format!(
                            "column `time_s`: `{}` is not a number of seconds (the header `time_s` takes plain \
                             seconds; name the column `time` to write durations with a unit)",
                            shorten(t)
                        )
                    })?,
                };
                if time_s < 0.0 {
                    return Err(format!(
                        "column `{}`: `{}` is negative: times count from the log's start",
                        header_name(*time),
                        shorten(t)
                    ));
                }
                let n = fields[1];
                let node = n
                    .parse::<u64>()
                    .map_err(|_| format!("column `node`: `{}` is not a node number (an integer ≥ 0)", shorten(n)))?;
                let cause = fields.get(2).filter(|c| !c.is_empty()).map(|c| c.to_string());
                systems.entry(system.clone()).or_insert((None, Vec::new())).1.push(Event {
                    time_s,
                    node,
                    cause,
                    downtime_s: None,
                });
            }
        }
        Ok(())
    }
}

fn header_name(time: SimpleTime) -> &'static str {
    match time {
        SimpleTime::WithUnit => "time",
        SimpleTime::Seconds => "time_s",
    }
}

/// The simple format's system name: the file's stem without `.xz` and `.csv`.
fn simple_system_name(path: &Path) -> String {
    let mut name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    for ext in [".xz", ".csv"] {
        if let Some(stem) = name.strip_suffix(ext) {
            name = stem.to_string();
        }
    }
    if name.is_empty() { "trace".into() } else { name }
}

/// A LANL `m/d/yyyy h:mm` time as seconds since 1970-01-01 00:00 (naive, no time zone).
fn lanl_time_s(text: &str) -> Result<f64, String> {
    let bad = |why: &str| format!("`{}` is not a date m/d/yyyy hh:mm ({why})", shorten(text));
    let number = |part: &str, digits: std::ops::RangeInclusive<usize>, what: &str| -> Result<i64, String> {
        if digits.contains(&part.len()) && part.bytes().all(|b| b.is_ascii_digit()) {
            Ok(part.parse::<i64>().expect("digits"))
        } else {
            Err(bad(&format!("bad {what} `{}`", shorten(part))))
        }
    };
    let (date, clock) = text.split_once(' ').ok_or_else(|| bad("no time of day"))?;
    let clock = clock.trim_start();
    let parts: Vec<&str> = date.split('/').collect();
    if parts.len() != 3 {
        return Err(bad("the date needs month/day/year"));
    }
    let (month, day, year) =
        (number(parts[0], 1..=2, "month")?, number(parts[1], 1..=2, "day")?, number(parts[2], 4..=4, "year")?);
    let (hour, minute) = clock.split_once(':').ok_or_else(|| bad("the time needs hh:mm"))?;
    let (hour, minute) = (number(hour, 1..=2, "hour")?, number(minute, 2..=2, "minute")?);
    if !(1..=12).contains(&month) {
        return Err(bad(&format!("month {month} is out of range 1–12")));
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days_in_month = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month as usize - 1];
    if day < 1 || day > days_in_month {
        return Err(bad(&format!("day {day} is out of range for month {month} of {year}")));
    }
    if hour > 23 || minute > 59 {
        return Err(bad(&format!("{hour}:{minute:02} is not a time of day")));
    }
    Ok((days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60) as f64)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Writes one system in the simple format, header `time_s,node,cause`, times as they are on
/// the system's clock (s, shortest exact decimal), so that [`read_log`] reads the same times,
/// nodes and causes back. Down times are not written.
pub fn to_simple_csv(sys: &SystemLog) -> String {
    let mut w = csv::Writer::from_writer(vec![]);
    w.write_record(["time_s", "node", "cause"]).expect("writing to memory");
    for e in &sys.events {
        w.write_record([csv_number(e.time_s), e.node.to_string(), e.cause.clone().unwrap_or_default()])
            .expect("writing to memory");
    }
    String::from_utf8(w.into_inner().expect("writing to memory")).expect("UTF-8 in, UTF-8 out")
}

// ───────────────────────────── statistics ─────────────────────────────

/// What is known of one lifetime (s) for a censoring-aware fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Observation {
    /// Observed exactly (s, > 0).
    Exact(f64),
    /// Known to lie in [lo_s, hi_s) (0 ≤ lo_s < hi_s ≤ ∞).
    Interval {
        /// Lower bound (s).
        lo_s: f64,
        /// Upper bound (s), possibly infinite.
        hi_s: f64,
    },
    /// Known to exceed this (s): right-censored.
    RightCensored(f64),
    /// A gap recorded as the difference of two time stamps each truncated to a clock tick
    /// of `resolution_s` (s): with the clock's phase uniform, a true gap x is recorded as
    /// `recorded_s` = g·r with probability max(0, 1 − |x/r − g|) (a triangular kernel), so
    /// the likelihood is P(g) = ∫₀¹ P(X ∈ [max((g − 1 + v)r, 0), (g + v)r)) dv, the
    /// one-tick interval probability averaged over the phase v. A zero gap is then a gap
    /// shorter than one tick, weighted 1 − x/r, not a zero lifetime.
    Rounded {
        /// The recorded gap (s, ≥ 0), normally a whole number of ticks.
        recorded_s: f64,
        /// The clock tick r (s, > 0).
        resolution_s: f64,
    },
}

/// A Weibull law fitted by maximum likelihood (S(x) = exp(−(x/η)^k)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeibullFit {
    /// Shape k (< 1: decreasing hazard).
    pub shape: f64,
    /// Scale η (s).
    pub scale_s: f64,
    /// Mean ηΓ(1 + 1/k) (s).
    pub mean_s: f64,
    /// The maximised log-likelihood: exact observations contribute log-densities (per
    /// second), censored and rounded ones log-probabilities.
    pub log_likelihood: f64,
    /// Standard error of the shape, from the observed information.
    pub shape_se: f64,
    /// Standard error of the scale (s), from the observed information (delta method).
    pub scale_se_s: f64,
}

/// The failures within one burst threshold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BurstShare {
    /// The threshold τ (s): a failure at most τ after the previous one continues its run.
    pub threshold_s: f64,
    /// Bursts: maximal runs of ≥ 2 failures, each ≤ τ after the previous, touching ≥ 2
    /// distinct nodes.
    pub bursts: usize,
    /// Failures that belong to a burst.
    pub failures_in_bursts: usize,
    /// failures_in_bursts / all failures.
    pub share: f64,
}

/// Per-system failure statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct SystemStats {
    /// The system's name.
    pub name: String,
    /// The declared system size (nodes), if known.
    pub nodes: Option<u64>,
    /// Failures recorded.
    pub failures: usize,
    /// Distinct nodes with at least one failure.
    pub nodes_failed: usize,
    /// The observation window's length (s): last failure − first failure.
    pub span_s: f64,
    /// MTBF = span / failures (s); 0 with a single failure. A replay's MTBF is the mean gap,
    /// span / (failures − 1) ([`wrap_period_s`]).
    pub mtbf_s: f64,
    /// Gaps recorded as zero (failures in the same clock tick as the previous one).
    pub zero_gaps: usize,
    /// The Weibull fit of the time between failures (None with too few distinct gaps, when
    /// the likelihood has no maximum, or when the law is beyond a double's range:
    /// [`fit_weibull`]).
    pub weibull: Option<WeibullFit>,
    /// Burst shares at [`BURST_THRESHOLDS_S`].
    pub bursts: Vec<BurstShare>,
}

/// The times between consecutive failures (s), zeros included: n − 1 values for n failures.
pub fn gaps_s(sys: &SystemLog) -> Vec<f64> {
    sys.events.windows(2).map(|w| w[1].time_s - w[0].time_s).collect()
}

/// What the log says of the system's lifetimes, with the module's censoring convention: each
/// gap [`Observation::Rounded`] to the clock resolution r (exact when r = 0), and the tail
/// from the last failure to the window's end, less r (the last failure may be up to one
/// tick later than recorded), right-censored; the tail is left out when not positive, as it
/// always is for a window that ends at the last failure.
pub fn observations(sys: &SystemLog) -> Vec<Observation> {
    let r = sys.resolution_s;
    let mut obs: Vec<Observation> = gaps_s(sys)
        .into_iter()
        .map(|g| if r > 0.0 { Observation::Rounded { recorded_s: g, resolution_s: r } } else { Observation::Exact(g) })
        .collect();
    if let Some(last) = sys.events.last() {
        let tail = sys.end_s - last.time_s - r;
        if tail > 0.0 {
            obs.push(Observation::RightCensored(tail));
        }
    }
    obs
}

/// One observation on the log scale, times divided by the reference time t_ref.
#[derive(Clone)]
enum Term {
    /// Exact: ln x.
    Exact(f64),
    /// Right-censored at ln c.
    Right(f64),
    /// In [0, hi): ln hi.
    Below(f64),
    /// In [lo, hi): ln lo and ln(hi/lo) > 0.
    Between(f64, f64),
    /// ln Σ cⱼ Pⱼ: a quadrature of interval probabilities (weights cⱼ, terms Below or
    /// Between).
    Mixture(Vec<(f64, Term)>),
    /// In [0, ∞): probability 1, no information.
    Certain,
}

/// Gauss–Legendre nodes and weights on [−1, 1], 8 points.
const GAUSS_LEGENDRE_8: [(f64, f64); 8] = [
    (-0.960_289_856_497_536_3, 0.101_228_536_290_376_3),
    (-0.796_666_477_413_626_7, 0.222_381_034_453_374_5),
    (-0.525_532_409_916_329, 0.313_706_645_877_887_3),
    (-0.183_434_642_495_649_8, 0.362_683_783_378_362),
    (0.183_434_642_495_649_8, 0.362_683_783_378_362),
    (0.525_532_409_916_329, 0.313_706_645_877_887_3),
    (0.796_666_477_413_626_7, 0.222_381_034_453_374_5),
    (0.960_289_856_497_536_3, 0.101_228_536_290_376_3),
];

/// The phase quadrature of [`Observation::Rounded`]: nodes vⱼ = wⱼ³ with weights 3wⱼ²ωⱼ,
/// (wⱼ, ωⱼ) Gauss–Legendre on [0, 1]. The substitution clusters nodes near v = 0, where the
/// one-tick interval of a gap of 0 or 1 tick starts at 0 and its probability behaves like
/// v^k (the integrand becomes ~w^{3k+2}: smooth enough for 8 points at every shape ≥ 0.1).
fn phase_nodes() -> [(f64, f64); 8] {
    GAUSS_LEGENDRE_8.map(|(x, w)| {
        let u = (x + 1.0) / 2.0;
        (u * u * u, 3.0 * u * u * w / 2.0)
    })
}

/// The term of the interval [lo, hi) (0 ≤ lo < hi ≤ ∞), on the log scale.
fn interval_term(lo: f64, hi: f64, ln_ref: f64) -> Term {
    // The bounds of a rounded gap near f64::MAX can overflow to ∞, and hi/lo can overflow
    // for bounds far apart.
    match (lo > 0.0, hi.is_finite()) {
        (true, true) => {
            let ratio = hi / lo;
            Term::Between(lo.ln() - ln_ref, if ratio.is_finite() { ratio.ln() } else { hi.ln() - lo.ln() })
        }
        (false, true) => Term::Below(hi.ln() - ln_ref),
        (true, false) => Term::Right(lo.ln() - ln_ref),
        (false, false) => Term::Certain,
    }
}

/// Past this x, e^{−x} (< 1e−304) is negligible next to 1, and e^x is near overflow.
const PHI_SATURATED: f64 = 700.0;

/// φ'(Δ) = 1/(e^Δ − 1) for φ(Δ) = ln(1 − e^{−Δ}); 0 where it underflows.
fn phi1(d: f64) -> f64 {
    if d > PHI_SATURATED { 0.0 } else { 1.0 / d.exp_m1() }
}

/// ψ'(Δ) for ψ(Δ) = Δ/(e^Δ − 1), without the cancellation near 0.
fn psi1(d: f64) -> f64 {
    if d < 1e-2 {
        let d2 = d * d;
        -0.5 + d / 6.0 - d * d2 / 180.0 + d * d2 * d2 / 5040.0
    } else if d > PHI_SATURATED {
        0.0
    } else {
        let p = phi1(d);
        p - d * (p + p * p)
    }
}

/// One term's log-likelihood, gradient and Hessian (upper triangle: aa, ab, bb) in (α, β).
fn term_loglik(t: &Term, a: f64, b: f64) -> (f64, [f64; 2], [f64; 3]) {
    // ℓ(z, δ) with z = β·L − α and δ = β·dL: value, ℓ_z, ℓ_δ, ℓ_zz, ℓ_zδ, ℓ_δδ.
    let (lx, dl, v, lz, ld, lzz, lzd, ldd) = match *t {
        Term::Exact(lx) => {
            let u = (b * lx - a).exp();
            (lx, 0.0, b.ln() - lx + b * lx - a - u, 1.0 - u, 0.0, -u, 0.0, 0.0)
        }
        Term::Right(lx) => {
            let u = (b * lx - a).exp();
            (lx, 0.0, -u, -u, 0.0, -u, 0.0, 0.0)
        }
        Term::Below(lx) => {
            // ln F(x) = φ(u), u = e^z.
            let u = (b * lx - a).exp();
            let v = (-(-u).exp_m1()).ln();
            let (lz, lzz) = if u > PHI_SATURATED { (0.0, 0.0) } else { (u * phi1(u), u * psi1(u)) };
            (lx, 0.0, v, lz, 0.0, lzz, 0.0, 0.0)
        }
        Term::Between(lx, dl) => {
            // ln(S(lo) − S(hi)) = −u + φ(Δ), u = e^z, Δ = u(e^δ − 1): no cancellation.
            let u = (b * lx - a).exp();
            // With δ past PHI_SATURATED, e^{z+δ} is Δ = u(e^δ − 1) to within a factor
            // 1 − e^{−δ}, and avoids 0 · ∞ where u underflows.
            let delta = if b * dl > PHI_SATURATED { (b * (lx + dl) - a).exp() } else { u * (b * dl).exp_m1() };
            let u_hi = u + delta;
            let v = -u + (-(-delta).exp_m1()).ln();
            if delta > PHI_SATURATED {
                (lx, dl, v, -u, 0.0, -u, 0.0, 0.0)
            } else {
                let (p, q) = (phi1(delta), psi1(delta));
                (lx, dl, v, -u + p * delta, p * u_hi, -u + delta * q, u_hi * q, u_hi * (q - u * (p + p * p)))
            }
        }
        Term::Mixture(ref nodes) => return mixture_loglik(nodes, a, b),
        Term::Certain => return (0.0, [0.0; 2], [0.0; 3]),
    };
    let mut g = [-lz, lz * lx + ld * dl];
    let mut h = [lzz, -(lzz * lx + lzd * dl), lzz * lx * lx + 2.0 * lzd * lx * dl + ldd * dl * dl];
    if let Term::Exact(_) = t {
        g[1] += 1.0 / b;
        h[2] -= 1.0 / (b * b);
    }
    (v, g, h)
}

/// ln Σ cⱼ Pⱼ with its gradient and Hessian, from those of each ln Pⱼ (weights
/// ρⱼ = cⱼPⱼ / Σ cP: G = Σ ρ gⱼ, H = Σ ρ (Hⱼ + gⱼgⱼᵀ) − GGᵀ).
fn mixture_loglik(nodes: &[(f64, Term)], a: f64, b: f64) -> (f64, [f64; 2], [f64; 3]) {
    let parts: Vec<(f64, f64, [f64; 2], [f64; 3])> = nodes
        .iter()
        .map(|(c, t)| {
            let (v, g, h) = term_loglik(t, a, b);
            (*c, v, g, h)
        })
        .collect();
    let top = parts.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    if !top.is_finite() {
        return (f64::NEG_INFINITY, [0.0; 2], [0.0; 3]);
    }
    let sum: f64 = parts.iter().map(|(c, v, ..)| c * (v - top).exp()).sum();
    let (mut g, mut h) = ([0.0; 2], [0.0; 3]);
    for (c, v, gj, hj) in &parts {
        let rho = c * (v - top).exp() / sum;
        if rho == 0.0 {
            continue;
        }
        g[0] += rho * gj[0];
        g[1] += rho * gj[1];
        h[0] += rho * (hj[0] + gj[0] * gj[0]);
        h[1] += rho * (hj[1] + gj[0] * gj[1]);
        h[2] += rho * (hj[2] + gj[1] * gj[1]);
    }
    h[0] -= g[0] * g[0];
    h[1] -= g[0] * g[1];
    h[2] -= g[1] * g[1];
    (top + sum.ln(), g, h)
}

/// The log-likelihood, its gradient and its Hessian in (α, β) = (k ln(η/t_ref), k).
fn loglik(terms: &[Term], a: f64, b: f64) -> (f64, [f64; 2], [f64; 3]) {
    let (mut l, mut g, mut h) = (0.0, [0.0; 2], [0.0; 3]);
    for t in terms {
        let (v, gt, ht) = term_loglik(t, a, b);
        l += v;
        for i in 0..2 {
            g[i] += gt[i];
        }
        for i in 0..3 {
            h[i] += ht[i];
        }
    }
    (l, g, h)
}

/// The maximum of the log-likelihood from (a, b): damped Newton with backtracking (scaled
/// gradient ascent where the Hessian is not negative definite). Returns (α, β, ℓ, H), or
/// None when it runs off to a shape or scale of 0 or ∞ (no maximum) or stalls.
fn maximise(terms: &[Term], mut a: f64, mut b: f64) -> Option<(f64, f64, f64, [f64; 3])> {
    const MAX_ITERATIONS: usize = 200;
    /// Stop when the Newton decrement gᵀM⁻¹g (twice the predicted gain) is below this
    /// times 1 + |ℓ|: a sum of thousands of terms is only that accurate.
    const DECREMENT_RTOL: f64 = 1e-13;
    /// A stalled line search still counts as converged below this decrement (rounding).
    const STALL_TOL: f64 = 1e-6;
    const SHAPE_BOUNDS: (f64, f64) = (1e-3, 1e3);
    const MAX_ABS_ALPHA: f64 = 1e4;
    let (mut l, mut g, mut h) = loglik(terms, a, b);
    if !l.is_finite() {
        return None;
    }
    for _ in 0..MAX_ITERATIONS {
        let (m00, m01, m11) = (-h[0], -h[1], -h[2]);
        let det = m00 * m11 - m01 * m01;
        let newton = m00 > 0.0 && det > 0.0;
        let d = if newton {
            [(m11 * g[0] - m01 * g[1]) / det, (m00 * g[1] - m01 * g[0]) / det]
        } else {
            let s = 1.0 / (m00.abs() + m11.abs()).max(1.0);
            [g[0] * s, g[1] * s]
        };
        let decrement = g[0] * d[0] + g[1] * d[1];
        if newton && decrement.abs() < DECREMENT_RTOL * (1.0 + l.abs()) {
            return Some((a, b, l, h));
        }
        let mut t = 1.0;
        let mut accepted = false;
        for _ in 0..60 {
            let (na, nb) = (a + t * d[0], b + t * d[1]);
            if nb > 0.0 {
                let (nl, ng, nh) = loglik(terms, na, nb);
                if nl.is_finite() && nl > l && nl >= l + 1e-4 * t * decrement {
                    (a, b, l, g, h) = (na, nb, nl, ng, nh);
                    accepted = true;
                    break;
                }
            }
            t *= 0.5;
        }
        if !accepted {
            return (newton && decrement.abs() < STALL_TOL).then_some((a, b, l, h));
        }
        if !(SHAPE_BOUNDS.0..=SHAPE_BOUNDS.1).contains(&b) || a.abs() > MAX_ABS_ALPHA {
            return None;
        }
    }
    None
}

/// A rounded gap of more than this many ticks is fitted as exact (its probability as density
/// × tick): the tick is then negligible, and the one-tick interval bounds would lose their
/// width to rounding.
const MAX_RESOLVED_TICKS: f64 = 1e9;

/// The largest shape standard error, relative to the shape, of a fit that is returned. Past
/// it the information is the rounding noise of a likelihood that is flat to working precision
/// along a ridge: it rises toward its supremum only in a limit (a point mass, or all mass
/// below every bound), which the Newton decrement alone mistakes for convergence. In the
/// seeded extreme data sets of the trace tests, finite maxima stay below about 100 and
/// ridges mostly lie above 1000.
const MAX_RELATIVE_SHAPE_SE: f64 = 300.0;

/// The maximum-likelihood Weibull law of `obs`, censoring-aware: exact values contribute
/// their density, intervals, rounded gaps and right-censored values their probability.
///
/// Without rounded gaps the log-likelihood is concave in (α, β) = (k ln η, k) (Pratt 1981:
/// interval-censored data of a log-concave location-scale family, here the Gumbel law of
/// ln X), so a damped Newton method converges from any start; it starts from the
/// exponential law with the observations' mean. Rounded gaps are first fitted as the
/// intervals [max(g − r, 0), g + r) (concave, the same support), then the triangular-kernel
/// likelihood is maximised from there. The standard errors come from the observed
/// information; for rounded gaps, whose errors are correlated through shared time stamps,
/// that treats them as independent (a composite likelihood).
///
/// A rounded gap of more than 10⁹ ticks (`MAX_RESOLVED_TICKS`) counts as exact, its probability
/// the density times the tick. The mean is computed through ln Γ where Γ(1 + 1/k) overflows.
///
/// Returns None with fewer than two informative observations, when the likelihood has no
/// maximum at a finite shape and scale (for example every gap below the clock resolution, or
/// every gap of at most one tick, where it is flat to working precision along a ridge toward
/// a point mass: a shape standard error above 300 times the shape (`MAX_RELATIVE_SHAPE_SE`)),
/// when the fitted law is beyond the range of a double (a scale, mean or standard error that
/// overflows, or a scale that underflows to 0), or when an observation is invalid (an exact
/// value ≤ 0, an interval with lo ≥ hi, a negative or non-finite bound or resolution).
/// Every field of a returned fit is finite, with a positive shape, scale and mean.
pub fn fit_weibull(obs: &[Observation]) -> Option<WeibullFit> {
    // The reference time: the geometric mean of the finite positive bounds, so that the
    // log-times are centred and Newton is well conditioned.
    let mut log_sum = 0.0;
    let mut log_count = 0usize;
    let mut add = |x: f64| {
        if x > 0.0 && x.is_finite() {
            log_sum += x.ln();
            log_count += 1;
        }
    };
    for o in obs {
        match *o {
            Observation::Exact(x) | Observation::RightCensored(x) => add(x),
            Observation::Interval { lo_s, hi_s } => {
                add(lo_s);
                add(hi_s);
            }
            Observation::Rounded { recorded_s, resolution_s } => add(recorded_s + resolution_s),
        }
    }
    if log_count == 0 {
        return None;
    }
    let ln_ref = log_sum / log_count as f64;
    let nodes = phase_nodes();
    // The box-kernel terms (stage 1) and the exact ones (stage 2).
    let (mut boxed, mut terms) = (Vec::with_capacity(obs.len()), Vec::with_capacity(obs.len()));
    let (mut total_s, mut uncensored, mut exact_logs, mut rounded) = (0.0, 0usize, 0.0, false);
    for o in obs {
        match *o {
            Observation::Exact(x) => {
                if !(x > 0.0 && x.is_finite()) {
                    return None;
                }
                terms.push(Term::Exact(x.ln() - ln_ref));
                total_s += x;
                uncensored += 1;
                exact_logs += ln_ref;
            }
            Observation::RightCensored(c) => {
                if !(c >= 0.0 && c.is_finite()) {
                    return None;
                }
                if c > 0.0 {
                    terms.push(Term::Right(c.ln() - ln_ref));
                    total_s += c;
                }
            }
            Observation::Interval { lo_s, hi_s } => {
                if !(lo_s >= 0.0 && lo_s.is_finite() && hi_s > lo_s) {
                    return None;
                }
                match (lo_s > 0.0, hi_s.is_finite()) {
                    (false, false) => {}
                    (true, false) => {
                        terms.push(Term::Right(lo_s.ln() - ln_ref));
                        total_s += lo_s;
                    }
                    (_, true) => {
                        terms.push(interval_term(lo_s, hi_s, ln_ref));
                        total_s += (lo_s + hi_s) / 2.0;
                        uncensored += 1;
                    }
                }
            }
            Observation::Rounded { recorded_s: g, resolution_s: r } => {
                if !(g >= 0.0 && g.is_finite() && r > 0.0 && r.is_finite()) {
                    return None;
                }
                if g / r > MAX_RESOLVED_TICKS {
                    // P(g) = f(g)·r to a relative O((r/g)²) (the kernel is symmetric about g),
                    // where the one-tick bounds (g/r − 1 + v)·r would lose their width to
                    // rounding.
                    terms.push(Term::Exact(g.ln() - ln_ref));
                    total_s += g;
                    uncensored += 1;
                    exact_logs += ln_ref - r.ln();
                    continue;
                }
                rounded = true;
                boxed.push((terms.len(), interval_term((g - r).max(0.0), g + r, ln_ref)));
                let ticks = g / r;
                let mixture = nodes
                    .iter()
                    .map(|&(v, c)| (c, interval_term(((ticks - 1.0 + v) * r).max(0.0), (ticks + v) * r, ln_ref)))
                    .collect();
                terms.push(Term::Mixture(mixture));
                total_s += g.max(r / 2.0);
                uncensored += 1;
            }
        }
    }
    if terms.len() < 2 || uncensored == 0 {
        return None;
    }
    let (a0, b0) = ((total_s / uncensored as f64).ln() - ln_ref, 1.0);
    let (a, b, l, h) = if rounded {
        let mut stage1 = terms.clone();
        for (i, t) in boxed {
            stage1[i] = t;
        }
        let (a1, b1, ..) = maximise(&stage1, a0, b0)?;
        maximise(&terms, a1, b1)?
    } else {
        maximise(&terms, a0, b0)?
    };
    // Covariance of (α, β) = M⁻¹, M = −H; k = β, ln η = ln t_ref + α/β.
    let (m00, m01, m11) = (-h[0], -h[1], -h[2]);
    let det = m00 * m11 - m01 * m01;
    let (caa, cab, cbb) = (m11 / det, -m01 / det, m00 / det);
    let shape_se = cbb.sqrt();
    if shape_se.is_nan() || shape_se > MAX_RELATIVE_SHAPE_SE * b {
        return None;
    }
    let (ja, jb) = (1.0 / b, -a / (b * b));
    let var_ln_scale = ja * ja * caa + 2.0 * ja * jb * cab + jb * jb * cbb;
    let ln_scale = ln_ref + a / b;
    let scale_s = ln_scale.exp();
    let mut mean_s = scale_s * gamma(1.0 + 1.0 / b);
    if !mean_s.is_finite() {
        // Γ(1 + 1/k) alone overflows below k ≈ 0.0058 (or the product does).
        mean_s = (ln_scale + ln_gamma(1.0 + 1.0 / b)).exp();
    }
    let fit = WeibullFit {
        shape: b,
        scale_s,
        mean_s,
        log_likelihood: l - exact_logs,
        shape_se,
        scale_se_s: scale_s * var_ln_scale.max(0.0).sqrt(),
    };
    let WeibullFit { shape, scale_s, mean_s, log_likelihood, shape_se, scale_se_s } = fit;
    let representable = [shape, scale_s, mean_s, log_likelihood, shape_se, scale_se_s].iter().all(|v| v.is_finite())
        && scale_s > 0.0
        && mean_s > 0.0;
    representable.then_some(fit)
}

/// The bursts of `sys` at threshold `threshold_s` (s): maximal runs of consecutive failures
/// each at most `threshold_s` after the previous one, touching at least two distinct nodes.
pub fn burst_share(sys: &SystemLog, threshold_s: f64) -> BurstShare {
    let ev = &sys.events;
    let (mut bursts, mut in_bursts) = (0, 0);
    let mut start = 0;
    for end in 1..=ev.len() {
        if end < ev.len() && ev[end].time_s - ev[end - 1].time_s <= threshold_s {
            continue;
        }
        let run = &ev[start..end];
        if run.len() >= 2 && run.iter().any(|e| e.node != run[0].node) {
            bursts += 1;
            in_bursts += run.len();
        }
        start = end;
    }
    let share = if ev.is_empty() { 0.0 } else { in_bursts as f64 / ev.len() as f64 };
    BurstShare { threshold_s, bursts, failures_in_bursts: in_bursts, share }
}

/// The statistics of one system (see the module documentation for the conventions).
pub fn system_stats(sys: &SystemLog) -> SystemStats {
    let failures = sys.events.len();
    let mut nodes: Vec<u64> = sys.events.iter().map(|e| e.node).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let span_s = sys.end_s - sys.start_s;
    SystemStats {
        name: sys.name.clone(),
        nodes: sys.nodes,
        failures,
        nodes_failed: nodes.len(),
        span_s,
        mtbf_s: if failures == 0 { f64::NAN } else { span_s / failures as f64 },
        zero_gaps: gaps_s(sys).iter().filter(|g| **g == 0.0).count(),
        weibull: fit_weibull(&observations(sys)),
        bursts: BURST_THRESHOLDS_S.iter().map(|t| burst_share(sys, *t)).collect(),
    }
}

/// The fitted law of `stats` as a scenario fragment: a `[failures]` table with `law =
/// "weibull"`, the fitted `shape`, the fitted mean as `mtbf` (s) and `renewal = "job"`: the
/// whole system's failures drive the job, as for a job that runs on every node of it.
/// `source` (the log's name) goes into the comment header.
///
/// Errors (exit code 2) when the system has no fit or the fit is outside the laws a
/// scenario accepts.
pub fn fragment(stats: &SystemStats, source: &str) -> Result<String, Error> {
    let fit = stats.weibull.ok_or_else(|| {
        Error::Usage(format!(
            "{source}: system {}: no Weibull fit ({} failures, {} of them in the same clock tick as the previous \
             one), so no scenario fragment (--fragment needs a fitted law)",
            stats.name, stats.failures, stats.zero_gaps
        ))
    })?;
    Law::weibull(fit.mean_s, fit.shape)
        .map_err(|m| Error::Usage(format!("{source}: system {}: fitted law: {m}", stats.name)))?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# System {} of {source}: {} failures over {:.1} d,",
        stats.name,
        stats.failures,
        stats.span_s / 86_400.0
    );
    let _ = writeln!(
        out,
        "# MTBF (span / failures) {:.0} s. Weibull maximum-likelihood fit of the time between failures",
        stats.mtbf_s
    );
    let _ = writeln!(
        out,
        "# (each gap censored to its clock tick, zero gaps included): shape {:.4} ± {:.4}, scale {:.0} s, mean {:.0} s.",
        fit.shape, fit.shape_se, fit.scale_s, fit.mean_s
    );
    let _ = writeln!(out, "# Shapes below 1 (decreasing hazard) match Schroeder & Gibson, DSN 2006.");
    let ratio = fit.mean_s / stats.mtbf_s;
    if !(1.0 / MEAN_MISMATCH..=MEAN_MISMATCH).contains(&ratio) {
        let _ = writeln!(
            out,
            "# Caution: the fitted mean is {ratio:.2} × the observed MTBF: one Weibull law does not capture this \
             system's mix"
        );
        let _ = writeln!(
            out,
            "# of bursts and quiet spells. `mtbf = \"{:.1} s\"` keeps the observed failure rate instead.",
            stats.mtbf_s
        );
    }
    out.push_str("[failures]\nlaw = \"weibull\"\n");
    let _ = writeln!(out, "shape = {:.4}", fit.shape);
    let _ = writeln!(out, "mtbf = \"{:.1} s\"", fit.mean_s);
    out.push_str("renewal = \"job\"\n");
    Ok(out)
}

/// [`fragment`] warns when the fitted mean and the observed MTBF differ by more than this
/// factor.
pub const MEAN_MISMATCH: f64 = 1.1;

fn opt<T>(v: Option<T>, f: impl Fn(T) -> String) -> String {
    v.map(f).unwrap_or_default()
}

/// A terminal table of `stats`: failures, span (d), MTBF (h), the Weibull fit (shape ± SE,
/// scale and mean in h) and the burst shares (%); a dash where the log or the fit has no
/// value, explained under the table.
pub fn stats_table(stats: &[SystemStats]) -> String {
    stats_table_with(stats, crate::report::TableWidth::Wide)
}

/// [`stats_table`] at `width`: fit to 100 columns, the burst shares share one column
/// (`burst ≤1/10/60 min (%)`: `27.8/32.2/43.2`) and the notes wrap.
pub fn stats_table_with(stats: &[SystemStats], width: crate::report::TableWidth) -> String {
    let fit = width == crate::report::TableWidth::Fit;
    let mut header: Vec<String> =
        ["system", "nodes", "failures", "nodes failed", "span (d)", "MTBF (h)", "zero gaps"].map(String::from).to_vec();
    header.extend(["Weibull shape ± SE", "scale (h)", "mean (h)"].map(String::from));
    let thresholds: Vec<f64> =
        stats.first().map(|s| s.bursts.iter().map(|b| b.threshold_s).collect()).unwrap_or_default();
    if fit {
        let minutes: Vec<String> = thresholds.iter().map(|t| format!("{}", t / 60.0)).collect();
        header.push(format!("burst ≤{} min (%)", minutes.join("/")));
    } else {
        header.extend(thresholds.iter().map(|t| format!("burst ≤{} min (%)", t / 60.0)));
    }
    let mut rows = vec![header];
    // A blank cell in a column of numbers reads as a misaligned row: a dash says "none".
    let cell = |v: Option<String>| v.unwrap_or_else(|| "—".into());
    for s in stats {
        let mut row = vec![
            s.name.clone(),
            cell(s.nodes.map(|n| n.to_string())),
            s.failures.to_string(),
            s.nodes_failed.to_string(),
            format!("{:.1}", s.span_s / 86_400.0),
            // One failure has no span: its MTBF of 0 would read as a machine always down.
            if s.failures >= 2 { format!("{:.2}", s.mtbf_s / 3600.0) } else { "—".into() },
            s.zero_gaps.to_string(),
            cell(s.weibull.map(|w| format!("{:.3} ± {:.3}", w.shape, w.shape_se))),
            cell(s.weibull.map(|w| format!("{:.2}", w.scale_s / 3600.0))),
            cell(s.weibull.map(|w| format!("{:.2}", w.mean_s / 3600.0))),
        ];
        let shares = s.bursts.iter().map(|b| format!("{:.1}", 100.0 * b.share));
        if fit {
            row.push(shares.collect::<Vec<_>>().join("/"));
        } else {
            row.extend(shares);
        }
        rows.push(row);
    }
    let mut out = crate::report::aligned_table(&rows, &|_| false);
    // `run` replays the log with the mean gap as its MTBF: say so, or the two numbers for one
    // log look like a bug.
    let mut notes = vec![
        "MTBF = span / failures (Schroeder & Gibson); a replay ([failures.trace]) repeats the log every span + \
         one mean gap, so its MTBF (run's mtbf_s) is the mean gap, span / (failures − 1)",
    ];
    if stats.iter().any(|s| s.failures < 2) {
        notes.push("MTBF — : a single failure spans no time");
    }
    if stats.iter().any(|s| s.nodes.is_none()) {
        notes.push("nodes — : the log declares no size for the system");
    }
    if stats.iter().any(|s| s.weibull.is_none()) {
        notes.push("Weibull — : the likelihood has no maximum (too few gaps longer than one clock tick)");
    }
    out.push('\n');
    for note in notes {
        let _ = writeln!(out, "  {note}");
    }
    if fit { crate::report::table::wrap_lines(&out) } else { out }
}

/// `stats` as CSV, one row per system, column names with units: `system`, `nodes`,
/// `failures`, `nodes_failed`, `span_s`, `mtbf_s`, `zero_gaps`, `weibull_shape`,
/// `weibull_shape_se`, `weibull_scale_s`, `weibull_scale_se_s`, `weibull_mean_s`,
/// `weibull_log_likelihood`, then `burst_share_<τ>s` and `bursts_<τ>s` per threshold τ (s)
/// of the first row. Missing values are empty cells.
pub fn stats_csv(stats: &[SystemStats]) -> String {
    let mut w = csv::Writer::from_writer(vec![]);
    let mut header: Vec<String> = [
        "system",
        "nodes",
        "failures",
        "nodes_failed",
        "span_s",
        "mtbf_s",
        "zero_gaps",
        "weibull_shape",
        "weibull_shape_se",
        "weibull_scale_s",
        "weibull_scale_se_s",
        "weibull_mean_s",
        "weibull_log_likelihood",
    ]
    .map(String::from)
    .to_vec();
    if let Some(first) = stats.first() {
        for b in &first.bursts {
            header.push(format!("burst_share_{}s", b.threshold_s));
            header.push(format!("bursts_{}s", b.threshold_s));
        }
    }
    w.write_record(&header).expect("writing to memory");
    for s in stats {
        let mut row = vec![
            s.name.clone(),
            opt(s.nodes, |n| n.to_string()),
            s.failures.to_string(),
            s.nodes_failed.to_string(),
            csv_number(s.span_s),
            // As in the table: one failure has no MTBF.
            if s.failures >= 2 { csv_number(s.mtbf_s) } else { String::new() },
            s.zero_gaps.to_string(),
            opt(s.weibull, |f| csv_number(f.shape)),
            opt(s.weibull, |f| csv_number(f.shape_se)),
            opt(s.weibull, |f| csv_number(f.scale_s)),
            opt(s.weibull, |f| csv_number(f.scale_se_s)),
            opt(s.weibull, |f| csv_number(f.mean_s)),
            opt(s.weibull, |f| csv_number(f.log_likelihood)),
        ];
        for b in &s.bursts {
            row.push(csv_number(b.share));
            row.push(b.bursts.to_string());
        }
        w.write_record(&row).expect("writing to memory");
    }
    String::from_utf8(w.into_inner().expect("writing to memory")).expect("UTF-8 in, UTF-8 out")
}

// ───────────────────────────── replay ─────────────────────────────

/// What a replay does past the end of the log's observation window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceEnd {
    /// The log repeats: after its end it continues from its start, shifted by
    /// [`wrap_period_s`] per repetition.
    Wrap,
    /// No failure after the log ends.
    Censor,
}

/// The period of a wrapped log (s): the window's length plus one mean gap, (end − start) +
/// (last − first)/(n − 1), so that the first failure of a repetition does not coincide with
/// the last failure of the one before (both sit on the window's ends). The repeated log has
/// n failures per period: its long-run MTBF is the mean gap. 0 for fewer than two failures
/// over a zero-length window (such a log cannot repeat).
pub fn wrap_period_s(sys: &SystemLog) -> f64 {
    let n = sys.events.len();
    let seam_s = if n >= 2 { (sys.events[n - 1].time_s - sys.events[0].time_s) / (n - 1) as f64 } else { 0.0 };
    (sys.end_s - sys.start_s) + seam_s
}

/// The failures in the replay window [from_s, from_s + len_s), where `from_s` (s) counts from
/// the log's start ([`SystemLog::start_s`]); the returned events carry their time since the
/// window's start (s, in [0, len_s)), in time order, ready to be played against a job.
/// Past the log's end, [`TraceEnd::Wrap`] repeats the log every [`wrap_period_s`] (so a
/// window may start anywhere, even before the log or many periods into it) and
/// [`TraceEnd::Censor`] gives no failures (nor before the start). A log whose period is 0
/// cannot repeat: `Wrap` then acts as `Censor`.
///
/// # Panics
///
/// If `from_s` or `len_s` is not finite, or `len_s` < 0.
pub fn events_in_window(sys: &SystemLog, from_s: f64, len_s: f64, end: TraceEnd) -> Vec<Event> {
    assert!(from_s.is_finite() && len_s.is_finite() && len_s >= 0.0, "window [{from_s}, +{len_s}) s");
    let period_s = wrap_period_s(sys);
    let ev = &sys.events;
    // The events with offset (time − start) in [lo, hi), shifted by `shift` into window time.
    let slice = |lo: f64, hi: f64, shift: f64, out: &mut Vec<Event>| {
        let i = ev.partition_point(|e| e.time_s - sys.start_s < lo);
        let j = ev.partition_point(|e| e.time_s - sys.start_s < hi);
        out.extend(ev[i..j].iter().map(|e| Event { time_s: e.time_s - sys.start_s + shift, ..e.clone() }));
    };
    let mut out = Vec::new();
    let to_s = from_s + len_s;
    match end {
        TraceEnd::Wrap if period_s > 0.0 => {
            let mut copy = (from_s / period_s).floor();
            loop {
                let base = copy * period_s;
                if base >= to_s {
                    break;
                }
                slice(from_s - base, to_s - base, base - from_s, &mut out);
                copy += 1.0;
            }
        }
        _ => slice(from_s, to_s, -from_s, &mut out),
    }
    // Rounding at the seams must not step outside the window.
    out.retain(|e| e.time_s >= 0.0 && e.time_s < len_s);
    out
}
