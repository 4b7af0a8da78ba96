//! The command line (DESIGN.md, "CLI contract"): clap definitions and the subcommands. The
//! terminal (progress bars, tables on stdout) belongs here, not to the library's core.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::analytic;
use crate::engine::{Exposure, FinalCheckpoint, Job, OnFailure};
use crate::error::Error;
use crate::outdir::OutDir;
use crate::partial;
use crate::report::{self, csv_number};
use crate::runner;
use crate::scenario::{self, Stop, parse_duration_s};

mod efficiency;
mod two_level;
pub use efficiency::EfficiencyArgs;

/// Monte Carlo failure/checkpoint simulator: what failures cost and how often to checkpoint.
#[derive(Debug, Parser)]
#[command(name = "ckptsim", version, about, long_about = None)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// What the CLI prints on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// An aligned table for people.
    Table,
    /// The CSV of the output contract.
    Csv,
    /// The JSON of the output contract.
    Json,
    /// A Markdown table, ready to paste into a report.
    Markdown,
}

/// The formats of `optimize` and `formulas`: they have no Markdown table.
pub const TABLE_CSV_JSON: &[Format] = &[Format::Table, Format::Csv, Format::Json];
/// Every format.
pub const ALL_FORMATS: &[Format] = &[Format::Table, Format::Markdown, Format::Csv, Format::Json];

/// The formats of `trace stats`: its table or its CSV.
pub const TABLE_CSV: &[Format] = &[Format::Table, Format::Csv];

/// A `--format` parser that accepts only `allowed`, so that a subcommand refuses a format it
/// cannot print (bad usage, exit 2, listing the accepted ones) instead of printing another.
fn format_parser(allowed: &'static [Format]) -> impl clap::builder::TypedValueParser<Value = Format> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(allowed.iter().filter_map(ValueEnum::to_possible_value))
        .map(|name| Format::from_str(&name, false).expect("the parser accepts only listed formats"))
}

/// Whether a phase can be struck by failures, as a CLI value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExposureArg {
    /// Failures strike the phase.
    CanFail,
    /// Failures during the phase are ignored.
    CannotFail,
}

impl From<ExposureArg> for Exposure {
    fn from(e: ExposureArg) -> Self {
        match e {
            ExposureArg::CanFail => Exposure::CanFail,
            ExposureArg::CannotFail => Exposure::CannotFail,
        }
    }
}

/// A value parser for a numeric flag whose error names what is accepted (clap's said
/// "invalid digit found in string"); with `allow_negative_numbers`, `--reps -1` reaches it
/// (it was "unexpected argument '-1' found", with a tip to pass it after `--`, as a file).
pub(crate) fn number_arg<T: std::str::FromStr + Clone + Send + Sync + 'static>(
    accepted: &'static str,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {
    move |text: &str| text.trim().parse::<T>().map_err(|_| format!("accepted is {accepted}"))
}

/// The default `--out`: a folder of the current one, never the committed `results/`
/// (DESIGN.md, "Output contract"); `.gitignore` lists it.
pub const DEFAULT_OUT: &str = "ckptsim-out";

/// What `--threads` accepts.
pub(crate) const THREADS_ACCEPTED: &str = "an integer from 1 to 1024";

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Simulate scenarios: a table on stdout, CSV and JSON in --out.
    Run(RunArgs),
    /// Combine shard outputs (`run --shard I/N`) into exactly the result of one run.
    Merge(MergeArgs),
    /// Closed forms for exponential failures, instantly (MODELS.md §1).
    Formulas(FormulasArgs),
    /// The best interval by simulation (common random numbers), with its interval and the
    /// formulas' regrets.
    Optimize(OptimizeArgs),
    /// The built-in validation suite: simulation against closed forms; exit 1 on a failure.
    Validate(ValidateArgs),
    /// Failure logs: `ckptsim trace stats LOG`.
    Trace(TraceArgs),
    /// Machine efficiency of a job schedule (usage model, MODELS.md §5): closed form and
    /// simulated, with CI.
    Efficiency(EfficiencyArgs),
}

/// Arguments of `ckptsim trace`.
#[derive(Debug, clap::Args)]
pub struct TraceArgs {
    /// What to do with the log.
    #[command(subcommand)]
    pub command: TraceCommand,
}

/// The `trace` subcommands.
#[derive(Debug, Subcommand)]
pub enum TraceCommand {
    /// Per system: failures, span, MTBF, a censoring-aware Weibull fit, burst shares.
    Stats(TraceStatsArgs),
}

/// How malformed log lines are handled, as a CLI value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MalformedArg {
    /// The first malformed line is an error (exit 2).
    Fatal,
    /// Malformed lines are skipped and counted.
    Skip,
}

/// Arguments of `ckptsim trace stats`.
#[derive(Debug, clap::Args)]
pub struct TraceStatsArgs {
    /// The failure log: the LANL CSV (plain or .xz) or a `time,node[,cause]` CSV.
    pub log: PathBuf,
    /// Only this system.
    #[arg(long)]
    pub system: Option<String>,
    /// Malformed lines: an error, or skipped with a count.
    #[arg(long, value_enum, default_value_t = MalformedArg::Fatal)]
    pub malformed: MalformedArg,
    /// Print the fitted Weibull law of --system as a scenario fragment instead of the table.
    #[arg(long, requires = "system")]
    pub fragment: bool,
    /// Folder for `<log stem>-stats.csv`.
    #[arg(long, default_value = DEFAULT_OUT)]
    pub out: PathBuf,
    /// What to print on stdout: the table, or the CSV that is also written to --out.
    #[arg(long, default_value = "table", value_parser = format_parser(TABLE_CSV))]
    pub format: Format,
}

/// The master seed and the worker threads of a simulating command (`run`, `optimize`,
/// `efficiency`): the seed changes the result, the thread count never does.
#[derive(Debug, clap::Args)]
pub struct RunControl {
    /// Master seed (overrides the scenario's run.seed).
    #[arg(long, allow_negative_numbers = true, value_parser = number_arg::<u64>("an integer from 0 to 2⁶⁴ − 1"))]
    pub seed: Option<u64>,
    /// Worker threads, 1 to 1024 (default: all cores). The result does not depend on it.
    #[arg(long, allow_negative_numbers = true, value_parser = number_arg::<usize>(THREADS_ACCEPTED))]
    pub threads: Option<usize>,
}

/// Arguments of `ckptsim validate`.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// The quick budget (about a second on two cores) instead of the full one (about 20 s).
    #[arg(long)]
    pub quick: bool,
    /// Master seed.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = number_arg::<u64>("an integer from 0 to 2⁶⁴ − 1"))]
    pub seed: u64,
    /// Worker threads, 1 to 1024 (default: all cores).
    #[arg(long, allow_negative_numbers = true, value_parser = number_arg::<usize>(THREADS_ACCEPTED))]
    pub threads: Option<usize>,
}

/// Arguments of `ckptsim optimize`.
#[derive(Debug, clap::Args)]
pub struct OptimizeArgs {
    /// A scenario file (TOML): one search, or one per combination of its swept keys other
    /// than policy.* (use --set to fix a swept key).
    pub scenario: PathBuf,
    /// Replications behind every candidate interval (default: the larger of the scenario's
    /// and 10,000).
    #[arg(long, allow_negative_numbers = true, value_parser = number_arg::<u64>("an integer ≥ 2"))]
    pub reps: Option<u64>,
    /// Seed and threads.
    #[command(flatten)]
    pub control: RunControl,
    /// Override a scenario key (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Folder for `<name>-optimize.json`, the curve `<name>-optimize.csv` and its plot
    /// `<name>-optimize.svg`; for a sweep of several searches, the summary as
    /// `<name>-optimize.{json,csv,svg}` and each case's curve as `<name>-optimize-<case>.{csv,svg}`.
    #[arg(long, default_value = DEFAULT_OUT)]
    pub out: PathBuf,
    /// What to print on stdout: the table, a Markdown table, the CSV (the curve; the summary
    /// for several searches) or the JSON.
    #[arg(long, default_value = "table", value_parser = format_parser(ALL_FORMATS))]
    pub format: Format,
}

