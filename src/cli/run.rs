//! `ckptsim run` and `ckptsim merge`: simulate scenarios (whole, as shards, resumed) and
//! write their results as one set into the output folder.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;
use indicatif::ProgressBar;

use super::efficiency;
use super::{
    Format, MergeArgs, RunArgs, bar_style, bar_target, distinct_names, file_names, one_document_per_stdout,
    open_out_dir, tell, thread_pool, usage, warn, writable_outputs, wrote_line,
};
use crate::efficiency::EfficiencyScenario;
use crate::outdir::OutDir;
use crate::partial;
use crate::report;
use crate::runner;
use crate::scenario::{self, Stop};

pub(super) fn cmd_run(args: &RunArgs) -> anyhow::Result<()> {
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
    let inputs = args.scenarios.iter().map(|p| load_input(p, &args.sets)).collect::<Result<Vec<_>, _>>()?;
    distinct_names(inputs.iter().map(|input| match input {
        Input::Job(sc) => (sc.name.as_str(), sc.path.as_path()),
        Input::Study(st) => (st.name.as_str(), st.path.as_path()),
    }))?;
    let studies: Vec<&EfficiencyScenario> =
        inputs.iter().filter_map(|i| if let Input::Study(st) = i { Some(st) } else { None }).collect();
    study_flags(args, &studies)?;
    let scenarios: Vec<&scenario::Scenario> =
        inputs.iter().filter_map(|i| if let Input::Job(sc) = i { Some(sc) } else { None }).collect();
    scenarios.iter().for_each(|sc| warn(sc));
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
    let read: Vec<&std::path::Path> = scenarios
        .iter()
        .flat_map(|sc| sc.input_files())
        .chain(studies.iter().flat_map(|st| [st.path.as_path(), st.schedule.path.as_path()]))
        .collect();
    for st in &studies {
        let paths = efficiency::result_names(st).map(|name| args.out.join(name));
        writable_outputs(paths.clone(), &read)?;
        out.claim(&efficiency::owner(st), &file_names(&paths))?;
    }
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
        writable_outputs(paths.clone(), &read)?;
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
            say!("warning: {}: {w}", sc.path.display());
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
    let mut stops = stops.iter();
    for (i, input) in inputs.iter().enumerate() {
        let sc = match input {
            Input::Job(sc) => sc,
            Input::Study(st) => {
                let reps = args.reps.unwrap_or(st.replications);
                let seed = args.control.seed.unwrap_or(st.seed);
                let shown = efficiency::Shown { format: args.format, plot: args.plot, first: i == 0 };
                efficiency::run_study(&mut stdout, &out, &pool, st, reps, seed, shown)?;
                continue;
            }
        };
        let stop = *stops.next().expect("a stop per job scenario");
        let seed = args.control.seed.unwrap_or(sc.run.seed);
        // The bar counts every point of every replication.
        let new_bar = |length: Option<u64>| {
            let bar = ProgressBar::with_draw_target(length, bar_target());
            bar.set_style(bar_style("{prefix} [{bar:40}] {pos}/{len} point-replications, {rate}, ETA {eta}"));
            bar.set_prefix(sc.name.clone());
            bar
        };
        let points = sc.points.len() as u64;
        // The saved progress of a finished run goes only once its results are written: a kill
        // between the two then leaves the progress (and --resume writes the results again), never
        // neither.
        let (result, finished_partial) = match stop {
            Stop::Precision(_) => {
                let bar = new_bar(None);
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
                    say!(
                        "resuming {} from {} of {} replications saved in {}",
                        sc.name,
                        progress.done,
                        shard.len(total),
                        partial_path.display()
                    );
                    progress
                } else {
                    if args.resume {
                        say!(
                            "note: {} does not exist: nothing to resume, starting from the first replication",
                            partial_path.display()
                        );
                    }
                    runner::Progress { done: 0, summaries: vec![Default::default(); sc.points.len()] }
                };
                if args.resume
                    && let Some(w) = crate::forecast::resumed_run_warning(sc, stop, shard, progress.done)
                {
                    say!("warning: {}: {w}", sc.path.display());
                }
                // Made once what is done is known, so a resumed run draws no stale 0/0 line; its
                // rate and ETA are of this run, as the replications resumed took no time here.
                let bar = new_bar(Some(shard.len(total) * points));
                bar.set_position(progress.done * points);
                bar.reset_eta();
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
                    tell(&format!(
                        "interrupted after {} of {} replications: progress saved in {}; continue with the same command and --resume",
                        progress.done,
                        shard.len(total),
                        partial_path.display()
                    ));
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
                        say!("{done}");
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
            let rest: Vec<&str> = inputs[i + 1..].iter().map(Input::name).collect();
            let not_run = if rest.is_empty() { String::new() } else { format!("; not run: {}", rest.join(", ")) };
            tell(&format!("interrupted after writing the results of {}{not_run}", sc.name));
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
        say!("warning: {}: {w}", sc.path.display());
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
            say!(
                "note: {}: no overhead plot: it needs a swept policy.factor or policy.interval with a finite \
                 interval (the wall-time plot is written)",
                sc.name
            );
        }
        if rep.has_causes() && !plots.iter().any(|(suffix, _)| *suffix == "causes") {
            say!(
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
        say!("note: removed {} (written by an earlier run of {}; this run has none)", path.display(), sc.name);
    }
    let shown = match format {
        Format::Table => rep.table_with(super::table_width()),
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

/// Refuses a run without `--resume` where an interrupted run of the same scenario saved its
/// progress in `out`: the run would replace it (it did, silently, exit 0). A finished shard's
/// file is its result, and is replaced by running the shard again.
fn keep_saved_progress(
    scenarios: &[&scenario::Scenario],
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

pub(super) fn cmd_merge(args: &MergeArgs) -> anyhow::Result<()> {
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

/// One input of `run`: a job's scenario, or an efficiency study of a schedule (the file says
/// which: a study has `[schedule]` or `[machine]` and no `[job]` or `[failures]`).
enum Input {
    Job(scenario::Scenario),
    Study(EfficiencyScenario),
}

impl Input {
    fn name(&self) -> &str {
        match self {
            Input::Job(sc) => &sc.name,
            Input::Study(st) => &st.name,
        }
    }
}

fn load_input(path: &std::path::Path, sets: &[String]) -> crate::Result<Input> {
    let text = scenario::read_text(path)?;
    if crate::efficiency::is_study(&text) {
        Ok(Input::Study(crate::efficiency::parse(&text, path, sets)?))
    } else {
        Ok(Input::Job(scenario::parse(&text, path, sets)?))
    }
}

/// Refuses the flags of `run` that an efficiency study has no use for, naming the study.
fn study_flags(args: &RunArgs, studies: &[&EfficiencyScenario]) -> anyhow::Result<()> {
    let Some(st) = studies.first() else { return Ok(()) };
    let given =
        [(args.precision.is_some(), "--precision"), (args.shard.is_some(), "--shard"), (args.resume, "--resume")];
    if let Some((_, flag)) = given.iter().find(|(on, _)| *on) {
        return Err(usage(format!(
            "{flag} with {}: an efficiency study runs a fixed number of replications, whole; accepted with studies \
             is --reps (run the job scenarios with {flag} on their own)",
            st.path.display()
        )));
    }
    Ok(())
}
