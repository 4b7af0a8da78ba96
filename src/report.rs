//! Report: the terminal table, CSV and JSON of a run (DESIGN.md, "Output contract"); the
//! output folder writes them ([`crate::outdir`]).

pub mod efficiency;
mod figures;
pub mod plot;
pub mod table;

pub use figures::{key_words, point_words, study_title};
pub use table::{FIT_COLUMNS, TableWidth};

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::analytic;
use crate::engine::{Exposure, OnFailure};
use crate::error::{Error, Result};
use crate::failure::{FailureModel, Start};
use crate::runner::{self, FewFailures, RunResult};
use crate::scenario::{Baseline, Point, Scenario, SweepAxis};
use crate::stats::Summary;

/// The name of the closed form behind `model_overhead` for exponential points: the exact
/// finite-work expectation (Daly 2006; Bougeret et al. 2011 with downtime; MODELS.md §1).
pub const EXACT_EXPONENTIAL: &str = "exact-exponential";

/// The name of the exact finite-work renewal-reward value for job-level renewal of any law
/// (MODELS.md §2).
pub const RENEWAL_REWARD: &str = "renewal-reward";

/// The name of the exact two-level value under Poisson failures (MODELS.md §4;
/// [`analytic::multilevel::overhead`]).
pub const EXACT_TWO_LEVEL: &str = "exact-two-level";

/// The closed-form overhead that applies exactly to `point`, with its name: the exact
/// exponential value for Poisson streams, the renewal-reward recursion for job-level
/// renewal started new with both phases exposed; none otherwise.
pub fn model_overhead(point: &Point) -> Option<(&'static str, f64)> {
    let job = &point.job;
    if job.on_failure == OnFailure::EndJob {
        return None;
    }
    if let Some(two) = &point.two_level {
        if !point.failures.is_poisson() {
            return None;
        }
        // Exact given the placement, as below: a mixture over the touched domains.
        let dist = point.failures.touched_distribution()?;
        let value = dist
            .iter()
            .map(|(p, t)| {
                let per_cause = crate::failure::Cause::ALL.map(|c| (c, point.failures.cause_rate_per_s(c, t)));
                let rates = analytic::multilevel::Rates::by_level(two, per_cause);
                p * analytic::multilevel::overhead(job, two, point.interval_s, rates).unwrap_or(f64::NAN)
            })
            .sum();
        return Some((EXACT_TWO_LEVEL, value));
    }
    if point.failures.is_poisson() {
        // Exact given the placement: a mixture over the touched domains for random ones.
        let dist = point.failures.touched_distribution()?;
        let value = dist
            .iter()
            .map(|(p, t)| p * analytic::finite_work_overhead(job, point.interval_s, 1.0 / point.failures.rate_per_s(t)))
            .sum();
        return Some((EXACT_EXPONENTIAL, value));
    }
    let f = &point.failures;
    let alone = f.domains.is_empty() && f.random.is_none() && f.burst.is_none();
    match &f.base {
        FailureModel::JobRenewal { law, start: Start::Fresh }
            if alone && job.checkpoint_exposure == Exposure::CanFail && job.restart_exposure == Exposure::CanFail =>
        {
            Some((RENEWAL_REWARD, analytic::renewal::finite_work_overhead(job, point.interval_s, law)))
        }
        _ => None,
    }
}

/// What Poisson failures at the point's job MTBF would give (the exact exponential
/// finite-work overhead): the reference that Young and Daly assume. With two-level
/// checkpoints, whose cost depends on how the rate splits between the levels, the exact
/// two-level value ([`analytic::multilevel::overhead`]) at each level's expected rate
/// ([`crate::scenario::two_level_rates`], burst children included). NaN (no value) where the
/// job ends at its first failure.
pub fn poisson_overhead(point: &Point) -> f64 {
    match (point.job.on_failure, &point.two_level) {
        (OnFailure::EndJob, _) => f64::NAN,
        (OnFailure::Restart, Some(two)) => {
            let rates = crate::scenario::two_level_rates(&point.failures, two, crate::scenario::RateBasis::Failures);
            analytic::multilevel::overhead(&point.job, two, point.interval_s, rates).unwrap_or(f64::NAN)
        }
        (OnFailure::Restart, None) => {
            analytic::finite_work_overhead(&point.job, point.interval_s, point.failures.mtbf_s())
        }
    }
}

/// The warning (without its `warning: ` prefix) for a run some of whose points no failure
/// struck in any replication ([`crate::runner::never_struck`]): their overhead has no spread,
/// so their 95% interval has width 0 and is the failure-free run's alone, whatever failures
/// would cost. Names the points and the rule of three's bound on the chance a replication is
/// struck, 3/n ([`crate::runner::RULE_OF_THREE`]); `None` where every point was struck.
pub fn never_struck_warning(scenario: &Scenario, result: &RunResult) -> Option<String> {
    let unstruck: Vec<(usize, u64)> = result
        .summaries
        .iter()
        .enumerate()
        .filter(|(_, s)| crate::runner::never_struck(s))
        .map(|(i, s)| (i, s.overhead.count()))
        .collect();
    let &(first, n) = unstruck.first()?;
    let bound = crate::runner::RULE_OF_THREE / n as f64;
    let (which, its) = match unstruck.len() {
        1 if scenario.points.len() == 1 => (format!("none of the job's {n} replications was"), "its"),
        1 => (format!("point {first}: none of its {n} replications was"), "its"),
        k => {
            let shown: Vec<String> = unstruck.iter().take(8).map(|(i, _)| i.to_string()).collect();
            let more = if k > 8 { format!(" and {} more", k - 8) } else { String::new() };
            let which = format!(
                "points {}{more} (of {}): none of their replications was",
                shown.join(", "),
                scenario.points.len()
            );
            (which, "their")
        }
    };
    Some(format!(
        "{which} struck by a failure, so {its} overhead has no spread: {its} 95% interval (± 0) is the \
         failure-free run's and leaves out what failures cost. By the rule of three a replication is struck with \
         a chance of up to {} (3/{n}); more replications (--reps), or --precision H (which runs such a point to \
         at least 3/H replications), tell more",
        crate::forecast::about(bound)
    ))
}

/// The causes of the points of `result` whose failures are too few to trust the points'
/// 95% intervals ([`runner::few_failures_at`], point by point).
pub fn few_failures(scenario: &Scenario, result: &RunResult) -> Vec<FewFailures> {
    scenario.points.iter().zip(&result.summaries).flat_map(|(point, s)| runner::few_failures_at(point, s)).collect()
}

/// The most entries [`few_failures_warning`] shows (an entry is a cause, seen as often at
/// one or more points).
const FEW_FAILURES_SHOWN: usize = 6;
/// The most points an entry of [`few_failures_warning`] names.
const FEW_FAILURES_POINTS: usize = 8;

/// The warning (without its `warning: ` prefix) for the causes of [`few_failures`], with
/// about how many replications would expect [`runner::FEW_FAILURES_AIM`] of each
/// ([`runner::aimed_replications`]; at least twice those run); `None` where there are none.
pub fn few_failures_warning(scenario: &Scenario, result: &RunResult) -> Option<String> {
    let few = few_failures(scenario, result);
    if few.is_empty() {
        return None;
    }
    let one_point = scenario.points.len() == 1;
    // Points of a sweep replay the same failures (common random numbers), so a cause is
    // often as few at many of them: one entry lists them all.
    let mut groups: Vec<(Vec<usize>, String)> = vec![];
    for f in &few {
        let what = match f.cause {
            None => "failures".to_string(),
            // "nodes failures" reads wrong; the other causes' names are singular.
            Some("nodes") => "node failures".to_string(),
            Some(c) => format!("{c} failures"),
        };
        let expected = f.expected.map_or(String::new(), |e| format!(" (about {} expected)", crate::forecast::about(e)));
        let text = match f.seen {
            0 => format!("{what} struck none of the {} replications{expected}", f.replications),
            k => format!(
                "{what} struck {k} time{} in all {} replications{expected}",
                if k == 1 { "" } else { "s" },
                f.replications
            ),
        };
        match groups.iter_mut().find(|(_, t)| *t == text) {
            Some((points, _)) => points.push(f.point),
            None => groups.push((vec![f.point], text)),
        }
    }
    let shown: Vec<String> = groups
        .iter()
        .take(FEW_FAILURES_SHOWN)
        .map(|(points, text)| match points.as_slice() {
            _ if one_point => text.clone(),
            [p] => format!("point {p}: {text}"),
            many if many.len() > FEW_FAILURES_POINTS => {
                let first: Vec<String> = many[..FEW_FAILURES_POINTS].iter().map(|p| p.to_string()).collect();
                format!("points {} and {} more: {text}", first.join(", "), many.len() - FEW_FAILURES_POINTS)
            }
            [rest @ .., last] => {
                let rest: Vec<String> = rest.iter().map(|p| p.to_string()).collect();
                format!("points {} and {last}: {text}", rest.join(", "))
            }
            [] => unreachable!("a group has a point"),
        })
        .collect();
    let more = match groups.len().saturating_sub(FEW_FAILURES_SHOWN) {
        0 => String::new(),
        k => format!(" and {k} more"),
    };
    // A count that fell short of an expectation already above the aim was bad luck, and more
    // replications are the cure all the same: never fewer than twice those run.
    let needed = few.iter().map(|f| runner::aimed_replications(f).max(2.0 * f.replications as f64)).fold(0.0, f64::max);
    Some(format!(
        "{}{more}: a 95% interval that rests on fewer than {} failures of a cause is not to be trusted \
         (the mean is far from normal, and the sample's spread leaves out what the failures that did not happen to \
         strike would cost), so the overhead, its interval and z there may be far off; about {} replications \
         (--reps) would expect {} of each",
        shown.join("; "),
        runner::FEW_FAILURES,
        crate::forecast::about(needed.ceil()),
        runner::FEW_FAILURES_AIM
    ))
}

/// Whether the parts of `point`'s overhead by cause (the writes, then each cause's lost time
/// and recovery, over the work) add up to its overhead: where the job restarts until its work
/// is done. A job that ends at its first failure (`on_failure = "end-job"`) leaves work
/// undone, and its overhead (wall time / work − 1) counts that too: it is below 0.
fn parts_add_up(point: &Point) -> bool {
    point.job.on_failure == OnFailure::Restart
}