/// Arguments of `ckptsim run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Scenario files (TOML).
    #[arg(required = true)]
    pub scenarios: Vec<PathBuf>,
    /// Fixed number of replications per point (overrides the scenario's run.replications or run.precision).
    #[arg(long, conflicts_with = "precision", allow_negative_numbers = true, value_parser = number_arg::<u64>("an integer ≥ 2"))]
    pub reps: Option<u64>,
    /// Run until every point's 95% CI half-width of the overhead is at most this.
    #[arg(long, allow_negative_numbers = true, value_parser = number_arg::<f64>("a finite number > 0"))]
    pub precision: Option<f64>,
    /// Seed and threads.
    #[command(flatten)]
    pub control: RunControl,
    /// Override a scenario key, for example --set job.checkpoint="300 s" (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Folder for the CSV and JSON files.
    #[arg(long, default_value = DEFAULT_OUT)]
    pub out: PathBuf,
    /// What to print on stdout (csv and json: one scenario only).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also write SVG plots: overhead against interval (when the sweep varies the interval)
    /// and the wall-time distribution of the best point.
    #[arg(long)]
    pub plot: bool,
    /// Run only replications I, I+N, I+2N, … and write a partial summary
    /// `OUT/<name>.shard-I-of-N.json` for `ckptsim merge` (cluster job arrays).
    #[arg(long, value_name = "I/N", allow_hyphen_values = true)]
    pub shard: Option<String>,
    /// Continue from the progress saved in `OUT/<name>.partial.json` (or the shard's file).
    #[arg(long)]
    pub resume: bool,
    /// Save progress atomically at most this often (s), and on SIGINT/SIGTERM.
    #[arg(
        long,
        default_value_t = 60.0,
        value_name = "SECONDS",
        allow_negative_numbers = true,
        value_parser = number_arg::<f64>("a number of seconds > 0")
    )]
    pub save_every: f64,
}

/// Arguments of `ckptsim merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// Partial summaries (`<name>.shard-I-of-N.json`), every shard of one run.
    #[arg(required = true)]
    pub partials: Vec<PathBuf>,
    /// Folder for the merged CSV and JSON.
    #[arg(long, default_value = DEFAULT_OUT)]
    pub out: PathBuf,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also write the SVG plots.
    #[arg(long)]
    pub plot: bool,
}

/// Arguments of `ckptsim formulas`.
#[derive(Debug, clap::Args)]
// One of the three ways to give the failure rate is required: a missing one names all three.
#[command(group(clap::ArgGroup::new("failure_rate").required(true).args(["mtbf", "rate", "node_mtbf"])))]
pub struct FormulasArgs {
    /// Checkpoint write cost δ, with a unit ("120s", "5 min").
    #[arg(long, allow_hyphen_values = true)]
    pub checkpoint: String,
    /// The job's MTBF M, with a unit ("3.1h"): of the whole job, not of one node (n nodes that
    /// each fail every m hours give M = m/n); or give --rate, or --node-mtbf and --nodes.
    #[arg(long, conflicts_with_all = ["rate", "node_mtbf"], allow_hyphen_values = true)]
    pub mtbf: Option<String>,
    /// The job's failure rate λ = 1/M, per unit of time ("8.329e-6/s", "0.02/h"): of the whole
    /// job (n nodes that each fail at rate r give λ = n·r).
    #[arg(long, conflicts_with = "node_mtbf", allow_hyphen_values = true)]
    pub rate: Option<String>,
    /// One node's MTBF, with a unit ("5 y"), with --nodes: the job's MTBF is node-mtbf / nodes
    /// (independent exponential nodes).
    #[arg(long, requires = "nodes", allow_hyphen_values = true)]
    pub node_mtbf: Option<String>,
    /// The nodes the job runs on, with --node-mtbf (an integer ≥ 1).
    #[arg(long, requires = "node_mtbf", allow_negative_numbers = true, value_parser = number_arg::<u64>("an integer ≥ 1"))]
    pub nodes: Option<u64>,
    /// Restart cost R: reading the last checkpoint back and rejoining.
    #[arg(long, default_value = "0 s", allow_hyphen_values = true)]
    pub restart: String,
    /// Downtime D before each restart attempt.
    #[arg(long, default_value = "0 s", allow_hyphen_values = true)]
    pub downtime: String,
    /// Whether failures strike checkpoint writes.
    #[arg(long, value_enum, default_value_t = ExposureArg::CanFail)]
    pub checkpoint_failures: ExposureArg,
    /// Whether failures strike restarts.
    #[arg(long, value_enum, default_value_t = ExposureArg::CanFail)]
    pub restart_failures: ExposureArg,
    /// Also evaluate this interval.
    #[arg(long, allow_hyphen_values = true)]
    pub interval: Option<String>,
    /// Finite work W: adds the expected wall time, its SD and the overhead of the job.
    #[arg(long, allow_hyphen_values = true)]
    pub work: Option<String>,
    /// What to print on stdout: the table, or its rows as CSV or JSON.
    #[arg(long, default_value = "table", value_parser = format_parser(TABLE_CSV_JSON))]
    pub format: Format,
    /// Two-level checkpointing (MODELS.md §4): the level-2 write cost C₂, with a unit
    /// ("10 min"), with --level2-mtbf. --checkpoint and --restart are then level 1's, and the
    /// job's failures (--mtbf, --rate or --node-mtbf) the level-1 ones.
    #[arg(long, requires = "level2_mtbf", allow_hyphen_values = true)]
    pub level2_checkpoint: Option<String>,
    /// The MTBF of the failures that destroy level-1 checkpoints (racks, switches, the
    /// system), with a unit ("12 h"), on top of the job's level-1 failures; with
    /// --level2-checkpoint.
    #[arg(long, requires = "level2_checkpoint", allow_hyphen_values = true)]
    pub level2_mtbf: Option<String>,
    /// The restart cost from level 2, R₂, with --level2-checkpoint [default: --restart's].
    #[arg(long, requires = "level2_checkpoint", allow_hyphen_values = true)]
    pub level2_restart: Option<String>,
    /// With --level2-checkpoint: also evaluate n = EVERY checkpoints per level-2 one (an
    /// integer ≥ 1); the table always has the best n and the first order's.
    #[arg(long, requires = "level2_checkpoint", allow_negative_numbers = true, value_parser = number_arg::<u64>("an integer from 1 to 1000000"))]
    pub every: Option<u64>,
}

/// Runs the CLI on the process's arguments; returns the exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    let result = match cli.command {
        Command::Run(args) => cmd_run(&args),
        Command::Merge(args) => cmd_merge(&args),
        Command::Formulas(args) => cmd_formulas(&args),
        Command::Optimize(args) => cmd_optimize(&args),
        Command::Validate(args) => cmd_validate(&args),
        Command::Trace(TraceArgs { command: TraceCommand::Stats(args) }) => cmd_trace_stats(&args),
        Command::Efficiency(args) => efficiency::cmd_efficiency(&args),
    };
    match result {
        Ok(()) => 0,
        // The reader of stdout has gone (`ckptsim run … | head`): stop quietly, as a pipeline
        // expects; the files in --out were written before stdout.
        Err(e) if is_broken_pipe(&e) => 0,
        Err(e) => {
            eprintln!("error: {}", error_text(&e));
            exit_code(&e)
        }
    }
}

/// Whether `e` comes from writing to a pipe whose reader has closed it.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}

/// The error and its causes joined by ": ", each cause left out where the text so far
/// already holds it: library errors print their source themselves (`Error::Io`,
/// `Error::Engine`), so anyhow's `{:#}` would say everything twice.
pub fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let s = cause.to_string();
        if text.is_empty() {
            text = s;
        } else if !text.contains(&s) {
            text.push_str(": ");
            text.push_str(&s);
        }
    }
    text
}

/// The exit code for an error: the library error's own code where there is one in the
/// chain, else 1.
pub fn exit_code(e: &anyhow::Error) -> i32 {
    e.chain().find_map(|c| c.downcast_ref::<Error>()).map_or(1, Error::exit_code)
}

fn usage(message: String) -> anyhow::Error {
    Error::Usage(message).into()
}

