//! `ckptsim optimize`: the best interval by simulation, with its interval and the formulas'
//! regrets.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use indicatif::ProgressBar;

use super::{
    Format, OptimizeArgs, bar_style, bar_target, file_names, open_out_dir, thread_pool, usage, warn, writable_outputs,
    wrote_line,
};
use crate::engine::OnFailure;
use crate::error::Error;
use crate::report;
use crate::scenario::{self, Stop};

/// Replications behind every candidate of `optimize` unless the scenario asks for more.
pub const OPTIMIZE_DEFAULT_REPLICATIONS: u64 = 10_000;

/// The most replications per candidate `optimize` accepts: the search keeps every
/// candidate's per-replication overheads (8 bytes each, over a hundred candidates), so 10⁷
/// is already about 10 GB; it took a panic (capacity overflow) to say more was too many.
pub const OPTIMIZE_MAX_REPLICATIONS: u64 = 10_000_000;

/// Steps of the progress bar per search of `optimize`.
const SEARCH_STEPS: u64 = 1000;

pub(super) fn cmd_optimize(args: &OptimizeArgs) -> anyhow::Result<()> {
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
    let bar = ProgressBar::with_draw_target(Some(SEARCH_STEPS * cases.len() as u64), bar_target());
    let searches = if cases.len() == 1 { "1 search".to_string() } else { format!("{} searches", cases.len()) };
    bar.set_style(bar_style(&format!("{{prefix}} [{{bar:40}}] {{percent}}% of {searches}, ETA {{eta}}")));
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
                report::optimum_table_with(&sc.name, point, seed, &opt, super::table_width())
                    + "\n"
                    + &wrote_line(&committed.written)
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
        details.push_str(&report::optimum_table_with(&heading, case.point, seed, opt, super::table_width()));
        details.push('\n');
    }
    let committed = out.commit(&owner, &files, &may_remove)?;
    let shown = match args.format {
        Format::Table => {
            details
                + &report::optimum_cases_table_with(&sc, seed, &results, super::table_width())
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
