//! The figures of a run (`--plot`): overhead against the checkpoint interval, or against
//! whatever key was swept where the interval is not; the overhead by cause; the wall-time
//! distribution. Each title names the study (the scenario's name and description) on its
//! first line and what the figure shows, in words, on its second.

use super::{MAX_CAUSE_BARS, OVERHEAD_MODEL_GRID, Report, WALL_BINS, WRITES};
use super::{duration_unit, human_duration, label_value, model_overhead, parts_add_up, plot};
use crate::analytic;
use crate::error::{Error, Result};
use crate::scenario::{Point, Scenario, SweepAxis};

/// The first line of a figure's title: the study, `name: description` (the name alone
/// without a description).
pub fn study_title(scenario: &Scenario) -> String {
    match &scenario.description {
        Some(d) => format!("{}: {d}", scenario.name),
        None => scenario.name.clone(),
    }
}

/// A swept key in words, for titles and legends: `job.checkpoint` → `checkpoint`,
/// `policy.factor` → `factor`, `job.level2.every` → `level-2 every`, `failures.mtbf` →
/// `MTBF`; otherwise the key's last part, `_` read as a space (`job.placement` → `placement`,
/// `schedule.last_segment` → `last segment`).
pub fn key_words(key: &str) -> String {
    match key {
        "job.level2.every" => "level-2 every".into(),
        "job.level2.checkpoint" => "level-2 checkpoint".into(),
        "job.level2.restart" => "level-2 restart".into(),
        "failures.mtbf" => "MTBF".into(),
        "failures.node_mtbf" => "node MTBF".into(),
        _ => key.rsplit('.').next().unwrap_or(key).replace('_', " "),
    }
}

/// A point's swept values in words: `checkpoint 2 min, factor 1`, each key as [`key_words`]
/// says it, in the order of `axes`; `None` without a sweep.
pub fn point_words(axes: &[SweepAxis], labels: &[String]) -> Option<String> {
    let words: Vec<String> = axes.iter().zip(labels).map(|(a, l)| format!("{} {l}", key_words(&a.key))).collect();
    (!words.is_empty()).then(|| words.join(", "))
}

/// What a swept number counts, for an axis title, where its key says it.
pub(super) fn number_unit(key: &str) -> Option<&'static str> {
    Some(match key {
        "policy.factor" => "× the rule's interval",
        "job.level2.every" => "checkpoints per level-2 one",
        "job.nodes" => "nodes",
        "failures.burst.branching" => "children per failure",
        _ => return None,
    })
}

/// The x axis of an overhead plot against a swept key: each point's coordinate, the axis
/// title with its unit, whether it is log10 of the values, the tick labels' unit (on a
/// linear axis) and the names of a key of words (placements) at 0, 1, 2, ...
struct KeyAxis {
    /// The plotted coordinate of each value of the key, in the axis' order of values.
    xs: Vec<f64>,
    /// The axis title, with its unit.
    desc: String,
    /// Whether the coordinate is log10 of the values the labels show.
    log: bool,
    /// The names of the values of a key of words, at coordinates 0, 1, 2, ...; empty for a
    /// key of numbers.
    names: Vec<String>,
}