/// Refuses `--format csv|json` for `inputs` > 1 inputs (`what`: "scenario"): stdout would hold
/// several documents one after the other, which no reader takes.
pub(crate) fn one_document_per_stdout(inputs: usize, format: Format, what: &str) -> anyhow::Result<()> {
    if inputs > 1 && matches!(format, Format::Csv | Format::Json) {
        let name = if format == Format::Csv { "csv" } else { "json" };
        return Err(usage(format!(
            "--format {name} with {inputs} {what}s: stdout would hold several {name} documents one after the other, \
             which no {name} reader takes; accepted is one {what} with --format {name}, or --format table or \
             markdown (every {what}'s CSV and JSON are written to --out either way)"
        )));
    }
    Ok(())
}

/// Refuses two inputs of one command line that share a name: the second's result files
/// would replace the first's.
pub(crate) fn distinct_names<'a>(named: impl Iterator<Item = (&'a str, &'a std::path::Path)>) -> anyhow::Result<()> {
    let mut seen: Vec<(&str, &std::path::Path)> = vec![];
    for (name, path) in named {
        if let Some((_, first)) = seen.iter().find(|(n, _)| *n == name) {
            return Err(usage(format!(
                "{} and {} are both named `{name}`: the second's result files would replace the first's; \
                 accepted are inputs with distinct names (set `name`, or --set name=... on separate runs)",
                first.display(),
                path.display()
            )));
        }
        seen.push((name, path));
    }
    Ok(())
}

/// Opens the output folder `out` (DESIGN.md, "Output contract"): created where missing,
/// refused before any work where it cannot be written.
pub(crate) fn open_out_dir(out: &std::path::Path) -> anyhow::Result<OutDir> {
    Ok(OutDir::open(out)?)
}

/// The names of `paths`' files.
pub(crate) fn file_names(paths: &[PathBuf]) -> Vec<String> {
    paths.iter().filter_map(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned()).collect()
}

/// Refuses, before any work, result paths that a folder stands in the way of (the run would
/// otherwise fail only when it writes them, its work lost), and those that are one of the
/// command's `inputs` (a scenario, schedule, failure log or partial): writing the result would
/// replace the input (`efficiency jobs.csv --out .` replaced the schedule with its results).
pub(crate) fn writable_outputs(
    paths: impl IntoIterator<Item = PathBuf>,
    inputs: &[&std::path::Path],
) -> anyhow::Result<()> {
    // Inputs were read, so they resolve; an output that does not exist yet is no input.
    let inputs: Vec<(PathBuf, &std::path::Path)> =
        inputs.iter().filter_map(|p| Some((std::fs::canonicalize(p).ok()?, *p))).collect();
    for p in paths {
        if p.is_dir() {
            return Err(usage(format!(
                "{} is a folder, where a result file goes; accepted is an --out (or a scenario name) with no folder \
                 of that name in it",
                p.display()
            )));
        }
        let Ok(resolved) = std::fs::canonicalize(&p) else { continue };
        if let Some((_, input)) = inputs.iter().find(|(i, _)| *i == resolved) {
            return Err(usage(format!(
                "{} is the input {}, where a result file would go: writing it would replace the input; accepted \
                 is an --out folder other than the input's (or another name for the input)",
                p.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

/// Shows on stderr what in `sc` is valid but probably not meant.
fn warn(sc: &scenario::Scenario) {
    for w in sc.warnings() {
        eprintln!("warning: {}: {w}", sc.path.display());
    }
}

fn cmd_run(args: &RunArgs) -> anyhow::Result<()> {
    let stop = match (args.reps, args.precision) {
        (Some(n), _) if n < 2 => return Err(usage(format!("--reps {n}: accepted is an integer ≥ 2"))),
        (Some(n), _) => Some(Stop::Replications(n)),
        (None, Some(h)) if !(h > 0.0 && h.is_finite()) => {
            return Err(usage(format!("--precision {h}: accepted is a finite number > 0")));
        }
        (None, Some(h)) => Some(Stop::Precision(h)),
        (None, None) => None,
    };
    let sharded = args.shard.as_deref().map(parse_shard).transpose()?;
    let shard = sharded.unwrap_or(runner::Shard::WHOLE);
    if args.save_every.is_nan() || args.save_every <= 0.0 {
        return Err(usage(format!("--save-every {}: accepted is a number of seconds > 0", args.save_every)));
    }
    one_document_per_stdout(args.scenarios.len(), args.format, "scenario")?;
    let pool = thread_pool(args.control.threads)?;
    // Validate every scenario before running any, so a typo in the last one costs nothing.
    let scenarios = args.scenarios.iter().map(|p| scenario::load(p, &args.sets)).collect::<Result<Vec<_>, _>>()?;
    distinct_names(scenarios.iter().map(|sc| (sc.name.as_str(), sc.path.as_path())))?;
    scenarios.iter().for_each(warn);
    let stops: Vec<Stop> = scenarios.iter().map(|sc| stop.unwrap_or(sc.run.stop)).collect();
    let fixed = stops.iter().all(|s| matches!(s, Stop::Replications(_)));
    if !fixed && (sharded.is_some() || args.resume) {
        // Name what was given: "--shard and --resume" read as if both were.
        let given = match (sharded.is_some(), args.resume) {
            (true, true) => "--shard and --resume need",
            (true, false) => "--shard needs",
            _ => "--resume needs",
        };
        let adaptive = if args.precision.is_some() { "--precision" } else { "run.precision" };
        return Err(usage(format!(
            "{given} a fixed number of replications, not {adaptive}; accepted is --reps or run.replications"
        )));
    }
    let mut out = open_out_dir(&args.out)?;
    let inputs: Vec<&std::path::Path> = scenarios.iter().flat_map(|sc| sc.input_files()).collect();
    for (sc, stop) in scenarios.iter().zip(&stops) {
        // A shard writes its partial file only; a whole run its results and, while it runs
        // a fixed count, its saved progress.
        let mut paths = vec![];
        if matches!(stop, Stop::Replications(_)) {
            paths.push(args.out.join(partial::file_name(sc, sharded)));
        }
        if sharded.is_none() {
            paths.extend(claimed_paths(&args.out, sc, args.plot));
        }
        writable_outputs(paths.clone(), &inputs)?;
        out.claim(&run_owner(sc, sharded), &file_names(&paths))?;
    }
    if !args.resume {
        keep_saved_progress(&scenarios, &stops, &args.out, sharded)?;
    }
    // A run expected to be very slow says so before it starts (stderr only: stdout and the
    // files are the same either way); without a terminal there is no progress bar to tell.
    // A resumed one counts what is left, once its saved progress is read.
    for (sc, &stop) in scenarios.iter().zip(&stops) {
        if !args.resume
            && let Some(w) = crate::forecast::slow_run_warning(sc, stop, shard)
        {
            eprintln!("warning: {}: {w}", sc.path.display());
        }
    }
    // SIGINT/SIGTERM end a fixed-count run between chunks, after saving its progress.
    let interrupted = Arc::new(AtomicBool::new(false));
    if fixed {
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            signal_hook::flag::register(signal, Arc::clone(&interrupted)).context("installing the signal handler")?;
        }
    }
    let mut stdout = std::io::stdout().lock();
    for (i, (sc, &stop)) in scenarios.iter().zip(&stops).enumerate() {
        let seed = args.control.seed.unwrap_or(sc.run.seed);
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            // The bar counts every point of every replication; indicatif's own {per_sec} shows
            // four decimals of a rate in the thousands.
            ProgressStyle::with_template("{prefix} [{bar:40}] {pos}/{len} point-replications, {rate}, ETA {eta}")
                .expect("valid template")
                .with_key("rate", |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.0}/s", state.per_sec());
                })
                .progress_chars("=> "),
        );
        bar.set_prefix(sc.name.clone());
        let points = sc.points.len() as u64;
        // The saved progress of a finished run goes only once its results are written: a kill
        // between the two then leaves the progress (and --resume writes the results again), never
        // neither.
        let (result, finished_partial) = match stop {
            Stop::Precision(_) => {
                let r = pool.install(|| {
                    runner::run(sc, stop, seed, &|target| bar.set_length(target * points), &|n| bar.inc(n * points))
                });
                bar.finish_and_clear();
                (r.with_context(|| format!("running {}", sc.path.display()))?, None)
            }
            Stop::Replications(total) => {
                let partial_path = args.out.join(partial::file_name(sc, sharded));
                let resumed = args.resume && partial_path.exists();
                let mut progress = if resumed {
                    let progress = resume_from(&partial_path, sc, seed, total, shard)?;
                    eprintln!(
                        "resuming {} from {} of {} replications saved in {}",
                        sc.name,
                        progress.done,
                        shard.len(total),
                        partial_path.display()
                    );
                    progress
                } else {
                    if args.resume {
                        eprintln!(
                            "note: {} does not exist: nothing to resume, starting from the first replication",
                            partial_path.display()
                        );
                    }
                    runner::Progress { done: 0, summaries: vec![Default::default(); sc.points.len()] }
                };
                if args.resume
                    && let Some(w) = crate::forecast::resumed_run_warning(sc, stop, shard, progress.done)
                {
                    bar.suspend(|| eprintln!("warning: {}: {w}", sc.path.display()));
                }
                bar.set_length(shard.len(total) * points);
                bar.set_position(progress.done * points);
                let owner = run_owner(sc, sharded);
                let partial_name = partial::file_name(sc, sharded);
                let mut save = |p: &runner::Progress| {
                    out.write_file(&owner, &partial_name, partial::to_json(sc, seed, total, shard, p).as_bytes())
                        .map(drop)
                };
                let stop_now = || interrupted.load(Ordering::Relaxed);
                let outcome = pool.install(|| {
                    runner::run_resumable(
                        sc,
                        seed,
                        total,
                        shard,
                        &mut progress,
                        args.save_every,
                        &mut save,
                        &stop_now,
                        &|n| bar.inc(n * points),
                    )
                });
                bar.finish_and_clear();
                let outcome = outcome.with_context(|| {
                    if resumed {
                        format!("running {} from the progress saved in {}", sc.path.display(), partial_path.display())
                    } else {
                        format!("running {}", sc.path.display())
                    }
                })?;
                if outcome == runner::Outcome::Interrupted {
                    eprintln!(
                        "interrupted after {} of {} replications: progress saved in {}; continue with the same command and --resume",
                        progress.done,
                        shard.len(total),
                        partial_path.display()
                    );
                    std::process::exit(130);
                }
                if sharded.is_some() {
                    save(&progress)?;
                    let done = format!(
                        "{}: shard {} of {} done ({} replications): {}; combine the shards with `ckptsim merge`",
                        sc.name,
                        shard.index,
                        shard.count,
                        progress.done,
                        partial_path.display()
                    );
                    // Only the table is for people: CSV and JSON on stdout stay parseable.
                    if args.format == Format::Table {
                        writeln!(stdout, "{done}")?;
                    } else {
                        eprintln!("{done}");
                    }
                    continue;
                }
                // Saved progress says the run is whole before the results are written: a kill
                // in between leaves a complete partial, which --resume ends without a replication
                // and a fresh run may replace. Saved even where the run ended before its first
                // save: a kill while the results are written then loses nothing either.
                save(&progress)?;
                (runner::RunResult { replications: total, seed, summaries: progress.summaries }, Some(partial_name))
            }
        };
        // A blank line between two scenarios' Markdown: without it the next heading would
        // read as a row of the table before it.
        if i > 0 && args.format == Format::Markdown {
            writeln!(stdout).context("writing to stdout")?;
        }
        write_outputs(&mut stdout, sc, &result, &out, args.format, args.plot)?;
        if let Some(name) = finished_partial {
            // After the results: a kill between the two leaves a complete partial, never neither.
            out.remove_file(&run_owner(sc, None), &name)?;
        }
        // A signal while the results were written (plots can take a while) waited for the
        // files to be whole; it still ends the command before the next scenario.
        if interrupted.load(Ordering::Relaxed) {
            let rest: Vec<&str> = scenarios[i + 1..].iter().map(|s| s.name.as_str()).collect();
            let not_run = if rest.is_empty() { String::new() } else { format!("; not run: {}", rest.join(", ")) };
            eprintln!("interrupted after writing the results of {}{not_run}", sc.name);
            std::process::exit(130);
        }
    }
    Ok(())
}

/// The files a run's results may go to in `out`: its CSV and JSON, `-causes.csv` (where its
/// failures come from several causes), and with `plot` its SVG plots (`-overhead.svg`,
/// written when the sweep varies the interval, `-wall.svg` and `-causes.svg`).
fn result_paths(out: &std::path::Path, sc: &scenario::Scenario, plot: bool) -> Vec<PathBuf> {
    let (csv, json) = report::output_paths(out, sc);
    let mut paths = vec![csv, json, out.join(format!("{}-causes.csv", sc.name))];
    if plot {
        paths.extend(["overhead", "wall", "causes"].map(|suffix| out.join(format!("{}-{suffix}.svg", sc.name))));
    }
    paths
}

/// The files of [`result_paths`] a run of `sc` claims (DESIGN.md, "Output contract"): all but
/// the split by cause where its failures have one cause, so that a scenario `foo` does not
/// claim the CSV of a scenario `foo-causes`.
fn claimed_paths(out: &std::path::Path, sc: &scenario::Scenario, plot: bool) -> Vec<PathBuf> {
    let causes = format!("{}-causes.", sc.name);
    let split = !sc.causes().is_empty();
    result_paths(out, sc, plot)
        .into_iter()
        .filter(|p| split || !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&causes)))
        .collect()
}