/// What the overhead-by-cause table's note says where some point ends the job at its first
/// failure ([`parts_add_up`]).
const END_JOB_PARTS: &str = "; where the job restarts until its work is done the parts add up to the overhead. \
     Where it ends at its first failure (on_failure = end-job) the overhead also counts the work left undone \
     (it is below 0): the parts are the cost of the failures before the end, with no share of the overhead \
     (share_of_overhead empty).";

/// The most points the overhead-by-cause plot draws, one bar each (30 px high: 200 bars make
/// a plot of about 6,000 px); a larger sweep has its split in the CSV and tables only.
pub const MAX_CAUSE_BARS: usize = 200;

/// The tables' column of [`poisson_overhead`], where it shows ([`Report::shows_poisson`]).
const POISSON_COLUMN: &str = "Poisson";

/// The tables' note on [`POISSON_COLUMN`].
const POISSON_FOOTER: &str = "  Poisson: the exact overhead of exponential failures at the same job MTBF (Daly 2006; \
     `poisson_overhead` in the CSV and JSON), the reference Young and Daly assume: the simulated mean minus it is \
     what this failure model adds or saves.\n";

/// The name of the first part of the overhead by cause: the time spent writing checkpoints
/// (not a failure's cost).
pub const WRITES: &str = "writes";

/// The time the job's completed checkpoint writes take, over its work, when it restarts
/// until its work is done: every chunk's checkpoint is written once (the last one where the
/// final checkpoint is written), so the share is fixed: (chunks − skipped) · δ / W.
fn writes_share(point: &Point) -> Option<f64> {
    let job = &point.job;
    if job.on_failure == OnFailure::EndJob {
        return None;
    }
    let layout = crate::policy::ChunkLayout::new(job.work_s, point.interval_s);
    if point.two_level.is_some() {
        // Two levels: writes are done again after a level-2 rollback, so the share is random.
        return None;
    }
    let skipped = (job.final_checkpoint == crate::engine::FinalCheckpoint::Skipped) as u64;
    Some((layout.count - skipped) as f64 * job.checkpoint_s / job.work_s)
}

/// The simulated share of the overhead spent writing checkpoints at `point`: the completed
/// writes' time over the work, per replication. With two-level checkpoints (writes of two
/// costs, done again after a rollback) it is what the failures' parts leave of the overhead:
/// wall = W + writes + lost + recovery. NaN (no value) there where the job ends at its first
/// failure: its overhead also counts the work left undone, so the remainder is not the writes.
fn simulated_writes_share(point: &Point, s: &Summary) -> f64 {
    match &point.two_level {
        None => s.per_replication(s.totals.checkpoints) * point.job.checkpoint_s / point.job.work_s,
        Some(_) if point.job.on_failure == OnFailure::EndJob => f64::NAN,
        Some(_) => {
            let n = s.replications() as f64;
            s.overhead.estimate().mean - (s.lost_s.value() + s.recovery_s.value()) / n / point.job.work_s
        }
    }
}

/// The exact expected overhead of each of `causes` at `point` (their shares of
/// [`model_overhead`]), where the point's failures are Poisson given its placement: the
/// causes then mark the failures independently of their times, each failure coming from
/// cause c with probability λ_c/λ (MODELS.md §3), so E\[cost of c\] = λ_c/λ · E\[cost of
/// all failures\] = λ_c/λ · (overhead − writes share), a mixture over the touched domains for
/// random placements. `None` where no closed form applies.
pub fn cause_model_overheads(point: &Point, causes: &[crate::failure::Cause]) -> Option<Vec<f64>> {
    let f = &point.failures;
    if !f.is_poisson() || causes.is_empty() {
        return None;
    }
    let writes = writes_share(point)?;
    let dist = f.touched_distribution()?;
    let by_touched: Vec<(f64, f64, &crate::failure::topology::Touched)> = dist
        .iter()
        .map(|(p, t)| {
            let rate = f.rate_per_s(t);
            (*p, (analytic::finite_work_overhead(&point.job, point.interval_s, 1.0 / rate) - writes) / rate, t)
        })
        .collect();
    Some(
        causes
            .iter()
            .map(|&c| by_touched.iter().map(|(p, cost, t)| p * cost * f.cause_rate_per_s(c, t)).sum())
            .collect(),
    )
}

/// A run's outputs, with each point's closed forms computed once.
#[derive(Debug, Clone)]
pub struct Report<'a> {
    scenario: &'a Scenario,
    result: &'a RunResult,
    models: Vec<Option<(&'static str, f64)>>,
    poisson: Vec<f64>,
    /// The causes the run splits the overhead by ([`Scenario::causes`]), and per point their
    /// exact shares where a closed form applies ([`cause_model_overheads`]).
    causes: Vec<crate::failure::Cause>,
    cause_models: Vec<Option<Vec<f64>>>,
}

impl<'a> Report<'a> {
    /// The report of `result`, a run of `scenario`.
    pub fn new(scenario: &'a Scenario, result: &'a RunResult) -> Self {
        let models = scenario.points.iter().map(model_overhead).collect();
        let poisson = scenario.points.iter().map(poisson_overhead).collect();
        let causes = scenario.causes();
        let cause_models = scenario.points.iter().map(|p| cause_model_overheads(p, &causes)).collect();
        Report { scenario, result, models, poisson, causes, cause_models }
    }

