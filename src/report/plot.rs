//! SVG plots (plotters' SVG backend, no system library): overhead against interval with its
//! 95% band, the closed form and the formulas' intervals marked; the wall-time distribution.

use plotters::coord::ranged1d::{BoldPoints, KeyPointHint, LightPoints, NoDefaultFormatting, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

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

/// Characters of a title's second and further lines (what the figure shows, in words) that
/// fit the 800-pixel-wide figures at [`SUBTITLE_SIZE`].
const SUBTITLE_CHARS: usize = 100;

/// The font size of a title's second and further lines, at most.
const SUBTITLE_SIZE: f64 = 15.0;

/// Pixels above a figure's title.
const TITLE_TOP_PX: i32 = 10;

/// The font size of a title's second or further `line`: 15, smaller for a longer
/// line so that it fits the width, down to 9.
pub fn subtitle_size(line: &str) -> f64 {
    let n = line.chars().count().max(1);
    (SUBTITLE_SIZE * SUBTITLE_CHARS as f64 / n as f64).clamp(9.0, SUBTITLE_SIZE)
}

/// The lines of `title` drawn centred at the top of `area`: the first (the study: the
/// scenario's name and description) at [`caption_size`], the others (what the figure shows,
/// in words) at [`subtitle_size`]; returns the area below them.
fn titled<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
) -> Result<DrawingArea<DB, plotters::coord::Shift>, String> {
    let (width, _) = area.dim_in_pixel();
    let mut y = TITLE_TOP_PX;
    for (i, line) in title.lines().enumerate() {
        let size = if i == 0 { caption_size(line) } else { subtitle_size(line) };
        let style = TextStyle::from(("sans-serif", size).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
        area.draw(&Text::new(line.to_string(), (width as i32 / 2, y), style)).map_err(plot_error)?;
        y += (size * 1.35).ceil() as i32;
    }
    Ok(area.split_vertically(y).1)
}

/// The y axis title of the overhead plots, with its unit.
pub const OVERHEAD_AXIS: &str = "overhead = wall time / work − 1 (fraction of the work)";

/// Overhead against interval (minutes, log scale), each curve with its 95% band and, dashed,
/// its closed form; the `marks` at intervals in seconds.
pub fn overhead_svg(title: &str, curves: &[Curve], marks: &Marks) -> Result<String, String> {
    // x is log10(interval in minutes) on a linear axis, ticked at round minutes.
    let x = Axis {
        desc: "checkpoint interval (min, log scale)",
        map: &|s| (s / 60.0).log10(),
        label: &|v| tick_label(10f64.powf(v)),
        log: true,
        unit: None,
    };
    curves_svg(title, &x, OVERHEAD_AXIS, true, SeriesLabelPosition::UpperLeft, curves, marks)
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
    /// What the curves' shaded bands are, in the legend: [`BAND_LEGEND`] where `None`.
    pub band: Option<&'a str>,
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
    /// On a linear axis, the length in plotted coordinates of the unit its tick labels count
    /// (60 where the coordinate is in seconds and the labels in minutes): the ticks then stand
    /// at round multiples of that unit ([`linear_ticks`]), where plotters' round steps of
    /// seconds were labelled 3.33 min, 6.67 min. None: plotters' own ticks, round steps of the
    /// coordinate itself (fine for plain numbers).
    pub unit: Option<f64>,
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

/// The ticks of a linear axis over lo..hi (plotted coordinates) whose labels count `unit`s
/// (60 for minutes on an axis in seconds), as (labelled, grid-only): the multiples of a step
/// of 1, 2 or 5 × 10^k units, the coarsest such step that gives four to eight ticks (else the
/// finest that gives at most eight), and grid lines a fifth of a step apart (a quarter of a
/// step of 2). Each tick is an integer multiple of a power of ten times `unit`, so that
/// labels divide back to round numbers: 0, 5, 10, 15, 20 min rather than 3.33 min, 6.67 min.
pub fn linear_ticks(lo: f64, hi: f64, unit: f64) -> (Vec<f64>, Vec<f64>) {
    let (a, b) = (lo / unit, hi / unit);
    if !(a.is_finite() && b.is_finite() && b > a && unit > 0.0) {
        return (vec![], vec![]);
    }
    // m × 10^k as an integer m and a power (a division for negative k: 0.2 rather than
    // 2 × 0.1 = 0.20000000000000001), the value of n steps being (n·m) · 10^k.
    let pow = |k: i32| if k < 0 { 1.0 / 10f64.powi(-k) } else { 10f64.powi(k) };
    let scaled = |n: i64, k: i32| if k < 0 { n as f64 / 10f64.powi(-k) } else { n as f64 * 10f64.powi(k) };
    let range = |m: i64, k: i32| {
        let step = m as f64 * pow(k);
        ((a / step).ceil() as i64, (b / step).floor() as i64)
    };
    let count = |(first, last): (i64, i64)| (last - first + 1).max(0);
    let k0 = ((b - a) / 8.0).log10().floor() as i32;
    // Steps from fine to coarse: 1, 2, 5 × 10^(k0 − 1) … 10^(k0 + 2).
    let steps: Vec<(i64, i32)> = (k0 - 1..=k0 + 2).flat_map(|k| [1, 2, 5].map(|m| (m, k))).collect();
    let (m, k) = steps
        .iter()
        .rev()
        .find(|&&(m, k)| (4..=8).contains(&count(range(m, k))))
        .or_else(|| steps.iter().find(|&&(m, k)| count(range(m, k)) <= 8))
        .copied()
        .unwrap_or((1, k0 + 3));
    let (first, last) = range(m, k);
    let bold = (first..=last).map(|n| scaled(n * m, k) * unit).collect();
    // Grid lines: steps of 1 and 5 in fifths (0.2, 1), of 2 in quarters (0.5): sub-steps of
    // 2, 10 or 5 × 10^(k − 1).
    let (sub, per) = match m {
        1 => (2, 5),
        2 => (5, 4),
        _ => (10, 5),
    };
    let step = m as f64 * pow(k);
    let (lo_sub, hi_sub) = ((a * per as f64 / step).ceil() as i64, (b * per as f64 / step).floor() as i64);
    let light = (lo_sub..=hi_sub).filter(|j| j % per != 0).map(|j| scaled(j * sub, k - 1) * unit).collect();
    (bold, light)
}

/// Width and height (pixels) of the figures of [`curves_svg`]; a legend outside the plot
/// area widens the canvas by its own width.
const CURVES_SIZE: (u32, u32) = (800, 500);

/// Pixels between the plot area and a legend outside it, on its right.
const OUTSIDE_GAP: i32 = 10;

/// Pixels around a legend box within which a drawn point or line counts as hidden (markers
/// have a radius of 3, lines a width of 2).
const LEGEND_CLEARANCE: f64 = 3.0;

/// The positions a legend may take inside the plot area, in order of preference after the
/// caller's: the corners, then the edges' middles, then the centre.
const LEGEND_POSITIONS: [SeriesLabelPosition; 9] = [
    SeriesLabelPosition::UpperLeft,
    SeriesLabelPosition::UpperRight,
    SeriesLabelPosition::LowerLeft,
    SeriesLabelPosition::LowerRight,
    SeriesLabelPosition::UpperMiddle,
    SeriesLabelPosition::LowerMiddle,
    SeriesLabelPosition::MiddleLeft,
    SeriesLabelPosition::MiddleRight,
    SeriesLabelPosition::MiddleMiddle,
];

/// The value ranges and x ticks of a [`curves_svg`] figure.
struct Frame {
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
    bold: Vec<f64>,
    light: Vec<f64>,
}

/// What a figure draws, in pixels, that a legend must not hide: markers, line segments (the
/// mean, the band's edges and its bar at each point, the closed form) and bands (per curve,
/// (x, top y, bottom y) at each point, by x).
#[derive(Debug, Default)]
struct Drawn {
    points: Vec<(f64, f64)>,
    segments: Vec<((f64, f64), (f64, f64))>,
    bands: Vec<Vec<(f64, f64, f64)>>,
}

impl Drawn {
    /// What `curves` draw, x mapped by `lx` and every value placed by `pixel`.
    fn of(curves: &[Curve], lx: &dyn Fn(f64) -> f64, pixel: &dyn Fn(f64, f64) -> (f64, f64)) -> Self {
        let mut d = Drawn::default();
        let finite = |x: f64, y: f64| x.is_finite() && y.is_finite();
        let polyline = |d: &mut Drawn, line: Vec<(f64, f64)>| {
            d.segments.extend(line.windows(2).map(|w| (w[0], w[1])));
            line
        };
        for c in curves {
            let pts: Vec<_> =
                c.points.iter().filter(|p| finite(lx(p.0), p.1) && p.2.is_finite() && p.3.is_finite()).collect();
            let means = polyline(&mut d, pts.iter().map(|p| pixel(lx(p.0), p.1)).collect());
            d.points.extend(means);
            let tops = polyline(&mut d, pts.iter().map(|p| pixel(lx(p.0), p.3)).collect());
            let bottoms = polyline(&mut d, pts.iter().map(|p| pixel(lx(p.0), p.2)).collect());
            d.segments.extend(tops.iter().zip(&bottoms).map(|(t, b)| (*t, *b)));
            d.bands.push(tops.iter().zip(&bottoms).map(|(t, b)| (t.0, t.1.min(b.1), t.1.max(b.1))).collect());
            polyline(&mut d, c.model.iter().filter(|m| finite(lx(m.0), m.1)).map(|m| pixel(lx(m.0), m.1)).collect());
        }
        d
    }

    /// How many of the drawn markers, segments and bands the box (left, top, right, bottom)
    /// touches, within [`LEGEND_CLEARANCE`].
    fn hidden_by(&self, b: (i32, i32, i32, i32)) -> usize {
        let c = LEGEND_CLEARANCE;
        let r = (b.0 as f64 - c, b.1 as f64 - c, b.2 as f64 + c, b.3 as f64 + c);
        let points = self.points.iter().filter(|p| r.0 <= p.0 && p.0 <= r.2 && r.1 <= p.1 && p.1 <= r.3).count();
        let segments = self.segments.iter().filter(|(a, z)| segment_meets_box(*a, *z, r)).count();
        // A band that holds the whole box, edges and bars outside it: its centre is inside.
        let (cx, cy) = ((r.0 + r.2) / 2.0, (r.1 + r.3) / 2.0);
        let bands = self
            .bands
            .iter()
            .filter(|band| {
                band.windows(2).any(|w| {
                    let (a, z) = (w[0], w[1]);
                    if !(a.0 <= cx && cx <= z.0 && a.0 < z.0) {
                        return false;
                    }
                    let t = (cx - a.0) / (z.0 - a.0);
                    let (top, bottom) = (a.1 + t * (z.1 - a.1), a.2 + t * (z.2 - a.2));
                    top <= cy && cy <= bottom
                })
            })
            .count();
        points + segments + bands
    }
}

/// Whether the segment a–z meets the box (left, top, right, bottom) (Liang–Barsky clipping).
fn segment_meets_box(a: (f64, f64), z: (f64, f64), r: (f64, f64, f64, f64)) -> bool {
    let (dx, dy) = (z.0 - a.0, z.1 - a.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [(-dx, a.0 - r.0), (dx, r.2 - a.0), (-dy, a.1 - r.1), (dy, r.3 - a.1)] {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
            if t0 > t1 {
                return false;
            }
        }
    }
    true
}

/// Where a figure's legend stands: at a position inside the plot area, or right of the plot
/// area, the canvas widened for it.
#[derive(Debug, Clone, PartialEq)]
enum LegendPlace {
    Inside(SeriesLabelPosition),
    Outside,
}

/// The legend's box (left, top, right, bottom) in pixels at `place`, for a legend of `size`
/// (width, height) beside the plot area `area`, as plotters' series-label drawing lays it
/// out (5 pixels from the area's edges, centred with integer halves).
fn legend_rect(
    place: &LegendPlace,
    size: (i32, i32),
    area: (&std::ops::Range<i32>, &std::ops::Range<i32>),
) -> (i32, i32, i32, i32) {
    use SeriesLabelPosition::*;
    let (w, h) = size;
    let (aw, ah) = (area.0.end - area.0.start, area.1.end - area.1.start);
    let (x, y) = match place {
        LegendPlace::Outside => (aw + OUTSIDE_GAP, 0),
        LegendPlace::Inside(p) => (
            match p {
                UpperLeft | MiddleLeft | LowerLeft => 5,
                UpperMiddle | MiddleMiddle | LowerMiddle => (aw - w) / 2,
                UpperRight | MiddleRight | LowerRight => aw - w - 5,
                Coordinate(x, _) => *x,
            },
            match p {
                UpperLeft | UpperMiddle | UpperRight => 5,
                MiddleLeft | MiddleMiddle | MiddleRight => (ah - h) / 2,
                LowerLeft | LowerMiddle | LowerRight => ah - h - 5,
                Coordinate(_, y) => *y,
            },
        ),
    };
    let (left, top) = (area.0.start + x, area.1.start + y);
    (left, top, left + w, top + h)
}

/// The legend's place: `preferred` if it hides nothing of `drawn`, else the first of
/// [`LEGEND_POSITIONS`] that hides nothing and fits the plot area `area`; where every position
/// hides something, outside the plot area.
fn place_legend(
    preferred: &SeriesLabelPosition,
    size: (i32, i32),
    area: (&std::ops::Range<i32>, &std::ops::Range<i32>),
    drawn: &Drawn,
) -> LegendPlace {
    let fits = size.0 + 10 <= area.0.end - area.0.start && size.1 + 10 <= area.1.end - area.1.start;
    std::iter::once(preferred)
        .chain(LEGEND_POSITIONS.iter().filter(|p| *p != preferred))
        .map(|p| LegendPlace::Inside(p.clone()))
        .find(|p| fits && drawn.hidden_by(legend_rect(p, size, area)) == 0)
        .unwrap_or(LegendPlace::Outside)
}

/// The legend entry of the curves' shaded 95% bands.
pub const BAND_LEGEND: &str = "95% CI (shaded)";

/// The legend entry of the closed forms' dashed lines.
pub const DASHED_LEGEND: &str = "closed form (dashed)";

/// The fewest pixels between neighbouring points of a curve for their intervals to be drawn
/// as bars as well as a band.
const BAR_SPACING_PX: i32 = 12;

/// The opacity of a curve's 95% band.
const BAND_OPACITY: f64 = 0.25;

/// The key of a legend entry: the shaded range's swatch, a curve's line, a line in its band,
/// a dashed line.
#[derive(Clone, Copy)]
enum Key {
    Shade(ShapeStyle),
    Line(RGBColor),
    Band(RGBColor),
    Dashed(RGBColor),
}

impl Key {
    /// The key as the chart's own legend draws it, relative to its middle left end: a swatch
    /// 20 × 10 pixels (its fill), then two lines and their stroke.
    fn parts(self) -> (ShapeStyle, [Vec<(i32, i32)>; 2], ShapeStyle) {
        let none = TRANSPARENT.filled();
        match self {
            Key::Shade(shade) => (shade, [vec![], vec![]], none),
            Key::Line(color) => (none, [vec![(0, 0), (20, 0)], vec![]], color.stroke_width(2)),
            Key::Band(color) => {
                (color.mix(BAND_OPACITY).filled(), [vec![(0, 0), (20, 0)], vec![]], color.stroke_width(2))
            }
            Key::Dashed(color) => (none, [vec![(0, 0), (6, 0)], vec![(10, 0), (16, 0)]], color.stroke_width(1)),
        }
    }

    /// Drawn on `area` with its middle left end at `(x, y)`, as the chart's series labels draw
    /// it (see the `legend` closures in [`curves_svg`]).
    fn draw<DB: DrawingBackend>(
        self,
        area: &DrawingArea<DB, plotters::coord::Shift>,
        (x, y): (i32, i32),
    ) -> Result<(), String> {
        let draw = |points: Vec<(i32, i32)>, style: ShapeStyle| area.draw(&PathElement::new(points, style));
        match self {
            Key::Shade(shade) => area.draw(&Rectangle::new([(x, y - 5), (x + 20, y + 5)], shade)),
            Key::Line(color) => draw(vec![(x, y), (x + 20, y)], color.stroke_width(2)),
            Key::Band(color) => area
                .draw(&Rectangle::new([(x, y - 5), (x + 20, y + 5)], color.mix(BAND_OPACITY).filled()))
                .and_then(|_| draw(vec![(x, y), (x + 20, y)], color.stroke_width(2))),
            Key::Dashed(color) => draw(vec![(x, y), (x + 6, y)], color.stroke_width(1))
                .and_then(|_| draw(vec![(x + 10, y), (x + 16, y)], color.stroke_width(1))),
        }
        .map_err(plot_error)
    }
}

/// Plotters' series labels: 12-pixel text, 30 pixels for the keys, a margin of 10.
const LEGEND_FONT: (&str, u32) = ("sans-serif", 12);
const LEGEND_KEY: i32 = 30;
const LEGEND_MARGIN: i32 = 10;

/// The legend's lines of text, as plotters lays them out with their top left at `at`.
fn legend_text<'a>(entries: &[(&'a str, Key)], at: (i32, i32)) -> MultiLineText<'a, (i32, i32), &'a str> {
    let mut text = MultiLineText::new(at, LEGEND_FONT.into_font());
    for (label, _) in entries {
        text.push_line(*label);
    }
    text
}

