//! Terminal tables a person can read: at most [`FIT_COLUMNS`] characters a line by default
//! ([`TableWidth::Fit`]), the columns a person needs first, numbers to the digits their 95%
//! interval supports, columns empty in every row left out, notes wrapped; every column as
//! before with [`TableWidth::Wide`].

use super::{OPTIMUM_CHUNKS_NOTE, POISSON_COLUMN, Report, VERDICT_LEGEND, aligned_table, column_unit};
use super::{duration_column, duration_unit, judged_note, level2_summary, summary_formulas, three_decimals};
use crate::optimize::{Case, FormulaRegret, Optimum};
use crate::scenario::{Point, Scenario};
use crate::stats::Summary;

/// How wide a command's terminal table may be (`--wide`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TableWidth {
    /// Every line at most [`FIT_COLUMNS`] characters: the columns a person needs first (the
    /// others are named under the table), numbers to the digits their 95% interval supports,
    /// columns empty in every row left out, notes wrapped. The default.
    #[default]
    Fit,
    /// Every column, numbers to five decimals, each note on one line: the layout of ckptsim
    /// 0.1.0, for a wide terminal or a log.
    Wide,
}

/// The most characters (not bytes: the tables draw `─` and `±`) a line of a
/// [`TableWidth::Fit`] table has.
pub const FIT_COLUMNS: usize = 100;

/// The most decimals a number of a fit table shows, however narrow its interval.
const MAX_DECIMALS: i32 = 6;

/// One column of a table to fit ([`fit_columns`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Column {
    /// The header, also the name the note on left-out columns gives.
    pub header: String,
    /// One cell per row.
    pub cells: Vec<String>,
    /// Whether the cells are text, left-aligned (numbers are right-aligned).
    pub left: bool,
    /// 0: always shown; otherwise the larger, the sooner the column is left out where the
    /// table is too wide (at equal ranks, the rightmost first).
    pub drop_rank: u8,
}

impl Column {
    /// A right-aligned column of numbers, with no cells yet.
    pub fn number(header: impl Into<String>, drop_rank: u8) -> Self {
        Column { header: header.into(), cells: vec![], left: false, drop_rank }
    }

    /// A left-aligned column of text, with no cells yet.
    pub fn text(header: impl Into<String>, drop_rank: u8) -> Self {
        Column { header: header.into(), cells: vec![], left: true, drop_rank }
    }

    fn width(&self) -> usize {
        self.cells.iter().chain(std::iter::once(&self.header)).map(|c| c.chars().count()).max().unwrap_or(0)
    }
}

/// A table fit to [`FIT_COLUMNS`]: its text ([`aligned_table`]) and the headers of the columns
/// left out for width (not those left out as empty).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fitted {
    /// The table, each line ending in a newline.
    pub text: String,
    /// The headers of the columns left out to fit, in the table's order.
    pub left_out: Vec<String>,
}

