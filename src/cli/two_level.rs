//! `ckptsim formulas` with `--level2-checkpoint`: the closed forms of two-level
//! checkpointing under Poisson failures (MODELS.md §4; Moody et al., SC'10).

use std::io::Write;

use anyhow::Context;

use super::{Format, FormulasArgs, duration_arg, fixed6, header_seconds, usage};
use crate::analytic::multilevel::{self, Rates};
use crate::engine::{Job, TwoLevel};
use crate::report::table::{Column, fit_columns, left_out_note, wrap_lines};
use crate::report::{self, TableWidth, csv_number};
use crate::scenario;

/// One (n, interval) pair of the two-level table and what the closed forms say of it.
#[derive(Debug, Clone)]
struct Row {
    /// The formula: `optimal` (the exact optimum at n), `optimal-work` (the best equal
    /// chunking of the finite work near it), `young` (P*(n)/n), `given`.
    name: &'static str,
    /// Level-1 checkpoints per level-2 one.
    every: u64,
    /// Compute between two checkpoints of any level (s).
    interval_s: f64,
    /// The exact overhead of endless work ([`multilevel::pattern_overhead`]).
    overhead: f64,
    /// E\[wall\] (s) of the `--work` given ([`multilevel::expected_wall_s`]).
    wall_mean_s: Option<f64>,
    /// E\[wall\]/W − 1 of the `--work` given.
    job_overhead: Option<f64>,
}