/// The (width, height) in pixels of the legend of `entries`, as plotters' series-label
/// drawing sizes it.
fn legend_size(entries: &[(&str, Key)]) -> Result<(i32, i32), String> {
    let (w, h) = legend_text(entries, (0, 0)).estimate_dimension().map_err(plot_error)?;
    Ok((w + LEGEND_KEY + 2 * LEGEND_MARGIN, h + 2 * LEGEND_MARGIN))
}

/// The legend of `entries` in the box `b` (left, top, right, bottom) on `area`, drawn as
/// plotters draws series labels (which it clips to the plot area: a legend outside needs this).
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    b: (i32, i32, i32, i32),
    entries: &[(&str, Key)],
) -> Result<(), String> {
    area.draw(&Rectangle::new([(b.0, b.1), (b.2, b.3)], WHITE.mix(0.85).filled())).map_err(plot_error)?;
    area.draw(&Rectangle::new([(b.0, b.1), (b.2, b.3)], BLACK.mix(0.3))).map_err(plot_error)?;
    let text = legend_text(entries, (b.0 + LEGEND_KEY + LEGEND_MARGIN, b.1 + LEGEND_MARGIN));
    area.draw(&text).map_err(plot_error)?;
    for (((_, y0), (_, y1)), (_, key)) in text.compute_line_layout().map_err(plot_error)?.into_iter().zip(entries) {
        key.draw(area, (b.0 + LEGEND_MARGIN, (y0 + y1) / 2))?;
    }
    Ok(())
}

