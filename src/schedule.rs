//! Job schedules: the jobs (N, T) a machine ran over a period, read from CSV, for the
//! usage-domain model of Graziani, Lusch & Messer 2026 (MODELS.md §5; [`crate::usage`]).
//!
//! # File format
//!
//! A CSV file with a header line; columns are found by name, so their order does not
//! matter. Two sets of column names are accepted (matched after trimming, ignoring case),
//! and any of a column's names may be used:
//!
//! | column | Frontier name (`jobs2024.csv`) | simple name | unit | accepted values |
//! | --- | --- | --- | --- | --- |
//! | nodes, N | `Node Count` | `nodes` | nodes | whole number ≥ 1 |
//! | requested wall time | `Requested Duration` | `requested_s` | s | finite, > 0 (at least 1e-300) |
//! | actual wall time (optional) | `Actual Duration` | `actual_s` | s | finite, ≥ 0 (0, or at least 1e-300) |
//!
//! ```text
//! # a comment line; blank lines are skipped
//! nodes,requested_s,actual_s
//! 128,3600,1800
//! 2,600,600
//! ```
//!
//! Fields are separated by commas and trimmed; a field may be wrapped in double quotes (but
//! cannot contain a comma). Lines starting with `#` are comments. An unknown or repeated column, a row with the wrong
//! number of fields, a value out of range, a missing required column and an empty schedule
//! are errors that name the file, the 1-based line, the column and what is accepted
//! ([`Error::Scenario`], exit code 2).
//!
//! The actual duration is only used for the runtime ratio r that scales requested times
//! into job times (MODELS.md §5): T = requested × r.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{Error, Origin};
use crate::scenario::shorten;
use crate::stats::ExactSum;

/// One job of a schedule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScheduleJob {
    /// Nodes allocated to the job, N (≥ 1).
    pub nodes: u64,
    /// Wall-clock time the user requested (s; finite, > 0).
    pub requested_s: f64,
    /// Wall-clock time the job actually ran (s; finite, ≥ 0), when the file has the column.
    pub actual_s: Option<f64>,
}

/// A job schedule read from a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    /// The jobs, in file order (never empty).
    pub jobs: Vec<ScheduleJob>,
    /// The file they came from, as the caller named it.
    pub path: PathBuf,
}

/// A job type of a schedule: every job with the same node count and requested time, with
/// the job time scaled by the runtime ratio (MODELS.md §5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JobType {
    /// Nodes, N (≥ 1).
    pub nodes: u64,
    /// Job time T (wall-clock hours) = requested time × r.
    pub duration_h: f64,
    /// Jobs of this type in the schedule (≥ 1).
    pub count: u64,
}

impl JobType {
    /// The job's usage N·T (node-hours).
    pub fn usage_nh(&self) -> f64 {
        self.nodes as f64 * self.duration_h
    }
}

/// The longest duration a schedule may hold (s): a scenario's bound on a job's durations,
/// [`MAX_JOB_DURATION_S`](crate::scenario::MAX_JOB_DURATION_S). Beyond it a row is no job
/// (1e300 s was blamed on policy.factor, as a job of too many checkpoints).
pub const MAX_DURATION_S: f64 = crate::scenario::MAX_JOB_DURATION_S;

/// The shortest non-zero duration a schedule may hold (s): far below any real job, and far
/// enough above the smallest normal number (2.2e-308) that a job time in hours, scaled by the
/// runtime ratio, neither underflows to 0 nor loses its precision.
pub const MIN_DURATION_S: f64 = 1e-300;

/// The accepted names of each column (compared trimmed and ignoring ASCII case).
const NODES: [&str; 2] = ["Node Count", "nodes"];
const REQUESTED: [&str; 2] = ["Requested Duration", "requested_s"];
const ACTUAL: [&str; 2] = ["Actual Duration", "actual_s"];

/// The accepted headers, for error messages.
const ACCEPTED_HEADERS: &str = "`Node Count,Requested Duration[,Actual Duration]` (Frontier, seconds) or `nodes,requested_s[,actual_s]` \
     (seconds), columns in any order";

/// Which schedule column a header field is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Nodes,
    Requested,
    Actual,
}

fn column_of(name: &str) -> Option<Column> {
    let is = |names: &[&str]| names.iter().any(|n| n.eq_ignore_ascii_case(name));
    if is(&NODES) {
        Some(Column::Nodes)
    } else if is(&REQUESTED) {
        Some(Column::Requested)
    } else if is(&ACTUAL) {
        Some(Column::Actual)
    } else {
        None
    }
}