/// The set of files a run of `sc` writes into an output folder (DESIGN.md, "Output contract"):
/// `run NAME`, or `run NAME --shard I/N` for a shard's partial file.
pub(crate) fn run_owner(sc: &scenario::Scenario, shard: Option<runner::Shard>) -> String {
    match shard {
        None => format!("run {}", sc.name),
        Some(s) => format!("run {} --shard {}/{}", sc.name, s.index, s.count),
    }
}

/// Writes a run's CSV, JSON (and plots) to `out` as one set and shows it on stdout.
fn write_outputs(
    stdout: &mut impl Write,
    sc: &scenario::Scenario,
    result: &runner::RunResult,
    out: &OutDir,
    format: Format,
    plot: bool,
) -> anyhow::Result<()> {
    for w in [report::never_struck_warning(sc, result), report::few_failures_warning(sc, result)].into_iter().flatten()
    {
        eprintln!("warning: {}: {w}", sc.path.display());
    }
    let rep = report::Report::new(sc, result);
    let (csv, json) = (rep.csv(), rep.json());
    let mut files = vec![
        (format!("{}.csv", sc.name), csv.clone().into_bytes()),
        (format!("{}.json", sc.name), json.clone().into_bytes()),
    ];
    if let Some(causes) = rep.causes_csv() {
        files.push((format!("{}-causes.csv", sc.name), causes.into_bytes()));
    }
    if plot {
        let plots = rep.plots()?;
        if !plots.iter().any(|(suffix, _)| *suffix == "overhead") {
            // Said, not silent: the user asked for plots and gets one of two.
            eprintln!(
                "note: {}: no overhead plot: it needs a swept policy.factor or policy.interval with a finite \
                 interval (the wall-time plot is written)",
                sc.name
            );
        }
        if rep.has_causes() && !plots.iter().any(|(suffix, _)| *suffix == "causes") {
            eprintln!(
                "note: {}: no overhead-by-cause plot: {} points, more than the {} bars it draws (the causes CSV has \
                 them all)",
                sc.name,
                sc.points.len(),
                report::MAX_CAUSE_BARS
            );
        }
        for (suffix, svg) in plots {
            files.push((format!("{}-{suffix}.svg", sc.name), svg.into_bytes()));
        }
    }
    let committed = out.commit(&run_owner(sc, None), &files, &file_names(&result_paths(out.path(), sc, plot)))?;
    for path in &committed.removed {
        eprintln!("note: removed {} (written by an earlier run of {}; this run has none)", path.display(), sc.name);
    }
    let shown = match format {
        Format::Table => rep.table(),
        Format::Csv => csv,
        Format::Json => json,
        Format::Markdown => rep.markdown(),
    };
    stdout.write_all(shown.as_bytes()).context("writing to stdout")?;
    if format == Format::Table {
        writeln!(stdout, "{}", wrote_line(&committed.written)).context("writing to stdout")?;
    }
    Ok(())
}