/// The chart of `frame` on `area` (below the title, [`titled`]), as every [`curves_svg`]
/// figure lays it out.
fn build_chart<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, plotters::coord::Shift>,
    frame: &Frame,
) -> Result<ChartContext<'a, DB, Cartesian2d<Ticked, RangedCoordf64>>, String> {
    let x = Ticked { inner: frame.x.clone().into(), bold: frame.bold.clone(), light: frame.light.clone() };
    ChartBuilder::on(area)
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(x, frame.y.clone())
        .map_err(plot_error)
}

/// Curves of a figure against `x` (each point (x, mean, 95% low, 95% high) in data values),
/// each with its 95% band and, dashed, its closed form; the dashed lines and the shaded range
/// of `marks`. The y axis is titled `y_desc` and starts at 0 or above when `y_floor_zero`.
/// The legend stands at `legend` ([`emptiest_corner`] suggests one) where it hides none of
/// the markers, bands and lines, else at the first of the plot area's corners, edges' middles
/// and centre that hides none, else right of the plot area on a canvas widened for it. An
/// error when no point has finite coordinates (no curve, or none with points).
pub fn curves_svg(
    title: &str,
    x: &Axis,
    y_desc: &str,
    y_floor_zero: bool,
    legend: SeriesLabelPosition,
    curves: &[Curve],
    marks: &Marks,
) -> Result<String, String> {
    let lx = x.map;
    let frame = frame_of(title, x, y_floor_zero, curves)?;
    let (x_lo, x_hi, y_bottom, y_top) = (frame.x.start, frame.x.end, frame.y.start, frame.y.end);
    let grey = RGBColor(90, 90, 90);
    // The shaded range, within the x axis, and the legend: the range first, then each curve.
    let range = marks.range.map(|(text, lo, hi)| (text, lx(lo).max(x_lo), lx(hi).min(x_hi))).filter(|r| r.1 <= r.2);
    let shade = grey.mix(0.15).filled();
    // What the shading and the dashes mean, after the curves, where some curve has them.
    let banded = curves.iter().any(|c| c.points.iter().any(|p| p.2 < p.3));
    let dashed = curves.iter().any(|c| c.model.len() >= 2);
    let band = marks.band.unwrap_or(BAND_LEGEND);
    let keys = [(banded, band, Key::Band(grey)), (dashed, DASHED_LEGEND, Key::Dashed(grey))];
    let entries: Vec<(&str, Key)> = range
        .map(|r| (r.0, Key::Shade(shade)))
        .into_iter()
        .chain(curves.iter().enumerate().map(|(i, c)| (c.label.as_str(), Key::Line(PALETTE[i % PALETTE.len()]))))
        .chain(keys.iter().filter(|k| k.0).map(|k| (k.1, k.2)))
        .collect();
    // Where the legend goes, from where everything lands on the figure's canvas (a legend
    // outside leaves the chart's own canvas as it is): it hid the points in its corner.
    let size = legend_size(&entries)?;
    let place = {
        let mut scratch = String::new();
        let root = SVGBackend::with_string(&mut scratch, CURVES_SIZE).into_drawing_area();
        let body = titled(&root, title)?;
        let chart = build_chart(&body, &frame)?;
        let pixel = |x: f64, y: f64| {
            let (px, py) = chart.backend_coord(&(x, y));
            (px as f64, py as f64)
        };
        let (area_x, area_y) = chart.plotting_area().get_pixel_range();
        place_legend(&legend, size, (&area_x, &area_y), &Drawn::of(curves, lx, &pixel))
    };
    let width = match place {
        LegendPlace::Inside(_) => CURVES_SIZE.0,
        // The chart keeps its 800 pixels; the legend's gap and width come on top, so that it
        // ends as far from the canvas' edge as the plot area did.
        LegendPlace::Outside => CURVES_SIZE.0 + (OUTSIDE_GAP + size.0) as u32,
    };
    let mut svg = String::new();
    {
        let canvas = SVGBackend::with_string(&mut svg, (width, CURVES_SIZE.1)).into_drawing_area();
        canvas.fill(&WHITE).map_err(plot_error)?;
        let (root, _) = canvas.split_horizontally(CURVES_SIZE.0);
        let body = titled(&root, title)?;
        let mut chart = build_chart(&body, &frame)?;
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
        if let Some((text, lo, hi)) = range {
            chart
                .draw_series(std::iter::once(Rectangle::new([(lo, y_bottom), (hi, y_top)], shade)))
                .map_err(plot_error)?
                .label(text)
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 20, y + 5)], shade));
        }
        draw_curves(&mut chart, &root, curves, lx)?;
        for (_, text, key) in keys.into_iter().filter(|k| k.0) {
            chart.draw_series(std::iter::empty::<Circle<(f64, f64), i32>>()).map_err(plot_error)?.label(text).legend(
                move |at| {
                    let (fill, [a, b], stroke) = key.parts();
                    EmptyElement::at(at)
                        + Rectangle::new([(0, -5), (20, 5)], fill)
                        + PathElement::new(a, stroke)
                        + PathElement::new(b, stroke)
                },
            );
        }
        let (area_x, area_y) = chart.plotting_area().get_pixel_range();
        let legend_box = legend_rect(&place, size, (&area_x, &area_y));
        draw_mark_lines(&mut chart, &root, marks.lines, lx, legend_box)?;
        match place {
            LegendPlace::Inside(p) => chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.3))
                .position(p)
                .draw()
                .map_err(plot_error)?,
            LegendPlace::Outside => draw_legend(&canvas, legend_box, &entries)?,
        }
        canvas.present().map_err(plot_error)?;
    }
    Ok(svg)
}