    fn rows(&self) -> impl Iterator<Item = (usize, &'a Point, &'a Summary)> + '_ {
        self.scenario.points.iter().zip(&self.result.summaries).enumerate().map(|(i, (p, s))| (i, p, s))
    }

    /// A Markdown table: the swept keys, interval, overhead with its 95% interval, the
    /// closed form and z, wall-time quantiles and failures per run.
    pub fn markdown(&self) -> String {
        // Each duration column in the unit that reads best for it, as in the terminal table.
        let pairs: Vec<(&Point, &Summary)> = self.scenario.points.iter().zip(&self.result.summaries).collect();
        let (interval_unit, intervals) = duration_column(&pairs.iter().map(|(p, _)| p.interval_s).collect::<Vec<_>>());
        let (wall_unit, p50s, p95s) = wall_columns(&pairs);
        let (p50_unit, p95_unit) = (&wall_unit, &wall_unit);
        let mut head: Vec<String> = vec!["point".into()];
        head.extend(self.scenario.axes.iter().map(|a| format!("`{}`", a.key)));
        head.push(format!("interval ({interval_unit})"));
        let every = self.shows_every();
        if every {
            head.push("n".into());
        }
        head.extend(["overhead".into(), "95% CI".into(), "model".into(), "z".into()]);
        let poisson = self.shows_poisson();
        if poisson {
            head.push(POISSON_COLUMN.into());
        }
        head.extend([format!("wall p50 ({p50_unit})"), format!("wall p95 ({p95_unit})"), "failures".into()]);
        let baseline = self.scenario.run.baseline.point();
        if let Some(b) = baseline {
            head.extend([format!("Δ overhead vs {b}"), "Δ 95% CI".into()]);
        }
        let mut out = format!(
            "**{}**{}: {} replications per point, seed {}{}.\n\n| {} |\n|{}|\n",
            self.scenario.name,
            self.scenario.description.as_ref().map(|d| format!(" ({d})")).unwrap_or_default(),
            self.result.replications,
            self.result.seed,
            level2_summary(self.scenario.points.iter()).map(|l| format!("; {l}")).unwrap_or_default(),
            head.join(" | "),
            head.iter().map(|_| " ---: ").collect::<Vec<_>>().join("|")
        );
        for (i, p, s) in self.rows() {
            let o = s.overhead.estimate();
            let mut cells = vec![p.index.to_string()];
            cells.extend(p.labels.iter().cloned());
            let (model, z) = match self.models[i] {
                Some((_, v)) => (format!("{v:.5}"), z_cell(o.mean, v, o.se)),
                None => (String::new(), String::new()),
            };
            cells.push(if p.interval_s.is_finite() { intervals[i].clone() } else { "none".into() });
            if every {
                cells.push(self.every_cell(i));
            }
            cells.extend([format!("{:.5}", o.mean), format!("[{:.5}, {:.5}]", o.ci_low(), o.ci_high()), model, z]);
            if poisson {
                cells.push(self.poisson_cell(i));
            }
            cells.extend([p50s[i].clone(), p95s[i].clone(), format!("{:.2}", s.per_replication(s.totals.failures))]);
            if let Some(b) = baseline {
                let d = s.overhead_diff.estimate();
                if i == b {
                    cells.extend(["baseline".into(), String::new()]);
                } else {
                    cells.extend([format!("{:+.5}", d.mean), format!("[{:+.5}, {:+.5}]", d.ci_low(), d.ci_high())]);
                }
            }
            out.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        if let Some(rows) = self.cause_rows(&intervals, &interval_unit, true) {
            out.push_str("\nOverhead by cause: each part's share of the overhead (time / work), mean ± 95% CI (failures per replication)");
            out.push_str(if self.some_end_on_failure() { END_JOB_PARTS } else { "." });
            out.push_str("\n\n");
            out.push_str(&format!(
                "| {} |\n|{}|\n",
                rows[0].join(" | "),
                rows[0].iter().map(|_| " ---: ").collect::<Vec<_>>().join("|")
            ));
            for r in &rows[1..] {
                out.push_str(&format!("| {} |\n", r.join(" | ")));
            }
        }
        out
    }

    /// The CSV: a header and one row per sweep point.
    pub fn csv(&self) -> String {
        let mut w = csv::Writer::from_writer(vec![]);
        for (i, p, s) in self.rows() {
            let cols = self.columns(i, p, s, SweptAs::Written);
            if i == 0 {
                w.write_record(cols.keys()).expect("writing to memory");
            }
            w.write_record(cols.values().map(csv_cell)).expect("writing to memory");
        }
        String::from_utf8(w.into_inner().expect("writing to memory")).expect("CSV of UTF-8 cells")
    }

    /// The JSON: `scenario`, `version`, `seed`, `replications`, `points`.
    pub fn json(&self) -> String {
        let points: Vec<Value> = self
            .rows()
            .map(|(i, p, s)| {
                let mut m = self.columns(i, p, s, SweptAs::Typed);
                // Only where the run splits its overhead: other runs' JSON is as it was.
                if self.has_causes() {
                    let parts = self.cause_parts(i, p, s).into_iter().map(Value::Object).collect();
                    m.insert("causes".into(), Value::Array(parts));
                }
                Value::Object(m)
            })
            .collect();
        let doc = json!({
            "scenario": self.scenario.name,
            "description": self.scenario.description,
            "version": env!("CARGO_PKG_VERSION"),
            "seed": self.result.seed,
            "replications": self.result.replications,
            "points": points,
        });
        let mut text = serde_json::to_string_pretty(&doc).expect("JSON of plain values");
        text.push('\n');
        text
    }

    /// The output columns of one point, in contract order, as JSON values (numbers, strings or
    /// null), the swept values as `swept` says. The CSV writes the same columns in the same
    /// order.
    fn columns(&self, i: usize, point: &Point, s: &Summary, swept: SweptAs) -> Map<String, Value> {
        let scenario = self.scenario;
        let o = s.overhead.estimate();
        let mut m = Map::new();
        m.insert("point".into(), json!(point.index));
        for (axis, label) in scenario.axes.iter().zip(&point.labels) {
            m.insert(axis.key.clone(), swept.value(axis, label));
        }
        let j = &point.job;
        m.insert("interval_s".into(), finite_or_null(point.interval_s));
        m.insert("checkpoint_s".into(), json!(j.checkpoint_s));
        m.insert("restart_s".into(), json!(j.restart_s));
        m.insert("downtime_s".into(), json!(j.downtime_s));
        m.insert("mtbf_s".into(), json!(point.failures.mtbf_s()));
        m.insert("work_s".into(), json!(j.work_s));
        m.insert("replications".into(), json!(s.replications()));
        m.insert("overhead_mean".into(), finite_or_null(o.mean));
        m.insert("overhead_ci_low".into(), finite_or_null(o.ci_low()));
        m.insert("overhead_ci_high".into(), finite_or_null(o.ci_high()));
        m.insert("overhead_sd".into(), finite_or_null(o.sd));
        m.insert("waste_mean".into(), finite_or_null(s.waste.estimate().mean));
        m.insert("wall_mean_s".into(), finite_or_null(s.wall_s.estimate().mean));
        m.insert("wall_p50_s".into(), json!(s.wall_quantile_s(0.50)));
        m.insert("wall_p95_s".into(), json!(s.wall_quantile_s(0.95)));
        m.insert("wall_p99_s".into(), json!(s.wall_quantile_s(0.99)));
        let t = &s.totals;
        m.insert("failures_mean".into(), json!(s.per_replication(t.failures)));
        m.insert("checkpoints_mean".into(), json!(s.per_replication(t.checkpoints)));
        let model = self.models[i];
        m.insert("model".into(), json!(model.map_or("", |(name, _)| name)));
        m.insert("model_overhead".into(), model.map_or(Value::Null, |(_, v)| finite_or_null(v)));
        m.insert("model_z".into(), model.map_or(Value::Null, |(_, v)| finite_or_null((o.mean - v) / o.se)));
        m.insert("interval_rule".into(), json!(rule_name(point)));
        m.insert("factor".into(), json!(point.factor));
        m.insert("failures_during_checkpoint_mean".into(), json!(s.per_replication(t.failures_during_checkpoint)));
        m.insert("failed_restarts_mean".into(), json!(s.per_replication(t.failed_restarts)));
        m.insert("restarts_mean".into(), json!(s.per_replication(t.restarts)));
        m.insert("ignored_failures_mean".into(), json!(s.per_replication(t.ignored_failures)));
        let writes_s = match point.two_level {
            None => s.per_replication(t.checkpoints) * j.checkpoint_s,
            // Writes of two costs, done again after rollbacks: what the other parts leave.
            Some(_) => simulated_writes_share(point, s) * j.work_s,
        };
        m.insert("checkpoint_time_mean_s".into(), finite_or_null(writes_s));
        m.insert("lost_mean_s".into(), finite_or_null(s.lost_s.value() / s.replications() as f64));
        m.insert("recovery_mean_s".into(), finite_or_null(s.recovery_s.value() / s.replications() as f64));
        m.insert("failure_model".into(), json!(point.failures.describe()));
        m.insert("nodes".into(), json!(point.nodes));
        m.insert("poisson_overhead".into(), finite_or_null(self.poisson[i]));
        m.insert("failures_sd".into(), finite_or_null(s.failures.estimate().sd));
        // Paired with the baseline point, replication by replication (`[run] baseline`).
        match scenario.run.baseline {
            Baseline::Point(b) => {
                let d = s.overhead_diff.estimate();
                m.insert("baseline".into(), json!(b));
                m.insert("overhead_diff_mean".into(), finite_or_null(d.mean));
                m.insert("overhead_diff_ci_low".into(), finite_or_null(d.ci_low()));
                m.insert("overhead_diff_ci_high".into(), finite_or_null(d.ci_high()));
            }
            Baseline::None => {
                for key in ["baseline", "overhead_diff_mean", "overhead_diff_ci_low", "overhead_diff_ci_high"] {
                    m.insert(key.into(), Value::Null);
                }
            }
        }
        let two = point.two_level.as_ref();
        m.insert("level2_every".into(), two.map_or(Value::Null, |t| json!(t.every)));
        m.insert("level2_checkpoint_s".into(), two.map_or(Value::Null, |t| json!(t.checkpoint_s)));
        m.insert("level2_restart_s".into(), two.map_or(Value::Null, |t| json!(t.restart_s)));
        m
    }

    /// Whether the tables show an `n` column (level-1 checkpoints per level-2 one): where
    /// some point has two levels, n differs between points and no sweep axis shows it
    /// (`job.level2.every = "optimal"` chooses it per point).
    fn shows_every(&self) -> bool {
        let points = &self.scenario.points;
        let every: Vec<Option<u64>> = points.iter().map(|p| p.two_level.as_ref().map(|t| t.every)).collect();
        // A swept "optimal" among the counts shows its label, not the n it chose.
        let axis = self.scenario.axes.iter().position(|a| a.key == "job.level2.every");
        let all_counts = axis.is_none_or(|a| points.iter().all(|p| p.labels[a].trim().parse::<u64>().is_ok()));
        every.iter().any(Option::is_some) && every.iter().any(|e| *e != every[0]) && (axis.is_none() || !all_counts)
    }

    /// Point `i`'s `n` cell ([`Self::shows_every`]): empty without two levels.
    fn every_cell(&self, i: usize) -> String {
        self.scenario.points[i].two_level.as_ref().map_or(String::new(), |t| t.every.to_string())
    }

    /// Whether the tables show the [`POISSON_COLUMN`]: where some point has no closed form of
    /// its own but a Poisson reference (a non-exponential law, a replayed log), the comparison
    /// a study of Young and Daly under other failures is about.
    fn shows_poisson(&self) -> bool {
        self.models.iter().zip(&self.poisson).any(|(m, p)| m.is_none() && p.is_finite())
    }

    /// Point `i`'s [`POISSON_COLUMN`] cell: empty where there is no Poisson reference.
    fn poisson_cell(&self, i: usize) -> String {
        let p = self.poisson[i];
        if p.is_finite() { format!("{p:.5}") } else { String::new() }
    }

    /// Whether the run splits its overhead by cause ([`Scenario::causes`]).
    pub fn has_causes(&self) -> bool {
        !self.causes.is_empty()
    }

    /// The parts of point `i`'s overhead: the checkpoint writes ([`WRITES`]), then each
    /// cause of the run's failures, each part's fields in output order (`cause`,
    /// `failures_mean`, `lost_mean_s`, `recovery_mean_s`, `overhead_mean`, `overhead_ci_low`,
    /// `overhead_ci_high`, `share_of_overhead`, `model_overhead`, `model_z`). Empty when the
    /// run does not split its overhead.
    fn cause_parts(&self, i: usize, point: &Point, s: &Summary) -> Vec<Map<String, Value>> {
        if self.causes.is_empty() {
            return Vec::new();
        }
        let n = s.replications() as f64;
        let total = s.overhead.estimate().mean;
        let adds_up = parts_add_up(point);
        let part = |cause: &str,
                    failures: Value,
                    lost: Value,
                    recovery: Value,
                    mean: f64,
                    ci: Option<(f64, f64)>,
                    model: Option<f64>,
                    z: Option<f64>| {
            let mut m = Map::new();
            m.insert("cause".into(), json!(cause));
            m.insert("failures_mean".into(), failures);
            m.insert("lost_mean_s".into(), lost);
            m.insert("recovery_mean_s".into(), recovery);
            m.insert("overhead_mean".into(), finite_or_null(mean));
            m.insert("overhead_ci_low".into(), ci.map_or(Value::Null, |c| finite_or_null(c.0)));
            m.insert("overhead_ci_high".into(), ci.map_or(Value::Null, |c| finite_or_null(c.1)));
            m.insert("share_of_overhead".into(), if adds_up { finite_or_null(mean / total) } else { Value::Null });
            m.insert("model_overhead".into(), model.map_or(Value::Null, finite_or_null));
            m.insert("model_z".into(), z.map_or(Value::Null, finite_or_null));
            m
        };
        let writes = simulated_writes_share(point, s);
        let mut parts =
            vec![part(WRITES, Value::Null, Value::Null, Value::Null, writes, None, writes_share(point), None)];
        for (k, c) in s.causes.iter().enumerate() {
            let o = c.overhead.estimate();
            let model = self.cause_models[i].as_ref().map(|m| m[k]);
            parts.push(part(
                c.cause.name(),
                json!(c.failures as f64 / n),
                finite_or_null(c.lost_s.value() / n),
                finite_or_null(c.recovery_s.value() / n),
                o.mean,
                Some((o.ci_low(), o.ci_high())),
                model,
                model.map(|v| (o.mean - v) / o.se),
            ));
        }
        parts
    }

    /// The overhead by cause as CSV (`<name>-causes.csv`): one row per point and part (the
    /// writes, then each cause), after the point's index, swept values and interval; `None`
    /// when the run does not split its overhead ([`Scenario::causes`]).
    pub fn causes_csv(&self) -> Option<String> {
        if self.causes.is_empty() {
            return None;
        }
        let mut w = csv::Writer::from_writer(vec![]);
        let mut header = true;
        for (i, p, s) in self.rows() {
            let mut lead = Map::new();
            lead.insert("point".into(), json!(p.index));
            for (axis, label) in self.scenario.axes.iter().zip(&p.labels) {
                lead.insert(axis.key.clone(), SweptAs::Written.value(axis, label));
            }
            lead.insert("interval_s".into(), finite_or_null(p.interval_s));
            for part in self.cause_parts(i, p, s) {
                if header {
                    w.write_record(lead.keys().chain(part.keys())).expect("writing to memory");
                    header = false;
                }
                w.write_record(lead.values().chain(part.values()).map(csv_cell)).expect("writing to memory");
            }
        }
        Some(String::from_utf8(w.into_inner().expect("writing to memory")).expect("CSV of UTF-8 cells"))
    }

    /// The overhead by cause as table rows (the header first): the point, its swept values
    /// and interval, the writes' share, then each cause's share with its 95% interval and
    /// its failures per replication. `None` when the run does not split its overhead.
    fn cause_rows(&self, intervals: &[String], interval_unit: &str, markdown: bool) -> Option<Vec<Vec<String>>> {
        if self.causes.is_empty() {
            return None;
        }
        let quote = |k: &str| if markdown { format!("`{k}`") } else { k.to_string() };
        let mut header = vec!["point".to_string()];
        header.extend(self.scenario.axes.iter().map(|a| quote(&a.key)));
        header.push(format!("interval ({interval_unit})"));
        header.push(WRITES.into());
        header.extend(self.causes.iter().map(|c| c.name().to_string()));
        let mut rows = vec![header];
        for (i, p, s) in self.rows() {
            let mut row = vec![p.index.to_string()];
            row.extend(p.labels.iter().cloned());
            row.push(if p.interval_s.is_finite() { intervals[i].clone() } else { "none".into() });
            let writes = simulated_writes_share(p, s);
            row.push(format!("{writes:.5}"));
            for c in &s.causes {
                let o = c.overhead.estimate();
                row.push(format!("{:.5} ± {:.5} ({:.2})", o.mean, o.half_width, s.per_replication(c.failures)));
            }
            rows.push(row);
        }
        Some(rows)
    }

    /// Whether some point of the run ends the job at its first failure, where the parts do not
    /// add up to the overhead ([`parts_add_up`]).
    fn some_end_on_failure(&self) -> bool {
        self.scenario.points.iter().any(|p| !parts_add_up(p))
    }

    /// The footer of the overhead-by-cause table.
    fn causes_footer(&self) -> String {
        let adds_up = if self.some_end_on_failure() { END_JOB_PARTS } else { "; the parts add up to the overhead." };
        format!(
            "  by cause: each part's share of the overhead (time / work): checkpoint writes, then each cause's lost \
             time and recovery, mean ± 95% CI (failures per replication){adds_up} `<name>-causes.csv` has the \
             closed form of each part where one applies.\n"
        )
    }

    /// The terminal table of a run, in the spirit of hyperfine's summary, that fits
    /// [`FIT_COLUMNS`] ([`TableWidth::Fit`]).
    pub fn table(&self) -> String {
        self.table_with(TableWidth::Fit)
    }

    /// The terminal table of a run at `width`: the columns a person needs first, fit to
    /// [`FIT_COLUMNS`], or every column ([`TableWidth::Wide`]).
    pub fn table_with(&self, width: TableWidth) -> String {
        match width {
            TableWidth::Fit => self.fit_table(),
            TableWidth::Wide => self.wide_table(),
        }
    }

    /// The table of [`TableWidth::Wide`]: every column, five decimals, notes on one line each.
    fn wide_table(&self) -> String {
        let (scenario, result) = (self.scenario, self.result);
        let pairs: Vec<(&Point, &Summary)> = scenario.points.iter().zip(&result.summaries).collect();
        let (interval_unit, intervals) = duration_column(&pairs.iter().map(|(p, _)| p.interval_s).collect::<Vec<_>>());
        let (wall_unit, p50s, p95s) = wall_columns(&pairs);
        let (p50_unit, p95_unit) = (&wall_unit, &wall_unit);
        let mut header: Vec<String> = vec!["point".into()];
        header.extend(scenario.axes.iter().map(|a| a.key.clone()));
        header.push(format!("interval ({interval_unit})"));
        let every = self.shows_every();
        if every {
            header.push("n".into());
        }
        header.extend(["overhead mean ± 95% CI".into(), "model".into(), "z".into()]);
        let poisson = self.shows_poisson();
        if poisson {
            header.push(POISSON_COLUMN.into());
        }
        header.extend([format!("wall p50 ({p50_unit})"), format!("wall p95 ({p95_unit})"), "failures".into()]);
        let baseline = scenario.run.baseline.point();
        if let Some(b) = baseline {
            header.push(format!("Δ overhead vs {b} ± 95% CI"));
        }
        let mut rows = vec![header];
        for (i, (p, s)) in pairs.iter().enumerate() {
            let o = s.overhead.estimate();
            let mut row = vec![p.index.to_string()];
            row.extend(p.labels.iter().cloned());
            let (model, z) = match self.models[i] {
                Some((_, v)) => (format!("{v:.5}"), z_cell(o.mean, v, o.se)),
                None => (String::new(), String::new()),
            };
            row.push(intervals[i].clone());
            if every {
                row.push(self.every_cell(i));
            }
            row.extend([format!("{:.5} ± {:.5}", o.mean, o.half_width), model, z]);
            if poisson {
                row.push(self.poisson_cell(i));
            }
            row.extend([p50s[i].clone(), p95s[i].clone(), format!("{:.2}", s.per_replication(s.totals.failures))]);
            if let Some(b) = baseline {
                let d = s.overhead_diff.estimate();
                row.push(if i == b { "baseline".into() } else { format!("{:+.5} ± {:.5}", d.mean, d.half_width) });
            }
            rows.push(row);
        }
        let mut out = self.table_head();
        // The swept values read as text, left-aligned; the numbers right-aligned.
        out.push_str(&aligned_table(&rows, &|c| c >= 1 && c <= scenario.axes.len()));
        out.push_str(&self.table_notes());
        if let Some(rows) = self.cause_rows(&intervals, &interval_unit, false) {
            out.push_str("\n  overhead by cause\n");
            out.push_str(&aligned_table(&rows, &|c| c >= 1 && c <= scenario.axes.len()));
            out.push('\n');
            out.push_str(&self.causes_footer());
        }
        out
    }

    /// The lines above the run table, the blank line under them included: the scenario's
    /// name and description, the replications and seed, the failure model, the second level.
    fn table_head(&self) -> String {
        let (scenario, result) = (self.scenario, self.result);
        let mut out = scenario.name.clone();
        if let Some(d) = &scenario.description {
            out.push_str(&format!(": {d}"));
        }
        out.push_str(&format!("\n  {} replications per point, seed {}\n", result.replications, result.seed));
        // The model the scenario's keys built, defaults included: a Weibull law on a
        // stationary per-node platform is close to Poisson, which the numbers alone do not say.
        let models: Vec<String> = scenario.points.iter().map(|p| p.failures.describe()).collect();
        if models.iter().all(|m| *m == models[0]) {
            // The job's MTBF, which the model's words leave to arithmetic: `mtbf = "5 y"` with
            // 2048 nodes is the whole job's 5 y, not a node's (that is `node_mtbf`).
            // The words leave out the MTBF, so a sweep of it reads as one model: its MTBF is
            // then per point.
            let mtbf_s = scenario.points[0].failures.mtbf_s();
            let mtbf = if scenario.points.iter().all(|p| p.failures.mtbf_s().to_bits() == mtbf_s.to_bits()) {
                human_duration(mtbf_s)
            } else {
                "per point (`mtbf_s` in the CSV and JSON)".to_string()
            };
            out.push_str(&format!("  failures: {}; job MTBF {mtbf}\n", models[0]));
        } else {
            out.push_str("  failures: per point (the sweep changes them; `failure_model` in the CSV and JSON)\n");
        }
        if let Some(line) = level2_summary(self.scenario.points.iter()) {
            out.push_str(&format!("  {line}\n"));
        }
        out.push('\n');
        out
    }

    /// Whether some point has a closed form but no z (every replication alike, no spread).
    fn some_without_z(&self) -> bool {
        self.rows().any(|(i, _, s)| {
            let o = s.overhead.estimate();
            self.models[i].is_some_and(|(_, v)| z_cell(o.mean, v, o.se) == "—")
        })
    }

    /// The notes under the run table, one line each: z (or why there is none), the Poisson
    /// column, the baseline's Δ.
    fn table_notes(&self) -> String {
        let mut out = String::new();
        if self.models.iter().all(Option::is_none) {
            // No z to read: the line about z would only puzzle (its columns are empty).
            out.push_str("\n  model, z: no closed form applies exactly to these points' failure model.\n");
        } else {
            out.push_str(&z_footer(self.result.summaries.iter().map(Summary::replications).min().unwrap_or(0)));
        }
        if self.shows_poisson() {
            out.push_str(POISSON_FOOTER);
        }
        if let Some(b) = self.scenario.run.baseline.point() {
            out.push_str(&format!(
                "  Δ: each point's overhead minus point {b}'s in the same replication (same failures), averaged; \
                 its interval is the difference's own: the points share their failures, so it is narrower than their two \
                 intervals would give.\n"
            ));
        }
        if self.some_without_z() {
            out.push_str(
                "  z = —: every replication gave the same overhead (SE = 0; usually no failure struck), so there is \
                 no z and ± 0 is no real interval.\n",
            );
        }
        out
    }
}
/// The line under the run table that says when z means disagreement, for points of at least
/// `n` replications: |z| > 4 for large samples; below about a thousand replications z follows
/// Student's t with n − 1 degrees of freedom, so the threshold of the same tail is larger
/// (4.7 at 30 replications, about 10⁴ at 2) and is stated.
fn z_footer(n: u64) -> String {
    let threshold = crate::stats::z4_threshold(n.saturating_sub(1));
    if threshold < 4.05 {
        return "\n  z = (simulated − model) / standard error; |z| > 4 means the simulation and the closed form disagree.\n"
            .into();
    }
    format!(
        "\n  z = (simulated − model) / standard error; with {n} replications it follows Student's t with {} \
         freedom: the simulation and the closed form disagree where |z| > {} (the tail of |z| > 4 for large \
         samples).\n",
        match n.saturating_sub(1) {
            1 => "1 degree of".to_string(),
            df => format!("{df} degrees of"),
        },
        if threshold < 100.0 { format!("{threshold:.1}") } else { format!("{threshold:.0}") }
    )
}

