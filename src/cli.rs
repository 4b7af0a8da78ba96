//! The command line (DESIGN.md, "CLI contract"): clap definitions and the subcommands. The
//! terminal (progress bars, tables on stdout) belongs here, not to the library's core.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::engine::Exposure;
use crate::error::Error;
use crate::outdir::OutDir;
use crate::report::TableWidth;
use crate::scenario;

/// Whether `--quiet` was given: notes, warnings and progress bars are not shown.
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether `--wide` was given: terminal tables show every column.
static WIDE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The width of terminal tables: [`TableWidth::Wide`] with `--wide`, else fit to 100 columns.
pub(crate) fn table_width() -> TableWidth {
    if WIDE.load(std::sync::atomic::Ordering::Relaxed) { TableWidth::Wide } else { TableWidth::Fit }
}

/// Writes a note or a warning to stderr, unless `--quiet`. A closed stderr loses the line, never
/// the run (`eprintln!` panics there).
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::cli::say_line(format_args!($($arg)*))
    };
}

/// The line of [`say!`].
pub(crate) fn say_line(args: std::fmt::Arguments<'_>) {
    if !QUIET.load(std::sync::atomic::Ordering::Relaxed) {
        let _ = writeln!(std::io::stderr(), "{args}");
    }
}

/// Writes a line to stderr whatever `--quiet` says (the outcome of an interrupted run); a
/// closed stderr loses it.
pub(crate) fn tell(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// Where progress bars draw: stderr (hidden when it is not a terminal), or nowhere with `--quiet`.
pub(crate) fn bar_target() -> ProgressDrawTarget {
    if QUIET.load(std::sync::atomic::Ordering::Relaxed) {
        ProgressDrawTarget::hidden()
    } else {
        ProgressDrawTarget::stderr()
    }
}

/// A progress bar style from `template` with two keys of its own: `{rate}`, this run's rate in
/// whole units per second (indicatif's own shows four decimals of a rate in the thousands),
/// and `{eta}`, which says "estimating" until the bar has moved (indicatif's says 0 s).
pub(crate) fn bar_style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("valid template")
        .with_key("rate", |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{:.0}/s", state.per_sec());
        })
        .with_key("eta", |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
            if state.pos() == 0 || state.per_sec() <= 0.0 {
                let _ = write!(w, "estimating");
            } else {
                let _ = write!(w, "{:#}", indicatif::HumanDuration(state.eta()));
            }
        })
        .progress_chars("=> ")
}

mod efficiency;
mod formulas;
mod optimize;
mod run;
mod two_level;
pub use efficiency::EfficiencyArgs;
pub use formulas::{FormulaRow, formula_rows, parse_rate_per_s};
use formulas::{duration_arg, fixed6, header_seconds};
pub use optimize::{OPTIMIZE_DEFAULT_REPLICATIONS, OPTIMIZE_MAX_REPLICATIONS};

/// Monte Carlo failure/checkpoint simulator: what failures cost and how often to checkpoint.
#[derive(Debug, Parser)]
#[command(name = "ckptsim", version, about, long_about = None)]
pub struct Cli {
    /// No progress bars, notes or warnings on stderr (errors still show).
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// Terminal tables with every column, wider than 100 columns (the files have them all).
    #[arg(long, global = true)]
    pub wide: bool,
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
    #[command(
        after_help = "Examples:\n  ckptsim run scenarios/young-daly.toml\n  ckptsim run scenarios/*.toml --reps 200 --out runs\n  ckptsim run scenarios/young-daly.toml --set job.checkpoint=\"5 min\" --precision 0.002\n  ckptsim run - --reps 100 < my-scenario.toml"
    )]
    Run(RunArgs),
    /// Combine shard outputs (`run --shard I/N`) into exactly the result of one run.
    #[command(after_help = "Examples:\n  ckptsim merge runs/young-daly.shard-*-of-4.json --out runs")]
    Merge(MergeArgs),
    /// Closed forms for exponential failures, instantly (docs/models.md §1, §4).
    #[command(
        after_help = "Examples:\n  ckptsim formulas --checkpoint 5min --restart 10min --mtbf 24h\n  ckptsim formulas --checkpoint 2min --node-mtbf 5y --nodes 10000 --work 30d"
    )]
    Formulas(FormulasArgs),
    /// The best interval by simulation (common random numbers), with its interval and the
    /// formulas' regrets.
    #[command(after_help = "Examples:\n  ckptsim optimize scenarios/weibull-job.toml --set failures.shape=0.5")]
    Optimize(OptimizeArgs),
    /// The built-in validation suite: simulation against closed forms; exit 1 on a failure.
    #[command(after_help = "Examples:\n  ckptsim validate --quick")]
    Validate(ValidateArgs),
    /// Failure logs: `ckptsim trace stats LOG`.
    #[command(
        after_help = "Examples:\n  ckptsim trace stats failures.csv\n  ckptsim trace stats LA-UR-05-7318-failure-data-1996-2005.csv.xz --system 18 --fragment"
    )]
    Trace(TraceArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(
        after_help = "Examples:\n  ckptsim completions bash > ~/.local/share/bash-completion/completions/ckptsim\n  ckptsim completions zsh > ~/.zfunc/_ckptsim"
    )]
    Completions(CompletionsArgs),
    /// Print the man page (roff), or one command's: `ckptsim man run`.
    #[command(after_help = "Examples:\n  ckptsim man > ckptsim.1 && man ./ckptsim.1\n  ckptsim man run | man -l -")]
    Man(ManArgs),
    /// Machine efficiency of a job schedule (usage model, docs/models.md §5): closed form and
    /// simulated, with CI.
    #[command(
        after_help = "Examples:\n  ckptsim efficiency scenarios/small-schedule.toml --plot\n  ckptsim efficiency jobs.csv --failure-rate 3e-5 --bandwidth \"6 TB/s\""
    )]
    Efficiency(EfficiencyArgs),
}

