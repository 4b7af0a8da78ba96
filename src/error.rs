//! The library's error type. Every error says what was wrong, where (file, line and column,
//! key) and what is accepted; [`Error::exit_code`] maps it to the CLI contract.

use std::fmt;
use std::path::PathBuf;

/// Where a bad value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A position in a file: the file's path, line and column (1-based).
    File {
        /// The file as the user named it.
        path: PathBuf,
        /// 1-based line, where known.
        line: Option<usize>,
        /// 1-based column, where known.
        column: Option<usize>,
    },
    /// A `--set KEY=VALUE` argument, as given.
    Set(String),
    /// A shorthand flag for a `--set` with its value, as given (`--bandwidth -3 GB/s`).
    Flag(String),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::File { path, line: Some(l), column: Some(c) } => write!(f, "{}:{l}:{c}", shown_path(path)),
            Origin::File { path, line: Some(l), column: None } => write!(f, "{}:{l}", shown_path(path)),
            Origin::File { path, .. } => write!(f, "{}", shown_path(path)),
            Origin::Set(arg) => write!(f, "--set {}", shell_word(arg)),
            Origin::Flag(arg) => write!(f, "{arg}"),
        }
    }
}

/// The input file `path` as messages name it: `<stdin>` for standard input (`-`), else the
/// path as given.
pub fn shown_path(path: &std::path::Path) -> std::borrow::Cow<'_, str> {
    if crate::input::is_stdin(path) { "<stdin>".into() } else { path.to_string_lossy() }
}