/// The interval rule as the outputs name it: `young`, and `young (clusters)` where the rule
/// counts burst clusters (`policy.rate = "clusters"`) and the failures do burst (without
/// bursts every failure starts a cluster: the two rates are one; fixed intervals and `none`
/// use no rate).
fn rule_name(point: &Point) -> String {
    use crate::scenario::{IntervalRule, RateBasis};
    let bursts = point.failures.burst.as_ref().is_some_and(|b| b.branching > 0.0);
    match (point.rule, point.rate) {
        (IntervalRule::Fixed(_) | IntervalRule::None, _) | (_, RateBasis::Failures) => point.rule.name(),
        (rule, RateBasis::Clusters) if bursts => format!("{} (clusters)", rule.name()),
        (rule, RateBasis::Clusters) => rule.name(),
    }
}

fn finite_or_null(x: f64) -> Value {
    if x.is_finite() { json!(x) } else { Value::Null }
}

/// How a point's swept values go into its output fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SweptAs {
    /// As written in the scenario (`1.0` stays `1.0`): the CSV, the tables.
    Written,
    /// With their TOML types ([`SweepAxis::json_value`]): the JSON.
    Typed,
}

impl SweptAs {
    pub(crate) fn value(self, axis: &SweepAxis, label: &str) -> Value {
        match self {
            SweptAs::Written => Value::String(label.to_string()),
            SweptAs::Typed => axis.json_value(label),
        }
    }
}

