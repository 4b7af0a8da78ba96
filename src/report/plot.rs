//! SVG plots (plotters' SVG backend, no system library): overhead against interval with its
//! 95% band, the closed form and the formulas' intervals marked; the wall-time distribution.

use plotters::coord::ranged1d::{BoldPoints, KeyPointHint, LightPoints, NoDefaultFormatting, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

/// One curve of overhead against interval.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// Legend text.
    pub label: String,
    /// (interval s, mean, 95% low, 95% high), increasing in interval.
    pub points: Vec<(f64, f64, f64, f64)>,
    /// The closed form at the same intervals, where one applies.
    pub model: Vec<(f64, f64)>,
}

const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
];

fn plot_error(e: impl std::fmt::Display) -> String {
    format!("plotting failed: {e}")
}

/// Characters of a title that fit the 800-pixel-wide figures at the full caption size.
const CAPTION_CHARS: usize = 80;

/// The caption's font size for `title`: 20, smaller for a longer title so that it fits the
/// width (`optimize` titles a sweep case's plot with its failure model, over 100 characters
/// for `rack-events.toml`, and the title ran off both edges), down to 10.
pub fn caption_size(title: &str) -> f64 {
    let n = title.chars().count().max(1);
    (20.0 * CAPTION_CHARS as f64 / n as f64).clamp(10.0, 20.0)
}

/// Overhead against interval (minutes, log scale), each curve with its 95% band and, dashed,
/// its closed form; the `marks` at intervals in seconds.
pub fn overhead_svg(title: &str, curves: &[Curve], marks: &Marks) -> Result<String, String> {
    // x is log10(interval in minutes) on a linear axis, ticked at round minutes.
    let x = Axis {
        desc: "checkpoint interval (min, log scale)",
        map: &|s| (s / 60.0).log10(),
        label: &|v| tick_label(10f64.powf(v)),
        log: true,
    };
    curves_svg(title, &x, "overhead = wall / work − 1", true, SeriesLabelPosition::UpperLeft, curves, marks)
}

/// What a figure marks on its x axis: dashed vertical lines at `lines` (name, x), and a shaded
/// range (legend text, x low, x high), such as the intervals not significantly worse than
/// `optimize`'s best.
#[derive(Debug, Clone, Copy, Default)]
pub struct Marks<'a> {
    /// (name, x) of each dashed line.
    pub lines: &'a [(String, f64)],
    /// (legend text, low x, high x) of the shaded range.
    pub range: Option<(&'a str, f64, f64)>,
}

/// The x axis of [`curves_svg`]: its description, the map from a data value to the plotted
/// coordinate (for example log10), and the tick label of a plotted coordinate.
pub struct Axis<'a> {
    /// The axis title.
    pub desc: &'a str,
    /// Data value → plotted coordinate.
    pub map: &'a dyn Fn(f64) -> f64,
    /// Plotted coordinate → tick label.
    pub label: &'a dyn Fn(f64) -> String,
    /// Whether the plotted coordinate is log10 of the number the tick labels show: the ticks
    /// then stand at round values ([`log_ticks`]), where plotters' round steps of the
    /// logarithm (10^0.2 apart) were labelled 2.51, 3.98, 6.31 and read as data.
    pub log: bool,
}

/// A linear f64 axis with given ticks (labelled) and grid lines: plotters' `WithKeyPoints`
/// over an f64 range has no label formatter, so the mesh would not build.
struct Ticked {
    inner: RangedCoordf64,
    bold: Vec<f64>,
    light: Vec<f64>,
}

impl Ranged for Ticked {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() { self.light.clone() } else { self.bold.clone() }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.inner.range()
    }

    fn axis_pixel_range(&self, limit: (i32, i32)) -> std::ops::Range<i32> {
        self.inner.axis_pixel_range(limit)
    }
}

impl ValueFormatter<f64> for Ticked {
    fn format(value: &f64) -> String {
        tick_label(*value)
    }
}