/// `ckptsim formulas` with two levels (MODELS.md §4), its table at `width` (`--wide`).
pub(super) fn cmd_with(
    args: &FormulasArgs,
    job: &Job,
    mtbf_s: f64,
    c2: &str,
    extra_interval_s: Option<f64>,
    width: TableWidth,
) -> anyhow::Result<()> {
    let level2_mtbf = args.level2_mtbf.as_deref().expect("clap: --level2-checkpoint requires --level2-mtbf");
    let m2_s = duration_arg("level2-mtbf", level2_mtbf, true)?;
    let two = TwoLevel {
        every: 1,
        checkpoint_s: duration_arg("level2-checkpoint", c2, false)?,
        restart_s: match &args.level2_restart {
            Some(r) => duration_arg("level2-restart", r, false)?,
            None => job.restart_s,
        },
        level2: TwoLevel::ALL_BUT_NODES,
    };
    if let Some(n) = args.every.filter(|&n| n == 0 || n > scenario::MAX_EVERY) {
        return Err(usage(format!(
            "--every: \"{n}\" is out of range: accepted is an integer from 1 to {}",
            scenario::MAX_EVERY
        )));
    }
    let rates = Rates { level1_per_s: 1.0 / mtbf_s, level2_per_s: 1.0 / m2_s };
    let at = |n: u64| TwoLevel { every: n, ..two.clone() };
    let n_star = multilevel::first_order_every(job, &two, rates);
    let best = multilevel::optimal_every(job, &two, rates, |t| multilevel::optimal_interval_s(job, t, rates));
    let mut pairs: Vec<(&'static str, u64, Option<f64>)> = vec![];
    let young = |n: u64| multilevel::first_order_interval_s(job, &at(n), rates);
    if let Some(n) = best {
        let endless = multilevel::optimal_interval_s(job, &at(n), rates);
        pairs.push(("optimal", n, endless));
        // With finite work, the equal chunking W/k that suits n (a whole last pattern).
        if let Some(t) = endless.and_then(|t| multilevel::finite_work_optimal_interval_s(job, &at(n), rates, t)) {
            pairs.push(("optimal-work", n, Some(t)));
        }
        pairs.push(("young", n, Some(young(n))));
    }
    let rounded = if n_star.is_finite() { Some((n_star.round() as u64).max(1)) } else { None };
    if let Some(n) = rounded.filter(|n| Some(*n) != best) {
        pairs.push(("young", n, Some(young(n))));
    }
    if let Some(n) = args.every.filter(|n| Some(*n) != best) {
        pairs.push(("optimal", n, multilevel::optimal_interval_s(job, &at(n), rates)));
        pairs.push(("young", n, Some(young(n))));
    }
    if let Some(t) = extra_interval_s {
        pairs.push(("given", args.every.or(best).or(rounded).unwrap_or(1), Some(t)));
    }
    let finite_work = job.work_s.is_finite();
    let rows: Vec<Row> = pairs
        .into_iter()
        .filter_map(|(name, every, t)| {
            let interval_s = t.filter(|t| t.is_finite() && *t > 0.0)?;
            let two = at(every);
            // The exact chain costs O(1) at any chunk count; the count must be an exact integer.
            let finite = finite_work && job.work_s / interval_s <= crate::policy::MAX_EXACT_COUNT;
            let wall_mean_s = finite.then(|| multilevel::expected_wall_s(job, &two, interval_s, rates)).flatten();
            Some(Row {
                name,
                every,
                interval_s,
                overhead: multilevel::pattern_overhead(job, &two, interval_s, rates)?,
                wall_mean_s,
                job_overhead: wall_mean_s.map(|w| w / job.work_s - 1.0),
            })
        })
        .collect();
    if rows.is_empty() {
        return Err(no_interval(args, job, &two, c2));
    }
    if finite_work && rows.iter().any(|r| r.wall_mean_s.is_none()) {
        eprintln!(
            "note: E[wall] left out where --work {} is over 2⁵³ chunks of the interval (their count is no longer an \
             exact integer)",
            args.work.as_deref().unwrap_or_default()
        );
    }
    if best.is_none() {
        eprintln!(
            "note: no best n up to {}: the overhead keeps falling as n grows (level 2 fails rarely against level 1)",
            multilevel::optimal_every_last(job, &two, rates)
        );
    }
    let text = match args.format {
        Format::Json => json_text(job, mtbf_s, &two, m2_s, n_star, &rows)?,
        Format::Csv => csv_text(&rows)?,
        Format::Table | Format::Markdown => match width {
            TableWidth::Fit => fit_table(job, mtbf_s, &two, m2_s, n_star, &rows),
            TableWidth::Wide => table(job, mtbf_s, &two, m2_s, n_star, &rows),
        },
    };
    std::io::stdout().write_all(text.as_bytes()).context("writing to stdout")?;
    Ok(())
}

/// The error where no two-level formula gives an interval > 0: free level-1 writes (the best
/// is a level-1 checkpoint after every instant), or no write cost at any level.
fn no_interval(args: &FormulasArgs, job: &Job, two: &TwoLevel, c2: &str) -> anyhow::Error {
    if job.checkpoint_s == 0.0 && two.checkpoint_s > 0.0 {
        return usage(format!(
            "--checkpoint {}: level-1 writes that cost nothing make the best interval 0 (a level-1 checkpoint \
             after every instant) and n infinite: no two-level formula gives an interval > 0; accepted is \
             --checkpoint > 0, or give --interval (and --every) to evaluate one",
            args.checkpoint
        ));
    }
    usage(format!(
        "--level2-checkpoint {c2}: no two-level formula gives an interval > 0 here (C₁ = {} s, C₂ = {} s); \
         accepted is a write cost > 0 at some level, or give --interval to evaluate one",
        scenario::shown_number(job.checkpoint_s),
        scenario::shown_number(two.checkpoint_s)
    ))
}

/// The JSON of the two-level `formulas`: the parameters, n* and one object per row.
fn json_text(job: &Job, mtbf_s: f64, two: &TwoLevel, m2_s: f64, n_star: f64, rows: &[Row]) -> anyhow::Result<String> {
    let finite_work = job.work_s.is_finite();
    let mut t = serde_json::to_string_pretty(&serde_json::json!({
        "checkpoint_s": job.checkpoint_s, "mtbf_s": mtbf_s, "restart_s": job.restart_s,
        "downtime_s": job.downtime_s, "work_s": if finite_work { Some(job.work_s) } else { None },
        "level2_checkpoint_s": two.checkpoint_s, "level2_mtbf_s": m2_s, "level2_restart_s": two.restart_s,
        "first_order_every": if n_star.is_finite() { Some(n_star) } else { None },
        "intervals": rows.iter().map(|r| serde_json::json!({
            "name": r.name, "level2_every": r.every, "interval_s": r.interval_s, "overhead": r.overhead,
            "efficiency": 1.0 / (1.0 + r.overhead), "wall_mean_s": r.wall_mean_s,
            "job_overhead": r.job_overhead,
        })).collect::<Vec<_>>(),
    }))?;
    t.push('\n');
    Ok(t)
}

/// The CSV of the two-level `formulas`: one row per (n, interval) pair.
fn csv_text(rows: &[Row]) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(vec![]);
    w.write_record(["name", "level2_every", "interval_s", "overhead", "efficiency", "wall_mean_s", "job_overhead"])?;
    for r in rows {
        let opt = |x: Option<f64>| x.map_or(String::new(), csv_number);
        w.write_record([
            r.name.to_string(),
            r.every.to_string(),
            csv_number(r.interval_s),
            csv_number(r.overhead),
            csv_number(1.0 / (1.0 + r.overhead)),
            opt(r.wall_mean_s),
            opt(r.job_overhead),
        ])?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// The lines above the table of the two-level `formulas`: the parameters, then n*.
fn table_head(job: &Job, mtbf_s: f64, two: &TwoLevel, m2_s: f64, n_star: f64) -> String {
    let h = report::human_duration;
    let can =
        |e: crate::engine::Exposure| if e == crate::engine::Exposure::CanFail { "can fail" } else { "cannot fail" };
    let mut out = format!(
        "two-level checkpointing, exponential failures (MODELS.md §4): level 1 M₁ = {} ({} s), C₁ = {}, R₁ = {}; \
         level 2 M₂ = {} ({} s), C₂ = {}, R₂ = {}; D = {}; checkpoint {}, restart {}\n",
        h(mtbf_s),
        header_seconds(mtbf_s),
        h(job.checkpoint_s),
        h(job.restart_s),
        h(m2_s),
        header_seconds(m2_s),
        h(two.checkpoint_s),
        h(two.restart_s),
        h(job.downtime_s),
        can(job.checkpoint_exposure),
        can(job.restart_exposure),
    );
    out.push_str(&match n_star {
        n if n.is_finite() => format!("  first-order n* = √(λ₁(C₂ − C₁)/(λ₂C₁)) = {n:.3}\n\n"),
        _ => "  first-order n*: none (C₂ < C₁, or no level-1 write cost)\n\n".to_string(),
    });
    out
}

/// The notes under the table of the two-level `formulas`, each on one line.
fn table_notes(job: &Job) -> String {
    let mut out = String::from(
        "\n  n = checkpoints per level-2 one; interval = compute between two checkpoints of any level; optimal = the \
         exact optimum at n for endless work (the first row: the best n and interval together); optimal-work = the \
         equal chunking W/k near it with the least E[wall] for the --work given; young = the first order's P*(n)/n\n  \
         overhead = E[wall]/work − 1 for endless work, from the exact Markov chain over a pattern's chunks; \
         efficiency = 1/(1 + overhead)\n",
    );
    if job.work_s.is_finite() {
        out.push_str(
            "  E[wall], job overhead: the --work given, exact (its last pattern is shorter and ends in a level-2 \
             write)\n",
        );
    }
    out
}

/// The terminal table of the two-level `formulas` at [`TableWidth::Fit`]: the interval in
/// seconds (`interval_s`, six decimals) left out first.
fn fit_table(job: &Job, mtbf_s: f64, two: &TwoLevel, m2_s: f64, n_star: f64, rows: &[Row]) -> String {
    let h = report::human_duration;
    let mut columns = vec![
        Column::text("formula", 0),
        Column::number("n", 0),
        Column::number("interval", 0),
        Column::number("interval_s", 3),
        Column::number("overhead", 0),
        Column::number("efficiency", 1),
        Column::number("E[wall]", 2),
        Column::number("job overhead", 2),
    ];
    for r in rows {
        let (wall, overhead) = match (r.wall_mean_s, r.job_overhead) {
            (Some(w), Some(o)) => (h(w), fixed6(o)),
            _ => (String::new(), String::new()),
        };
        let cells = [
            r.name.to_string(),
            r.every.to_string(),
            h(r.interval_s),
            fixed6(r.interval_s),
            fixed6(r.overhead),
            fixed6(1.0 / (1.0 + r.overhead)),
            wall,
            overhead,
        ];
        for (c, cell) in columns.iter_mut().zip(cells) {
            c.cells.push(cell);
        }
    }
    let fitted = fit_columns(columns);
    let mut out = wrap_lines(&table_head(job, mtbf_s, two, m2_s, n_star));
    out.push_str(&fitted.text);
    out.push_str(&wrap_lines(&table_notes(job)));
    out.push_str(&left_out_note(&fitted.left_out));
    out
}

/// The terminal table of the two-level `formulas` at [`TableWidth::Wide`], as before.
fn table(job: &Job, mtbf_s: f64, two: &TwoLevel, m2_s: f64, n_star: f64, rows: &[Row]) -> String {
    let h = report::human_duration;
    let mut out = table_head(job, mtbf_s, two, m2_s, n_star);
    let finite = job.work_s.is_finite();
    out.push_str(&format!(
        "  {:<12} {:>5} {:>14} {:>14} {:>12} {:>10}",
        "formula", "n", "interval", "interval_s", "overhead", "efficiency"
    ));
    if finite {
        out.push_str(&format!(" {:>14} {:>12}", "E[wall]", "job overhead"));
    }
    out.push('\n');
    for r in rows {
        out.push_str(&format!(
            "  {:<12} {:>5} {:>14} {:>14} {:>12} {:>10}",
            r.name,
            r.every,
            h(r.interval_s),
            fixed6(r.interval_s),
            fixed6(r.overhead),
            fixed6(1.0 / (1.0 + r.overhead))
        ));
        if let (Some(w), Some(o)) = (r.wall_mean_s, r.job_overhead) {
            out.push_str(&format!(" {:>14} {:>12}", h(w), fixed6(o)));
        }
        out.push('\n');
    }
    out.push_str(&table_notes(job));
    out
}
