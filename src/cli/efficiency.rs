//! `ckptsim efficiency`: machine efficiency of a job schedule (usage model, MODELS.md §5).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use indicatif::ProgressBar;

use super::{Format, distinct_names, file_names, number_arg, open_out_dir, thread_pool, usage, writable_outputs};
use crate::efficiency;
use crate::error::{Error, Origin};
use crate::outdir::OutDir;
use crate::report::efficiency::EfficiencyReport;

/// Arguments of `ckptsim efficiency`.
#[derive(Debug, clap::Args)]
pub struct EfficiencyArgs {
    /// Schedule CSV files (run with the Frontier parameters of docs/models.md §5) or efficiency
    /// scenarios (`.toml`).
    #[arg(required = true, value_name = "SCHEDULE_OR_SCENARIO")]
    pub inputs: Vec<PathBuf>,
    /// Replications per point, each a whole schedule (overrides the scenario's run.replications;
    /// default 200).
    #[arg(long, allow_negative_numbers = true, value_parser = number_arg::<u64>("an integer ≥ 2"))]
    pub reps: Option<u64>,
    /// Seed and threads.
    #[command(flatten)]
    pub control: super::RunControl,
    /// Override a key, for example --set machine.failure_rate=3e-5 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub sets: Vec<String>,
    /// Shorthand for --set machine.failure_rate=R0 (failures per node-hour).
    #[arg(long, value_name = "R0", allow_hyphen_values = true)]
    pub failure_rate: Option<String>,
    /// Shorthand for --set machine.checkpoint_bytes=SIZE ("200 GB").
    #[arg(long, value_name = "SIZE", allow_hyphen_values = true)]
    pub checkpoint_bytes: Option<String>,
    /// Shorthand for --set machine.bandwidth=RATE ("6 TB/s").
    #[arg(long, value_name = "RATE", allow_hyphen_values = true)]
    pub bandwidth: Option<String>,
    /// Shorthand for --set machine.storage=shared|local.
    #[arg(long)]
    pub storage: Option<String>,
    /// Shorthand for --set policy.cadence=optimal|young|none.
    #[arg(long)]
    pub cadence: Option<String>,
    /// Shorthand for --set policy.factor=F.
    #[arg(long, allow_hyphen_values = true)]
    pub factor: Option<String>,
    /// Shorthand for --set schedule.last_segment=full|truncated.
    #[arg(long)]
    pub last_segment: Option<String>,
    /// Shorthand for --set schedule.runtime_ratio=usage-weighted|R.
    #[arg(long, allow_hyphen_values = true)]
    pub runtime_ratio: Option<String>,
    /// Folder for `<name>.csv` and `<name>.json` (and `<name>-efficiency.svg`).
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// What to print on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also write `<name>-efficiency.svg`: e against the first swept numeric key (cadence
    /// factor, failure rate, bandwidth, ...), with the 95% band and the closed form.
    #[arg(long)]
    pub plot: bool,
}

impl EfficiencyArgs {
    /// The shorthand flags given, each as (its `--set` argument, the flag as the user wrote
    /// it), in a fixed order.
    fn shorthands(&self) -> Vec<(String, String)> {
        [
            ("machine.failure_rate", "--failure-rate", &self.failure_rate),
            ("machine.checkpoint_bytes", "--checkpoint-bytes", &self.checkpoint_bytes),
            ("machine.bandwidth", "--bandwidth", &self.bandwidth),
            ("machine.storage", "--storage", &self.storage),
            ("policy.cadence", "--cadence", &self.cadence),
            ("policy.factor", "--factor", &self.factor),
            ("schedule.last_segment", "--last-segment", &self.last_segment),
            ("schedule.runtime_ratio", "--runtime-ratio", &self.runtime_ratio),
        ]
        .into_iter()
        .filter_map(|(key, flag, v)| {
            v.as_ref().map(|v| (format!("{key}={v}"), format!("{flag} {}", crate::error::shell_word(v))))
        })
        .collect()
    }

    /// The shorthand flags as `--set` arguments, then the `--set` arguments, in order.
    fn sets(&self) -> Vec<String> {
        let mut sets: Vec<String> = self.shorthands().into_iter().map(|(set, _)| set).collect();
        sets.extend(self.sets.iter().cloned());
        sets
    }

    /// `err` located at the flag the user typed where it came from a shorthand (which
    /// reaches the scenario as a `--set` the user never wrote).
    fn at_flag(&self, err: Error) -> Error {
        match err {
            // A `--set` written exactly as a shorthand expands is applied after it: the
            // `--set` is the one in force, so it keeps the blame.
            Error::Scenario { origin: Origin::Set(arg), key, message } if !self.sets.contains(&arg) => {
                let origin = match self.shorthands().into_iter().find(|(set, _)| *set == arg) {
                    Some((_, flag)) => Origin::Flag(flag),
                    None => Origin::Set(arg),
                };
                Error::Scenario { origin, key, message }
            }
            other => other,
        }
    }
}

