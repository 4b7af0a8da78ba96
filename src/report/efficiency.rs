//! Outputs of `ckptsim efficiency`: terminal table, CSV, JSON, Markdown and the SVG plot of
//! machine efficiency against the swept key.
//!
//! Each of e, l_chk, l_fail and l_restart has its closed form (`model`) and its simulated value:
//! `mean` is the pooled ratio of sums over all replications (1 − ΣᵢLᵢ/ΣᵢUᵢ for e), which
//! estimates the closed form's ratio of expectations for any schedule size, with its
//! delta-method standard error `se`, 95% interval `ci_low`, `ci_high` and `z` = (mean −
//! model)/se; `per_replication_mean` (with its interval) is the mean of each replication's
//! own ratio, which differs from the closed form by a bias of order 1/(failed jobs per
//! replication).

use serde_json::{Map, Value, json};

use super::table::{Column, TableWidth, fit_columns, left_out_note, mean_pm, to_interval, wrap_lines};
use super::{SweptAs, csv_cell, plot};
use crate::efficiency::{EfficiencyPoint, EfficiencyScenario, PointResult, StudyResult};
use crate::efficiency::{cadence_name, last_segment_name, storage_name};
use crate::error::{Error, Result};
use crate::stats::Estimate;
use crate::usage::RatioEstimate;

/// The four figures, their output names and their short names in tables.
const FIGURES: [(&str, &str); 4] = [("efficiency", "e"), ("l_chk", "l_chk"), ("l_fail", "l_F"), ("l_restart", "l_R")];

/// The outputs of a run of an efficiency study.
#[derive(Debug, Clone)]
pub struct EfficiencyReport<'a> {
    scenario: &'a EfficiencyScenario,
    result: &'a StudyResult,
}

fn finite_or_null(x: f64) -> Value {
    if x.is_finite() { json!(x) } else { Value::Null }
}

/// (model, pooled estimate, per-replication estimate) of figure `k` of a point.
fn figure(r: &PointResult, k: usize) -> (f64, RatioEstimate, Estimate) {
    let (m, s) = (&r.model, &r.sim);
    match k {
        0 => (m.e, s.pooled.e, s.per_replication.e),
        1 => (m.l_chk, s.pooled.l_chk, s.per_replication.l_chk),
        2 => (m.l_f, s.pooled.l_f, s.per_replication.l_f),
        _ => (m.l_r, s.pooled.l_r, s.per_replication.l_r),
    }
}

fn z(model: f64, e: &RatioEstimate) -> f64 {
    (e.value - model) / e.se
}

impl<'a> EfficiencyReport<'a> {
    /// The report of `result`, a run of `scenario`.
    pub fn new(scenario: &'a EfficiencyScenario, result: &'a StudyResult) -> Self {
        EfficiencyReport { scenario, result }
    }