/// Reads a schedule from the CSV file `path` (format in the [module docs](self)).
///
/// Errors, all [`Error::Scenario`] (exit code 2): a file that cannot be read, naming it; and,
/// naming the file, the 1-based line, the column (as written in the header) and the accepted
/// range, for a malformed row, zero nodes, a negative or non-finite duration, a zero
/// requested duration, a non-zero duration below [`MIN_DURATION_S`], a duration whose usage
/// N·T overflows, an unknown, repeated or missing required column, and an empty schedule.
pub fn read_schedule(path: &Path) -> Result<Schedule, Error> {
    // Unreadable input is bad input (exit 2), as for scenarios and failure logs.
    let bytes = crate::input::read_bounded(path, crate::input::MAX_INPUT_BYTES).map_err(|e| Error::Scenario {
        origin: Origin::File { path: path.to_path_buf(), line: None, column: None },
        key: None,
        message: format!("cannot read the schedule: {e}"),
    })?;
    parse_schedule(&bytes, path)
}

/// The comma-separated fields of a data line, trimmed, with surrounding double quotes
/// removed (schedule fields are names and numbers: no quoted commas).
fn fields(line: &str) -> Vec<&str> {
    line.split(',')
        .map(|f| {
            let f = f.trim();
            f.strip_prefix('"').and_then(|g| g.strip_suffix('"')).map_or(f, str::trim)
        })
        .collect()
}

/// Parses schedule CSV `bytes` as if read from `path` (used in messages).
pub fn parse_schedule(bytes: &[u8], path: &Path) -> Result<Schedule, Error> {
    let bad = |line: u64, key: Option<&str>, message: String| Error::Scenario {
        origin: Origin::File { path: path.to_path_buf(), line: Some(line as usize), column: None },
        key: key.map(str::to_string),
        message,
    };
    // A compressed file read as text failed at line 1 with "not UTF-8 text".
    for (magic, kind, tool) in
        [(&crate::failure::trace::XZ_MAGIC[..], "xz", "xz -dk"), (&[0x1f, 0x8b][..], "gzip", "gunzip -k")]
    {
        if bytes.starts_with(magic) {
            return Err(Error::Scenario {
                origin: Origin::File { path: path.to_path_buf(), line: None, column: None },
                key: None,
                message: format!(
                    "the file is {kind}-compressed: accepted is a plain-text schedule CSV; decompress it first \
                     (`{tool} FILE`)"
                ),
            });
        }
    }
    // Data lines with their 1-based line numbers: comments and blank lines skipped.
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    let mut lines = bytes.split(|&b| b == b'\n').enumerate().filter_map(|(i, raw)| {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let line = i as u64 + 1;
        match std::str::from_utf8(raw) {
            Ok(text) => {
                let text = text.trim();
                (!text.is_empty() && !text.starts_with('#')).then(|| Ok((line, fields(text))))
            }
            Err(e) => Some(Err(bad(line, None, format!("malformed line: not UTF-8 text ({e})")))),
        }
    });

    // The header.
    let (header_line, header) = match lines.next() {
        None => return Err(bad(1, None, format!("the file is empty; expected a header line: {ACCEPTED_HEADERS}"))),
        Some(r) => r?,
    };
    let mut index: [Option<usize>; 3] = [None; 3];
    let mut names: Vec<String> = Vec::with_capacity(header.len());
    for (i, name) in header.iter().enumerate() {
        let Some(column) = column_of(name) else {
            return Err(bad(
                header_line,
                Some(&shorten(name)),
                format!("unknown column `{}`; accepted headers: {ACCEPTED_HEADERS}", shorten(name)),
            ));
        };
        let slot = &mut index[column as usize];
        if let Some(first) = *slot {
            return Err(bad(
                header_line,
                Some(&shorten(name)),
                format!(
                    "column `{}` repeats column {} (`{}`); each column may appear once",
                    shorten(name),
                    first + 1,
                    names[first]
                ),
            ));
        }
        *slot = Some(i);
        names.push(name.to_string());
    }
    let required = |column: Column, aliases: &[&str; 2]| {
        index[column as usize].ok_or_else(|| {
            bad(
                header_line,
                Some(aliases[0]),
                format!("missing column `{}` (or `{}`); accepted headers: {ACCEPTED_HEADERS}", aliases[0], aliases[1]),
            )
        })
    };
    let nodes_at = required(Column::Nodes, &NODES)?;
    let requested_at = required(Column::Requested, &REQUESTED)?;
    let actual_at = index[Column::Actual as usize];

    // The rows.
    let mut jobs = Vec::new();
    for next in lines {
        let (line, record) = next?;
        if record.len() != names.len() {
            return Err(bad(
                line,
                None,
                format!(
                    "malformed row: {} field(s), but the header has {} ({})",
                    record.len(),
                    names.len(),
                    names.join(",")
                ),
            ));
        }
        let nodes_name = &names[nodes_at];
        let text = record[nodes_at];
        let shown = shorten(text);
        let nodes: u64 = match text.parse::<u64>() {
            Ok(n) if n >= 1 => n,
            _ => {
                return Err(bad(
                    line,
                    Some(nodes_name),
                    format!("`{shown}` is not a node count; expected a whole number ≥ 1"),
                ));
            }
        };
        let duration = |at: usize, zero_ok: bool| -> Result<f64, Error> {
            let name = &names[at];
            let text = record[at];
            let shown = shorten(text);
            let accepted = if zero_ok {
                "a finite number of seconds ≥ 0 (0, or from 1e-300 to 1e100)"
            } else {
                "a finite number of seconds > 0 (from 1e-300 to 1e100)"
            };
            match text.parse::<f64>() {
                Ok(v) if v.is_finite() && v > MAX_DURATION_S => {
                    Err(bad(line, Some(name), format!("`{shown}` s is too long; expected {accepted}")))
                }
                Ok(v) if v.is_finite() && v > 0.0 && v < MIN_DURATION_S => Err(bad(
                    line,
                    Some(name),
                    format!(
                        "`{shown}` s is too short to compute with: in hours (÷ 3600), then scaled by the runtime \
                         ratio, it underflows toward 0 (below the smallest normal number, about 2.2e-308); expected \
                         {accepted}"
                    ),
                )),
                // At most 1e100 s on fewer than 2⁶⁴ nodes: the usage N·T stays finite.
                Ok(v) if v.is_finite() && (v > 0.0 || (zero_ok && v == 0.0)) => Ok(v),
                Ok(v) if v.is_finite() && v == 0.0 => {
                    Err(bad(line, Some(name), format!("`{shown}`: a requested duration of zero; expected {accepted}")))
                }
                Ok(_) => Err(bad(line, Some(name), format!("`{shown}` is out of range; expected {accepted}"))),
                Err(_) => Err(bad(line, Some(name), format!("`{shown}` is not a number; expected {accepted}"))),
            }
        };
        let requested_s = duration(requested_at, false)?;
        let actual_s = actual_at.map(|at| duration(at, true)).transpose()?;
        jobs.push(ScheduleJob { nodes, requested_s, actual_s });
    }
    if jobs.is_empty() {
        return Err(bad(
            header_line,
            None,
            "the schedule has no jobs after its header; expected at least one row".into(),
        ));
    }
    Ok(Schedule { jobs, path: path.to_path_buf() })
}