/// The line under a table that lists the files written: `  wrote a.csv, a.json and a.svg`
/// and a blank line.
pub(crate) fn wrote_line(paths: &[std::path::PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    match names.split_last() {
        Some((last, [])) => format!("  wrote {last}\n"),
        Some((last, rest)) => format!("  wrote {} and {last}\n", rest.join(", ")),
        None => String::new(),
    }
}

/// Refuses a run without `--resume` where an interrupted run of the same scenario saved its
/// progress in `out`: the run would replace it (it did, silently, exit 0). A finished shard's
/// file is its result, and is replaced by running the shard again.
fn keep_saved_progress(
    scenarios: &[scenario::Scenario],
    stops: &[Stop],
    out: &std::path::Path,
    sharded: Option<runner::Shard>,
) -> anyhow::Result<()> {
    for (sc, stop) in scenarios.iter().zip(stops) {
        if !matches!(stop, Stop::Replications(_)) {
            continue;
        }
        let path = out.join(partial::file_name(sc, sharded));
        // A partial of another build's format may hold progress this build cannot resume: its
        // own build can, so it is not replaced silently. Any other file that does not read as
        // a partial holds no progress to lose.
        if let Some(version) = partial::other_format_version(&path) {
            return Err(usage(format!(
                "{} is a partial file of format version {version} (this build writes version {}): it may hold the \
                 saved progress of an interrupted run of another ckptsim build, which this run would replace; \
                 accepted: resume it with that build (--resume), or remove the file to start over",
                path.display(),
                partial::FORMAT_VERSION
            )));
        }
        let Ok(saved) = partial::read(&path) else { continue };
        if !saved.complete() {
            return Err(usage(format!(
                "{} holds the saved progress of an interrupted run ({} of {} replications, seed {}), which this \
                 run would replace; accepted: the same command with --resume to continue it, or remove the file \
                 to start over",
                path.display(),
                saved.progress.done,
                saved.shard.len(saved.replications),
                saved.seed
            )));
        }
    }
    Ok(())
}

/// Reads saved progress for `--resume`, refusing one of another run.
fn resume_from(
    path: &std::path::Path,
    sc: &scenario::Scenario,
    seed: u64,
    total: u64,
    shard: runner::Shard,
) -> anyhow::Result<runner::Progress> {
    let p = partial::read(path)?;
    let hash = partial::scenario_hash(&sc.text, &sc.sets);
    let differ: Vec<String> = [
        (p.hash != hash).then(|| "the scenario text or --set arguments".to_string()),
        (p.seed != seed).then(|| format!("seed {} (this run: {seed})", p.seed)),
        (p.replications != total).then(|| format!("replications {} (this run: {total})", p.replications)),
        (p.shard != shard).then(|| {
            let show = |s: runner::Shard| {
                if s == runner::Shard::WHOLE { "none".into() } else { format!("{}/{}", s.index, s.count) }
            };
            format!("shard {} (this run: {})", show(p.shard), show(shard))
        }),
        (p.version != env!("CARGO_PKG_VERSION"))
            .then(|| format!("version {} (this build: {})", p.version, env!("CARGO_PKG_VERSION"))),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !differ.is_empty() {
        return Err(usage(format!(
            "{}: saved progress of another run (it differs in {}): remove it or run without --resume",
            path.display(),
            differ.join(", ")
        )));
    }
    Ok(p.progress)
}

/// Parses `--shard I/N`.
fn parse_shard(text: &str) -> anyhow::Result<runner::Shard> {
    let parsed =
        text.split_once('/').and_then(|(i, n)| Some((i.trim().parse::<u64>().ok()?, n.trim().parse::<u64>().ok()?)));
    match parsed {
        Some((index, count)) if count >= 1 && index < count => Ok(runner::Shard { index, count }),
        _ => Err(usage(format!("--shard {text}: accepted is I/N with 0 ≤ I < N, for example 0/4"))),
    }
}

fn cmd_merge(args: &MergeArgs) -> anyhow::Result<()> {
    let partials = args.partials.iter().map(|p| partial::read(p)).collect::<Result<Vec<_>, _>>()?;
    let (sc, result) = partial::merge(&partials)?;
    let mut out = open_out_dir(&args.out)?;
    let inputs: Vec<&std::path::Path> = args.partials.iter().map(|p| p.as_path()).collect();
    let paths = claimed_paths(&args.out, &sc, args.plot);
    writable_outputs(paths.clone(), &inputs)?;
    out.claim(&run_owner(&sc, None), &file_names(&paths))?;
    let mut stdout = std::io::stdout().lock();
    write_outputs(&mut stdout, &sc, &result, &out, args.format, args.plot)
}

/// Replications behind every candidate of `optimize` unless the scenario asks for more.
pub const OPTIMIZE_DEFAULT_REPLICATIONS: u64 = 10_000;

/// The most replications per candidate `optimize` accepts: the search keeps every
/// candidate's per-replication overheads (8 bytes each, over a hundred candidates), so 10⁷
/// is already about 10 GB; it took a panic (capacity overflow) to say more was too many.
pub const OPTIMIZE_MAX_REPLICATIONS: u64 = 10_000_000;

/// The most worker threads `--threads` accepts: far more than any machine has cores, and few
/// enough that starting them is quick.
pub const MAX_THREADS: usize = 1024;

fn thread_pool(threads: Option<usize>) -> anyhow::Result<rayon::ThreadPool> {
    if let Some(n) = threads.filter(|&n| n == 0 || n > MAX_THREADS) {
        return Err(usage(format!("--threads {n}: accepted is {THREADS_ACCEPTED}")));
    }
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        builder = builder.num_threads(n);
    }
    builder.build().context("starting the worker threads")
}

/// Steps of the progress bar per search of `optimize`.
const SEARCH_STEPS: u64 = 1000;

fn cmd_optimize(args: &OptimizeArgs) -> anyhow::Result<()> {
    let sc = scenario::load(&args.scenario, &args.sets)?;
    warn(&sc);
    let ending: Vec<String> =
        sc.points.iter().filter(|p| p.job.on_failure == OnFailure::EndJob).map(|p| p.index.to_string()).collect();
    if !ending.is_empty() {
        // The last --set of the key is the one in force.
        let origin = match args.sets.iter().rev().find(|s| s.split('=').next().map(str::trim) == Some("job.on_failure"))
        {
            Some(set) => crate::error::Origin::Set(set.clone()),
            None => crate::error::Origin::File { path: sc.path.clone(), line: None, column: None },
        };
        let at = if ending.len() < sc.points.len() {
            format!(" (at sweep points {})", ending.join(", "))
        } else {
            String::new()
        };
        return Err(Error::Scenario {
            origin,
            key: Some("job.on_failure".into()),
            message: format!(
                "\"end-job\" ends the job at its first failure{at}, so it has no time to finish its work for optimize \
                 to minimise; accepted here is \"restart\" (the default); `run` plays end-job jobs"
            ),
        }
        .into());
    }
    let reps = match (args.reps, sc.run.stop) {
        (Some(n), _) if n < 2 => return Err(usage(format!("--reps {n}: accepted is an integer ≥ 2"))),
        (Some(n), _) => n,
        (None, Stop::Replications(n)) => n.max(OPTIMIZE_DEFAULT_REPLICATIONS),
        (None, Stop::Precision(_)) => OPTIMIZE_DEFAULT_REPLICATIONS,
    };
    if reps > OPTIMIZE_MAX_REPLICATIONS {
        let given = if args.reps.is_some() { "--reps" } else { "run.replications" };
        return Err(usage(format!(
            "{given} {reps}: optimize keeps every candidate's per-replication overheads in memory; accepted is at \
             most {OPTIMIZE_MAX_REPLICATIONS} replications per candidate"
        )));
    }
    let seed = args.control.seed.unwrap_or(sc.run.seed);
    let pool = thread_pool(args.control.threads)?;
    let cases = crate::optimize::cases(&sc);
    let name = |suffix: &str| format!("{}-optimize{suffix}", sc.name);
    let file = |suffix: &str| args.out.join(name(suffix));
    // One search writes <name>-optimize.{json,csv,svg}; several write the summary as
    // <name>-optimize.{json,csv} (and .svg, over one numeric swept key) and each case's curve
    // as <name>-optimize-<k>.{csv,svg}.
    let mut outputs: Vec<PathBuf> = vec![file(".json"), file(".csv"), file(".svg")];
    if cases.len() > 1 {
        outputs.extend(
            cases.iter().flat_map(|c| [file(&format!("-{}.csv", c.index)), file(&format!("-{}.svg", c.index))]),
        );
    }
    // Before the search, so a bad --out costs nothing.
    let mut out = open_out_dir(&args.out)?;
    let owner = format!("optimize {}", sc.name);
    writable_outputs(outputs.clone(), &sc.input_files())?;
    out.claim(&owner, &file_names(&outputs))?;
    let may_remove = file_names(&outputs);
    // The bar counts per mille of each search: a search's length is known only roughly
    // until its refinement grid is laid out.
    let bar = ProgressBar::with_draw_target(Some(SEARCH_STEPS * cases.len() as u64), ProgressDrawTarget::stderr());
    let searches = if cases.len() == 1 { "1 search".to_string() } else { format!("{} searches", cases.len()) };
    bar.set_style(
        ProgressStyle::with_template(&format!("{{prefix}} [{{bar:40}}] {{percent}}% of {searches}, ETA {{eta}}"))
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix(sc.name.clone());
    let search = |case: &crate::optimize::Case<'_>| {
        let first = SEARCH_STEPS * case.index as u64;
        let progress = |share: f64| bar.set_position(first + (share * SEARCH_STEPS as f64) as u64);
        pool.install(|| crate::optimize::optimize_with_progress(case.point, reps, seed, &progress))
    };
    if let [case] = cases.as_slice() {
        let point = case.point;
        let opt = search(case).context("optimizing");
        bar.finish_and_clear();
        let opt = opt?;
        let json = report::optimum_json(&sc, seed, &opt);
        let csv = report::optimum_csv(&opt);
        let svg = report::optimum_svg(&sc.name, point, &opt)?;
        let files = [(".json", json.as_bytes()), (".csv", csv.as_bytes()), (".svg", svg.as_bytes())]
            .map(|(ext, bytes)| (name(ext), bytes.to_vec()));
        let committed = out.commit(&owner, &files, &may_remove)?;
        let shown = match args.format {
            Format::Table => {
                report::optimum_table(&sc.name, point, seed, &opt) + "\n" + &wrote_line(&committed.written)
            }
            Format::Markdown => report::optimum_markdown(&sc.name, point, seed, &opt),
            Format::Csv => csv,
            Format::Json => json,
        };
        std::io::stdout().write_all(shown.as_bytes()).context("writing to stdout")?;
        return Ok(());
    }
    let mut results = vec![];
    for case in cases.iter().cloned() {
        let opt = search(&case).with_context(|| format!("optimizing case {} ({})", case.index, case_words(&case)));
        if opt.is_err() {
            bar.finish_and_clear();
        }
        results.push((case, opt?));
    }
    bar.finish_and_clear();
    let mut details = String::new();
    let json = report::optimum_cases_json(&sc, seed, &results);
    let csv = report::optimum_cases_csv(&results);
    let mut files = vec![(name(".json"), json.clone().into_bytes()), (name(".csv"), csv.clone().into_bytes())];
    if let Some(svg) = report::optimum_cases_svg(&sc, &results) {
        files.push((name(".svg"), svg?.into_bytes()));
    }
    let summary_files = files.len();
    for (case, opt) in &results {
        let heading = format!("{} case {} ({})", sc.name, case.index, case_words(case));
        files.push((name(&format!("-{}.csv", case.index)), report::optimum_csv(opt).into_bytes()));
        let svg = report::optimum_svg(&heading, case.point, opt)?;
        files.push((name(&format!("-{}.svg", case.index)), svg.into_bytes()));
        details.push_str(&report::optimum_table(&heading, case.point, seed, opt));
        details.push('\n');
    }
    let committed = out.commit(&owner, &files, &may_remove)?;
    let shown = match args.format {
        Format::Table => {
            details
                + &report::optimum_cases_table(&sc, seed, &results)
                + "\n"
                + &wrote_line(&committed.written[..summary_files])
                + &format!("  and each case's curve in {} and .svg\n", file("-<case>.csv").display())
        }
        Format::Markdown => report::optimum_cases_markdown(&sc, seed, &results),
        Format::Csv => csv,
        Format::Json => json,
    };
    std::io::stdout().write_all(shown.as_bytes()).context("writing to stdout")?;
    Ok(())
}

/// A search's swept values in words: `job.checkpoint = 2 min, failures.mtbf = 6 h`.
fn case_words(case: &crate::optimize::Case<'_>) -> String {
    case.labels.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", ")
}