/// `columns` as a table of at most [`FIT_COLUMNS`] characters a line where the columns of
/// rank 0 allow: the columns empty in every row left out; then the columns of the highest
/// [`Column::drop_rank`] (at equal ranks the rightmost) until the rest fit; then each column
/// left out that fits back in, the lowest rank first.
pub(crate) fn fit_columns(columns: Vec<Column>) -> Fitted {
    let rows = columns.iter().map(|c| c.cells.len()).max().unwrap_or(0);
    let columns: Vec<Column> =
        columns.into_iter().filter(|c| rows == 0 || c.cells.iter().any(|x| !x.trim().is_empty())).collect();
    let widths: Vec<usize> = columns.iter().map(Column::width).collect();
    let mut shown = vec![true; columns.len()];
    let width = |shown: &[bool]| {
        let (sum, n) = widths.iter().zip(shown).filter(|(_, s)| **s).fold((0, 0), |(w, n), (c, _)| (w + c, n + 1));
        2 + sum + 2 * (n as usize).saturating_sub(1)
    };
    while width(&shown) > FIT_COLUMNS {
        let worst = (0..columns.len())
            .filter(|&c| shown[c] && columns[c].drop_rank > 0)
            .max_by_key(|&c| (columns[c].drop_rank, c));
        match worst {
            Some(c) => shown[c] = false,
            None => break,
        }
    }
    let mut dropped: Vec<usize> = (0..columns.len()).filter(|&c| !shown[c]).collect();
    dropped.sort_by_key(|&c| (columns[c].drop_rank, c));
    for c in dropped {
        shown[c] = true;
        if width(&shown) > FIT_COLUMNS {
            shown[c] = false;
        }
    }
    let kept: Vec<&Column> = columns.iter().zip(&shown).filter(|(_, s)| **s).map(|(c, _)| c).collect();
    let mut table: Vec<Vec<String>> = vec![kept.iter().map(|c| c.header.clone()).collect()];
    table.extend((0..rows).map(|r| kept.iter().map(|c| c.cells.get(r).cloned().unwrap_or_default()).collect()));
    let text = aligned_table(&table, &|c| kept[c].left);
    let left_out = columns.iter().zip(&shown).filter(|(_, s)| !**s).map(|(c, _)| c.header.clone()).collect();
    Fitted { text, left_out }
}

/// The note under a fit table on the columns it left out for width (`headers`), wrapped; empty
/// where none was.
pub(crate) fn left_out_note(headers: &[String]) -> String {
    if headers.is_empty() {
        return String::new();
    }
    wrap_lines(&format!(
        "  left out to fit {FIT_COLUMNS} columns: {} (--wide shows every column; the CSV and JSON have them).\n",
        headers.join(", ")
    ))
}

/// `text` with each line longer than [`FIT_COLUMNS`] characters broken at spaces ([`wrap`]),
/// the continuation lines indented by two more spaces than the line's own indent; shorter
/// lines stay as they are (their runs of spaces too). A word longer than a line (a path)
/// stays whole. Empty lines stay; the text's last newline stays.
pub fn wrap_lines(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.split('\n').peekable();
    while let Some(line) = lines.next() {
        let body = line.trim_start_matches(' ');
        let indent = &line[..line.len() - body.len()];
        if line.chars().count() <= FIT_COLUMNS {
            // As it is: a short line keeps its inner alignment (`best interval  10.7 min`).
            out.push_str(line);
        } else {
            out.push_str(&wrap(body, indent, &format!("{indent}  ")));
        }
        if lines.peek().is_some() {
            out.push('\n');
        }
    }
    out
}