    fn rows(&self) -> impl Iterator<Item = (&'a EfficiencyPoint, &'a PointResult)> + '_ {
        self.scenario.points.iter().zip(&self.result.points)
    }

    /// The output fields of one point, in order, as JSON values; the four figures are
    /// objects (`model`, `mean`, `ci_low`, `ci_high`, `se`, `z`, `per_replication_mean`,
    /// `per_replication_ci_low`, `per_replication_ci_high`); the swept values as `swept` says.
    fn fields(&self, p: &EfficiencyPoint, r: &PointResult, swept: SweptAs) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("point".into(), json!(p.index));
        for (axis, label) in self.scenario.axes.iter().zip(&p.labels) {
            m.insert(axis.key.clone(), swept.value(axis, label));
        }
        for (k, (name, _)) in FIGURES.iter().enumerate() {
            let (model, pooled, per_rep) = figure(r, k);
            let mut f = Map::new();
            f.insert("model".into(), finite_or_null(model));
            f.insert("mean".into(), finite_or_null(pooled.value));
            f.insert("ci_low".into(), finite_or_null(pooled.ci_low()));
            f.insert("ci_high".into(), finite_or_null(pooled.ci_high()));
            f.insert("se".into(), finite_or_null(pooled.se));
            f.insert("z".into(), finite_or_null(z(model, &pooled)));
            f.insert("per_replication_mean".into(), finite_or_null(per_rep.mean));
            f.insert("per_replication_ci_low".into(), finite_or_null(per_rep.ci_low()));
            f.insert("per_replication_ci_high".into(), finite_or_null(per_rep.ci_high()));
            m.insert((*name).into(), Value::Object(f));
        }
        m.insert("jobs".into(), json!(r.jobs));
        m.insert("job_types".into(), json!(r.job_types));
        m.insert("replications".into(), json!(r.sim.replications));
        m.insert("last_segment".into(), json!(last_segment_name(p.last)));
        m.insert("cadence".into(), json!(cadence_name(p.cadence)));
        m.insert("factor".into(), json!(p.factor));
        let mach = &p.machine;
        m.insert("failure_rate_per_node_h".into(), json!(mach.failure_rate_per_node_h));
        m.insert("checkpoint_bytes".into(), json!(mach.checkpoint_bytes));
        m.insert("bandwidth_bytes_per_s".into(), json!(mach.bandwidth_bytes_per_s));
        m.insert("storage".into(), json!(storage_name(mach.storage)));
        m.insert("setup_s".into(), json!(mach.setup_s));
        m.insert("read_write_ratio".into(), json!(mach.read_write_ratio));
        m.insert("runtime_ratio".into(), json!(p.runtime_ratio));
        m.insert("runtime_ratio_source".into(), json!(p.runtime_ratio_source.name()));
        m.insert("usage_model_nh".into(), finite_or_null(r.model.sum_u));
        m.insert("usage_mean_nh".into(), finite_or_null(r.sim.sum_u.mean));
        m.insert("failed_jobs_model".into(), finite_or_null(r.failed_jobs_model));
        m.insert("failed_jobs_mean".into(), finite_or_null(r.sim.failed_jobs.mean));
        m.insert("failed_jobs_ci_low".into(), finite_or_null(r.sim.failed_jobs.ci_low()));
        m.insert("failed_jobs_ci_high".into(), finite_or_null(r.sim.failed_jobs.ci_high()));
        m.insert("warnings".into(), json!(r.warnings));
        m
    }

    /// The JSON: `scenario`, `description`, `version`, `schedule` (as written), `jobs`,
    /// `seed`, `replications`, `points`.
    pub fn json(&self) -> String {
        let sc = self.scenario;
        let points: Vec<Value> = self.rows().map(|(p, r)| Value::Object(self.fields(p, r, SweptAs::Typed))).collect();
        let doc = json!({
            "scenario": sc.name,
            "description": sc.description,
            "version": env!("CARGO_PKG_VERSION"),
            "model": "usage domain, Graziani, Lusch & Messer (2026), MODELS.md §5",
            "schedule": sc.schedule_file,
            "jobs": sc.schedule.jobs.len(),
            "seed": self.result.seed,
            "replications": self.result.replications,
            "points": points,
        });
        let mut text = serde_json::to_string_pretty(&doc).expect("JSON of plain values");
        text.push('\n');
        text
    }

    /// The CSV: one row per point, the figures' objects flattened to `<figure>_<field>`
    /// columns (`efficiency_model`, `efficiency_mean`, …), warnings joined by " | ".
    pub fn csv(&self) -> String {
        let mut w = csv::Writer::from_writer(vec![]);
        for (i, (p, r)) in self.rows().enumerate() {
            let mut flat: Vec<(String, String)> = vec![];
            for (k, v) in self.fields(p, r, SweptAs::Written) {
                match v {
                    Value::Object(o) => {
                        flat.extend(o.into_iter().map(|(sub, x)| (format!("{k}_{sub}"), csv_cell(&x))));
                    }
                    Value::Array(a) => {
                        let texts: Vec<String> = a.iter().map(csv_cell).collect();
                        flat.push((k, texts.join(" | ")));
                    }
                    other => flat.push((k, csv_cell(&other))),
                }
            }
            if i == 0 {
                w.write_record(flat.iter().map(|(k, _)| k)).expect("writing to memory");
            }
            w.write_record(flat.iter().map(|(_, v)| v)).expect("writing to memory");
        }
        String::from_utf8(w.into_inner().expect("writing to memory")).expect("CSV of UTF-8 cells")
    }

    fn header_lines(&self) -> Vec<String> {
        let sc = self.scenario;
        let first = &sc.points[0];
        let r = &self.result.points[0];
        let ratio = if sc.points.iter().all(|p| p.runtime_ratio == first.runtime_ratio) {
            format!("r = {:.4} ({})", first.runtime_ratio, first.runtime_ratio_source.name())
        } else {
            "r swept".to_string()
        };
        vec![
            format!(
                "schedule {}: {} jobs, {} job types, {ratio}",
                sc.schedule_file,
                thousands(r.jobs),
                thousands(r.job_types as u64)
            ),
            format!(
                "{} replications per point (each plays every job once), seed {}",
                self.result.replications, self.result.seed
            ),
            "model = closed form (MODELS.md §5); simulated = pooled ratio of sums over the replications ± 95% CI \
             (delta method)"
                .to_string(),
        ]
    }

    fn cells(&self, markdown: bool) -> Vec<Vec<String>> {
        let sc = self.scenario;
        let mut head: Vec<String> = vec!["point".into()];
        head.extend(sc.axes.iter().map(|a| if markdown { format!("`{}`", a.key) } else { a.key.clone() }));
        let convention_swept = sc.axes.iter().any(|a| a.key == "schedule.last_segment");
        if !convention_swept {
            head.push("last segment".into());
        }
        for (_, short) in FIGURES {
            head.push(format!("{short} model"));
            head.push(format!("{short} simulated ± 95% CI"));
        }
        head.extend(["z(e)".into(), "failed jobs".into()]);
        let mut rows = vec![head];
        for (p, r) in self.rows() {
            let mut row = vec![p.index.to_string()];
            row.extend(p.labels.iter().cloned());
            if !convention_swept {
                row.push(last_segment_name(p.last).into());
            }
            for k in 0..FIGURES.len() {
                let (model, pooled, _) = figure(r, k);
                row.push(format!("{model:.5}"));
                row.push(format!("{:.5} ± {:.5}", pooled.value, pooled.half_width));
            }
            let (model, pooled, _) = figure(r, 0);
            row.push(crate::report::z_cell(pooled.value, model, pooled.se));
            row.push(format!("{:.1}", r.sim.failed_jobs.mean));
            rows.push(row);
        }
        rows
    }

    /// The terminal table, fit to [`FIT_COLUMNS`](super::FIT_COLUMNS) ([`TableWidth::Fit`]).
    pub fn table(&self) -> String {
        self.table_with(TableWidth::Fit)
    }

    /// The terminal table at `width`: the columns a person needs first, fit to
    /// [`FIT_COLUMNS`](super::FIT_COLUMNS), or every column ([`TableWidth::Wide`]).
    pub fn table_with(&self, width: TableWidth) -> String {
        match width {
            TableWidth::Fit => self.fit_table(),
            TableWidth::Wide => self.wide_table(),
        }
    }

    /// The table of [`TableWidth::Wide`]: every figure's model and simulated value, five
    /// decimals, notes on one line each.
    fn wide_table(&self) -> String {
        let rows = self.cells(false);
        let mut out = self.table_head();
        out.push('\n');
        let left = rows[0].iter().take_while(|h| !h.ends_with("model")).count() - 1; // swept keys, convention
        out.push_str(&crate::report::aligned_table(&rows, &|c| c >= 1 && c <= left));
        let without_z = rows.iter().skip(1).any(|r| r.iter().rev().nth(1).is_some_and(|z| z == "—"));
        out.push_str(&self.table_notes(without_z));
        out
    }

    /// The lines above the table: the scenario's name and description, the schedule, the
    /// replications, what the figures are, the machine where every point shares it.
    fn table_head(&self) -> String {
        let sc = self.scenario;
        let mut out = sc.name.clone();
        if let Some(d) = &sc.description {
            out.push_str(&format!(": {d}"));
        }
        out.push('\n');
        for line in self.header_lines() {
            out.push_str(&format!("  {line}\n"));
        }
        // The machine the figures assume: a schedule CSV runs on Frontier's parameters, which
        // the table did not say (a sweep of a machine key shows it in its column instead).
        let machines: Vec<String> = sc
            .points
            .iter()
            .map(|p| {
                let m = &p.machine;
                format!(
                    "machine: R₀ = {} per node-hour, {} GB per node at {} TB/s, {} storage, τ₀ = {} s, α = {}",
                    four_digits(m.failure_rate_per_node_h),
                    four_digits(m.checkpoint_bytes / 1e9),
                    four_digits(m.bandwidth_bytes_per_s / 1e12),
                    storage_name(m.storage),
                    four_digits(m.setup_s),
                    four_digits(m.read_write_ratio)
                )
            })
            .collect();
        if machines.iter().all(|m| *m == machines[0]) {
            out.push_str(&format!("  {}\n", machines[0]));
        }
        out
    }

    /// The notes under the table, one line each; `without_z` where some point has no z.
    fn table_notes(&self, without_z: bool) -> String {
        let mut out = String::from(
            "\n  e = 1 − ΣL/ΣU; l_chk, l_F, l_R: checkpoint, failure and restart losses over ΣU (node-hours). \
             z(e) = (simulated − model)/SE.\n",
        );
        if without_z {
            out.push_str(
                "  z(e) = —: every replication gave the same e (SE = 0; usually no failure struck), so there is \
                 no z and ± 0 is no real interval.\n",
            );
        }
        if self.result.points.iter().any(|r| !r.warnings.is_empty()) {
            out.push_str("  Some points have warnings (on stderr, and under `warnings` in the JSON).\n");
        }
        out
    }

    /// The table of [`TableWidth::Fit`]: e with its closed form and z always; then the losses
    /// (failures first), the failed jobs, the losses' closed forms as the width allows; a last
    /// segment that every point shares above the table.
    fn fit_table(&self) -> String {
        let sc = self.scenario;
        let convention_swept = sc.axes.iter().any(|a| a.key == "schedule.last_segment");
        let first = last_segment_name(sc.points[0].last);
        let one_convention = sc.points.iter().all(|p| last_segment_name(p.last) == first);
        let mut out = self.table_head();
        if !convention_swept && one_convention {
            out.push_str(&format!("  last segment: {first} (`last_segment` in the CSV and JSON)\n"));
        }
        out.push('\n');
        let mut columns = vec![Column::number("point", 0)];
        columns.extend(sc.axes.iter().map(|a| Column::text(a.key.clone(), 0)));
        if !convention_swept && !one_convention {
            columns.push(Column::text("last segment", 0));
        }
        let keys = columns.len();
        // (figure, rank of its model, rank of its simulated value) after e's.
        let ranks = [(1, 7, 3), (2, 7, 2), (3, 7, 4)];
        columns.extend([Column::number("e model", 0), Column::number("e ± 95% CI", 0), Column::number("z(e)", 0)]);
        for (k, model, sim) in ranks {
            let short = FIGURES[k].1;
            columns.extend([
                Column::number(format!("{short} model"), model),
                Column::number(format!("{short} ± 95% CI"), sim),
            ]);
        }
        columns.push(Column::number("failed jobs", 5));
        let mut without_z = false;
        for (p, r) in self.rows() {
            let mut row = vec![p.index.to_string()];
            row.extend(p.labels.iter().cloned());
            if keys > sc.axes.len() + 1 {
                row.push(last_segment_name(p.last).into());
            }
            let (model, pooled, _) = figure(r, 0);
            let z = crate::report::table::z1(pooled.value, model, pooled.se);
            without_z |= z == "—";
            row.extend([
                to_interval(model, pooled.half_width, 5, 6),
                mean_pm(pooled.value, pooled.half_width, false),
                z,
            ]);
            for (k, _, _) in ranks {
                let (model, pooled, _) = figure(r, k);
                row.extend([
                    to_interval(model, pooled.half_width, 5, 6),
                    mean_pm(pooled.value, pooled.half_width, false),
                ]);
            }
            let failed = &r.sim.failed_jobs;
            row.push(to_interval(failed.mean, failed.half_width, 1, 1));
            for (c, cell) in columns.iter_mut().zip(row) {
                c.cells.push(cell);
            }
        }
        let fitted = fit_columns(columns);
        let mut out = wrap_lines(&out);
        out.push_str(&fitted.text);
        out.push_str(&wrap_lines(&self.table_notes(without_z)));
        out.push_str(&left_out_note(&fitted.left_out));
        out
    }

    /// A Markdown table.
    pub fn markdown(&self) -> String {
        let sc = self.scenario;
        let rows = self.cells(true);
        let mut out = format!(
            "**{}**{}: {}.\n\n",
            sc.name,
            sc.description.as_ref().map(|d| format!(" ({d})")).unwrap_or_default(),
            self.header_lines().join("; ")
        );
        out.push_str(&format!("| {} |\n", rows[0].join(" | ")));
        out.push_str(&format!("|{}|\n", rows[0].iter().map(|_| " ---: ").collect::<Vec<_>>().join("|")));
        for r in &rows[1..] {
            out.push_str(&format!("| {} |\n", r.join(" | ")));
        }
        out
    }

    /// The SVG of e against the first swept numeric key (`policy.factor`,
    /// `machine.failure_rate`, `machine.bandwidth`, …; log scale when every value is > 0), one
    /// curve per combination of the other swept keys, each with its 95% band and, dashed, the
    /// closed form (evaluated on a fine grid between the swept values). `None` when no numeric
    /// key is swept.
    pub fn plot(&self) -> Result<Option<String>> {
        let sc = self.scenario;
        let Some(x_axis) = sc.axes.iter().position(|a| numeric_key(&a.key).is_some()) else {
            return Ok(None);
        };
        let key = sc.axes[x_axis].key.as_str();
        let (desc, unit) = numeric_key(key).expect("checked above");
        // (label, points, a point of the curve to vary for the closed form)
        let mut curves: Vec<(plot::Curve, &EfficiencyPoint)> = vec![];
        for (p, r) in self.rows() {
            let label: Vec<String> = (0..sc.axes.len())
                .filter(|&a| a != x_axis)
                .map(|a| format!("{} {}", super::key_words(&sc.axes[a].key), p.labels[a]))
                .collect();
            let label = if label.is_empty() { "simulated".to_string() } else { label.join(", ") };
            let idx = match curves.iter().position(|(c, _)| c.label == label) {
                Some(idx) => idx,
                None => {
                    curves.push((plot::Curve { label, points: vec![], model: vec![] }, p));
                    curves.len() - 1
                }
            };
            let e = r.sim.pooled.e;
            let x = x_value(key, p);
            curves[idx].0.points.push((x, e.value, e.ci_low(), e.ci_high()));
            curves[idx].0.model.push((x, r.model.e));
        }
        let log = curves.iter().all(|(c, _)| c.points.iter().all(|p| p.0 > 0.0));
        for (c, p) in &mut curves {
            c.points.sort_by(|a, b| a.0.total_cmp(&b.0));
            let (lo, hi) = (c.points[0].0, c.points[c.points.len() - 1].0);
            if key != "schedule.runtime_ratio" && hi > lo {
                let types = sc.schedule.job_types(p.runtime_ratio);
                c.model = (0..=MODEL_GRID)
                    .map(|i| {
                        let t = i as f64 / MODEL_GRID as f64;
                        let x = if log { lo * (hi / lo).powf(t) } else { lo + (hi - lo) * t };
                        let q = with_x(key, p, x);
                        (x, crate::usage::efficiency(&q.machine, &types, q.cadence, q.factor, q.last).e)
                    })
                    .collect();
            }
            c.model.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        let curves: Vec<plot::Curve> = curves.into_iter().map(|(c, _)| c).collect();
        let map = move |x: f64| if log { (x / unit).log10() } else { x / unit };
        let label = move |v: f64| plot::tick_label(if log { 10f64.powf(v) } else { v });
        let desc = if log { format!("{desc}, log scale") } else { desc.to_string() };
        let axis = plot::Axis { desc: &desc, map: &map, label: &label, log, unit: None };
        let study = sc.description.as_ref().map_or(sc.name.clone(), |d| format!("{}: {d}", sc.name));
        let title = format!("{study}\nmachine efficiency against {}", super::key_words(key));
        let legend = plot::emptiest_corner(&curves, &map);
        let y = "machine efficiency e = 1 − ΣL/ΣU (fraction of the node-hours)";
        let svg = plot::curves_svg(&title, &axis, y, false, legend, &curves, &plot::Marks::default())
            .map_err(Error::Usage)?;
        Ok(Some(svg))
    }
}