fn cmd_trace_stats(args: &TraceStatsArgs) -> anyhow::Result<()> {
    use crate::failure::trace;
    let malformed = match args.malformed {
        MalformedArg::Fatal => trace::Malformed::Fatal,
        MalformedArg::Skip => trace::Malformed::Skip,
    };
    let log = trace::read_log(&args.log, malformed)?;
    if log.skipped > 0 {
        eprintln!("note: {} malformed line(s) of {} skipped", log.skipped, args.log.display());
    }
    let mut systems: Vec<&trace::SystemLog> = match &args.system {
        Some(name) => vec![log.system(name).map_err(|e| Error::Scenario {
            origin: crate::error::Origin::File { path: args.log.clone(), line: None, column: None },
            key: None,
            message: e.to_string(),
        })?],
        None => log.systems.values().collect(),
    };
    // LANL systems are numbers: 2 before 10.
    systems.sort_by_key(|s| (s.name.parse::<u64>().unwrap_or(u64::MAX), s.name.clone()));
    let stats: Vec<trace::SystemStats> = systems.iter().map(|s| trace::system_stats(s)).collect();
    if args.fragment {
        let text = trace::fragment(&stats[0], &args.log.display().to_string())?;
        std::io::stdout().write_all(text.as_bytes()).context("writing to stdout")?;
        return Ok(());
    }
    let mut out = open_out_dir(&args.out)?;
    let stem = args
        .log
        .file_name()
        .map(|f| f.to_string_lossy().split('.').next().unwrap_or("log").to_string())
        .unwrap_or_default();
    let csv_path = args.out.join(format!("{stem}-stats.csv"));
    writable_outputs([csv_path.clone()], &[args.log.as_path()])?;
    let owner = format!("trace stats {stem}");
    let csv_name = format!("{stem}-stats.csv");
    out.claim(&owner, std::slice::from_ref(&csv_name))?;
    let csv = trace::stats_csv(&stats);
    out.commit(&owner, &[(csv_name, csv.clone().into_bytes())], &[])?;
    let shown = match args.format {
        Format::Csv => csv,
        // As under run's table: the notes, the files written, a blank line.
        _ => format!(
            "{}\n{}\n",
            trace::stats_table(&stats).trim_end_matches('\n'),
            wrote_line(std::slice::from_ref(&csv_path))
        ),
    };
    std::io::stdout().write_all(shown.as_bytes()).context("writing to stdout")?;
    Ok(())
}

fn cmd_validate(args: &ValidateArgs) -> anyhow::Result<()> {
    let budget = if args.quick { crate::validate::Budget::Quick } else { crate::validate::Budget::Full };
    let pool = thread_pool(args.threads)?;
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(ProgressStyle::with_template("{spinner} validating: {msg}").expect("valid template"));
    let results = pool.install(|| crate::validate::run(budget, args.seed, &|name| bar.set_message(name.to_string())));
    bar.finish_and_clear();
    let results = results.context("running the validation suite")?;
    std::io::stdout().write_all(crate::validate::table(&results).as_bytes()).context("writing to stdout")?;
    let failed = results.iter().filter(|r| !r.passed()).count();
    if failed > 0 {
        return Err(anyhow::anyhow!(
            "{failed} validation case(s) disagree with their closed form by more than {} SE",
            crate::validate::Z_MAX
        ));
    }
    Ok(())
}