/// Each of `curves` on `chart` (x mapped by `lx`): its 95% band shaded, each point's interval
/// as a bar with caps where the points stand apart, the mean as a line with markers (in the
/// legend), the closed form dashed.
fn draw_curves<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<Ticked, RangedCoordf64>>,
    root: &DrawingArea<DB, plotters::coord::Shift>,
    curves: &[Curve],
    lx: &dyn Fn(f64) -> f64,
) -> Result<(), String> {
    for (i, c) in curves.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let band: Vec<(f64, f64)> =
            c.points.iter().map(|p| (lx(p.0), p.3)).chain(c.points.iter().rev().map(|p| (lx(p.0), p.2))).collect();
        chart.draw_series(std::iter::once(Polygon::new(band, color.mix(BAND_OPACITY)))).map_err(plot_error)?;
        // Each point's interval as a bar with caps, so that a band a pixel or two high shows
        // too; where points crowd (the optimizer's candidates), the band alone.
        let columns: Vec<i32> = c.points.iter().map(|p| chart.backend_coord(&(lx(p.0), p.1)).0).collect();
        let apart = columns.windows(2).all(|w| (w[1] - w[0]).abs() >= BAR_SPACING_PX);
        for p in c.points.iter().filter(|p| apart && p.2 < p.3 && lx(p.0).is_finite()) {
            let (px, low) = chart.backend_coord(&(lx(p.0), p.2));
            let (_, high) = chart.backend_coord(&(lx(p.0), p.3));
            let bar =
                [vec![(px, low), (px, high)], vec![(px - 3, low), (px + 3, low)], vec![(px - 3, high), (px + 3, high)]];
            for line in bar {
                root.draw(&PathElement::new(line, color.stroke_width(1))).map_err(plot_error)?;
            }
        }
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
                .draw_series(DashedLineSeries::new(c.model.iter().map(|m| (lx(m.0), m.1)), 6, 4, color.stroke_width(1)))
                .map_err(plot_error)?;
        }
    }
    Ok(())
}

/// The dashed vertical `lines` (name, x in data values, mapped by `lx`) on `chart`, those within
/// its x range: markers one pixel apart or less share a line and a label, each label on a
/// white box in a row of its own from the top, below the legend's box `legend_box` where one
/// would fall under it.
fn draw_mark_lines<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<Ticked, RangedCoordf64>>,
    root: &DrawingArea<DB, plotters::coord::Shift>,
    lines: &[(String, f64)],
    lx: &dyn Fn(f64) -> f64,
    legend_box: (i32, i32, i32, i32),
) -> Result<(), String> {
    let grey = RGBColor(90, 90, 90);
    let (x_range, y_range) = (chart.x_range(), chart.y_range());
    let (x_lo, x_hi, y_bottom, y_top) = (x_range.start, x_range.end, y_range.start, y_range.end);
    // Markers one pixel apart or less share a line and a label ("daly-high-order, optimal");
    // each label has a row of its own, left to right from the top, on a white box so that
    // it reads across the neighbouring lines (formulas a few minutes apart wrote their
    // names over each other and over each other's lines).
    let mut shown: Vec<(f64, String)> =
        lines.iter().filter(|m| (x_lo..=x_hi).contains(&lx(m.1))).map(|(n, t)| (lx(*t), n.clone())).collect();
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
    let overlaps =
        |b: &(i32, i32, i32, i32)| b.0 < legend_box.2 && legend_box.0 < b.2 && b.1 < legend_box.3 && legend_box.1 < b.3;
    let shift = if boxes.iter().any(overlaps) { legend_box.3 - area_y.start } else { 0 };
    for ((x, _, name), (left, top, right, bottom)) in groups.iter().zip(boxes) {
        chart
            .draw_series(DashedLineSeries::new([(*x, y_bottom), (*x, y_top)], 3, 3, grey.stroke_width(1)))
            .map_err(plot_error)?;
        let (top, bottom) = (top + shift, bottom + shift);
        root.draw(&Rectangle::new([(left, top), (right, bottom)], WHITE.mix(0.85).filled())).map_err(plot_error)?;
        root.draw(&Text::new(name.clone(), (left + 2, top + 2), font.color(&grey))).map_err(plot_error)?;
    }
    Ok(())
}

/// The value ranges and x ticks of a [`curves_svg`] figure of `curves` against `x`: every
/// point and its band, and the closed form within the points' x range, with a margin; the
/// ticks round values on a log axis, round multiples of the labels' unit on a linear one that
/// has one, else plotters' own. An error where no point has finite coordinates.
fn frame_of(title: &str, x: &Axis, y_floor_zero: bool, curves: &[Curve]) -> Result<Frame, String> {
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
    let y_top = y_hi + pad;
    // The x ticks: round values on a log axis, round multiples of the labels' unit on a
    // linear one that has one, else plotters' own.
    let (bold, light) = if x.log {
        let shown: Vec<f64> = curves.iter().flat_map(|c| c.points.iter().map(|p| 10f64.powf(lx(p.0)))).collect();
        let (bold, light) = log_ticks(10f64.powf(x_lo), 10f64.powf(x_hi), &shown);
        (bold.iter().map(|v| v.log10()).collect(), light.iter().map(|v| v.log10()).collect())
    } else if let Some(unit) = x.unit {
        linear_ticks(x_lo, x_hi, unit)
    } else {
        let linear = RangedCoordf64::from(x_lo..x_hi);
        (linear.key_points(BoldPoints(11)), linear.key_points(LightPoints::new(11, 110)))
    };
    Ok(Frame { x: x_lo..x_hi, y: y_bottom..y_top, bold, light })
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
        let canvas = SVGBackend::with_string(&mut svg, (800, 400)).into_drawing_area();
        canvas.fill(&WHITE).map_err(plot_error)?;
        let root = titled(&canvas, title)?;
        let x_lo = bins.first().map_or(0.0, |b| b.0) / 3600.0;
        let x_hi = bins.last().map_or(1.0, |b| b.1) / 3600.0;
        // Counts on an integer axis: whole-number ticks (an f64 one labelled them 40.0, 35.0).
        let y_hi = (bins.iter().map(|b| b.2).max().unwrap_or(1) as f64 * 1.1).ceil() as u64;
        let mut chart = ChartBuilder::on(&root)
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
            .y_desc(WALL_COUNT_AXIS)
            .draw()
            .map_err(plot_error)?;
        let color = PALETTE[0];
        chart
            .draw_series(
                bins.iter().map(|b| Rectangle::new([(b.0 / 3600.0, 0), (b.1 / 3600.0, b.2)], color.mix(0.6).filled())),
            )
            .map_err(plot_error)?;
        canvas.present().map_err(plot_error)?;
    }
    Ok(svg)
}

/// The y axis title of [`wall_svg`], with its unit.
pub const WALL_COUNT_AXIS: &str = "replications (count per bin)";

/// One bar of a stacked bar chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// The bar's label (drawn left of the bar), e.g. "0  packed ×0.5".
    pub label: String,
    /// The stacked parts' values (≥ 0, finite), in the order of the chart's part names.
    pub parts: Vec<f64>,
    /// A 95% interval of the bar's total, drawn as a whisker at the bar's end, if any.
    pub total_ci: Option<(f64, f64)>,
}

/// The parts' colours of [`stacked_bars_svg`], in part order: a neutral grey, then the
/// Okabe–Ito colours (told apart with any colour vision; their black is the whiskers', and
/// the pale yellow comes last).
const PART_COLOURS: [RGBColor; 8] = [
    RGBColor(153, 153, 153),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 158, 115),
    RGBColor(213, 94, 0),
    RGBColor(0, 114, 178),
    RGBColor(204, 121, 167),
    RGBColor(240, 228, 66),
];

/// Height in pixels of a bar of [`stacked_bars_svg`], and of a bar's row (the bar and the gap
/// below it).
const BAR_HEIGHT_PX: i32 = 20;
const BAR_ROW_PX: i32 = 30;

/// Half the height in pixels of a whisker's end caps.
const CAP_HALF_PX: i32 = 5;

/// The bars' labels: font size, and pixels between a label and the plot area.
const BAR_LABEL_SIZE: u32 = 13;
const BAR_LABEL_GAP_PX: i32 = 8;

/// The plot area of [`stacked_bars_svg`] is at least this wide (pixels), the chart's canvas
/// (before the legend) at least 800 pixels.
const BARS_MIN_PLOT_WIDTH_PX: i32 = 480;