/// A regret (a difference of overheads) to five decimals with its sign. One that is not zero
/// but rounds to zero keeps its sign and leading digits (`-9.8e-7`): a "better" whose upper
/// bound lies just below 0 would otherwise read `-0.00000`, and a tie's bound `+0.00000`.
pub(crate) fn signed5(x: f64) -> String {
    let fixed = format!("{x:+.5}");
    if x != 0.0 && fixed.trim_start_matches(['+', '-']) == "0.00000" { format!("{x:+.1e}") } else { fixed }
}

/// The text of one number in a CSV cell: the shortest decimal that reads back as the same
/// f64, in plain notation for 0 and for magnitudes in [1e-5, 1e16) (`5`, `0.1`, `0.00001`,
/// `1000000000000000`) and in exponent notation outside it (`1.3e-6`, `1e16`, `1e200`), where
/// plain notation would spell out hundreds of zeros. The bounds are serde_json's, so a CSV
/// cell and its JSON value switch notation at the same magnitude. Non-finite values read
/// `inf`, `-inf`, `NaN`.
pub(crate) fn csv_number(x: f64) -> String {
    let magnitude = x.abs();
    if !x.is_finite() || magnitude == 0.0 || (1e-5..1e16).contains(&magnitude) {
        x.to_string()
    } else {
        format!("{x:e}")
    }
}

/// The CSV text of one JSON value: blank for null, a string as it is, a float through
/// [`csv_number`], any other value as JSON writes it.
pub(crate) fn csv_cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Number(n) => n.as_f64().filter(|_| n.is_f64()).map_or_else(|| n.to_string(), csv_number),
        other => other.to_string(),
    }
}

/// The unit that reads best for durations around `typical_s` (s): its name and length (s).
pub fn duration_unit(typical_s: f64) -> (&'static str, f64) {
    if !typical_s.is_finite() || typical_s < 120.0 {
        ("s", 1.0)
    } else if typical_s < 7200.0 {
        ("min", 60.0)
    } else if typical_s < 345_600.0 {
        ("h", 3600.0)
    } else {
        ("d", 86_400.0)
    }
}

/// `rows` (the first one the header) as a terminal table: columns two spaces apart, indented
/// by two, a rule under the header; cells right-aligned, but left-aligned in the columns
/// where `left` is true; no trailing spaces.
pub fn aligned_table(rows: &[Vec<String>], left: &dyn Fn(usize) -> bool) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().map(|r| r.get(c).map_or(0, |x| x.chars().count())).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for (i, r) in rows.iter().enumerate() {
        let cells: Vec<String> = r
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (cell, w))| {
                let pad = " ".repeat(w - cell.chars().count());
                if left(c) { format!("{cell}{pad}") } else { format!("{pad}{cell}") }
            })
            .collect();
        out.push_str("  ");
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
        if i == 0 {
            out.push_str("  ");
            out.push_str(&widths.iter().map(|w| "─".repeat(*w)).collect::<Vec<_>>().join("  "));
            out.push('\n');
        }
    }
    out
}

/// The z-score (simulated − model)/SE for a table cell, or `—` where it is not finite (every
/// replication alike, so SE = 0), as the CSV and JSON leave `model_z` empty.
pub(crate) fn z_cell(mean: f64, model: f64, se: f64) -> String {
    let z = (mean - model) / se;
    if z.is_finite() { format!("{z:+.2}") } else { "—".into() }
}

/// The tables' line on two-level checkpoints, where some of `points` have them: n, C₂ and
/// R₂, and the causes that roll back to level 2, each where every point shares it, else
/// where to find it.
pub fn level2_summary<'p>(points: impl Iterator<Item = &'p Point> + Clone) -> Option<String> {
    let first = points.clone().find_map(|p| p.two_level.as_ref())?;
    let all =
        |f: &dyn Fn(&crate::engine::TwoLevel) -> bool| points.clone().all(|p| p.two_level.as_ref().is_some_and(f));
    let last = if points.clone().all(|p| p.job.final_checkpoint == crate::engine::FinalCheckpoint::Skipped) {
        ""
    } else {
        " and the final one"
    };
    let every = if all(&|t| t.every == first.every) {
        match first.every {
            1 => "every checkpoint".to_string(),
            n => format!("every {} checkpoint{last}", ordinal(n)),
        }
    } else {
        format!("every n-th checkpoint (n per point){last}")
    };
    let costs = if all(&|t| t.checkpoint_s == first.checkpoint_s && t.restart_s == first.restart_s) {
        format!("C₂ = {}, R₂ = {}", human_duration(first.checkpoint_s), human_duration(first.restart_s))
    } else {
        "C₂ and R₂ per point: `level2_checkpoint_s`, `level2_restart_s` in the CSV and JSON".to_string()
    };
    let causes = if all(&|t| t.level2 == first.level2) {
        // Every cause of the run, split or not (a run of one cause splits nothing).
        let mut present: Vec<crate::failure::Cause> = points.clone().flat_map(|p| p.failures.causes()).collect();
        present.sort();
        present.dedup();
        let names: Vec<&str> = present.iter().filter(|c| first.level2[c.index()]).map(|c| c.name()).collect();
        match names.len() {
            0 => "; no failure cause here rolls back to it".to_string(),
            _ => format!("; these failures roll back to it: {}", names.join(", ")),
        }
    } else {
        String::new()
    };
    Some(format!("level 2: {every} ({costs}){causes}"))
}

/// `n` as an English ordinal: 2nd, 3rd, 8th, 11th, 21st.
fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A duration for people: `45.000 s`, `12.500 min`, `3.100 h`, `2.000 d`; `1.000e-5 s` and
/// `1.157e15 d` beyond three decimals of the largest unit that fits; `∞` when infinite.
pub fn human_duration(s: f64) -> String {
    if !s.is_finite() {
        return "∞".into();
    }
    let (unit, scale) = duration_unit(s);
    let x = s / scale;
    // Three decimals would show a microsecond as 0.000 s and a geological time as sixteen
    // digits: beyond them, three significant decimals in scientific notation.
    if x != 0.0 && !(1e-3..1e6).contains(&x.abs()) {
        return format!("{x:.3e} {unit}");
    }
    format!("{} {unit}", three_decimals(x))
}

fn three_decimals(x: f64) -> String {
    if !x.is_finite() {
        "∞".into()
    } else if x.abs() >= THREE_DECIMALS_BELOW {
        // A value far from the column's unit (an MTBF of 1e90 y in days) in fixed notation
        // is a line of digits.
        format!("{x:.3e}")
    } else {
        format!("{x:.3}")
    }
}

/// Table cells at or above this magnitude (in their column's unit) are written in
/// scientific notation: `1.007e45`, not 46 digits.
const THREE_DECIMALS_BELOW: f64 = 1e9;

/// A column of durations in one unit, chosen from the column's median finite value, so
/// the column reads down without unit changes.
fn duration_column(values_s: &[f64]) -> (String, Vec<String>) {
    let (unit, mut columns) = duration_columns(&[values_s]);
    (unit, columns.pop().expect("one column"))
}

/// Columns of durations that sit side by side (a median and a 95th percentile) in one unit,
/// chosen from the median finite value of them all: a p95 in days beside a p50 in hours read
/// as the smaller.
fn duration_columns(columns_s: &[&[f64]]) -> (String, Vec<Vec<String>>) {
    let (unit, scale) = column_unit(columns_s);
    let cells = columns_s.iter().map(|c| c.iter().map(|v| three_decimals(v / scale)).collect()).collect();
    (unit.to_string(), cells)
}

/// The unit of [`duration_columns`] for `columns_s`: that of their median finite value, its
/// name and length (s).
fn column_unit(columns_s: &[&[f64]]) -> (&'static str, f64) {
    let mut finite: Vec<f64> = columns_s.iter().flat_map(|c| c.iter().copied()).filter(|v| v.is_finite()).collect();
    finite.sort_by(f64::total_cmp);
    duration_unit(finite.get(finite.len() / 2).copied().unwrap_or(1.0))
}

/// The wall-time median and 95th percentile columns of `pairs`, in one unit.
fn wall_columns(pairs: &[(&Point, &Summary)]) -> (String, Vec<String>, Vec<String>) {
    let p50: Vec<f64> = pairs.iter().map(|(_, s)| s.wall_quantile_s(0.5)).collect();
    let p95: Vec<f64> = pairs.iter().map(|(_, s)| s.wall_quantile_s(0.95)).collect();
    let (unit, mut columns) = duration_columns(&[&p50, &p95]);
    let p95s = columns.pop().expect("two columns");
    let p50s = columns.pop().expect("two columns");
    (unit, p50s, p95s)
}

/// The output files of a scenario in `out_dir`: (CSV path, JSON path).
pub fn output_paths(out_dir: &Path, scenario: &Scenario) -> (PathBuf, PathBuf) {
    (out_dir.join(format!("{}.csv", scenario.name)), out_dir.join(format!("{}.json", scenario.name)))
}