/// Arguments of `ckptsim completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Arguments of `ckptsim man`.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// A subcommand whose page to print (default: the program's, which lists them all).
    pub command: Option<String>,
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
    /// Two-level checkpointing (docs/models.md §4): the level-2 write cost C₂, with a unit
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
    QUIET.store(cli.quiet, std::sync::atomic::Ordering::Relaxed);
    WIDE.store(cli.wide, std::sync::atomic::Ordering::Relaxed);
    let result = match cli.command {
        Command::Run(args) => run::cmd_run(&args),
        Command::Merge(args) => run::cmd_merge(&args),
        Command::Formulas(args) => formulas::cmd_formulas(&args),
        Command::Optimize(args) => optimize::cmd_optimize(&args),
        Command::Validate(args) => cmd_validate(&args),
        Command::Trace(TraceArgs { command: TraceCommand::Stats(args) }) => cmd_trace_stats(&args),
        Command::Efficiency(args) => efficiency::cmd_efficiency(&args),
        Command::Completions(args) => cmd_completions(&args),
        Command::Man(args) => cmd_man(&args),
    };
    match result {
        Ok(()) => 0,
        // The reader of stdout has gone (`ckptsim run … | head`): stop quietly, as a pipeline
        // expects; the files in --out were written before stdout.
        Err(e) if is_broken_pipe(&e) => 0,
        Err(e) => {
            tell(&format!("error: {}", error_text(&e)));
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
pub(crate) fn warn(sc: &scenario::Scenario) {
    for w in sc.warnings() {
        say!("warning: {}: {w}", sc.path.display());
    }
}

/// The line under a table that lists the files written: `  wrote a.csv, a.json and a.svg`
/// and a blank line.
pub(crate) fn wrote_line(paths: &[std::path::PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let line = match names.split_last() {
        Some((last, [])) => format!("  wrote {last}\n"),
        Some((last, rest)) => format!("  wrote {} and {last}\n", rest.join(", ")),
        None => String::new(),
    };
    match table_width() {
        TableWidth::Fit => crate::report::table::wrap_lines(&line),
        TableWidth::Wide => line,
    }
}

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

fn cmd_trace_stats(args: &TraceStatsArgs) -> anyhow::Result<()> {
    use crate::failure::trace;
    let malformed = match args.malformed {
        MalformedArg::Fatal => trace::Malformed::Fatal,
        MalformedArg::Skip => trace::Malformed::Skip,
    };
    let log = trace::read_log(&args.log, malformed)?;
    if log.skipped > 0 {
        say!("note: {} malformed line(s) of {} skipped", log.skipped, args.log.display());
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
            trace::stats_table_with(&stats, table_width()).trim_end_matches('\n'),
            wrote_line(std::slice::from_ref(&csv_path))
        ),
    };
    std::io::stdout().write_all(shown.as_bytes()).context("writing to stdout")?;
    Ok(())
}

fn cmd_validate(args: &ValidateArgs) -> anyhow::Result<()> {
    let budget = if args.quick { crate::validate::Budget::Quick } else { crate::validate::Budget::Full };
    let pool = thread_pool(args.threads)?;
    let bar = ProgressBar::with_draw_target(None, bar_target());
    bar.set_style(ProgressStyle::with_template("{spinner} validating: {msg}").expect("valid template"));
    let results = pool.install(|| crate::validate::run(budget, args.seed, &|name| bar.set_message(name.to_string())));
    bar.finish_and_clear();
    let results = results.context("running the validation suite")?;
    std::io::stdout()
        .write_all(crate::validate::table_with(&results, table_width()).as_bytes())
        .context("writing to stdout")?;
    let failed = results.iter().filter(|r| !r.passed()).count();
    if failed > 0 {
        return Err(anyhow::anyhow!(
            "{failed} validation case(s) disagree with their closed form by more than {} SE",
            crate::validate::Z_MAX
        ));
    }
    Ok(())
}

fn cmd_completions(args: &CompletionsArgs) -> anyhow::Result<()> {
    use clap::CommandFactory;
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "ckptsim", &mut out);
    std::io::stdout().write_all(&out).context("writing to stdout")
}

fn cmd_man(args: &ManArgs) -> anyhow::Result<()> {
    use clap::CommandFactory;
    let cli = Cli::command();
    let page = match &args.command {
        None => cli,
        Some(name) => {
            let names: Vec<String> = cli.get_subcommands().map(|c| c.get_name().to_string()).collect();
            let Some(sub) = cli.find_subcommand(name) else {
                return Err(usage(format!("man {name}: no such command; accepted is one of {}", names.join(", "))));
            };
            let full = format!("ckptsim-{name}");
            sub.clone().display_name(full).version(env!("CARGO_PKG_VERSION"))
        }
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(page).render(&mut out).context("rendering the man page")?;
    std::io::stdout().write_all(&out).context("writing to stdout")
}