/// A generous estimate of the width in pixels of `text` in plotters' sans-serif font of
/// `size` (which the SVG backend writes as `size / 1.24` pixels) as DejaVu Sans draws it,
/// wider than Arial or Helvetica: plotters' own estimate without a font library counts
/// 0.56 em a byte, short of DejaVu's digits and capitals (0.64 to 1 em) on ASCII text.
fn text_width_px(text: &str, size: u32) -> i32 {
    let ems: f64 = text
        .chars()
        .map(|c| match c {
            ' ' | 'i' | 'j' | 'l' | 'I' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | '(' | ')' | '[' | ']' | 'f'
            | 't' | 'r' => 0.42,
            'm' | 'w' | 'M' | 'W' | '%' | '@' => 1.0,
            c if c.is_uppercase() => 0.78,
            _ => 0.66,
        })
        .sum();
    (ems * size as f64 / 1.24).ceil() as i32
}

/// `text` with each space that follows a space made a no-break space: SVG collapses a run
/// of spaces into one, and labels such as "0  packed ×0.5" lost their gap.
fn kept_spaces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut previous = None;
    for c in text.chars() {
        out.push(if c == ' ' && previous == Some(' ') { '\u{a0}' } else { c });
        previous = Some(c);
    }
    out
}

/// Pixels around the chart of [`stacked_bars_svg`], as around those of [`curves_svg`].
const BARS_MARGIN_PX: i32 = 15;

/// The chart of [`stacked_bars_svg`] on `area` (below its title, [`titled`]): the value axis from 0 to `x_hi`
/// below with `ticks` (labelled, grid-only), a bare axis on the left beside `label_area`
/// pixels for the bars' labels.
fn bars_chart<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, plotters::coord::Shift>,
    x_hi: f64,
    ticks: (&[f64], &[f64]),
    label_area: i32,
) -> Result<ChartContext<'a, DB, Cartesian2d<Ticked, Ticked>>, String> {
    let x = Ticked { inner: (0.0..x_hi).into(), bold: ticks.0.to_vec(), light: ticks.1.to_vec() };
    let y = Ticked { inner: (0.0..1.0).into(), bold: vec![], light: vec![] };
    ChartBuilder::on(area)
        .margin(BARS_MARGIN_PX)
        .x_label_area_size(45)
        .y_label_area_size(label_area)
        .build_cartesian_2d(x, y)
        .map_err(plot_error)
}

/// The errors of [`stacked_bars_svg`]'s input: no bar or no part names, more parts than
/// colours, a bar of another number of parts, a part that is negative or not finite, an
/// interval not finite or with its low above its high.
fn check_bars(title: &str, part_names: &[&str], bars: &[Bar]) -> Result<(), String> {
    if bars.is_empty() {
        return Err(format!("nothing to plot in \"{title}\": no bar"));
    }
    if part_names.is_empty() {
        return Err(format!("nothing to plot in \"{title}\": no part names"));
    }
    if part_names.len() > PART_COLOURS.len() {
        return Err(format!(
            "\"{title}\": {} parts, more than the {} colours of a stacked bar chart",
            part_names.len(),
            PART_COLOURS.len()
        ));
    }
    for b in bars {
        if b.parts.len() != part_names.len() {
            return Err(format!(
                "\"{title}\": bar \"{}\" has {} parts, the chart {} ({})",
                b.label,
                b.parts.len(),
                part_names.len(),
                part_names.join(", ")
            ));
        }
        if let Some((name, v)) = part_names.iter().zip(&b.parts).find(|(_, v)| !(v.is_finite() && **v >= 0.0)) {
            return Err(format!("\"{title}\": bar \"{}\" has {name} = {v}, not a finite value ≥ 0", b.label));
        }
        if let Some((lo, hi)) = b.total_ci
            && !(lo.is_finite() && hi.is_finite() && lo <= hi)
        {
            return Err(format!(
                "\"{title}\": bar \"{}\" has the interval ({lo}, {hi}), not finite bounds low ≤ high",
                b.label
            ));
        }
    }
    Ok(())
}