/// Runs `ckptsim efficiency`.
pub fn cmd_efficiency(args: &EfficiencyArgs) -> anyhow::Result<()> {
    if let Some(n) = args.reps.filter(|&n| n < 2) {
        return Err(usage(format!("--reps {n}: accepted is an integer ≥ 2")));
    }
    super::one_document_per_stdout(args.inputs.len(), args.format, "input")?;
    let pool = thread_pool(args.control.threads)?;
    let sets = args.sets();
    // Validate every input (and read every schedule) before running any.
    let studies = args
        .inputs
        .iter()
        .map(|p| efficiency::load(p, &sets).map_err(|e| args.at_flag(e)))
        .collect::<Result<Vec<_>, _>>()?;
    distinct_names(studies.iter().map(|sc| (sc.name.as_str(), sc.path.as_path())))?;
    let mut out = open_out_dir(&args.out)?;
    let inputs: Vec<&std::path::Path> =
        studies.iter().flat_map(|sc| [sc.path.as_path(), sc.schedule.path.as_path()]).collect();
    for sc in &studies {
        let paths = result_names(sc).map(|name| args.out.join(name));
        writable_outputs(paths.clone(), &inputs)?;
        out.claim(&owner(sc), &file_names(&paths))?;
    }
    let mut stdout = std::io::stdout().lock();
    for (i, sc) in studies.iter().enumerate() {
        let reps = args.reps.unwrap_or(sc.replications);
        let seed = args.control.seed.unwrap_or(sc.seed);
        let shown = Shown { format: args.format, plot: args.plot, first: i == 0 };
        run_study(&mut stdout, &out, &pool, sc, reps, seed, shown)?;
    }
    Ok(())
}

/// How a study's results are shown: the format on stdout, whether plots are written, and
/// whether it is the first of its command line.
#[derive(Debug, Clone, Copy)]
pub(super) struct Shown {
    /// What stdout shows.
    pub format: Format,
    /// Whether the plot is written.
    pub plot: bool,
    /// Whether the study is its command line's first.
    pub first: bool,
}

/// Runs one efficiency study (claimed in `out`), writes its files as one set and shows it.
pub(super) fn run_study(
    stdout: &mut impl Write,
    out: &OutDir,
    pool: &rayon::ThreadPool,
    sc: &efficiency::EfficiencyScenario,
    reps: u64,
    seed: u64,
    shown: Shown,
) -> anyhow::Result<()> {
    // Replications of every point: the bar moves within a point, not only between them.
    let total = reps.saturating_mul(sc.points.len() as u64);
    let bar = ProgressBar::with_draw_target(Some(total), super::bar_target());
    bar.set_style(super::bar_style("{prefix} [{bar:40}] {pos}/{len} point-replications ({msg}), ETA {eta}"));
    bar.set_prefix(sc.name.clone());
    let points = sc.points.len() as u64;
    bar.set_message(format!("point 1 of {points}"));
    let result = pool.install(|| {
        efficiency::run(sc, reps, seed, &|n| {
            bar.inc(n);
            let point = (bar.position() / reps.max(1) + 1).min(points);
            bar.set_message(format!("point {point} of {points}"));
        })
    });
    bar.finish_and_clear();
    let result = result.with_context(|| format!("running {}", sc.path.display()))?;
    let rep = EfficiencyReport::new(sc, &result);
    let (csv, json) = (rep.csv(), rep.json());
    let svg = if shown.plot { rep.plot()? } else { None };
    let [csv_name, json_name, svg_name] = result_names(sc);
    let mut files = vec![(csv_name, csv.clone().into_bytes()), (json_name, json.clone().into_bytes())];
    if let Some(svg) = &svg {
        files.push((svg_name.clone(), svg.clone().into_bytes()));
    }
    // Without --plot an earlier run's plot stays: it is of the same study.
    let may_remove = if shown.plot { vec![svg_name] } else { vec![] };
    let committed = out.commit(&owner(sc), &files, &may_remove)?;
    match &svg {
        Some(_) => {}
        None if shown.plot => say!(
            "note: {}: no plot: no numeric key is swept (policy.factor, machine.failure_rate, machine.bandwidth, ...)",
            sc.name
        ),
        None => {}
    }
    for (p, r) in sc.points.iter().zip(&result.points) {
        for w in &r.warnings {
            say!("warning: {}: point {}: {w}", sc.name, p.index);
        }
    }
    // A blank line between two studies' Markdown: without it the next heading would read
    // as a row of the table before it.
    if !shown.first && shown.format == Format::Markdown {
        writeln!(stdout).context("writing to stdout")?;
    }
    let text = match shown.format {
        Format::Table => rep.table_with(super::table_width()),
        Format::Csv => csv,
        Format::Json => json,
        Format::Markdown => rep.markdown(),
    };
    stdout.write_all(text.as_bytes()).context("writing to stdout")?;
    if shown.format == Format::Table {
        writeln!(stdout, "{}", super::wrote_line(&committed.written))?;
    }
    Ok(())
}

/// The files an efficiency study writes: `<name>.csv`, `<name>.json`, `<name>-efficiency.svg`.
pub(super) fn result_names(sc: &efficiency::EfficiencyScenario) -> [String; 3] {
    [format!("{}.csv", sc.name), format!("{}.json", sc.name), format!("{}-efficiency.svg", sc.name)]
}

/// The set an efficiency study's files belong to: the same as `run`'s, as both write
/// `<name>.csv` and `<name>.json`.
pub(super) fn owner(sc: &efficiency::EfficiencyScenario) -> String {
    format!("run {}", sc.name)
}