impl KeyAxis {
    /// The axis of `axis`'s values: durations in the unit of their median, on a log scale
    /// where every value is > 0 and they span more than a factor of 10; plain numbers alike;
    /// words at 0, 1, 2, ... in the order written.
    fn of(axis: &SweepAxis) -> Self {
        let numbers: Option<Vec<f64>> = axis.values.iter().map(|v| label_value(v)).collect();
        let Some(values) = numbers else {
            let xs = (0..axis.values.len()).map(|i| i as f64).collect();
            return KeyAxis { xs, desc: axis.key.clone(), log: false, names: axis.values.clone() };
        };
        let durations = axis.values.iter().all(|v| crate::scenario::parse_duration_s(v).is_ok());
        let (unit, scale) = if durations {
            let mut sorted = values.clone();
            sorted.sort_by(f64::total_cmp);
            let (unit, scale) = duration_unit(sorted[sorted.len() / 2]);
            (Some(unit), scale)
        } else {
            (number_unit(&axis.key), 1.0)
        };
        let (lo, hi) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(*v), b.max(*v)));
        let log = lo > 0.0 && hi / lo > 10.0;
        let xs = values.iter().map(|v| if log { (v / scale).log10() } else { v / scale }).collect();
        let mut notes: Vec<&str> = unit.into_iter().collect();
        if log {
            notes.push("log scale");
        }
        let desc = if notes.is_empty() { axis.key.clone() } else { format!("{} ({})", axis.key, notes.join(", ")) };
        KeyAxis { xs, desc, log, names: vec![] }
    }

    /// The tick label of coordinate `v`: the value (10^v on a log axis), or the name at `v`.
    fn label(&self, v: f64) -> String {
        if !self.names.is_empty() {
            let i = v.round();
            let near = (v - i).abs() < 1e-6 && i >= 0.0;
            return if near { self.names.get(i as usize).cloned().unwrap_or_default() } else { String::new() };
        }
        if self.log { plot::tick_label(10f64.powf(v)) } else { plot::number_label(v) }
    }
}