/// One search's result as JSON fields: the failure model, the best interval with its range,
/// the overhead there, the formulas' regrets and the curve.
fn optimum_fields(point: &Point, o: &crate::optimize::Optimum) -> Map<String, Value> {
    let doc = json!({
        "failure_model": point.failures.describe(),
        "best_interval_s": o.best_interval_s,
        "interval_ci_low_s": o.interval_ci_low_s,
        "interval_ci_high_s": o.interval_ci_high_s,
        "interval_ci_low_chunks": o.chunks.map(|c| c.0),
        "interval_ci_high_chunks": o.chunks.map(|c| c.1),
        "judged_on_replications": [o.judged_on.start, o.judged_on.end],
        "best_overhead_mean": o.best_overhead_mean,
        "best_overhead_half_width": o.best_overhead_half_width,
        "formulas": o.formulas.iter().map(|f| json!({
            "name": f.name, "interval_s": f.interval_s, "overhead_mean": f.overhead_mean,
            "regret": f.regret, "regret_ci_low": f.regret_ci_low, "regret_ci_high": f.regret_ci_high,
            "variance_reduction": f.variance_reduction, "verdict": f.verdict().word(),
        })).collect::<Vec<_>>(),
        "curve": o.curve.iter().map(|(t, h, w)| json!({"interval_s": t, "overhead_mean": h, "overhead_half_width": w})).collect::<Vec<_>>(),
    });
    match doc {
        Value::Object(mut map) => {
            // Only at two-level points: other searches' JSON is as it was.
            if let Some(two) = &point.two_level {
                map.insert("level2_every".into(), json!(two.every));
                map.insert("level2_checkpoint_s".into(), json!(two.checkpoint_s));
                map.insert("level2_restart_s".into(), json!(two.restart_s));
            }
            map
        }
        _ => unreachable!("json! of an object"),
    }
}

/// The head every `optimize` JSON document starts with.
fn optimum_head(scenario: &Scenario, seed: u64, replications: u64) -> Map<String, Value> {
    let mut head = Map::new();
    head.insert("scenario".into(), json!(scenario.name));
    head.insert("version".into(), json!(env!("CARGO_PKG_VERSION")));
    head.insert("seed".into(), json!(seed));
    head.insert("replications".into(), json!(replications));
    head
}

fn pretty(doc: Map<String, Value>) -> String {
    let mut text = serde_json::to_string_pretty(&Value::Object(doc)).expect("JSON of plain values");
    text.push('\n');
    text
}

/// The JSON of `ckptsim optimize`: `best_interval_s`, `interval_ci_low_s`,
/// `interval_ci_high_s`, `interval_ci_low_chunks`, `interval_ci_high_chunks`,
/// `judged_on_replications` ([first, end)), `best_overhead_mean`, `formulas: [{name,
/// interval_s, overhead_mean, regret, regret_ci_low, regret_ci_high, variance_reduction,
/// verdict}]`, with the curve of every candidate evaluated.
pub fn optimum_json(scenario: &Scenario, seed: u64, o: &crate::optimize::Optimum) -> String {
    let mut doc = optimum_head(scenario, seed, o.replications);
    doc.extend(optimum_fields(&scenario.points[0], o));
    pretty(doc)
}