impl Schedule {
    /// The usage-weighted runtime ratio `r = Σ N·T_actual / Σ N·T_requested` (MODELS.md §5:
    /// the ratio the paper's code uses, 0.4589 for Frontier CY2024; the r-scaled schedule then
    /// has the same total usage as the actual one). `None` without an actual-duration column.
    pub fn runtime_ratio_usage_weighted(&self) -> Option<f64> {
        self.ratio(|j| j.nodes as f64)
    }

    /// The plain time ratio `Σ T_actual / Σ T_requested` (mean runtime over mean requested
    /// time, as the paper's text words it; 0.5118 for Frontier CY2024), for documentation:
    /// the model uses [`Schedule::runtime_ratio_usage_weighted`]. `None` without an
    /// actual-duration column.
    pub fn runtime_ratio_plain(&self) -> Option<f64> {
        self.ratio(|_| 1.0)
    }

    fn ratio(&self, weight: impl Fn(&ScheduleJob) -> f64) -> Option<f64> {
        let (mut actual, mut requested) = (ExactSum::default(), ExactSum::default());
        for j in &self.jobs {
            actual.add(weight(j) * j.actual_s?);
            requested.add(weight(j) * j.requested_s);
        }
        Some(actual.value() / requested.value())
    }

    /// Total requested usage `Σ N·T_requested` (node-hours).
    pub fn requested_usage_nh(&self) -> f64 {
        let mut s = ExactSum::default();
        self.jobs.iter().for_each(|j| s.add(j.nodes as f64 * j.requested_s));
        s.value() / 3600.0
    }

    /// The schedule grouped into job types: jobs with the same node count and requested time,
    /// with their count, and job time `T = requested × runtime_ratio` (hours). Sorted by node
    /// count, then requested time, so the order does not depend on the file's row order.
    pub fn job_types(&self, runtime_ratio: f64) -> Vec<JobType> {
        let mut groups: BTreeMap<(u64, u64), u64> = BTreeMap::new();
        for j in &self.jobs {
            // Requested times are positive, so their bit patterns order like the values.
            *groups.entry((j.nodes, j.requested_s.to_bits())).or_default() += 1;
        }
        groups
            .into_iter()
            .map(|((nodes, bits), count)| JobType {
                nodes,
                duration_h: f64::from_bits(bits) / 3600.0 * runtime_ratio,
                count,
            })
            .collect()
    }
}