impl Report<'_> {
    /// The SVG plots of the run, with their file suffixes: `overhead` against the interval
    /// (one curve per combination of the other swept keys) where the sweep varies the interval
    /// and some point has a finite one, else against the first swept key (a number's, else
    /// the first) where there is one; `causes` where the run splits its overhead (at most
    /// [`MAX_CAUSE_BARS`] points); `wall` (the wall-time distribution of the point with the
    /// lowest mean overhead).
    pub fn plots(&self) -> Result<Vec<(&'static str, String)>> {
        let mut out = vec![];
        let interval_axes: Vec<usize> = (0..self.scenario.axes.len()).filter(|&a| self.sweeps_interval(a)).collect();
        let overhead = if interval_axes.is_empty() { self.key_svg()? } else { self.interval_svg(&interval_axes)? };
        if let Some(svg) = overhead {
            out.push(("overhead", svg));
        }
        if self.has_causes() && self.scenario.points.len() <= MAX_CAUSE_BARS {
            out.push(("causes", self.causes_svg()?));
        }
        let best = self.rows().min_by(|a, b| a.2.overhead.estimate().mean.total_cmp(&b.2.overhead.estimate().mean));
        if let Some((_, p, s)) = best {
            let at = match point_words(&self.scenario.axes, &p.labels) {
                Some(words) => format!("at {words}"),
                None => "of the job".to_string(),
            };
            let interval = if p.interval_s.is_finite() {
                format!(", interval {}", human_duration(p.interval_s))
            } else {
                String::new()
            };
            let lowest = if self.scenario.points.len() > 1 { ", the lowest mean overhead" } else { "" };
            let title = format!(
                "{}\nwall time {at}{interval} ({} replications{lowest})",
                study_title(self.scenario),
                s.replications()
            );
            out.push(("wall", plot::wall_svg(&title, &s.wall_bins(WALL_BINS)).map_err(Error::Usage)?));
        }
        Ok(out)
    }

    /// Whether sweep axis `a` varies the interval: `policy.factor`, or `policy.interval` with
    /// some duration among its values (a sweep of rules alone, `["daly-high-order",
    /// "optimal"]`, compares rules at each point of the other keys instead).
    fn sweeps_interval(&self, a: usize) -> bool {
        let axis = &self.scenario.axes[a];
        match axis.key.as_str() {
            "policy.factor" => true,
            "policy.interval" => axis.values.iter().any(|v| crate::scenario::parse_duration_s(v).is_ok()),
            _ => false,
        }
    }

    /// The label of point `p`'s curve: the values of the swept keys other than `along`, in
    /// words; `simulated` where there are none.
    fn curve_label(&self, p: &Point, along: &[usize]) -> String {
        let words: Vec<String> = (0..self.scenario.axes.len())
            .filter(|a| !along.contains(a))
            .map(|a| format!("{} {}", key_words(&self.scenario.axes[a].key), p.labels[a]))
            .collect();
        if words.is_empty() { "simulated".to_string() } else { words.join(", ") }
    }

    /// Overhead against the interval, one curve per combination of the keys other than
    /// `interval_axes`, each with its 95% band and its closed form (on a fine grid where every
    /// point of the curve has one); Young's and Daly's intervals marked where there is one
    /// curve. `None` where every interval is infinite.
    fn interval_svg(&self, interval_axes: &[usize]) -> Result<Option<String>> {
        let mut curves: Vec<plot::Curve> = vec![];
        // Per curve: a point to vary for the closed form, and whether each of its points has one.
        let mut bases: Vec<(&Point, bool)> = vec![];
        for (i, p, s) in self.rows() {
            if !p.interval_s.is_finite() {
                continue;
            }
            let label = self.curve_label(p, interval_axes);
            let o = s.overhead.estimate();
            let idx = match curves.iter().position(|c| c.label == label) {
                Some(idx) => idx,
                None => {
                    curves.push(plot::Curve { label, points: vec![], model: vec![] });
                    bases.push((p, true));
                    curves.len() - 1
                }
            };
            curves[idx].points.push((p.interval_s, o.mean, o.ci_low(), o.ci_high()));
            match self.models[i] {
                Some((_, v)) => curves[idx].model.push((p.interval_s, v)),
                None => bases[idx].1 = false,
            }
        }
        // Every interval infinite (`policy.interval = "none"` under a factor sweep): no curve.
        if curves.is_empty() {
            return Ok(None);
        }
        for (c, (base, complete)) in curves.iter_mut().zip(bases) {
            c.points.sort_by(|a, b| a.0.total_cmp(&b.0));
            // The closed form on a fine grid between the swept intervals as well, where every
            // point of the curve has one (the points differ only in the interval): through
            // the simulated points alone, the dashed line lay hidden under the solid one.
            let (lo, hi) = (c.points[0].0, c.points[c.points.len() - 1].0);
            if complete && hi > lo {
                let grid = (1..OVERHEAD_MODEL_GRID).filter_map(|i| {
                    let t = lo * (hi / lo).powf(i as f64 / OVERHEAD_MODEL_GRID as f64);
                    let q = Point { interval_s: t, ..base.clone() };
                    model_overhead(&q).map(|(_, v)| (t, v))
                });
                c.model.extend(grid.collect::<Vec<_>>());
            }
            c.model.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        let markers = if curves.len() == 1 { self.formula_marks() } else { vec![] };
        let title = format!("{}\noverhead against the checkpoint interval", study_title(self.scenario));
        let svg = plot::overhead_svg(&title, &curves, &plot::Marks { lines: &markers, ..Default::default() })
            .map_err(Error::Usage)?;
        Ok(Some(svg))
    }

    /// Young's and Daly's intervals at the first point, and Young's at the cluster rate under
    /// bursts (`policy.rate = "clusters"`), as (name, interval s).
    fn formula_marks(&self) -> Vec<(String, f64)> {
        let first = &self.scenario.points[0];
        let (d, m) = (first.job.checkpoint_s, first.failures.mtbf_s());
        let mut lines = vec![
            ("young".to_string(), analytic::young_interval_s(d, m)),
            ("daly-high-order".to_string(), analytic::daly_high_order_interval_s(d, m)),
        ];
        if let Some(b) = first.failures.burst.filter(|b| b.branching > 0.0) {
            lines.push(("young (clusters)".to_string(), analytic::young_interval_s(d, m / (1.0 - b.branching))));
        }
        lines
    }

    /// Overhead against the first swept key whose values are numbers or durations, else the
    /// first swept key (its words in the order written), one curve per combination of the
    /// other keys, each with its 95% band and, where every point has one, its closed form
    /// through the points. `None` without a sweep.
    fn key_svg(&self) -> Result<Option<String>> {
        let axes = &self.scenario.axes;
        let Some(along) = (0..axes.len())
            .find(|&a| axes[a].values.iter().all(|v| label_value(v).is_some()))
            .or((!axes.is_empty()).then_some(0))
        else {
            return Ok(None);
        };
        let x = KeyAxis::of(&axes[along]);
        let mut curves: Vec<plot::Curve> = vec![];
        let mut complete: Vec<bool> = vec![];
        for (i, p, s) in self.rows() {
            let label = self.curve_label(p, &[along]);
            let Some(at) = axes[along].values.iter().position(|v| *v == p.labels[along]) else { continue };
            let idx = curves.iter().position(|c| c.label == label).unwrap_or_else(|| {
                curves.push(plot::Curve { label, points: vec![], model: vec![] });
                complete.push(true);
                curves.len() - 1
            });
            let o = s.overhead.estimate();
            curves[idx].points.push((x.xs[at], o.mean, o.ci_low(), o.ci_high()));
            match self.models[i] {
                Some((_, v)) => curves[idx].model.push((x.xs[at], v)),
                None => complete[idx] = false,
            }
        }
        for (c, complete) in curves.iter_mut().zip(complete) {
            c.points.sort_by(|a, b| a.0.total_cmp(&b.0));
            c.model.sort_by(|a, b| a.0.total_cmp(&b.0));
            if !complete {
                c.model.clear();
            }
        }
        let label = |v: f64| x.label(v);
        let axis = plot::Axis {
            desc: &x.desc,
            map: &|v| v,
            label: &label,
            log: x.log,
            // Words stand at whole coordinates; numbers on a linear axis at plotters' own ticks.
            unit: (!x.names.is_empty()).then_some(1.0),
        };
        let title = format!("{}\noverhead against {}", study_title(self.scenario), key_words(&axes[along].key));
        let legend = plot::emptiest_corner(&curves, &|v| v);
        let svg = plot::curves_svg(&title, &axis, plot::OVERHEAD_AXIS, true, legend, &curves, &plot::Marks::default())
            .map_err(Error::Usage)?;
        Ok(Some(svg))
    }

    /// The overhead by cause as stacked bars, one per point (`<name>-causes.svg`), each
    /// labelled with its swept values in words: the writes' share, then each cause's mean
    /// share, the whisker the 95% interval of the whole overhead.
    fn causes_svg(&self) -> Result<String> {
        let mut names = vec![WRITES];
        names.extend(self.causes.iter().map(|c| c.name()));
        let bars: Vec<plot::Bar> = self
            .rows()
            .map(|(i, p, s)| {
                let label = point_words(&self.scenario.axes, &p.labels).unwrap_or_else(|| format!("point {}", p.index));
                let parts = self
                    .cause_parts(i, p, s)
                    .iter()
                    // A part of no replication (NaN) or rounding below 0 draws nothing.
                    .map(|m| m["overhead_mean"].as_f64().unwrap_or(0.0).max(0.0))
                    .collect();
                let o = s.overhead.estimate();
                let ci =
                    Some((o.ci_low(), o.ci_high())).filter(|c| c.0.is_finite() && c.1.is_finite() && parts_add_up(p));
                plot::Bar { label, parts, total_ci: ci }
            })
            .collect();
        let title = format!("{}\noverhead by cause at each point", study_title(self.scenario));
        plot::stacked_bars_svg(
            &title,
            &names,
            &bars,
            "overhead (fraction of the work: time / work); whisker: 95% CI of the total",
        )
        .map_err(Error::Usage)
    }
}