/// A horizontal stacked bar chart: one bar per entry of `bars` (top to bottom in order),
/// each split into `part_names.len()` parts coloured consistently (legend with the part
/// names), on a linear value axis from 0 labelled `value_label`.
///
/// The value axis runs from 0 to 5% beyond the longest bar or whisker, ticked at 1, 2 or
/// 5 × 10^k multiples ([`linear_ticks`]). Bars are 20 pixels high, 30 apart, the canvas as
/// high as they need (and the legend); the labels stand left of the bars, the left margin
/// sized to the longest. Parts of zero value are not drawn; a bar's `total_ci` is a thin
/// black line from low to high through the bar's middle with end caps, clipped at 0 (no cap
/// there) where its low end is below. The legend of the parts stands right of the plot area,
/// the canvas widened for it, so that it never hides a bar.
///
/// An error when `bars` or `part_names` is empty, when there are more parts than the eight
/// colours, when a bar's parts count differs from `part_names.len()`, when a part is negative
/// or not finite, or when an interval is not finite or has its low above its high.
pub fn stacked_bars_svg(title: &str, part_names: &[&str], bars: &[Bar], value_label: &str) -> Result<String, String> {
    check_bars(title, part_names, bars)?;
    let total = |b: &Bar| b.parts.iter().sum::<f64>();
    let longest = bars.iter().map(|b| total(b).max(b.total_ci.map_or(0.0, |c| c.1))).fold(0.0, f64::max);
    let x_hi = if longest > 0.0 { longest * 1.05 } else { 1.0 };
    let (bold, light) = linear_ticks(0.0, x_hi, 1.0);

    let entries: Vec<(&str, Key)> =
        part_names.iter().zip(PART_COLOURS).map(|(name, c)| (*name, Key::Shade(c.filled()))).collect();
    // The legend's width from the generous estimate of its text (plotters' own falls short),
    // its height as plotters lays its lines out.
    let legend_height = legend_size(&entries)?.1;
    let legend_text_width = part_names.iter().map(|n| text_width_px(n, LEGEND_FONT.1)).max().unwrap_or(0);
    let legend = (legend_text_width + LEGEND_KEY + 2 * LEGEND_MARGIN, legend_height);

    let label_area =
        bars.iter().map(|b| text_width_px(&b.label, BAR_LABEL_SIZE)).max().unwrap_or(0) + 2 * BAR_LABEL_GAP_PX;
    let chart_width = (2 * BARS_MARGIN_PX + label_area + BARS_MIN_PLOT_WIDTH_PX).max(800);
    let plot_height = (bars.len() as i32 * BAR_ROW_PX).max(legend.1);
    // The caption's and the axis' heights around the plot area, from a scratch chart.
    let (above, below) = {
        let scratch_height = 400;
        let mut scratch = String::new();
        let root =
            SVGBackend::with_string(&mut scratch, (chart_width as u32, scratch_height as u32)).into_drawing_area();
        let body = titled(&root, title)?;
        let chart = bars_chart(&body, x_hi, (&bold, &light), label_area)?;
        let (_, area_y) = chart.plotting_area().get_pixel_range();
        (area_y.start, scratch_height - area_y.end)
    };
    let height = above + plot_height + below;
    let width = chart_width + OUTSIDE_GAP + legend.0 + BARS_MARGIN_PX;

    let mut svg = String::new();
    {
        let canvas = SVGBackend::with_string(&mut svg, (width as u32, height as u32)).into_drawing_area();
        canvas.fill(&WHITE).map_err(plot_error)?;
        let (root, _) = canvas.split_horizontally(chart_width);
        let body = titled(&root, title)?;
        let mut chart = bars_chart(&body, x_hi, (&bold, &light), label_area)?;
        let x_label = |v: &f64| number_label(*v);
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_label_formatter(&x_label)
            .x_desc(value_label)
            .draw()
            .map_err(plot_error)?;
        let (area_x, area_y) = chart.plotting_area().get_pixel_range();
        let px = |v: f64| chart.backend_coord(&(v, 0.0)).0;
        let font = TextStyle::from(("sans-serif", BAR_LABEL_SIZE).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
        for (i, b) in bars.iter().enumerate() {
            let top = area_y.start + i as i32 * BAR_ROW_PX + (BAR_ROW_PX - BAR_HEIGHT_PX) / 2;
            let (bottom, middle) = (top + BAR_HEIGHT_PX, top + BAR_HEIGHT_PX / 2);
            // Each part from the pixel of the sum before it to that of the sum after it, so
            // that neighbours share their edge.
            let mut before = 0.0;
            for (v, colour) in b.parts.iter().zip(PART_COLOURS) {
                if *v > 0.0 {
                    let after = before + v;
                    canvas
                        .draw(&Rectangle::new([(px(before), top), (px(after), bottom)], colour.filled()))
                        .map_err(plot_error)?;
                    before = after;
                }
            }
            canvas
                .draw(&Text::new(kept_spaces(&b.label), (area_x.start - BAR_LABEL_GAP_PX, middle), font.clone()))
                .map_err(plot_error)?;
            if let Some((lo, hi)) = b.total_ci {
                let (l, h) = (px(lo.max(0.0)), px(hi.max(0.0)));
                let whisker = BLACK.stroke_width(1);
                canvas.draw(&PathElement::new(vec![(l, middle), (h, middle)], whisker)).map_err(plot_error)?;
                let caps = if lo >= 0.0 { vec![l, h] } else { vec![h] };
                for c in caps {
                    canvas
                        .draw(&PathElement::new(vec![(c, middle - CAP_HALF_PX), (c, middle + CAP_HALF_PX)], whisker))
                        .map_err(plot_error)?;
                }
            }
        }
        let left = chart_width + OUTSIDE_GAP;
        draw_legend(&canvas, (left, area_y.start, left + legend.0, area_y.start + legend.1), &entries)?;
        canvas.present().map_err(plot_error)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_meet_a_box_where_they_cross_or_end_in_it() {
        let r = (10.0, 10.0, 20.0, 20.0);
        assert!(segment_meets_box((0.0, 15.0), (30.0, 15.0), r), "across");
        assert!(segment_meets_box((12.0, 12.0), (13.0, 13.0), r), "inside");
        assert!(segment_meets_box((0.0, 0.0), (30.0, 30.0), r), "diagonal through");
        assert!(segment_meets_box((15.0, 0.0), (15.0, 10.0), r), "ends on the edge");
        assert!(!segment_meets_box((0.0, 0.0), (30.0, 0.0), r), "above");
        assert!(!segment_meets_box((0.0, 21.0), (9.0, 30.0), r), "past the corner");
        assert!(!segment_meets_box((0.0, 12.0), (9.0, 12.0), r), "stops short");
    }

    /// A box counts the markers, segments and bands it would hide; the legend takes the
    /// preferred place where that hides nothing, the next free one otherwise, and goes outside
    /// where every place hides something.
    #[test]
    fn the_legend_takes_the_first_place_that_hides_nothing() {
        let drawn = Drawn {
            points: vec![(50.0, 40.0)],
            segments: vec![((0.0, 300.0), (400.0, 300.0))],
            bands: vec![vec![(500.0, 100.0, 200.0), (700.0, 100.0, 200.0)]],
        };
        assert_eq!(drawn.hidden_by((40, 40, 60, 60)), 1, "the marker");
        assert_eq!(drawn.hidden_by((40, 20, 60, 37)), 1, "the marker, within the clearance");
        assert_eq!(drawn.hidden_by((40, 250, 60, 350)), 1, "the line");
        assert_eq!(drawn.hidden_by((550, 120, 600, 180)), 1, "inside the band");
        assert_eq!(drawn.hidden_by((100, 100, 200, 200)), 0);
        let (ax, ay) = (0..800, 0..400);
        let size = (100, 40);
        let upper_left = legend_rect(&LegendPlace::Inside(SeriesLabelPosition::UpperLeft), size, (&ax, &ay));
        assert_eq!(upper_left, (5, 5, 105, 45));
        assert_eq!(drawn.hidden_by(upper_left), 1);
        let place = place_legend(&SeriesLabelPosition::UpperLeft, size, (&ax, &ay), &drawn);
        assert_eq!(place, LegendPlace::Inside(SeriesLabelPosition::UpperRight));
        let place = place_legend(&SeriesLabelPosition::LowerLeft, size, (&ax, &ay), &drawn);
        assert_eq!(place, LegendPlace::Inside(SeriesLabelPosition::LowerLeft), "the caller's choice, free");
        let everywhere = Drawn { bands: vec![vec![(-1.0, -1.0, 401.0), (801.0, -1.0, 401.0)]], ..Drawn::default() };
        assert_eq!(place_legend(&SeriesLabelPosition::UpperLeft, size, (&ax, &ay), &everywhere), LegendPlace::Outside);
        assert_eq!(legend_rect(&LegendPlace::Outside, size, (&ax, &ay)), (810, 0, 910, 40));
        // A legend larger than the plot area fits nowhere inside it.
        let place = place_legend(&SeriesLabelPosition::UpperLeft, (900, 40), (&ax, &ay), &Drawn::default());
        assert_eq!(place, LegendPlace::Outside);
    }

    /// A linear axis in seconds labelled in minutes is ticked at round minutes, 1, 2 or 5 × 10^k
    /// apart, four to eight of them: plotters' round steps of seconds gave 0 s, 3.33 min,
    /// 6.67 min … and 100 s, 2.5 min, 3.33 min.
    #[test]
    fn linear_ticks_are_round_multiples_of_the_unit() {
        let minutes = |lo: f64, hi: f64| {
            let (bold, light) = linear_ticks(lo, hi, 60.0);
            let labels: Vec<String> = bold.iter().map(|v| number_label(v / 60.0)).collect();
            (labels, bold, light)
        };
        // 0 s … 20 min, padded by 4% each side as `curves_svg` pads it.
        let (labels, bold, light) = minutes(-48.0, 1248.0);
        assert_eq!(labels, ["0", "5", "10", "15", "20"]);
        assert_eq!(bold, [0.0, 300.0, 600.0, 900.0, 1200.0]);
        assert_eq!(light.len(), 4 * 4, "grid lines a minute apart, none on a tick: {light:?}");
        assert!(light.iter().all(|l| (l / 60.0).fract() == 0.0 && (l / 300.0).fract() != 0.0), "{light:?}");
        // 1 … 5 min.
        assert_eq!(minutes(50.4, 309.6).0, ["1", "2", "3", "4", "5"]);
        // 0 … 90 min: steps of 20.
        assert_eq!(minutes(-216.0, 5616.0).0, ["0", "20", "40", "60", "80"]);
        // Fractions of the unit without float noise, and negative values.
        let (bold, _) = linear_ticks(0.09, 0.36, 1.0);
        assert_eq!(bold, [0.1, 0.15, 0.2, 0.25, 0.3, 0.35]);
        assert_eq!(
            bold.iter().map(|v| number_label(*v)).collect::<Vec<_>>(),
            ["0.1", "0.15", "0.2", "0.25", "0.3", "0.35"]
        );
        let (bold, _) = linear_ticks(-1.1, 1.1, 1.0);
        assert_eq!(bold, [-1.0, -0.5, 0.0, 0.5, 1.0]);
        for (lo, hi) in [(0.0, 1.0), (-3.7, 12.9), (1e-4, 3e-4), (0.0, 7.0), (0.0, 3.0), (2e5, 9e6), (-0.04, 1.04)] {
            let (bold, _) = linear_ticks(lo, hi, 1.0);
            assert!((4..=8).contains(&bold.len()), "{lo}..{hi}: {bold:?}");
            assert!(bold.iter().all(|v| (lo..=hi).contains(v)), "{lo}..{hi}: {bold:?}");
            let step = bold[1] - bold[0];
            let mantissa = step / 10f64.powf(step.log10().floor());
            assert!([1.0, 2.0, 5.0].iter().any(|m| (mantissa - m).abs() < 1e-9), "{lo}..{hi}: step {step}");
        }
        assert_eq!(linear_ticks(1.0, 1.0, 1.0), (vec![], vec![]), "an empty range");
    }

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

    /// What a [`stacked_bars_svg`] figure holds: the canvas' size, the rectangles as (x, y,
    /// width, height, fill, stroke), the texts as (x, y, text-anchor, text) and the polylines'
    /// points.
    struct BarsSvg {
        size: (i32, i32),
        rects: Vec<(i32, i32, i32, i32, String, String)>,
        texts: Vec<(i32, i32, String, String)>,
        lines: Vec<Vec<(i32, i32)>>,
    }

    impl BarsSvg {
        fn parse(svg: &str) -> Self {
            let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
            let root = doc.root_element();
            let int = |n: roxmltree::Node, a: &str| n.attribute(a).and_then(|v| v.parse().ok()).expect(a);
            let text = |n: roxmltree::Node, a: &str| n.attribute(a).unwrap_or("").to_string();
            let of = |tag: &'static str| doc.descendants().filter(move |n| n.has_tag_name(tag));
            BarsSvg {
                size: (int(root, "width"), int(root, "height")),
                rects: of("rect")
                    .map(|n| {
                        (
                            int(n, "x"),
                            int(n, "y"),
                            int(n, "width"),
                            int(n, "height"),
                            text(n, "fill"),
                            text(n, "stroke"),
                        )
                    })
                    .collect(),
                texts: of("text")
                    .map(|n| {
                        (int(n, "x"), int(n, "y"), text(n, "text-anchor"), n.text().unwrap_or("").trim().to_string())
                    })
                    .collect(),
                lines: of("polyline")
                    .map(|n| {
                        text(n, "points")
                            .split_whitespace()
                            .map(|p| {
                                let (x, y) = p.split_once(',').expect("x,y");
                                (x.parse().expect("x"), y.parse().expect("y"))
                            })
                            .collect()
                    })
                    .collect(),
            }
        }

        /// The bars' rectangles (as tall as a bar), in drawing order.
        fn bar_rects(&self) -> Vec<(i32, i32, i32, i32, String, String)> {
            self.rects.iter().filter(|r| r.3 == BAR_HEIGHT_PX && r.5 == "none").cloned().collect()
        }

        /// The legend's box (its border, the one rectangle stroked black), as (left, top,
        /// right, bottom).
        fn legend(&self) -> (i32, i32, i32, i32) {
            let borders: Vec<_> = self.rects.iter().filter(|r| r.5 == "#000000").collect();
            assert_eq!(borders.len(), 1, "one legend border: {:?}", self.rects);
            let r = borders[0];
            (r.0, r.1, r.0 + r.2, r.1 + r.3)
        }
    }

    fn bar(label: &str, parts: &[f64], total_ci: Option<(f64, f64)>) -> Bar {
        Bar { label: label.into(), parts: parts.to_vec(), total_ci }
    }

    fn hex(c: RGBColor) -> String {
        format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
    }

    const CAUSES: [&str; 3] = ["checkpoint writes", "lost work", "restarts"];

    /// No bar, a bar of another parts count, a negative or infinite or NaN part, a bad
    /// interval, no part names or more than the colours: an error that says which.
    #[test]
    fn stacked_bars_reject_what_they_cannot_draw() {
        let err = |names: &[&str], bars: &[Bar]| stacked_bars_svg("t", names, bars, "overhead").expect_err("an error");
        let ok = bar("0  packed", &[0.1, 0.2, 0.0], Some((0.25, 0.35)));
        assert!(stacked_bars_svg("t", &CAUSES, std::slice::from_ref(&ok), "overhead").is_ok());
        assert!(err(&CAUSES, &[]).contains("no bar"));
        let e = err(&CAUSES, &[ok.clone(), bar("1  spread", &[0.1, 0.2], None)]);
        assert!(e.contains("\"1  spread\" has 2 parts, the chart 3"), "{e}");
        let e = err(&CAUSES, &[bar("b", &[0.1, 0.2, 0.3, 0.4], None)]);
        assert!(e.contains("has 4 parts, the chart 3"), "{e}");
        for (v, shown) in [(-0.1, "restarts = -0.1"), (f64::NAN, "= NaN"), (f64::INFINITY, "= inf")] {
            let e = err(&CAUSES, &[ok.clone(), bar("b", &[0.1, 0.2, v], None)]);
            assert!(e.contains(shown) && e.contains("not a finite value ≥ 0"), "{v}: {e}");
        }
        for ci in [(0.3, 0.2), (f64::NAN, 0.2), (0.1, f64::INFINITY)] {
            let e = err(&CAUSES, &[bar("b", &[0.1, 0.2, 0.0], Some(ci))]);
            assert!(e.contains("interval"), "{ci:?}: {e}");
        }
        assert!(err(&[], &[bar("b", &[], None)]).contains("no part names"));
        let e = err(&["p"; 9], &[bar("b", &[0.1; 9], None)]);
        assert!(e.contains("9 parts, more than the 8 colours"), "{e}");
    }

    /// One rectangle a bar's height per non-zero part, in its part's colour, the parts left to
    /// right in order and edge to edge from the axis; the bars top to bottom in order, each
    /// labelled left of the plot area; the legend a swatch of each colour and the part names.
    #[test]
    fn stacked_bars_draw_each_nonzero_part_and_name_it() {
        let bars = [
            bar("0  packed ×0.5", &[0.05, 0.08, 0.02], None),
            bar("1  packed ×1", &[0.03, 0.1, 0.02], None),
            bar("2  spread ×2", &[0.015, 0.2, 0.01], None),
        ];
        let f = BarsSvg::parse(&stacked_bars_svg("Overhead by cause", &CAUSES, &bars, "overhead").unwrap());
        let rects = f.bar_rects();
        assert_eq!(rects.len(), 9, "{rects:?}");
        for (i, row) in rects.chunks(3).enumerate() {
            assert!(row.iter().all(|r| r.1 == row[0].1), "a bar's parts on one row: {row:?}");
            assert_eq!(row[0].1 - rects[0].1, i as i32 * BAR_ROW_PX, "bar {i} a row below the one before");
            assert_eq!(row[0].0, rects[0].0, "every bar from the axis");
            for (r, colour) in row.iter().zip(PART_COLOURS) {
                assert_eq!(r.4, hex(colour));
            }
            assert!(row.windows(2).all(|w| w[0].0 + w[0].2 == w[1].0), "parts edge to edge: {row:?}");
        }
        let swatches: Vec<String> = f.rects.iter().filter(|r| r.3 == 10).map(|r| r.4.clone()).collect();
        assert_eq!(swatches, PART_COLOURS[..3].iter().map(|c| hex(*c)).collect::<Vec<_>>());
        let texts: Vec<&str> = f.texts.iter().map(|t| t.3.as_str()).collect();
        for name in CAUSES {
            assert!(texts.contains(&name), "{name}: {texts:?}");
        }
        // The labels right-aligned left of the plot area, in the middle of their bars, their
        // runs of spaces kept (no-break spaces).
        let labels: Vec<_> = f.texts.iter().filter(|t| t.2 == "end").collect();
        assert_eq!(labels.len(), 3);
        for (l, b) in labels.iter().zip(&bars) {
            assert_eq!(l.3, kept_spaces(&b.label));
            assert_eq!(l.3.replace('\u{a0}', " "), b.label);
        }
        assert_eq!(labels[0].3, "0 \u{a0}packed ×0.5");
        for (l, row) in labels.iter().zip(rects.chunks(3)) {
            assert_eq!(l.1, row[0].1 + BAR_HEIGHT_PX / 2, "{l:?}");
            assert_eq!(l.0, row[0].0 - BAR_LABEL_GAP_PX, "the labels' right end beside the plot area");
        }
    }

    /// A part of zero draws nothing, its neighbours meet; a bar of zeros draws no rectangle
    /// but keeps its row and label; all zeros: an axis from 0 to 1.
    #[test]
    fn stacked_bars_draw_nothing_for_a_zero_part() {
        let bars =
            [bar("a", &[0.1, 0.0, 0.2], None), bar("b", &[0.0, 0.0, 0.0], None), bar("c", &[0.0, 0.3, 0.0], None)];
        let f = BarsSvg::parse(&stacked_bars_svg("t", &CAUSES, &bars, "overhead").unwrap());
        let rects = f.bar_rects();
        let fills: Vec<&str> = rects.iter().map(|r| r.4.as_str()).collect();
        let [grey, orange, blue] = [0, 1, 2].map(|i| hex(PART_COLOURS[i]));
        assert_eq!(fills, [&grey, &blue, &orange]);
        assert_eq!(rects[0].0 + rects[0].2, rects[1].0, "the zero part between them takes no room");
        assert_eq!(rects[2].1 - rects[0].1, 2 * BAR_ROW_PX, "the zero bar keeps its row");
        assert_eq!(rects[2].0, rects[0].0, "the bar of the second part alone starts at the axis");
        assert_eq!(f.texts.iter().filter(|t| t.2 == "end").count(), 3, "every bar labelled");
        let zeros = [bar("z", &[0.0, 0.0, 0.0], None)];
        let f = BarsSvg::parse(&stacked_bars_svg("t", &CAUSES, &zeros, "overhead").unwrap());
        assert!(f.bar_rects().is_empty());
        let ticks: Vec<&str> = f.texts.iter().filter(|t| t.2 == "middle" && t.1 > 60).map(|t| t.3.as_str()).collect();
        assert_eq!(ticks, ["overhead", "0", "0.2", "0.4", "0.6", "0.8", "1"]);
    }

    /// The value axis runs from 0 a little past the longest bar or whisker, ticked at round
    /// 1-2-5 × 10^k values.
    #[test]
    fn stacked_bars_value_axis_has_round_ticks() {
        let ticks = |bars: &[Bar]| {
            let f = BarsSvg::parse(&stacked_bars_svg("t", &CAUSES, bars, "overhead (h)").unwrap());
            f.texts
                .iter()
                .filter(|t| t.2 == "middle" && t.3.parse::<f64>().is_ok())
                .map(|t| t.3.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(ticks(&[bar("a", &[0.05, 0.08, 0.02], None)]), ["0", "0.05", "0.1", "0.15"]);
        // The whisker's end counts: 0.3 × 1.05.
        assert_eq!(ticks(&[bar("a", &[0.05, 0.08, 0.02], Some((0.1, 0.3)))]), ["0", "0.1", "0.2", "0.3"]);
        assert_eq!(ticks(&[bar("a", &[1200.0, 3000.0, 700.0], None)]), ["0", "1000", "2000", "3000", "4000", "5000"]);
    }

    /// The whisker: a horizontal black line from the interval's low to its high through the
    /// bar's middle, a cap at each end; clipped at the axis, without its cap there, where the
    /// low is below 0.
    #[test]
    fn stacked_bars_whisker_spans_the_interval_at_the_bar_middle() {
        let bars =
            [bar("a", &[0.05, 0.08, 0.02], Some((0.14, 0.16))), bar("b", &[0.004, 0.002, 0.0], Some((-0.01, 0.02)))];
        let f = BarsSvg::parse(&stacked_bars_svg("t", &CAUSES, &bars, "overhead").unwrap());
        let rects = f.bar_rects();
        let (axis, end_a) = (rects[0].0, rects[2].0 + rects[2].2);
        let px_per_unit = (end_a - axis) as f64 / 0.15;
        for (i, (lo, hi, caps)) in [(0.14, 0.16, 2), (0.0, 0.02, 1)].into_iter().enumerate() {
            let top = rects[0].1 + i as i32 * BAR_ROW_PX;
            let middle = top + BAR_HEIGHT_PX / 2;
            let in_row: Vec<_> =
                f.lines.iter().filter(|l| l.iter().all(|p| (top..=top + BAR_HEIGHT_PX).contains(&p.1))).collect();
            let horizontal: Vec<_> = in_row.iter().filter(|l| l.len() == 2 && l[0].1 == l[1].1).collect();
            assert_eq!(horizontal.len(), 1, "bar {i}: {in_row:?}");
            let h = horizontal[0];
            assert_eq!(h[0].1, middle, "bar {i}");
            for (x, v) in [(h[0].0, lo), (h[1].0, hi)] {
                assert!((x as f64 - (axis as f64 + v * px_per_unit)).abs() <= 1.5, "bar {i}: {x} for {v}");
            }
            let vertical: Vec<_> = in_row.iter().filter(|l| l.len() == 2 && l[0].0 == l[1].0).collect();
            assert_eq!(vertical.len(), caps, "bar {i}: {in_row:?}");
            for c in vertical {
                assert_eq!((c[0].1, c[1].1), (middle - CAP_HALF_PX, middle + CAP_HALF_PX));
                assert!(c[0].0 == h[1].0 || c[0].0 == h[0].0 && caps == 2, "a cap at an end: {c:?}");
            }
        }
    }

    /// The legend stands right of every bar and whisker, on the canvas, whatever the bars'
    /// count, lengths and labels; the labels fit left of the plot area; the canvas grows a row
    /// per bar.
    #[test]
    fn stacked_bars_legend_hides_no_bar_and_labels_fit() {
        let names = ["checkpoint writes", "lost work", "restarts", "downtime", "failed restarts"];
        let long = |i: usize| format!("{i}  job.checkpoint = {} min, policy.factor = {}, MTBF Weibull", i + 1, i);
        let cases: Vec<(Vec<&str>, Vec<Bar>)> = vec![
            (CAUSES.to_vec(), vec![bar("0  packed ×0.5", &[0.05, 0.08, 0.02], Some((0.14, 0.16)))]),
            (vec!["a part with a long name"; 8], vec![bar("W", &[1.0; 8], Some((7.0, 9.0)))]),
            (
                names.to_vec(),
                (0..9).map(|i| bar(&long(i), &[0.1, 0.2, 0.05 * i as f64, 0.0, 0.3], Some((0.5, 1.2)))).collect(),
            ),
            (names.to_vec(), (0..60).map(|i| bar(&format!("{i}"), &[1.0, 2.0, i as f64, 0.0, 0.5], None)).collect()),
        ];
        let mut heights = vec![];
        for (names, bars) in &cases {
            let f = BarsSvg::parse(&stacked_bars_svg("Overhead by cause", names, bars, "overhead").unwrap());
            let legend = f.legend();
            assert!(
                legend.0 >= 0 && legend.1 >= 0 && legend.2 <= f.size.0 && legend.3 <= f.size.1,
                "{legend:?} {:?}",
                f.size
            );
            let meets = |r: (i32, i32, i32, i32)| r.0 < legend.2 && legend.0 < r.2 && r.1 < legend.3 && legend.1 < r.3;
            let rects = f.bar_rects();
            assert!(!rects.is_empty());
            for r in &rects {
                assert!(!meets((r.0, r.1, r.0 + r.2, r.1 + r.3)), "the legend {legend:?} on the bar {r:?}");
            }
            for l in &f.lines {
                assert!(l.iter().all(|p| p.0 < legend.0), "the legend {legend:?} on a line {l:?}");
            }
            // Each legend name within the legend's box by the generous estimate.
            for t in f.texts.iter().filter(|t| t.2 == "start") {
                assert!(legend.0 < t.0 && t.0 + text_width_px(&t.3, LEGEND_FONT.1) <= legend.2, "{t:?} in {legend:?}");
            }
            let axis = rects.iter().map(|r| r.0).min().unwrap();
            for t in f.texts.iter().filter(|t| t.2 == "end") {
                let w = text_width_px(&t.3, BAR_LABEL_SIZE);
                assert!(t.0 - w >= BARS_MARGIN_PX && t.0 < axis, "the label {t:?}, {w} pixels wide, left of {axis}");
            }
            heights.push(f.size.1);
        }
        assert_eq!(heights[3] - heights[2], 51 * BAR_ROW_PX, "a row per bar: {heights:?}");
    }

    /// Same input, same bytes.
    #[test]
    fn stacked_bars_are_deterministic() {
        let bars: Vec<Bar> = (0..7)
            .map(|i| bar(&format!("{i}  x"), &[0.1 * i as f64, 0.3, 1.0 / (i + 1) as f64], Some((0.2, 0.9))))
            .collect();
        let one = stacked_bars_svg("t", &CAUSES, &bars, "overhead").unwrap();
        assert_eq!(one, stacked_bars_svg("t", &CAUSES, &bars, "overhead").unwrap());
        assert_ne!(one, stacked_bars_svg("t", &CAUSES, &bars[1..], "overhead").unwrap());
    }

    /// The width estimate of labels is never below plotters' own on plain text, and above it
    /// on digits and capitals, which DejaVu Sans draws wider than plotters counts.
    #[test]
    fn text_width_estimate_is_generous() {
        let font = ("sans-serif", BAR_LABEL_SIZE).into_font();
        for text in ["0  packed ×0.5", "lost work", "checkpoint writes", "MTBF 1234567890", "iiii", "WWWW"] {
            let (plotters, _) = font.box_size(text).unwrap();
            let ours = text_width_px(text, BAR_LABEL_SIZE);
            let chars = text.chars().count() as i32;
            assert!(ours >= plotters as i32 - 2 * chars.min(4), "{text}: {ours} < {plotters}");
        }
        let em = BAR_LABEL_SIZE as f64 / 1.24;
        assert!(text_width_px("1234567890", BAR_LABEL_SIZE) as f64 >= 10.0 * 0.636 * em, "DejaVu's digits");
        assert!(
            text_width_px("MTBF", BAR_LABEL_SIZE) as f64 >= (0.863 + 0.611 + 0.686 + 0.575) * em,
            "DejaVu's capitals"
        );
        assert_eq!(kept_spaces("0  packed   x y"), "0 \u{a0}packed \u{a0}\u{a0}x y");
    }
}