/// The results of several searches (a sweep over keys other than `policy.*`) as one JSON
/// document: the head of [`optimum_json`], `axes` (the swept keys searched over) and `cases`,
/// each with `case`, `labels` (key → value as written, a TOML number or boolean as a JSON one)
/// and the fields of [`optimum_json`].
pub fn optimum_cases_json(
    scenario: &Scenario,
    seed: u64,
    results: &[(crate::optimize::Case<'_>, crate::optimize::Optimum)],
) -> String {
    let replications = results.first().map_or(0, |(_, o)| o.replications);
    let mut doc = optimum_head(scenario, seed, replications);
    let axes: Vec<&str> =
        results.first().map(|(c, _)| c.labels.iter().map(|(k, _)| k.as_str()).collect()).unwrap_or_default();
    doc.insert("axes".into(), json!(axes));
    let cases: Vec<Value> = results
        .iter()
        .map(|(case, o)| {
            let mut m = Map::new();
            m.insert("case".into(), json!(case.index));
            let labels: Map<String, Value> = case
                .labels
                .iter()
                .map(|(k, v)| {
                    let typed =
                        scenario.axes.iter().find(|a| &a.key == k).map_or_else(|| json!(v), |a| a.json_value(v));
                    (k.clone(), typed)
                })
                .collect();
            m.insert("labels".into(), Value::Object(labels));
            m.extend(optimum_fields(case.point, o));
            Value::Object(m)
        })
        .collect();
    doc.insert("cases".into(), Value::Array(cases));
    pretty(doc)
}

/// One row per search of a sweep, as CSV: `case`, each swept key searched over, the best
/// interval with its range (`best_interval_s`, `interval_ci_low_s`, `interval_ci_high_s`) and
/// its chunk counts (`interval_ci_low_chunks`, `interval_ci_high_chunks`, empty where the range
/// is not of equal chunkings), the overhead there (`best_overhead_mean`,
/// `best_overhead_half_width`), then per formula `<name>_interval_s`, `<name>_regret`,
/// `<name>_regret_ci_low`, `<name>_regret_ci_high`, `<name>_verdict` (empty where a formula
/// does not apply to a case).
pub fn optimum_cases_csv(results: &[(crate::optimize::Case<'_>, crate::optimize::Optimum)]) -> String {
    let mut names: Vec<&str> = vec![];
    for (_, o) in results {
        for f in &o.formulas {
            if !names.contains(&f.name) {
                names.push(f.name);
            }
        }
    }
    let mut w = csv::Writer::from_writer(vec![]);
    let mut header: Vec<String> = vec!["case".into()];
    header.extend(
        results.first().map(|(c, _)| c.labels.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>()).unwrap_or_default(),
    );
    header.extend(
        [
            "best_interval_s",
            "interval_ci_low_s",
            "interval_ci_high_s",
            "interval_ci_low_chunks",
            "interval_ci_high_chunks",
            "best_overhead_mean",
            "best_overhead_half_width",
        ]
        .map(String::from),
    );
    for n in &names {
        header
            .extend(["interval_s", "regret", "regret_ci_low", "regret_ci_high", "verdict"].map(|c| format!("{n}_{c}")));
    }
    w.write_record(&header).expect("CSV to memory");
    for (case, o) in results {
        let mut row: Vec<String> = vec![case.index.to_string()];
        row.extend(case.labels.iter().map(|(_, v)| v.clone()));
        row.extend([o.best_interval_s, o.interval_ci_low_s, o.interval_ci_high_s].map(csv_number));
        row.extend([o.chunks.map(|c| c.0), o.chunks.map(|c| c.1)].map(|k| k.map_or(String::new(), |k| k.to_string())));
        row.extend([o.best_overhead_mean, o.best_overhead_half_width].map(csv_number));
        for n in &names {
            match o.formulas.iter().find(|f| f.name == *n) {
                Some(f) => {
                    row.extend([f.interval_s, f.regret, f.regret_ci_low, f.regret_ci_high].map(csv_number));
                    row.push(f.verdict().word().to_string());
                }
                None => row.extend(std::iter::repeat_n(String::new(), 5)),
            }
        }
        w.write_record(&row).expect("CSV to memory");
    }
    String::from_utf8(w.into_inner().expect("CSV to memory")).expect("UTF-8")
}

/// The value of a sweep label on a plot's x axis: a duration in seconds, or a plain number.
fn label_value(label: &str) -> Option<f64> {
    crate::scenario::parse_duration_s(label).ok().or_else(|| label.trim().parse::<f64>().ok()).filter(|v| v.is_finite())
}

/// The plot of several searches over one numeric swept key: the best interval against the
/// key's value, with the range of intervals not significantly worse as its band, and the
/// intervals of Young and Daly eq. 37 for comparison. None when the searches do not vary one
/// key whose values are all durations or numbers.
pub fn optimum_cases_svg(
    scenario: &Scenario,
    results: &[(crate::optimize::Case<'_>, crate::optimize::Optimum)],
) -> Option<Result<String>> {
    let key = match results.first().map(|(c, _)| c.labels.as_slice()) {
        Some([(key, _)]) => key.clone(),
        _ => return None,
    };
    let xs: Vec<f64> = results.iter().map(|(c, _)| label_value(&c.labels[0].1)).collect::<Option<_>>()?;
    if results.len() < 2 {
        return None;
    }
    let mut order: Vec<usize> = (0..results.len()).collect();
    order.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let minutes = |s: f64| s / 60.0;
    let best = plot::Curve {
        label: format!("simulated best ({} replications)", results[0].1.replications),
        points: order
            .iter()
            .map(|&i| {
                let o = &results[i].1;
                (xs[i], minutes(o.best_interval_s), minutes(o.interval_ci_low_s), minutes(o.interval_ci_high_s))
            })
            .collect(),
        model: vec![],
    };
    let formula = |name: &str, label: &str| {
        let points: Vec<(f64, f64, f64, f64)> = order
            .iter()
            .filter_map(|&i| {
                let f = results[i].1.formulas.iter().find(|f| f.name == name)?;
                let t = minutes(f.interval_s);
                Some((xs[i], t, t, t))
            })
            .collect();
        plot::Curve { label: label.to_string(), points, model: vec![] }
    };
    let curves = match summary_formulas(results) {
        SummaryFormulas::SingleLevel => {
            [best, formula("young", "Young (1974)"), formula("daly-high-order", "Daly (2006) eq. 37")]
        }
        SummaryFormulas::TwoLevel => [
            best,
            formula("young", "first order P*(n)/n (MODELS.md §4)"),
            formula("optimal", "exact two-level optimum"),
        ],
    };
    let span = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max) / xs.iter().copied().fold(f64::INFINITY, f64::min);
    let duration = crate::scenario::parse_duration_s(&results[0].0.labels[0].1).is_ok();
    // A wide span of positive values reads on a log scale; a sweep from 0 ("off" against
    // "on": `failures.burst.branching = [0, 0.5]`, `job.downtime = ["0 s", ...]`) on a linear
    // one (it had no plot at all). Durations are labelled with their unit.
    let log = xs.iter().all(|x| *x > 0.0) && span > 10.0;
    let (map, unmap): (&dyn Fn(f64) -> f64, &dyn Fn(f64) -> f64) =
        if log { (&|v: f64| v.log10(), &|v: f64| 10f64.powf(v)) } else { (&|v: f64| v, &|v: f64| v) };
    // A linear axis of durations counts one unit throughout, that of the largest value, ticked
    // at its round multiples: plotters' steps of seconds read 0 s, 3.33 min, 6.67 min and
    // 100 s, 2.5 min. A log axis names each tick's own unit (30 s, 1 min, 2 h).
    let linear_unit = (duration && !log).then(|| duration_unit(xs.iter().fold(0.0, |m: f64, x| m.max(x.abs()))));
    let label = |v: f64| {
        let v = unmap(v);
        match (duration, linear_unit) {
            (true, Some((unit, scale))) => format!("{} {unit}", plot::number_label(v / scale)),
            (true, None) => {
                let (unit, scale) = duration_unit(v);
                format!("{} {unit}", plot::tick_label(v / scale))
            }
            (false, _) => plot::tick_label(v),
        }
    };
    let mut notes: Vec<&str> = if duration { vec![] } else { figures::number_unit(&key).into_iter().collect() };
    if log {
        notes.push("log scale");
    }
    let desc = if notes.is_empty() { key.clone() } else { format!("{key} ({})", notes.join(", ")) };
    let x = plot::Axis { desc: &desc, map, label: &label, log, unit: linear_unit.map(|u| u.1) };
    let title = format!("{}\nbest interval by {key}", study_title(scenario));
    let legend = plot::emptiest_corner(&curves, map);
    let marks =
        plot::Marks { band: Some("range not significantly worse than the best (shaded)"), ..Default::default() };
    Some(plot::curves_svg(&title, &x, "checkpoint interval (min)", true, legend, &curves, &marks).map_err(Error::Usage))
}

/// One search as Markdown, ready to paste: a line with the best interval, its range and the
/// overhead there, then a table of the formulas' intervals and regrets.
pub fn optimum_markdown(heading: &str, point: &Point, seed: u64, o: &crate::optimize::Optimum) -> String {
    let unit = duration_unit(o.best_interval_s);
    let f = |s: f64| format!("{:.3} {}", s / unit.1, unit.0);
    let mut out = format!(
        "**{heading}** ({}{}): {} replications per candidate (common random numbers), seed {seed}. Best interval \
         **{}** (not significantly worse: {}), overhead {:.5} ± {:.5}.\n\n",
        point.failures.describe(),
        level2_summary(std::iter::once(point)).map(|l| format!("; {l}")).unwrap_or_default(),
        o.replications,
        f(o.best_interval_s),
        optimum_range(o, &f),
        o.best_overhead_mean,
        o.best_overhead_half_width
    );
    out.push_str("| formula | interval | overhead | regret | 95% CI of the regret | verdict | var. red. |\n");
    out.push_str("| --- | ---: | ---: | ---: | ---: | :---: | ---: |\n");
    for r in &o.formulas {
        out.push_str(&format!(
            "| {} | {} | {:.5} | {} | [{}, {}] | {} | {:.0}× |\n",
            r.name,
            f(r.interval_s),
            r.overhead_mean,
            signed5(r.regret),
            signed5(r.regret_ci_low),
            signed5(r.regret_ci_high),
            r.verdict().word(),
            r.variance_reduction
        ));
    }
    out.push('\n');
    out.push_str(VERDICT_LEGEND.join(" ").trim_end_matches(';'));
    out.push_str(&format!(". {}{}.", judged_note(o)[..1].to_uppercase(), &judged_note(o)[1..]));
    if o.chunks.is_some() {
        out.push(' ');
        out.push_str(&OPTIMUM_CHUNKS_NOTE.join(" "));
    }
    out.push('\n');
    out
}

/// Several searches as one Markdown table, one row per case: its swept values, the best
/// interval and its range, the overhead there, and Young's and Daly eq. 37's regret with
/// their 95% intervals.
pub fn optimum_cases_markdown(
    scenario: &Scenario,
    seed: u64,
    results: &[(crate::optimize::Case<'_>, crate::optimize::Optimum)],
) -> String {
    let replications = results.first().map_or(0, |(_, o)| o.replications);
    let keys: Vec<String> =
        results.first().map(|(c, _)| c.labels.iter().map(|(k, _)| format!("`{k}`")).collect()).unwrap_or_default();
    let mut head: Vec<String> = vec!["case".into()];
    head.extend(keys);
    let second = summary_formulas(results);
    head.extend(
        ["best interval", "not significantly worse", "overhead", second.young_header(true), second.header(true)]
            .map(String::from),
    );
    let mut out = format!(
        "**{}**: {} searches, {replications} replications per candidate (common random numbers), seed {seed}.\n\n| {} |\n|{}|\n",
        scenario.name,
        results.len(),
        head.join(" | "),
        head.iter().map(|_| " ---: ").collect::<Vec<_>>().join("|")
    );
    for (case, o) in results {
        let unit = duration_unit(o.best_interval_s);
        let regret = |name: &str| {
            o.formulas.iter().find(|r| r.name == name).map_or(String::new(), |r| {
                format!(
                    "{} [{}, {}] {}",
                    signed5(r.regret),
                    signed5(r.regret_ci_low),
                    signed5(r.regret_ci_high),
                    r.verdict().word()
                )
            })
        };
        let mut cells = vec![case.index.to_string()];
        cells.extend(case.labels.iter().map(|(_, v)| v.clone()));
        cells.extend([
            format!("{:.3} {}", o.best_interval_s / unit.1, unit.0),
            chunk_range_cell(o, unit),
            format!("{:.5} ± {:.5}", o.best_overhead_mean, o.best_overhead_half_width),
            regret("young"),
            regret(second.name()),
        ]);
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out.push_str(&format!(
        "\nRegret = overhead at the formula's interval − at the best, paired over the same failure streams, with \
         its 95% CI; {} W/k = the work in k equal chunks.\n",
        VERDICT_LEGEND.join(" ")
    ));
    out
}

/// A summary of several searches for the terminal, fit to [`FIT_COLUMNS`]: one row per case
/// with its swept values, the best interval and its range, the overhead there, and Young's and
/// Daly eq. 37's regret.
pub fn optimum_cases_table(
    scenario: &Scenario,
    seed: u64,
    results: &[(crate::optimize::Case<'_>, crate::optimize::Optimum)],
) -> String {
    optimum_cases_table_with(scenario, seed, results, TableWidth::Fit)
}

/// [`optimum_cases_table`] at `width`: fit to [`FIT_COLUMNS`], or with every column and
/// five decimals ([`TableWidth::Wide`]).
pub fn optimum_cases_table_with(
    scenario: &Scenario,
    seed: u64,
    results: &[(crate::optimize::Case<'_>, crate::optimize::Optimum)],
    width: TableWidth,
) -> String {
    match width {
        TableWidth::Fit => table::fit_optimum_cases_table(scenario, seed, results),
        TableWidth::Wide => wide_optimum_cases_table(scenario, seed, results),
    }
}

/// The table of [`optimum_cases_table_with`] at [`TableWidth::Wide`].
fn wide_optimum_cases_table(
    scenario: &Scenario,
    seed: u64,
    results: &[(crate::optimize::Case<'_>, crate::optimize::Optimum)],
) -> String {
    let replications = results.first().map_or(0, |(_, o)| o.replications);
    let mut out = format!(
        "{}: {} searches, {} replications per candidate (common random numbers), seed {}\n\n",
        scenario.name,
        results.len(),
        replications,
        seed
    );
    let keys: Vec<String> =
        results.first().map(|(c, _)| c.labels.iter().map(|(k, _)| k.clone()).collect()).unwrap_or_default();
    let mut rows: Vec<Vec<String>> = vec![];
    let mut header: Vec<String> = vec!["case".into()];
    header.extend(keys.iter().cloned());
    let second = summary_formulas(results);
    header.extend(
        ["best interval", "not sig. worse", "overhead", second.young_header(false), second.header(false)]
            .map(String::from),
    );
    rows.push(header);
    for (case, o) in results {
        let unit = duration_unit(o.best_interval_s);
        let f = |s: f64| format!("{:.3} {}", s / unit.1, unit.0);
        let regret = |name: &str| {
            o.formulas
                .iter()
                .find(|r| r.name == name)
                .map_or("—".to_string(), |r| format!("{} {}", signed5(r.regret), r.verdict().word()))
        };
        let mut row = vec![case.index.to_string()];
        row.extend(case.labels.iter().map(|(_, v)| v.clone()));
        row.extend([
            f(o.best_interval_s),
            chunk_range_cell(o, unit),
            format!("{:.5} ± {:.5}", o.best_overhead_mean, o.best_overhead_half_width),
            regret("young"),
            regret(second.name()),
        ]);
        rows.push(row);
    }
    out.push_str(&aligned_table(&rows, &|_| false));
    out.push_str(
        "\n  regret = overhead at the formula's interval − at the best, paired over the same failure streams,\n  worse where its 95% CI lies above 0, tie where it holds 0, better where below 0; W/k = the work in k\n  equal chunks; each case's curve and every formula's regret with its 95% interval are in the files written.\n",
    );
    out
}

/// Which formulas the summaries of several searches compare with Young's: Daly eq. 37 for
/// single-level searches, the exact two-level optimum where every case has two levels (the
/// Daly rules have no two-level form).
#[derive(Debug, Clone, Copy, PartialEq)]
enum SummaryFormulas {
    SingleLevel,
    TwoLevel,
}

impl SummaryFormulas {
    /// The second formula's name in [`crate::optimize::FormulaRegret::name`].
    fn name(self) -> &'static str {
        match self {
            SummaryFormulas::SingleLevel => "daly-high-order",
            SummaryFormulas::TwoLevel => "optimal",
        }
    }

    /// The header of the `young` formula's regret column, in Markdown or in the terminal
    /// (with two levels, `young` is the first order's P*(n)/n).
    fn young_header(self, markdown: bool) -> &'static str {
        match (self, markdown) {
            (SummaryFormulas::SingleLevel, true) => "Young regret",
            (SummaryFormulas::TwoLevel, true) => "first-order P*(n)/n regret",
            (_, false) => "young regret",
        }
    }

    /// Its regret column's header, in Markdown or in the terminal.
    fn header(self, markdown: bool) -> &'static str {
        match (self, markdown) {
            (SummaryFormulas::SingleLevel, true) => "Daly eq. 37 regret",
            (SummaryFormulas::SingleLevel, false) => "daly-high-order regret",
            (SummaryFormulas::TwoLevel, true) => "exact two-level optimum regret",
            (SummaryFormulas::TwoLevel, false) => "optimal regret",
        }
    }
}

/// [`SummaryFormulas`] of `results`.
fn summary_formulas(results: &[(crate::optimize::Case<'_>, crate::optimize::Optimum)]) -> SummaryFormulas {
    if !results.is_empty() && results.iter().all(|(c, _)| c.point.two_level.is_some()) {
        SummaryFormulas::TwoLevel
    } else {
        SummaryFormulas::SingleLevel
    }
}

/// The range not significantly worse for a summary cell: `25.063–26.667 min (W/133–W/125)`.
fn chunk_range_cell(o: &crate::optimize::Optimum, unit: (&str, f64)) -> String {
    let ends = format!("{:.3}–{:.3} {}", o.interval_ci_low_s / unit.1, o.interval_ci_high_s / unit.1, unit.0);
    match o.chunks {
        Some((k, l)) if k == l => format!("{ends} (W/{k})"),
        Some((k, l)) => format!("{ends} (W/{k}–W/{l})"),
        None => ends,
    }
}

/// The candidates `optimize` evaluated, as CSV: `interval_s,overhead_mean,overhead_ci_low,overhead_ci_high`.
pub fn optimum_csv(o: &crate::optimize::Optimum) -> String {
    let mut out = String::from("interval_s,overhead_mean,overhead_ci_low,overhead_ci_high\n");
    for (t, h, w) in &o.curve {
        let cells = [*t, *h, h - w, h + w].map(csv_number);
        out.push_str(&format!("{}\n", cells.join(",")));
    }
    out
}

/// Intervals of the log-spaced grid between a curve's first and last swept interval on which
/// the overhead plot evaluates the closed form.
const OVERHEAD_MODEL_GRID: usize = 48;

/// Bins of the wall-time histogram plot.
const WALL_BINS: usize = 50;

/// The optimize plot shows intervals within this factor of the best.
const OPTIMUM_PLOT_SPAN: f64 = 2.5;

/// The plot of `optimize` for `point` (titled `heading`): the paired curve with its band, the
/// formulas and the best interval marked, the intervals not significantly worse shaded.
pub fn optimum_svg(heading: &str, point: &Point, o: &crate::optimize::Optimum) -> Result<String> {
    let curve = plot::Curve {
        label: format!("simulated, {} replications each", o.replications),
        // The region around the optimum: the far scan points would flatten the minimum.
        points: o
            .curve
            .iter()
            .filter(|(t, _, _)| {
                *t >= o.best_interval_s / OPTIMUM_PLOT_SPAN && *t <= o.best_interval_s * OPTIMUM_PLOT_SPAN
            })
            .map(|(t, h, w)| (*t, *h, h - w, h + w))
            .collect(),
        model: vec![],
    };
    let mut markers: Vec<(String, f64)> = o.formulas.iter().map(|f| (f.name.to_string(), f.interval_s)).collect();
    markers.push(("best".into(), o.best_interval_s));
    let title = format!(
        "{heading}\noverhead against the checkpoint interval near the best; failures: {}",
        point.failures.describe()
    );
    let range = Some(("not significantly worse than the best", o.interval_ci_low_s, o.interval_ci_high_s));
    plot::overhead_svg(&title, &[curve], &plot::Marks { lines: &markers, range, band: None }).map_err(Error::Usage)
}

/// The terminal table of `ckptsim optimize` for `point` (its first line starts `heading`),
/// fit to [`FIT_COLUMNS`].
pub fn optimum_table(heading: &str, point: &Point, seed: u64, o: &crate::optimize::Optimum) -> String {
    optimum_table_with(heading, point, seed, o, TableWidth::Fit)
}

/// [`optimum_table`] at `width`: fit to [`FIT_COLUMNS`], or with five decimals and each note
/// on its lines as written ([`TableWidth::Wide`]).
pub fn optimum_table_with(
    heading: &str,
    point: &Point,
    seed: u64,
    o: &crate::optimize::Optimum,
    width: TableWidth,
) -> String {
    match width {
        TableWidth::Fit => table::fit_optimum_table(heading, point, seed, o),
        TableWidth::Wide => wide_optimum_table(heading, point, seed, o),
    }
}

/// The table of [`optimum_table_with`] at [`TableWidth::Wide`].
fn wide_optimum_table(heading: &str, point: &Point, seed: u64, o: &crate::optimize::Optimum) -> String {
    let unit = duration_unit(o.best_interval_s);
    let f = |s: f64| format!("{:.3} {}", s / unit.1, unit.0);
    let mut out = format!(
        "{heading}: {}\n{}  {} replications per candidate (common random numbers), seed {}\n\n",
        point.failures.describe(),
        level2_summary(std::iter::once(point)).map(|l| format!("  {l}\n")).unwrap_or_default(),
        o.replications,
        seed
    );
    out.push_str(&format!(
        "  best interval  {}   (not significantly worse: {})\n  overhead       {:.5} ± {:.5}\n\n",
        f(o.best_interval_s),
        optimum_range(o, &f),
        o.best_overhead_mean,
        o.best_overhead_half_width
    ));
    out.push_str(&format!(
        "  {:<16} {:>14} {:>10} {:>31} {:>7} {:>10}\n",
        "formula", "interval", "overhead", "regret (95% CI)", "verdict", "var. red."
    ));
    for r in &o.formulas {
        out.push_str(&format!(
            "  {:<16} {:>14} {:>10.5} {:>10} [{}, {}] {:>7} {:>9.0}×\n",
            r.name,
            f(r.interval_s),
            r.overhead_mean,
            signed5(r.regret),
            signed5(r.regret_ci_low),
            signed5(r.regret_ci_high),
            r.verdict().word(),
            r.variance_reduction
        ));
    }
    out.push_str(
        "\n  regret = overhead at the formula's interval − at the best, paired over the same failure streams;\n",
    );
    out.push_str(&format!("  {}\n  {}\n", VERDICT_LEGEND[0], VERDICT_LEGEND[1]));
    out.push_str("  var. red. = variance of that difference with independent streams ÷ with common random numbers;\n");
    out.push_str(&format!("  {}.\n", judged_note(o)));
    if o.chunks.is_some() {
        for line in OPTIMUM_CHUNKS_NOTE {
            out.push_str(&format!("  {line}\n"));
        }
    }
    out
}

/// Why a formula inside the range of the best can still be worse, said under every table
/// whose range is of equal chunkings: its lines, without indent.
const OPTIMUM_CHUNKS_NOTE: [&str; 2] = [
    "W/k = the work in k equal chunks: the range holds those not significantly worse; an interval between",
    "two of them ends in a short chunk, costs up to one more write, and can be worse inside the range.",
];

/// What the verdict column says: its legend, one line.
const VERDICT_LEGEND: [&str; 2] = [
    "verdict = worse where the regret's 95% CI lies above 0, tie where it holds 0, better where it lies below 0",
    "(the formula's interval beat the search's best on fresh replications);",
];

/// Which replications each number of an optimum comes from, in words.
fn judged_note(o: &crate::optimize::Optimum) -> String {
    let (a, b) = (o.judged_on.start, o.judged_on.end);
    if a == 0 {
        format!(
            "overheads and regrets on the search's own replications 0–{} (the best was infeasible on fresh ones)",
            b.saturating_sub(1)
        )
    } else {
        format!(
            "overheads and regrets on fresh replications {a}–{}, not on the search's 0–{} that chose the best \
             (the range and the curve are on those)",
            b - 1,
            a - 1
        )
    }
}

/// The range of intervals not significantly worse than the best, with its chunk counts
/// where it is made of equal chunkings W/k: `25.063 min to 26.667 min (W/133 to W/125)`.
fn optimum_range(o: &crate::optimize::Optimum, f: &dyn Fn(f64) -> String) -> String {
    let ends = format!("{} to {}", f(o.interval_ci_low_s), f(o.interval_ci_high_s));
    match o.chunks {
        Some((k, l)) if k == l => format!("{ends} (W/{k})"),
        Some((k, l)) => format!("{ends} (W/{k} to W/{l})"),
        None => ends,
    }
}

#[cfg(test)]
mod tests {
    use super::signed5;

    /// Side-by-side duration columns share one unit: a p50 of 93.6 h beside a p95 of 4.2 d
    /// read as the larger (weibull-platform-fresh's table did); huge values go scientific.
    #[test]
    fn side_by_side_durations_share_a_unit() {
        let (unit, cells) = super::duration_columns(&[&[337_117.0, 319_000.0], &[365_167.0, 351_000.0]]);
        assert_eq!(unit, "d");
        assert_eq!(cells, [["3.902", "3.692"], ["4.226", "4.062"]]);
        let (unit, cells) = super::duration_columns(&[&[86_400.0, 8.7e49]]);
        assert_eq!(unit, "d");
        assert_eq!(cells[0][1], "1.007e45");
    }

    /// A regret that rounds to zero keeps its sign and digits; others print to five decimals.
    #[test]
    fn regrets_that_round_to_zero_keep_their_sign() {
        assert_eq!(signed5(-9.817e-7), "-9.8e-7");
        assert_eq!(signed5(4.2e-6), "+4.2e-6");
        assert_eq!(signed5(0.00015), "+0.00015");
        assert_eq!(signed5(-0.0003), "-0.00030");
        assert_eq!(signed5(0.0), "+0.00000");
    }

    /// CSV numbers are short and exact: exponent notation outside [1e-5, 1e16), where plain
    /// notation spelled 1e200 with 201 digits, plain inside it; every text reads back as the
    /// same f64, and the notation switches where serde_json's does.
    #[test]
    fn csv_numbers_are_short_and_read_back_exactly() {
        use super::csv_number;
        let cases = [
            (5.0, "5"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (0.0, "0"),
            (1e-5, "0.00001"),
            (9.999e-6, "9.999e-6"),
            (1.3e-6, "1.3e-6"),
            (-9.271e-6, "-9.271e-6"),
            (1e15, "1000000000000000"),
            (1e16, "1e16"),
            (1e200, "1e200"),
            (1e-300, "1e-300"),
            (f64::MIN_POSITIVE / 4.0, "5.562684646268003e-309"),
            (f64::INFINITY, "inf"),
        ];
        for (x, text) in cases {
            assert_eq!(csv_number(x), text, "{x:e}");
            assert_eq!(text.parse::<f64>().unwrap(), x, "{text} reads back");
            let json = serde_json::to_string(&x).unwrap();
            if x.is_finite() {
                assert_eq!(json.contains('e'), text.contains('e'), "{text} against JSON {json}");
            }
        }
        assert!(csv_number(0.1 + 0.2).parse::<f64>().unwrap() == 0.1 + 0.2);
    }
}