/// `x` to at most `digits` significant digits, without trailing zeros ("0.25", "120",
/// "0.2305"), in exponent form below 0.001 and from 10⁶ up ("2e-5"); 0 as "0".
pub fn significant(x: f64, digits: i32) -> String {
    fn trim(s: &str) -> &str {
        if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { s }
    }
    let a = x.abs();
    if a == 0.0 || !a.is_finite() {
        return format!("{}", if a == 0.0 { 0.0 } else { x });
    }
    if !(1e-3..1e6).contains(&a) {
        let precision = (digits - 1).max(0) as usize;
        let s = format!("{x:.precision$e}");
        let (m, e) = s.split_once('e').expect("exponent form");
        return format!("{}e{e}", trim(m));
    }
    let decimals = (digits - 1 - a.log10().floor() as i32).max(0) as usize;
    trim(&format!("{x:.decimals$}")).to_string()
}

/// `x` to at most three significant digits, without trailing zeros: 0.25, 0.5, 2, 15.8, 251;
/// whole numbers from 100 up, exponent form below 0.001 and from 10⁶ up.
pub fn tick_label(x: f64) -> String {
    significant(x, 3)
}

/// A linear axis' tick `x` (a round step chosen by plotters) without float noise or trailing
/// zeros: 120 rather than 120.0, 0.2305 rather than 0.23049999999999998; six significant
/// digits, more than any tick step needs.
pub fn number_label(x: f64) -> String {
    significant(x, 6)
}

/// Mantissas of the round values per decade, coarsest first.
const MANTISSAS: [&[f64]; 4] =
    [&[1.0], &[1.0, 2.0, 5.0], &[1.0, 2.0, 3.0, 5.0], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]];

/// The values m·10^k (m in `mantissas`) within lo..=hi.
fn decade_values(lo: f64, hi: f64, mantissas: &[f64]) -> Vec<f64> {
    let tol = 1e-9;
    let mut out = vec![];
    for k in lo.log10().floor() as i32..=hi.log10().ceil() as i32 {
        for m in mantissas {
            // 10^k as a division for negative k: 0.5 rather than 5 × 0.1 = 0.5000000000000001.
            let v = if k < 0 { m / 10f64.powi(-k) } else { m * 10f64.powi(k) };
            if v >= lo * (1.0 - tol) && v <= hi * (1.0 + tol) {
                out.push(v);
            }
        }
    }
    out
}

/// The ticks of a log axis over lo..hi (both > 0, in the values the labels show) whose points
/// stand at `values`, as (labelled, grid-only): the values themselves when there are at most
/// eight, each round to three significant digits and not crowded (a sweep over factors 0.25,
/// 0.5, 1, 2, 4); else the coarsest of 1, 1-2-5, 1-2-3-5 and 1–9 multiples per decade that
/// gives four ticks; else, on a span too narrow for those, round linear steps.
pub fn log_ticks(lo: f64, hi: f64, values: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let span = (hi / lo).log10();
    let mut vs: Vec<f64> = values.iter().copied().filter(|v| v.is_finite() && *v >= lo && *v <= hi).collect();
    vs.sort_by(f64::total_cmp);
    vs.dedup_by(|a, b| (*a - *b).abs() <= 1e-9 * b.abs());
    let round = |v: &f64| {
        let p = 10f64.powi(v.log10().floor() as i32 - 2);
        ((v / p).round() * p - v).abs() <= 1e-9 * v
    };
    let apart = vs.windows(2).all(|w| (w[1] / w[0]).log10() >= span / 15.0);
    let grid = |bold: &[f64]| -> Vec<f64> {
        if span < 0.3 {
            return vec![];
        }
        decade_values(lo, hi, MANTISSAS[3])
            .into_iter()
            .filter(|v| bold.iter().all(|b| (v / b).log10().abs() > span / 200.0))
            .collect()
    };
    if (1..=8).contains(&vs.len()) && vs.iter().all(round) && apart {
        let light = grid(&vs);
        return (vs, light);
    }
    for m in MANTISSAS {
        let bold = decade_values(lo, hi, m);
        if bold.len() >= 4 {
            let light = grid(&bold);
            return (bold, light);
        }
    }
    // Less than a factor of about 1.5: linear steps of 1, 2, 2.5 or 5 × 10^k, about five of them.
    let raw = (hi - lo) / 5.0;
    let p = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0].into_iter().map(|m| m * p).find(|s| *s >= raw).unwrap_or(10.0 * p);
    let bold = ((lo / step).ceil() as i64..=(hi / step).floor() as i64).map(|i| i as f64 * step).collect();
    (bold, vec![])
}