/// Parses a rate "8.329e-6/s" or "0.02 / h" into failures per second.
pub fn parse_rate_per_s(text: &str) -> Result<f64, String> {
    let Some((number, unit)) = text.split_once('/') else {
        return Err(format!("\"{text}\": a rate needs a unit of time, for example \"8.329e-6/s\" or \"0.02/h\""));
    };
    let unit = unit.trim();
    let Some(&(_, per_s)) = scenario::DURATION_UNITS.iter().find(|(u, _)| *u == unit) else {
        let hint = match scenario::duration_unit_meant(unit) {
            Some(meant) => format!(": write it as \"{}/{meant}\"", number.trim()),
            None => String::new(),
        };
        let what = if unit.is_empty() {
            "no unit of time".to_string()
        } else {
            format!("unknown unit of time `{}`", scenario::shorten(unit))
        };
        return Err(format!("\"{text}\": {what} after the `/`{hint} (units: ms, s, min, h, d, y)"));
    };
    let value: f64 = number.trim().parse().map_err(|_| format!("\"{text}\": `{}` is not a number", number.trim()))?;
    let rate_per_s = value / per_s;
    // Checked in seconds too: "1e308/ms" overflows, "5e-324/s" gives an infinite MTBF.
    // The MTBF 1/λ must be a normal number, as for --mtbf: 1e308/s gave M = 1e-308 s and
    // infinite overheads.
    let mtbf_s = 1.0 / rate_per_s;
    if !(value > 0.0
        && value.is_finite()
        && rate_per_s.is_finite()
        && mtbf_s.is_finite()
        && mtbf_s >= f64::MIN_POSITIVE)
    {
        return Err(format!(
            "\"{text}\": accepted is a finite rate > 0 whose inverse (the MTBF) is finite and at least 2.2e-308 s \
             (the smallest normal floating-point number)"
        ));
    }
    Ok(rate_per_s)
}

/// A duration flag of `formulas` in seconds: ≥ 0 (or > 0), and at most
/// [`scenario::MAX_JOB_DURATION_S`] as a scenario's durations, beyond which the closed forms
/// overflow (an MTBF of 1e300 y gave Young's interval as ∞ and the overhead as inf).
fn duration_arg(flag: &str, text: &str, strictly_positive: bool) -> anyhow::Result<f64> {
    let v = parse_duration_s(text).map_err(|e| usage(format!("--{flag}: {e}")))?;
    let ok = if strictly_positive { v > 0.0 } else { v >= 0.0 };
    if !ok || v > scenario::MAX_JOB_DURATION_S {
        let range = if strictly_positive { "> 0" } else { "≥ 0" };
        return Err(usage(format!(
            "--{flag}: \"{text}\" is out of range: accepted is a duration {range}, at most {:e} s",
            scenario::MAX_JOB_DURATION_S
        )));
    }
    Ok(v + 0.0)
}

fn cmd_formulas(args: &FormulasArgs) -> anyhow::Result<()> {
    // Clap drops `--nodes`' requirement of `--node-mtbf` when `--mtbf` or `--rate` is given
    // (they conflict with it), so `--mtbf 20h --nodes 2048` ran with a 20 h job MTBF: the
    // node's MTBF taken for the job's, an interval √2048 ≈ 45× too long.
    if let (Some(nodes), None) = (args.nodes, &args.node_mtbf) {
        let given = match (&args.mtbf, &args.rate) {
            (Some(m), _) => format!(
                "--mtbf \"{m}\" is already the whole job's MTBF: drop --nodes, or write \
                 --node-mtbf \"{m}\" --nodes {nodes} if \"{m}\" is a node's"
            ),
            (None, Some(r)) => format!(
                "--rate \"{r}\" is already the whole job's failure rate: drop --nodes, or \
                 give one node's MTBF (1 / its rate) as --node-mtbf with --nodes {nodes}"
            ),
            (None, None) => "give one node's MTBF as --node-mtbf".to_string(),
        };
        return Err(usage(format!("--nodes {nodes} goes with --node-mtbf, one node's MTBF; {given}")));
    }
    let checkpoint_s = duration_arg("checkpoint", &args.checkpoint, false)?;
    let mtbf_s = match (&args.mtbf, &args.rate) {
        (Some(m), _) => {
            let mtbf_s = duration_arg("mtbf", m, true)?;
            // As for --rate and a scenario's MTBF: the rate 1/M must be finite (it is not at
            // 1e-320 s), so M is at least the smallest normal number.
            if mtbf_s < f64::MIN_POSITIVE {
                return Err(usage(format!(
                    "--mtbf: \"{m}\" is out of range: accepted is a duration > 0 whose inverse (the failure rate) is \
                     finite: at least 2.2e-308 s (the smallest normal floating-point number)"
                )));
            }
            mtbf_s
        }
        (None, Some(r)) if args.node_mtbf.is_none() => {
            let mtbf_s = 1.0 / parse_rate_per_s(r).map_err(|e| usage(format!("--rate: {e}")))?;
            if mtbf_s > scenario::MAX_JOB_DURATION_S {
                return Err(usage(format!(
                    "--rate: \"{r}\" is out of range: accepted is a rate whose MTBF 1/λ is at most {:e} s (here {} s)",
                    scenario::MAX_JOB_DURATION_S,
                    scenario::shown_number(mtbf_s)
                )));
            }
            mtbf_s
        }
        (None, _) => {
            let (node, nodes) = match (&args.node_mtbf, args.nodes) {
                (Some(node), Some(nodes)) => (node, nodes),
                _ => unreachable!("clap requires --mtbf, --rate, or --node-mtbf with --nodes"),
            };
            if nodes == 0 {
                return Err(usage("--nodes: \"0\" is out of range: accepted is an integer ≥ 1".to_string()));
            }
            let mtbf_s = duration_arg("node-mtbf", node, true)? / nodes as f64;
            if mtbf_s < f64::MIN_POSITIVE {
                return Err(usage(format!(
                    "--node-mtbf: \"{node}\" over {nodes} nodes gives a job MTBF below 2.2e-308 s (the smallest normal \
                     floating-point number): accepted is a job MTBF whose inverse (the failure rate) is finite"
                )));
            }
            mtbf_s
        }
    };
    let job = Job {
        work_s: match &args.work {
            Some(w) => duration_arg("work", w, true)?,
            None => f64::INFINITY,
        },
        checkpoint_s,
        restart_s: duration_arg("restart", &args.restart, false)?,
        downtime_s: duration_arg("downtime", &args.downtime, false)?,
        final_checkpoint: FinalCheckpoint::Written,
        checkpoint_exposure: args.checkpoint_failures.into(),
        restart_exposure: args.restart_failures.into(),
        on_failure: OnFailure::Restart,
    };
    let extra_interval_s = args.interval.as_deref().map(|i| duration_arg("interval", i, true)).transpose()?;
    if let Some(c2) = &args.level2_checkpoint {
        return two_level::cmd(args, &job, mtbf_s, c2, extra_interval_s);
    }
    let rows = formula_rows(&job, mtbf_s, extra_interval_s);
    if rows.is_empty() {
        return Err(usage(format!(
            "--checkpoint {}: no formula gives an interval > 0 here (δ = {} s, M = {} s); accepted is a \
             checkpoint cost > 0, or give --interval to evaluate one",
            args.checkpoint,
            scenario::shown_number(job.checkpoint_s),
            scenario::shown_number(mtbf_s)
        )));
    }
    for note in omitted_formulas(&job, &rows) {
        eprintln!("note: {note}");
    }
    let text = match args.format {
        Format::Json => {
            let mut t = serde_json::to_string_pretty(&serde_json::json!({
                "checkpoint_s": job.checkpoint_s, "mtbf_s": mtbf_s, "restart_s": job.restart_s,
                "downtime_s": job.downtime_s, "work_s": if job.work_s.is_finite() { Some(job.work_s) } else { None },
                "intervals": rows.iter().map(FormulaRow::to_json).collect::<Vec<_>>(),
            }))?;
            t.push('\n');
            t
        }
        Format::Csv => {
            let mut w = csv::Writer::from_writer(vec![]);
            w.write_record([
                "name",
                "interval_s",
                "overhead",
                "efficiency",
                "wall_mean_s",
                "wall_sd_s",
                "job_overhead",
            ])?;
            for r in &rows {
                let opt = |x: Option<f64>| x.map_or(String::new(), csv_number);
                w.write_record([
                    r.name.clone(),
                    csv_number(r.interval_s),
                    csv_number(r.overhead),
                    csv_number(1.0 / (1.0 + r.overhead)),
                    opt(r.wall.map(|m| m.mean_s)),
                    opt(r.wall.map(|m| m.sd_s())),
                    opt(r.job_overhead),
                ])?;
            }
            String::from_utf8(w.into_inner()?)?
        }
        Format::Table | Format::Markdown => formula_table(&job, mtbf_s, &rows),
    };
    std::io::stdout().write_all(text.as_bytes()).context("writing to stdout")?;
    Ok(())
}

