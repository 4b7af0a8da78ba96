//! `ckptsim formulas`: the closed forms for exponential failures (MODELS.md §1), instantly.

use std::io::Write;

use anyhow::Context;

use super::{Format, FormulasArgs, two_level, usage};
use crate::analytic;
use crate::engine::{Exposure, FinalCheckpoint, Job, OnFailure};
use crate::report::{self, TableWidth, csv_number};
use crate::scenario::{self, parse_duration_s};

/// Parses a rate "8.329e-6/s" or "0.02 / h" into failures per second.
pub fn parse_rate_per_s(text: &str) -> Result<f64, String> {
    let Some((number, unit)) = text.split_once('/') else {
        return Err(format!("\"{text}\": a rate needs a unit of time, for example \"8.329e-6/s\" or \"0.02/h\""));
    };
    let unit = unit.trim();
    let Some(per_s) = scenario::duration_unit_s(unit) else {
        let hint = match scenario::duration_unit_meant(unit) {
            Some(meant) => format!(": write it as \"{}/{meant}\"", number.trim()),
            None => String::new(),
        };
        let what = if unit.is_empty() {
            "no unit of time".to_string()
        } else {
            format!("unknown unit of time `{}`", scenario::shorten(unit))
        };
        return Err(format!("\"{text}\": {what} after the `/`{hint} ({})", scenario::UNITS_HINT));
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
pub(super) fn duration_arg(flag: &str, text: &str, strictly_positive: bool) -> anyhow::Result<f64> {
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

pub(super) fn cmd_formulas(args: &FormulasArgs) -> anyhow::Result<()> {
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
        return two_level::cmd_with(args, &job, mtbf_s, c2, extra_interval_s, super::table_width());
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
        say!("note: {note}");
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
        Format::Table | Format::Markdown => formula_table(&job, mtbf_s, &rows, super::table_width()),
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
pub(super) fn header_seconds(x: f64) -> String {
    if x != 0.0 && !(1e-3..1e15).contains(&x.abs()) {
        return scenario::shown_number(x);
    }
    let text = format!("{x:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `x` with 6 decimals, or in scientific notation from 10⁹ on, where the digits would run to
/// the width of the terminal (an interval of 2.4e51 s printed all 52 digits).
pub(super) fn fixed6(x: f64) -> String {
    if x.is_infinite() {
        // As the duration columns beside it write it.
        if x > 0.0 { "∞".into() } else { "−∞".into() }
    } else if x.abs() >= 1e9 {
        format!("{x:.6e}")
    } else {
        format!("{x:.6}")
    }
}

/// The table of `formulas`; fit to 100 columns, it leaves out `interval_s` (the seconds to the
/// microsecond, in the CSV and JSON) and wraps its header and notes.
fn formula_table(job: &Job, mtbf_s: f64, rows: &[FormulaRow], width: TableWidth) -> String {
    match width {
        TableWidth::Wide => table_of(job, mtbf_s, rows, true),
        TableWidth::Fit => report::table::wrap_lines(&table_of(job, mtbf_s, rows, false)),
    }
}

/// The formula table, with the `interval_s` column where `seconds`.
fn table_of(job: &Job, mtbf_s: f64, rows: &[FormulaRow], seconds: bool) -> String {
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
    let interval_s = |text: &str| if seconds { format!(" {text:>14}") } else { String::new() };
    out.push_str(&format!(
        "  {:<16} {:>14}{} {:>12} {:>10}",
        "formula",
        "interval",
        interval_s("interval_s"),
        "overhead",
        "efficiency"
    ));
    if finite {
        out.push_str(&format!(" {:>14} {:>12} {:>12}", "E[wall]", "sd(wall)", "job overhead"));
    }
    out.push('\n');
    for r in rows {
        out.push_str(&format!(
            "  {:<16} {:>14}{} {:>12} {:>10}",
            r.name,
            h(r.interval_s),
            interval_s(&fixed6(r.interval_s)),
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