/// Curves of a figure against `x` (each point (x, mean, 95% low, 95% high) in data values),
/// each with its 95% band and, dashed, its closed form; the dashed lines and the shaded range
/// of `marks`. The y axis is titled `y_desc` and starts at 0 or above when `y_floor_zero`; the
/// legend stands at `legend` ([`emptiest_corner`] finds a free one). An error when no point
/// has finite coordinates (no curve, or none with points).
pub fn curves_svg(
    title: &str,
    x: &Axis,
    y_desc: &str,
    y_floor_zero: bool,
    legend: SeriesLabelPosition,
    curves: &[Curve],
    marks: &Marks,
) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let lx = x.map;
        let xs = curves.iter().flat_map(|c| c.points.iter().map(|p| lx(p.0)));
        let (x_lo, x_hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)));
        let x_pad = 0.04 * (x_hi - x_lo).max(1e-3);
        let (x_lo, x_hi) = (x_lo - x_pad, x_hi + x_pad);
        let ys = curves.iter().flat_map(|c| c.points.iter().flat_map(|p| [p.2, p.3]));
        let (y_lo, y_hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| (a.min(y), b.max(y)));
        // The closed form too, within the points' x range (the dashed curve may peak between
        // two simulated points, as the efficiency's on a fine grid does): it was cut off.
        let (y_lo, y_hi) = curves
            .iter()
            .flat_map(|c| c.model.iter())
            .filter(|m| m.1.is_finite() && (x_lo..=x_hi).contains(&lx(m.0)))
            .fold((y_lo, y_hi), |(a, b), m| (a.min(m.1), b.max(m.1)));
        // No point, or none with finite coordinates: plotters looped for ever on such a range.
        if !(x_lo.is_finite() && x_hi.is_finite() && y_lo.is_finite() && y_hi.is_finite()) {
            return Err(format!("nothing to plot in \"{title}\": no point with a finite x and y"));
        }
        let pad = 0.05 * (y_hi - y_lo).max(1e-9);
        let y_bottom = if y_floor_zero { (y_lo - pad).max(0.0) } else { y_lo - pad };
        // The x ticks: round values on a log axis, plotters' own on a linear one.
        let (bold, light) = if x.log {
            let shown: Vec<f64> = curves.iter().flat_map(|c| c.points.iter().map(|p| 10f64.powf(lx(p.0)))).collect();
            let (bold, light) = log_ticks(10f64.powf(x_lo), 10f64.powf(x_hi), &shown);
            (bold.iter().map(|v| v.log10()).collect(), light.iter().map(|v| v.log10()).collect())
        } else {
            let linear = RangedCoordf64::from(x_lo..x_hi);
            (linear.key_points(BoldPoints(11)), linear.key_points(LightPoints::new(11, 110)))
        };
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", caption_size(title)))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(Ticked { inner: (x_lo..x_hi).into(), bold, light }, y_bottom..y_hi + pad)
            .map_err(plot_error)?;
        let label = |v: &f64| (x.label)(*v);
        let y_label = |v: &f64| number_label(*v);
        chart
            .configure_mesh()
            .x_label_formatter(&label)
            .y_label_formatter(&y_label)
            .x_desc(x.desc)
            .y_desc(y_desc)
            .draw()
            .map_err(plot_error)?;
        let grey = RGBColor(90, 90, 90);
        if let Some((text, lo, hi)) = marks.range {
            let (lo, hi) = (lx(lo).max(x_lo), lx(hi).min(x_hi));
            if lo <= hi {
                let shade = grey.mix(0.15).filled();
                chart
                    .draw_series(std::iter::once(Rectangle::new([(lo, y_bottom), (hi, y_hi + pad)], shade)))
                    .map_err(plot_error)?
                    .label(text)
                    .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 20, y + 5)], shade));
            }
        }
        for (i, c) in curves.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let band: Vec<(f64, f64)> =
                c.points.iter().map(|p| (lx(p.0), p.3)).chain(c.points.iter().rev().map(|p| (lx(p.0), p.2))).collect();
            chart.draw_series(std::iter::once(Polygon::new(band, color.mix(0.2)))).map_err(plot_error)?;
            chart
                .draw_series(LineSeries::new(c.points.iter().map(|p| (lx(p.0), p.1)), color.stroke_width(2)))
                .map_err(plot_error)?
                .label(c.label.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
            chart
                .draw_series(c.points.iter().map(|p| Circle::new((lx(p.0), p.1), 3, color.filled())))
                .map_err(plot_error)?;
            if !c.model.is_empty() {
                chart
                    .draw_series(DashedLineSeries::new(
                        c.model.iter().map(|m| (lx(m.0), m.1)),
                        6,
                        4,
                        color.stroke_width(1),
                    ))
                    .map_err(plot_error)?;
            }
        }
        // Markers one pixel apart or less share a line and a label ("daly-high-order, optimal");
        // each label has a row of its own, left to right from the top, on a white box so that
        // it reads across the neighbouring lines (formulas a few minutes apart wrote their
        // names over each other and over each other's lines).
        let mut shown: Vec<(f64, String)> =
            marks.lines.iter().filter(|m| (x_lo..=x_hi).contains(&lx(m.1))).map(|(n, t)| (lx(*t), n.clone())).collect();
        shown.sort_by(|a, b| a.0.total_cmp(&b.0));
        // (x, its pixel column, label)
        let mut groups: Vec<(f64, i32, String)> = vec![];
        for (x, name) in shown {
            let column = chart.backend_coord(&(x, y_bottom)).0;
            match groups.last_mut() {
                Some(g) if column - g.1 <= 1 => g.2 = format!("{}, {name}", g.2),
                _ => groups.push((x, column, name)),
            }
        }
        let (area_x, area_y) = chart.plotting_area().get_pixel_range();
        let font = ("sans-serif", 13).into_font();
        // Each label's box (left, top, right, bottom): right of its line, or left of it where
        // the text would cross the plot's right edge; one row each from the top.
        let mut boxes = vec![];
        for (i, (_, line, name)) in groups.iter().enumerate() {
            let (w, _) = root.estimate_text_size(name, &font.clone().into()).map_err(plot_error)?;
            let w = w as i32 + 4;
            let left = if *line + 3 + w <= area_x.end { line + 3 } else { line - 3 - w };
            let top = area_y.start + 4 + i as i32 * 18;
            boxes.push((left, top, left + w, top + 17));
        }
        // Below the legend where a label would fall under it (plotters draws the legend last).
        let legend_box = legend_box(&root, &legend, (&area_x, &area_y), curves, marks)?;
        let overlaps = |b: &(i32, i32, i32, i32)| {
            b.0 < legend_box.2 && legend_box.0 < b.2 && b.1 < legend_box.3 && legend_box.1 < b.3
        };
        let shift = if boxes.iter().any(overlaps) { legend_box.3 - area_y.start } else { 0 };
        for ((x, _, name), (left, top, right, bottom)) in groups.iter().zip(boxes) {
            chart
                .draw_series(DashedLineSeries::new([(*x, y_bottom), (*x, y_hi + pad)], 3, 3, grey.stroke_width(1)))
                .map_err(plot_error)?;
            let (top, bottom) = (top + shift, bottom + shift);
            root.draw(&Rectangle::new([(left, top), (right, bottom)], WHITE.mix(0.85).filled())).map_err(plot_error)?;
            root.draw(&Text::new(name.clone(), (left + 2, top + 2), font.color(&grey))).map_err(plot_error)?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .position(legend)
            .draw()
            .map_err(plot_error)?;
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}