/// One interval of `ckptsim formulas` and what the closed forms say of it.
#[derive(Debug, Clone)]
pub struct FormulaRow {
    /// The formula's name.
    pub name: String,
    /// The interval (s of compute between checkpoints).
    pub interval_s: f64,
    /// Infinite-work overhead H(T) (MODELS.md §1).
    pub overhead: f64,
    /// Mean and variance of the whole job's wall time, with finite work.
    pub wall: Option<analytic::Moments>,
    /// E\[wall\]/W − 1, with finite work.
    pub job_overhead: Option<f64>,
}

impl FormulaRow {
    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "name": self.name, "interval_s": self.interval_s, "overhead": self.overhead,
            "efficiency": 1.0 / (1.0 + self.overhead),
            "wall_mean_s": self.wall.map(|m| m.mean_s), "wall_sd_s": self.wall.map(|m| m.sd_s()),
            "job_overhead": self.job_overhead,
        })
    }
}

/// The intervals of every formula (and `extra_interval_s`) for `job` under exponential
/// failures of MTBF `mtbf_s`, each with its exact overhead.
pub fn formula_rows(job: &Job, mtbf_s: f64, extra_interval_s: Option<f64>) -> Vec<FormulaRow> {
    let d = job.checkpoint_s;
    let mut named: Vec<(String, f64)> = vec![
        ("young".into(), analytic::young_interval_s(d, mtbf_s)),
        ("daly".into(), analytic::daly_low_order_interval_s(d, mtbf_s)),
        ("daly-high-order".into(), analytic::daly_high_order_interval_s(d, mtbf_s)),
    ];
    match job.checkpoint_exposure {
        Exposure::CanFail => named.push(("optimal".into(), analytic::optimal_interval_s(d, mtbf_s))),
        Exposure::CannotFail => {
            if let Some(t) = analytic::optimal_interval_unfailing_checkpoint_s(job, mtbf_s) {
                named.push(("optimal".into(), t));
            }
        }
    }
    // With finite work, the best equal chunking W/k near the exact optimum.
    let optimum = named.iter().find(|(name, _)| name == "optimal").map(|(_, t)| *t);
    if let Some(t) = optimum.and_then(|t| analytic::finite_work_optimal_interval_s(job, mtbf_s, t)) {
        named.push(("optimal-work".into(), t));
    }
    if let Some(t) = extra_interval_s {
        named.push(("given".into(), t));
    }
    named
        .into_iter()
        .filter(|(_, t)| *t > 0.0)
        .map(|(name, interval_s)| {
            // As in scenario files: beyond 10¹² chunks the chunk count and the remainder
            // W − kT lose their digits (a count of 10¹⁹ saturates).
            let finite = job.work_s.is_finite() && job.work_s / interval_s <= scenario::MAX_CHUNKS;
            FormulaRow {
                name,
                interval_s,
                overhead: analytic::infinite_work_overhead(job, interval_s, mtbf_s),
                wall: finite.then(|| analytic::finite_work_moments(job, interval_s, mtbf_s)),
                job_overhead: finite.then(|| analytic::finite_work_overhead(job, interval_s, mtbf_s)),
            }
        })
        .collect()
}

/// Why formulas are missing from `rows` (see [`formula_rows`]), or their finite-work columns:
/// one line per reason.
fn omitted_formulas(job: &Job, rows: &[FormulaRow]) -> Vec<String> {
    let missing = |n: &&str| !rows.iter().any(|r| r.name == *n);
    let mut zero: Vec<&str> = ["young", "daly", "daly-high-order"].into_iter().filter(missing).collect();
    let mut notes = vec![];
    let too_many: Vec<&str> = if job.work_s.is_finite() {
        rows.iter().filter(|r| r.wall.is_none()).map(|r| r.name.as_str()).collect()
    } else {
        vec![]
    };
    if !too_many.is_empty() {
        notes.push(format!(
            "E[wall], sd(wall) and job overhead left out for {}: --work over the interval is more than {:e} chunks \
             (the limit of scenario files: beyond it the chunking loses its digits)",
            too_many.join(", "),
            scenario::MAX_CHUNKS
        ));
    }
    if missing(&"optimal") {
        if job.checkpoint_exposure == Exposure::CannotFail && job.checkpoint_s > 0.0 {
            notes.push(
                "optimal left out: no finite optimum when the write cannot fail and costs at least a recovery (δ ≥ K)"
                    .to_string(),
            );
        } else {
            zero.push("optimal");
        }
    }
    if !zero.is_empty() {
        notes.insert(
            0,
            format!(
                "{} left out: an interval of 0 s (δ = {} s)",
                zero.join(", "),
                scenario::shown_number(job.checkpoint_s)
            ),
        );
    }
    notes
}

/// Seconds as the formula table's header shows them: to the microsecond like the
/// `interval_s` column, without trailing zeros (11160, 120062.432465); in scientific notation
/// where that would hide the digits.
fn header_seconds(x: f64) -> String {
    if x != 0.0 && !(1e-3..1e15).contains(&x.abs()) {
        return scenario::shown_number(x);
    }
    let text = format!("{x:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `x` with 6 decimals, or in scientific notation from 10⁹ on, where the digits would run to
/// the width of the terminal (an interval of 2.4e51 s printed all 52 digits).
fn fixed6(x: f64) -> String {
    if x.is_infinite() {
        // As the duration columns beside it write it.
        if x > 0.0 { "∞".into() } else { "−∞".into() }
    } else if x.abs() >= 1e9 {
        format!("{x:.6e}")
    } else {
        format!("{x:.6}")
    }
}

fn formula_table(job: &Job, mtbf_s: f64, rows: &[FormulaRow]) -> String {
    let h = report::human_duration;
    let mut out = format!(
        "exponential failures: M = {} ({} s), δ = {} ({} s), R = {}, D = {}; checkpoint {}, restart {}\n\n",
        h(mtbf_s),
        header_seconds(mtbf_s),
        h(job.checkpoint_s),
        header_seconds(job.checkpoint_s),
        h(job.restart_s),
        h(job.downtime_s),
        if job.checkpoint_exposure == Exposure::CanFail { "can fail" } else { "cannot fail" },
        if job.restart_exposure == Exposure::CanFail { "can fail" } else { "cannot fail" },
    );
    let finite = job.work_s.is_finite();
    out.push_str(&format!(
        "  {:<16} {:>14} {:>14} {:>12} {:>10}",
        "formula", "interval", "interval_s", "overhead", "efficiency"
    ));
    if finite {
        out.push_str(&format!(" {:>14} {:>12} {:>12}", "E[wall]", "sd(wall)", "job overhead"));
    }
    out.push('\n');
    for r in rows {
        out.push_str(&format!(
            "  {:<16} {:>14} {:>14} {:>12} {:>10}",
            r.name,
            h(r.interval_s),
            fixed6(r.interval_s),
            fixed6(r.overhead),
            fixed6(1.0 / (1.0 + r.overhead))
        ));
        if let (Some(w), Some(o)) = (r.wall, r.job_overhead) {
            out.push_str(&format!(" {:>14} {:>12} {:>12}", h(w.mean_s), h(w.sd_s()), fixed6(o)));
        }
        out.push('\n');
    }
    out.push_str("\n  overhead = E[wall]/work − 1 for infinite work (Daly 2006; Bougeret et al. 2011); efficiency = 1/(1 + overhead)\n");
    if finite {
        out.push_str(
            "  E[wall], sd(wall): the wall time of the --work given, exact (MODELS.md §1); job overhead = E[wall]/work − 1 \
             (its last chunk is shorter)\n",
        );
    }
    if rows.iter().any(|r| r.name == "optimal-work") {
        out.push_str(
            "  optimal-work = the equal chunking W/k with the least E[wall] for the --work given (policy.interval = \
             \"optimal-work\")\n",
        );
    }
    out
}