/// Intervals of the grid the plot evaluates the closed form on.
const MODEL_GRID: usize = 48;

/// A swept key that can be the x axis of the plot: its axis title and the size of its unit
/// in data units (bytes, bytes/s, s).
fn numeric_key(key: &str) -> Option<(&'static str, f64)> {
    Some(match key {
        "policy.factor" => ("cadence factor (× u_c)", 1.0),
        "machine.failure_rate" => ("R₀, failures per node-hour", 1.0),
        "machine.bandwidth" => ("checkpoint bandwidth (TB/s)", 1e12),
        "machine.checkpoint_bytes" => ("checkpoint per node (GB)", 1e9),
        "machine.setup" => ("restart setup τ₀ (s)", 1.0),
        "machine.read_write_ratio" => ("α = B_w/B_r", 1.0),
        "schedule.runtime_ratio" => ("runtime ratio r", 1.0),
        _ => return None,
    })
}

/// The point's value of the numeric key `key`, in data units.
fn x_value(key: &str, p: &EfficiencyPoint) -> f64 {
    match key {
        "policy.factor" => p.factor,
        "machine.failure_rate" => p.machine.failure_rate_per_node_h,
        "machine.bandwidth" => p.machine.bandwidth_bytes_per_s,
        "machine.checkpoint_bytes" => p.machine.checkpoint_bytes,
        "machine.setup" => p.machine.setup_s,
        "machine.read_write_ratio" => p.machine.read_write_ratio,
        _ => p.runtime_ratio,
    }
}

/// `p` with the numeric key `key` set to `x` (data units); the runtime ratio is not varied.
fn with_x(key: &str, p: &EfficiencyPoint, x: f64) -> EfficiencyPoint {
    let mut q = p.clone();
    match key {
        "policy.factor" => q.factor = x,
        "machine.failure_rate" => q.machine.failure_rate_per_node_h = x,
        "machine.bandwidth" => q.machine.bandwidth_bytes_per_s = x,
        "machine.checkpoint_bytes" => q.machine.checkpoint_bytes = x,
        "machine.setup" => q.machine.setup_s = x,
        "machine.read_write_ratio" => q.machine.read_write_ratio = x,
        _ => {}
    }
    q
}

/// 331640 → "331,640".
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `x` to at most four significant digits, trailing zeros dropped ("200", "1100", "0.0625"),
/// in scientific notation below 10⁻³ or from 10⁶ on ("2e-5").
fn four_digits(x: f64) -> String {
    plot::significant(x, 4)
}