/// Where plotters puts the legend of `curves` and `marks` at `legend` (a corner) in the plot
/// area `area`, as (left, top, right, bottom) pixels, as its series-label drawing lays it out:
/// 12-pixel text, 30 pixels for the key, a margin of 10, 5 from the area's edges.
fn legend_box(
    root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    legend: &SeriesLabelPosition,
    area: (&std::ops::Range<i32>, &std::ops::Range<i32>),
    curves: &[Curve],
    marks: &Marks,
) -> Result<(i32, i32, i32, i32), String> {
    let font = ("sans-serif", 12).into_font();
    let texts = marks.range.map(|r| r.0).into_iter().chain(curves.iter().map(|c| c.label.as_str()));
    let (mut w, mut h) = (0, 0);
    for t in texts {
        let (tw, th) = root.estimate_text_size(t, &font.clone().into()).map_err(plot_error)?;
        w = w.max(tw as i32);
        // plotters' lines are the font's height apart, 1.25 × its size at least.
        h += (th as i32).max(15);
    }
    let (w, h) = (w + 30 + 20, h + 20);
    let (left, top) = match legend {
        SeriesLabelPosition::UpperRight | SeriesLabelPosition::LowerRight => (area.0.end - w - 5, 0),
        _ => (area.0.start + 5, 0),
    };
    let top = match legend {
        SeriesLabelPosition::LowerLeft | SeriesLabelPosition::LowerRight => area.1.end - h - 5,
        _ => top + area.1.start + 5,
    };
    Ok((left, top, left + w, top + h))
}