/// `word` as a shell needs it to be pasted back: as it is when it holds only characters the
/// shell takes literally, else in single quotes (`'-3 GB/s'`).
pub(crate) fn shell_word(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-+._/:=@%,".contains(c)) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Everything that can go wrong in the library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The scenario (file, `--set` or sweep) is malformed or out of range.
    #[error("{origin}: {}{message}", key.as_ref().map(|k| format!("key `{k}`: ")).unwrap_or_default())]
    Scenario {
        /// Where the bad input is.
        origin: Origin,
        /// The dotted key, where one applies.
        key: Option<String>,
        /// What is wrong and what is accepted.
        message: String,
    },
    /// Bad command-line usage that clap cannot see (for example an empty sweep).
    #[error("{0}")]
    Usage(String),
    /// The output folder cannot take this command's files: found before any work
    /// (DESIGN.md, "Output contract").
    #[error("--out {}: {message}", path.display())]
    Output {
        /// The folder or the file in it.
        path: PathBuf,
        /// What is wrong and what is accepted.
        message: String,
    },
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A precision target (`run.precision` or `--precision`) that no allowed number of
    /// replications reaches, judged from the replications run so far.
    #[error(
        "`run.precision` (or --precision) {precision:e} is out of reach: point {point} would need about {} \
         replications, more than the {max} allowed; accepted for this scenario is a 95% half-width of at least \
         about {reachable:.2e}",
        if needed.is_finite() { format!("{needed:.2e}") } else { "10³⁰⁸ or more".into() }
    )]
    PrecisionUnreachable {
        /// The target half-width.
        precision: f64,
        /// The sweep point (0-based) that needs the most replications.
        point: usize,
        /// The replications it would need, estimated from its sample so far.
        needed: f64,
        /// The most replications an adaptive run may take.
        max: u64,
        /// The half-width that `max` replications would reach at that point.
        reachable: f64,
    },
    /// `optimize` found no interval at which the job finishes: at every candidate of its scan
    /// some replication was struck by more than `max_failures` failures, or passed over more
    /// than [`crate::engine::Limits::max_ignored`].
    #[error(
        "point {point}: no interval from {from_s:.6e} s to {to_s:.6e} s lets the job finish: at each, some \
         replication was struck by more than {max_failures} failures (or passed over more than {max_ignored} during \
         downtime or phases that cannot fail); shorten the costs or the work",
        max_ignored = crate::engine::Limits::default().max_ignored
    )]
    NoFeasibleInterval {
        /// The sweep point (0-based).
        point: usize,
        /// The shortest interval tried (s).
        from_s: f64,
        /// The longest interval tried (s).
        to_s: f64,
        /// The failures after which a replication counted as never finishing.
        max_failures: u64,
    },
    /// `run` or `optimize` refused a job that expects more failures than a replication may take even
    /// without any checkpoint, restart or lost work: no interval lets it finish.
    #[error(
        "point {point}: the job expects {expected_failures:.3e} failures (work {work} at a job MTBF of {mtbf}) \
         even with no checkpoint, restart or lost work, more than the {limit} a replication may take: no interval \
         lets it finish; accepted is work / MTBF ≤ {limit}",
        work = crate::report::human_duration(*work_s),
        mtbf = crate::report::human_duration(*mtbf_s)
    )]
    HopelessJob {
        /// The sweep point (0-based).
        point: usize,
        /// Work ÷ job MTBF: the failures expected in the failure-free run time.
        expected_failures: f64,
        /// The job's work (s).
        work_s: f64,
        /// The job's MTBF (s).
        mtbf_s: f64,
        /// The most failures a replication may take (the engine's limit).
        limit: u64,
    },
    /// `run` refused a point at whose interval a replication practically never finishes
    /// within the engine's failure limit: under Poisson failures the exact model
    /// ([`crate::forecast::point_forecast`]; Wald's identity, E\[failures\] = E\[wall\]/MTBF)
    /// expects over [`crate::runner::UNFINISHABLE_FACTOR`] times the limit per replication.
    /// A replication's failure count is at least as spread as the attempts of its costliest
    /// chunk, which are geometric, so one finishes within the limit with a chance of about
    /// limit / expected at most.
    #[error(
        "point {point}: at its interval of {interval} the exact model (Poisson failures) expects {expected} \
         failures per replication (an overhead of {overhead}), over {factor:.0e} times the {limit} a replication \
         may take: a replication finishes with a chance of about {chance} or less; accepted is an expectation of \
         at most {factor:.0e} × {limit} failures: change the interval, or shorten the costs or the work{hint}",
        interval = crate::report::human_duration(*interval_s),
        factor = crate::runner::UNFINISHABLE_FACTOR,
        expected = huge(*expected_failures),
        overhead = huge(*overhead),
        chance = match *limit as f64 / expected_failures {
            c if c >= 1e-300 => format!("{c:.0e}"),
            _ => "10⁻³⁰⁰".to_string(),
        },
    )]
    UnfinishableInterval {
        /// The sweep point (0-based).
        point: usize,
        /// The point's chunk interval (s).
        interval_s: f64,
        /// The failures the exact model expects per replication.
        expected_failures: f64,
        /// The exact model's expected overhead, E\[wall\]/W − 1.
        overhead: f64,
        /// The most failures a replication may take (the engine's limit).
        limit: u64,
        /// What else to change: for two-level points, `job.level2.every`.
        hint: String,
    },
    /// `run` or `optimize` refused a job one of whose fixed phases that can fail (a restart, or a
    /// checkpoint write) needs more attempts on average than a replication may take failures.
    /// Where every failure renews the failure law (Poisson failures, or job-level renewal), a
    /// phase of length x that must fit in one lifetime completes with probability
    /// S(x) = e^{−Λ(x)} per attempt (Λ the cumulative hazard; x/MTBF for Poisson failures), so
    /// it takes e^{Λ(x)} attempts on average, whatever the interval. No interval lets the job
    /// finish (for a restart: recover from its first failure).
    #[error(
        "point {point}: a {phase} of {length} completes without a failure with probability \
         e^(−{hazard:.1}) under {law}: it needs about e^{hazard:.1} attempts, more than the {limit} failures a \
         replication may take, so {consequence}; accepted is a {phase} whose cumulative hazard \
         −ln P(no failure) is ≤ ln {limit} ≈ {ln_limit:.1}",
        ln_limit = (*limit as f64).ln(),
        length = crate::report::human_duration(*length_s),
        // A restart is needed only once the job has failed: a short job may well finish
        // without one, but no run of any size has every replication escape a failure.
        consequence = if *phase == "restart" {
            "a replication that fails once never finishes, and no interval lets the job recover"
        } else {
            "no interval lets the job finish"
        }
    )]
    PhaseNeverCompletes {
        /// The sweep point (0-based).
        point: usize,
        /// "restart" or "checkpoint write".
        phase: &'static str,
        /// The phase's length (s).
        length_s: f64,
        /// Λ(length): the cumulative hazard of the lifetime over the phase (length / MTBF for
        /// Poisson failures).
        hazard: f64,
        /// The failure law, as a message names it.
        law: String,
        /// The most failures a replication may take (the engine's limit).
        limit: u64,
    },
    /// A simulation could not complete.
    #[error("point {point}: {source}")]
    Engine {
        /// The sweep point (0-based).
        point: usize,
        /// What the engine reported.
        #[source]
        source: crate::engine::EngineError,
    },
}

impl Error {
    /// The process exit code this error calls for: 2 for bad usage or bad input, 1 for
    /// runtime errors (DESIGN.md, "CLI contract").
    pub fn exit_code(&self) -> i32 {
        match self {
            // A job that no interval lets finish is refused from its parameters alone, before
            // any replication: an input out of range, as the message says.
            Error::Scenario { .. }
            | Error::Usage(_)
            | Error::Output { .. }
            | Error::PrecisionUnreachable { .. }
            | Error::HopelessJob { .. }
            | Error::UnfinishableInterval { .. }
            | Error::PhaseNeverCompletes { .. } => 2,
            Error::Io { .. } | Error::Engine { .. } | Error::NoFeasibleInterval { .. } => 1,
        }
    }
}

/// `x` in scientific notation to three digits, or "10³⁰⁸ or more" where it overflowed a
/// float.
fn huge(x: f64) -> String {
    if x.is_finite() { format!("{x:.2e}") } else { "10³⁰⁸ or more".into() }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