/// `text` (one line) broken at spaces into lines of at most [`FIT_COLUMNS`] characters, the
/// first indented by `first`, the others by `rest`; no newline at the end.
pub fn wrap(text: &str, first: &str, rest: &str) -> String {
    let mut out = String::from(first);
    let mut line = first.chars().count();
    let mut empty = true;
    for word in unbreakable(text) {
        let word = word.as_str();
        let n = word.chars().count();
        if !empty && line + 1 + n > FIT_COLUMNS {
            out.push('\n');
            out.push_str(rest);
            line = rest.chars().count();
            empty = true;
        }
        if !empty {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += n;
        empty = false;
    }
    if empty && text.is_empty() { String::new() } else { out }
}

/// The characters of an operator that a line must not break beside (`|z| > 4`, `a = b`).
const OPERATORS: &str = "=<>≤≥±−-+/·×→≈";

/// The units a line must not break before, after a number (`10.000 min`).
const UNITS: [&str; 9] = ["ms", "s", "min", "h", "d", "y", "%", "GB", "TB/s"];

/// The words of `text` (split at spaces), an operator glued to the words either side of it
/// and a unit to its number, with their spaces, so that `|z| > 4` and `10.000 min` are one word
/// to [`wrap`].
fn unbreakable(text: &str) -> Vec<String> {
    let mut words: Vec<String> = vec![];
    let mut glue = false;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let operator = word.chars().count() <= 2 && word.chars().all(|c| OPERATORS.contains(c));
        let unit = UNITS.contains(&word.trim_end_matches([',', ';', '.', ')']));
        match words.last_mut() {
            Some(last) if glue || operator || (unit && last.ends_with(|c: char| c.is_ascii_digit())) => {
                last.push(' ');
                last.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
        glue = operator;
    }
    words
}

/// The decimals that show a 95% interval's `half_width` to two significant digits (0.00449 →
/// 4: 0.0045; 0.13 → 2; 2.3 → 1; 23 → 0), at most [`MAX_DECIMALS`]; `None` where it is 0 or not
/// finite (no interval to go by).
pub(crate) fn ci_decimals(half_width: f64) -> Option<usize> {
    if !(half_width.is_finite() && half_width > 0.0) {
        return None;
    }
    let mut d = (1 - half_width.log10().floor() as i32).max(0);
    // 0.00996 to four decimals reads 0.0100, three digits: one decimal fewer.
    let rounded: f64 = format!("{:.*}", d as usize, half_width).parse().expect("a number");
    if d > 0 && rounded >= 10f64.powi(2 - d) {
        d -= 1;
    }
    Some(d.min(MAX_DECIMALS) as usize)
}

/// `x` to the decimals of an interval of `half_width` around it ([`ci_decimals`]), at most
/// `max` of them; to `fallback` decimals where there is no interval. Magnitudes from 10⁹ in
/// scientific notation, as the wide tables write them.
pub(crate) fn to_interval(x: f64, half_width: f64, fallback: usize, max: usize) -> String {
    if x.is_finite() && x.abs() >= 1e9 {
        return three_decimals(x);
    }
    let d = ci_decimals(half_width).unwrap_or(fallback).min(max);
    format!("{x:.d$}")
}

/// `mean ± half_width` to the half-width's two significant digits (`0.1893 ± 0.0045`), with
/// a sign where `signed`; five decimals where there is no interval (`0.05000 ± 0.00000`).
pub(crate) fn mean_pm(mean: f64, half_width: f64, signed: bool) -> String {
    let d = ci_decimals(half_width).unwrap_or(5);
    if signed { format!("{mean:+.d$} ± {half_width:.d$}") } else { format!("{mean:.d$} ± {half_width:.d$}") }
}

/// The half-width of a distribution-free 95% interval of the `p`-quantile of `s`'s wall times
/// (s): the quantiles at the ranks n·p ± 1.96·√(n·p·(1 − p)), half their distance.
fn wall_quantile_half_width_s(s: &Summary, p: f64) -> f64 {
    let n = s.replications() as f64;
    let spread = 1.96 * (p * (1.0 - p) / n).sqrt();
    let (lo, hi) = ((p - spread).max(0.0), (p + spread).min(1.0));
    (s.wall_quantile_s(hi) - s.wall_quantile_s(lo)) / 2.0
}

/// The columns of the wall-time median and 95th percentile, in one unit as in the wide table,
/// each to the digits of its distribution-free 95% interval (at most three decimals).
fn wall_fit_columns(pairs: &[(&Point, &Summary)]) -> [Column; 2] {
    let quantiles = |p: f64| pairs.iter().map(|(_, s)| s.wall_quantile_s(p)).collect::<Vec<f64>>();
    let (p50, p95) = (quantiles(0.5), quantiles(0.95));
    let (unit, scale) = column_unit(&[&p50, &p95]);
    let column = |p: f64, values: &[f64], rank: u8| {
        let mut c = Column::number(format!("wall p{} ({unit})", (p * 100.0).round()), rank);
        c.cells = values
            .iter()
            .zip(pairs)
            .map(|(v, (_, s))| to_interval(v / scale, wall_quantile_half_width_s(s, p) / scale, 3, 3))
            .collect();
        c
    };
    [column(0.5, &p50, 6), column(0.95, &p95, 5)]
}

impl Report<'_> {
    /// The table of [`TableWidth::Fit`].
    pub(super) fn fit_table(&self) -> String {
        let intervals_s: Vec<f64> = self.scenario.points.iter().map(|p| p.interval_s).collect();
        let (interval_unit, intervals) = duration_column(&intervals_s);
        let fitted = fit_columns(self.fit_columns(&intervals, &interval_unit));
        let mut out = wrap_lines(&self.table_head());
        out.push_str(&fitted.text);
        out.push_str(&wrap_lines(&self.table_notes()));
        out.push_str(&left_out_note(&fitted.left_out));
        if let Some(columns) = self.fit_cause_columns(&intervals, &interval_unit) {
            let causes = fit_columns(columns);
            out.push_str("\n  overhead by cause\n");
            out.push_str(&causes.text);
            out.push('\n');
            out.push_str(&wrap_lines(&self.causes_footer()));
            out.push_str(&left_out_note(&causes.left_out));
        }
        out
    }

    /// The columns of the fit run table, in order, each with its rank ([`Column::drop_rank`]):
    /// the point, the swept keys, the interval and the overhead always; then n, the baseline's Δ,
    /// the closed form and z, the Poisson reference, the failures, the wall-time quantiles.
    fn fit_columns(&self, intervals: &[String], interval_unit: &str) -> Vec<Column> {
        let sc = self.scenario;
        let mut point = Column::number("point", 0);
        let mut keys: Vec<Column> = sc.axes.iter().map(|a| Column::text(a.key.clone(), 0)).collect();
        let mut interval = Column::number(format!("interval ({interval_unit})"), 0);
        let mut every = Column::number("n", 1);
        let mut overhead = Column::number("overhead ± 95% CI", 0);
        let (mut model, mut z) = (Column::number("model", 2), Column::number("z", 2));
        let mut poisson = Column::number(POISSON_COLUMN, 3);
        let baseline = sc.run.baseline.point();
        let mut delta = Column::number(format!("Δ vs {} ± 95% CI", baseline.unwrap_or(0)), 1);
        let mut failures = Column::number("failures", 4);
        let pairs: Vec<(&Point, &Summary)> = sc.points.iter().zip(&self.result.summaries).collect();
        for (i, (p, s)) in pairs.iter().enumerate() {
            let o = s.overhead.estimate();
            point.cells.push(p.index.to_string());
            for (k, label) in keys.iter_mut().zip(&p.labels) {
                k.cells.push(label.clone());
            }
            interval.cells.push(intervals[i].clone());
            every.cells.push(if self.shows_every() { self.every_cell(i) } else { String::new() });
            overhead.cells.push(mean_pm(o.mean, o.half_width, false));
            let (m, zc) = match self.models[i] {
                Some((_, v)) => (to_interval(v, o.half_width, 5, 6), z1(o.mean, v, o.se)),
                None => (String::new(), String::new()),
            };
            model.cells.push(m);
            z.cells.push(zc);
            let reference = self.poisson[i];
            let shown = self.shows_poisson() && reference.is_finite();
            poisson.cells.push(if shown { to_interval(reference, o.half_width, 5, 6) } else { String::new() });
            let d = s.overhead_diff.estimate();
            delta.cells.push(match baseline {
                None => String::new(),
                Some(b) if b == i => "baseline".into(),
                Some(_) => mean_pm(d.mean, d.half_width, true),
            });
            let f = s.failures.estimate();
            failures.cells.push(to_interval(f.mean, f.half_width, 2, 2));
        }
        let mut columns = vec![point];
        columns.extend(keys);
        columns.extend([interval, every, overhead, model, z, poisson, delta, failures]);
        columns.extend(wall_fit_columns(&pairs));
        columns
    }

    /// The columns of the fit overhead-by-cause table: the point always, then each cause's
    /// share ± 95% CI (failures per replication) always, the writes' share, the swept keys, the
    /// interval. `None` when the run does not split its overhead.
    fn fit_cause_columns(&self, intervals: &[String], interval_unit: &str) -> Option<Vec<Column>> {
        if self.causes.is_empty() {
            return None;
        }
        let sc = self.scenario;
        let mut point = Column::number("point", 0);
        let mut keys: Vec<Column> = sc.axes.iter().map(|a| Column::text(a.key.clone(), 3)).collect();
        let mut interval = Column::number(format!("interval ({interval_unit})"), 4);
        let mut writes = Column::number(super::WRITES, 2);
        let mut causes: Vec<Column> = self.causes.iter().map(|c| Column::number(c.name(), 0)).collect();
        for (i, p, s) in self.rows() {
            point.cells.push(p.index.to_string());
            for (k, label) in keys.iter_mut().zip(&p.labels) {
                k.cells.push(label.clone());
            }
            interval.cells.push(intervals[i].clone());
            let share = super::simulated_writes_share(p, s);
            writes.cells.push(to_interval(share, s.overhead.estimate().half_width, 5, 6));
            let n = s.replications() as f64;
            for (column, c) in causes.iter_mut().zip(&s.causes) {
                let o = c.overhead.estimate();
                // The count's digits from its Poisson interval, 1.96·√k / n.
                let per = s.per_replication(c.failures);
                let count = to_interval(per, 1.96 * (c.failures as f64).sqrt() / n, 2, 2);
                column.cells.push(format!("{} ({count})", mean_pm(o.mean, o.half_width, false)));
            }
        }
        let mut columns = vec![point];
        columns.extend(keys);
        columns.extend([interval, writes]);
        columns.extend(causes);
        Some(columns)
    }
}

/// `x` with its sign to `decimals` decimals; one that is not zero but rounds to zero keeps its
/// sign and leading digits (`-9.8e-7`), as [`super::signed5`] does at five.
fn signed(x: f64, decimals: usize) -> String {
    let fixed = format!("{x:+.decimals$}");
    if x != 0.0 && fixed.trim_start_matches(['+', '-']).chars().all(|c| c == '0' || c == '.') {
        format!("{x:+.1e}")
    } else {
        fixed
    }
}

/// A formula's regret with its 95% interval, `-0.00035 [-0.00124, +0.00053]`, to the digits of
/// the interval's half-width.
fn regret_cell(r: &FormulaRegret) -> String {
    let d = ci_decimals((r.regret_ci_high - r.regret_ci_low) / 2.0).unwrap_or(5);
    format!("{} [{}, {}]", signed(r.regret, d), signed(r.regret_ci_low, d), signed(r.regret_ci_high, d))
}

/// The best interval, its range and their unit to the digits of the range's half-width:
/// (`10.72`, `10.29`, `11.46`, `min`).
fn best_interval_cells(o: &Optimum) -> (String, String, String, &'static str) {
    let (unit, scale) = duration_unit(o.best_interval_s);
    let half_width = (o.interval_ci_high_s - o.interval_ci_low_s) / 2.0 / scale;
    let at = |s: f64| to_interval(s / scale, half_width, 3, 3);
    (at(o.best_interval_s), at(o.interval_ci_low_s), at(o.interval_ci_high_s), unit)
}

/// The table of [`super::optimum_table_with`] at [`TableWidth::Fit`].
pub(crate) fn fit_optimum_table(heading: &str, point: &Point, seed: u64, o: &Optimum) -> String {
    let (best, low, high, unit) = best_interval_cells(o);
    let chunks = match o.chunks {
        Some((k, l)) if k == l => format!(" (W/{k})"),
        Some((k, l)) => format!(" (W/{k} to W/{l})"),
        None => String::new(),
    };
    let mut head = format!("{heading}: {}\n", point.failures.describe());
    if let Some(line) = level2_summary(std::iter::once(point)) {
        head.push_str(&format!("  {line}\n"));
    }
    head.push_str(&format!(
        "  {} replications per candidate (common random numbers), seed {seed}\n\n  best interval  {best} {unit}   \
         (not significantly worse: {low} {unit} to {high} {unit}{chunks})\n  overhead       {}\n\n",
        o.replications,
        mean_pm(o.best_overhead_mean, o.best_overhead_half_width, false)
    ));
    let (_, scale) = duration_unit(o.best_interval_s);
    let mut columns = vec![
        Column::text("formula", 0),
        Column::number("interval", 0),
        Column::number("overhead", 2),
        Column::number("regret (95% CI)", 0),
        Column::number("verdict", 0),
        Column::number("var. red.", 3),
    ];
    for r in &o.formulas {
        let cells = [
            r.name.to_string(),
            format!("{:.3} {unit}", r.interval_s / scale),
            to_interval(r.overhead_mean, o.best_overhead_half_width, 5, 6),
            regret_cell(r),
            r.verdict().word().to_string(),
            format!("{:.0}×", r.variance_reduction),
        ];
        for (c, cell) in columns.iter_mut().zip(cells) {
            c.cells.push(cell);
        }
    }
    let fitted = fit_columns(columns);
    let mut notes = format!(
        "\n  regret = overhead at the formula's interval − at the best, paired over the same failure streams;\n  \
         {} {}\n  var. red. = variance of that difference with independent streams ÷ with common random numbers;\n  \
         {}.\n",
        VERDICT_LEGEND[0],
        VERDICT_LEGEND[1],
        judged_note(o)
    );
    if o.chunks.is_some() {
        notes.push_str(&format!("  {}\n", OPTIMUM_CHUNKS_NOTE.join(" ")));
    }
    let mut out = wrap_lines(&head);
    out.push_str(&fitted.text);
    out.push_str(&wrap_lines(&notes));
    out.push_str(&left_out_note(&fitted.left_out));
    out
}

/// The table of [`super::optimum_cases_table_with`] at [`TableWidth::Fit`]: the best interval
/// and its range in one column, each formula's regret under its name.
pub(crate) fn fit_optimum_cases_table(scenario: &Scenario, seed: u64, results: &[(Case<'_>, Optimum)]) -> String {
    let replications = results.first().map_or(0, |(_, o)| o.replications);
    let head = format!(
        "{}: {} searches, {replications} replications per candidate (common random numbers), seed {seed}\n\n",
        scenario.name,
        results.len()
    );
    let second = summary_formulas(results).name();
    let mut columns = vec![Column::number("case", 0)];
    if let Some((case, _)) = results.first() {
        columns.extend(case.labels.iter().map(|(k, _)| Column::text(k.clone(), 0)));
    }
    columns.extend([
        Column::number("best interval (range)", 0),
        Column::number("overhead", 0),
        Column::number("young", 0),
        Column::number(second, 0),
    ]);
    for (case, o) in results {
        let (best, low, high, unit) = best_interval_cells(o);
        let regret = |name: &str| {
            o.formulas.iter().find(|r| r.name == name).map_or("—".to_string(), |r| {
                let d = ci_decimals((r.regret_ci_high - r.regret_ci_low) / 2.0).unwrap_or(5);
                format!("{} {}", signed(r.regret, d), r.verdict().word())
            })
        };
        let mut row = vec![case.index.to_string()];
        row.extend(case.labels.iter().map(|(_, v)| v.clone()));
        row.extend([
            format!("{best} ({low}–{high}) {unit}"),
            mean_pm(o.best_overhead_mean, o.best_overhead_half_width, false),
            regret("young"),
            regret(second),
        ]);
        for (c, cell) in columns.iter_mut().zip(row) {
            c.cells.push(cell);
        }
    }
    let fitted = fit_columns(columns);
    let notes = format!(
        "\n  young, {second}: the formula's regret = overhead at its interval − at the best, paired over the same \
         failure streams; worse where its 95% CI lies above 0, tie where it holds 0, better where below 0. range = \
         the intervals not significantly worse than the best. Each case's curve and every formula's regret with its \
         95% interval are in the files written.\n"
    );
    let mut out = wrap_lines(&head);
    out.push_str(&fitted.text);
    out.push_str(&wrap_lines(&notes));
    out.push_str(&left_out_note(&fitted.left_out));
    out
}

/// The z-score (simulated − model)/SE to one decimal (its own spread is about ±1), or `—`
/// where it is not finite.
pub(crate) fn z1(mean: f64, model: f64, se: f64) -> String {
    let z = (mean - model) / se;
    if z.is_finite() { format!("{z:+.1}") } else { "—".into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two significant digits of the half-width decide the decimals; a rounding that gains a
    /// digit loses a decimal.
    #[test]
    fn decimals_follow_the_half_widths_two_digits() {
        assert_eq!(ci_decimals(0.00449), Some(4));
        assert_eq!(ci_decimals(0.13495), Some(2));
        assert_eq!(ci_decimals(2.3), Some(1));
        assert_eq!(ci_decimals(23.0), Some(0));
        assert_eq!(ci_decimals(230.0), Some(0));
        assert_eq!(ci_decimals(0.00996), Some(3));
        assert_eq!(ci_decimals(0.0995), Some(2));
        assert_eq!(ci_decimals(1e-12), Some(6));
        assert_eq!(ci_decimals(0.0), None);
        assert_eq!(ci_decimals(f64::NAN), None);
        assert_eq!(mean_pm(0.18927, 0.00449, false), "0.1893 ± 0.0045");
        assert_eq!(mean_pm(1.39584, 0.13495, false), "1.40 ± 0.13");
        assert_eq!(mean_pm(-0.0123, 0.00996, true), "-0.012 ± 0.010");
        assert_eq!(mean_pm(0.05, 0.0, false), "0.05000 ± 0.00000");
    }

    /// Lines break at spaces within the width, continuation lines two spaces deeper; short
    /// lines, empty lines and the last newline stay.
    #[test]
    fn notes_wrap_within_the_width() {
        let long = format!("  {}\n\n  short\n", ["word"; 40].join(" "));
        let wrapped = wrap_lines(&long);
        assert!(wrapped.lines().all(|l| l.chars().count() <= FIT_COLUMNS), "{wrapped}");
        assert!(wrapped.ends_with("\n\n  short\n"), "{wrapped}");
        assert!(wrapped.lines().nth(1).unwrap().starts_with("    word"), "{wrapped}");
        assert_eq!(wrapped.split_whitespace().count(), 41);
        assert_eq!(wrap_lines("a\n"), "a\n");
    }

    /// Empty columns go; then the columns of the highest rank, the rightmost first, until the
    /// table fits; then a column left out that fits back in returns: d (rank 2) went first,
    /// then c, and d fits back where c does not.
    #[test]
    fn columns_are_left_out_by_rank_until_the_table_fits() {
        let col = |h: &str, cell: &str, rank| Column {
            header: h.into(),
            cells: vec![cell.into()],
            left: false,
            drop_rank: rank,
        };
        let columns = vec![
            col("a", &"x".repeat(40), 0),
            col("empty", "", 0),
            col("b", &"y".repeat(30), 1),
            col("c", &"z".repeat(25), 2),
            col("d", &"w".repeat(20), 2),
        ];
        let fitted = fit_columns(columns);
        assert_eq!(fitted.left_out, ["c"]);
        assert!(fitted.text.contains(&"w".repeat(20)));
        assert!(fitted.text.lines().all(|l| l.chars().count() <= FIT_COLUMNS), "{}", fitted.text);
        assert!(!fitted.text.contains("empty"));
    }
}