/// The corner of the plot area (upper left, upper right, lower right, lower left, in that
/// order of preference) whose box of 45% of the width and 35% of the height holds the fewest
/// points and band ends of `curves`, x mapped by `map`: where a legend hides the least.
pub fn emptiest_corner(curves: &[Curve], map: &dyn Fn(f64) -> f64) -> SeriesLabelPosition {
    let pts: Vec<(f64, f64)> = curves
        .iter()
        .flat_map(|c| c.points.iter().flat_map(|p| [(map(p.0), p.1), (map(p.0), p.2), (map(p.0), p.3)]))
        .collect();
    let range = |v: Vec<f64>| v.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(*x), b.max(*x)));
    let (x_lo, x_hi) = range(pts.iter().map(|p| p.0).collect());
    let (y_lo, y_hi) = range(pts.iter().map(|p| p.1).collect());
    let (w, h) = ((x_hi - x_lo).max(1e-12), (y_hi - y_lo).max(1e-12));
    let count = |left: bool, top: bool| {
        pts.iter()
            .filter(|(x, y)| {
                let fx = (x - x_lo) / w;
                let fy = (y - y_lo) / h;
                (if left { fx <= 0.45 } else { fx >= 0.55 }) && (if top { fy >= 0.65 } else { fy <= 0.35 })
            })
            .count()
    };
    [
        (SeriesLabelPosition::UpperLeft, count(true, true)),
        (SeriesLabelPosition::UpperRight, count(false, true)),
        (SeriesLabelPosition::LowerRight, count(false, false)),
        (SeriesLabelPosition::LowerLeft, count(true, false)),
    ]
    .into_iter()
    .min_by_key(|(_, n)| *n)
    .map_or(SeriesLabelPosition::UpperLeft, |(p, _)| p)
}

/// The wall-time distribution (hours) as bars: `bins` of (low s, high s, count).
pub fn wall_svg(title: &str, bins: &[(f64, f64, u64)]) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (800, 400)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let x_lo = bins.first().map_or(0.0, |b| b.0) / 3600.0;
        let x_hi = bins.last().map_or(1.0, |b| b.1) / 3600.0;
        // Counts on an integer axis: whole-number ticks (an f64 one labelled them 40.0, 35.0).
        let y_hi = (bins.iter().map(|b| b.2).max().unwrap_or(1) as f64 * 1.1).ceil() as u64;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", caption_size(title)))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(x_lo..x_hi.max(x_lo + 1e-9), 0..y_hi.max(1))
            .map_err(plot_error)?;
        let x_label = |v: &f64| number_label(*v);
        chart
            .configure_mesh()
            .x_label_formatter(&x_label)
            .x_desc("wall time (h)")
            .y_desc("replications")
            .draw()
            .map_err(plot_error)?;
        let color = PALETTE[0];
        chart
            .draw_series(
                bins.iter().map(|b| Rectangle::new([(b.0 / 3600.0, 0), (b.1 / 3600.0, b.2)], color.mix(0.6).filled())),
            )
            .map_err(plot_error)?;
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No curve, or curves without points: an error at once (plotters looped for ever on the
    /// infinite range).
    #[test]
    fn nothing_to_plot_is_an_error() {
        let empty = Curve { label: "simulated".into(), points: vec![], model: vec![] };
        for curves in [vec![], vec![empty]] {
            let e = overhead_svg("t", &curves, &Marks::default()).expect_err("nothing to plot");
            assert!(e.contains("nothing to plot"), "{e}");
        }
    }
}
