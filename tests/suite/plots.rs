//! The SVG plots read right: log axes ticked at round values, whole-number counts, the closed
//! form drawn between the simulated points, the formulas' labels apart.

use super::ckptsim;
use ckptsim::report::plot::{self, Axis, Curve, Marks};
use plotters::prelude::SeriesLabelPosition;
use std::fs;

/// The text elements of `svg` as (x, y, text-anchor, text).
fn texts(svg: &str) -> Vec<(f64, f64, String, String)> {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    doc.descendants()
        .filter(|n| n.has_tag_name("text") && n.attribute("transform").is_none())
        .map(|n| {
            let num = |a: &str| n.attribute(a).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN);
            let text = n.text().unwrap_or("").trim().to_string();
            (num("x"), num("y"), n.attribute("text-anchor").unwrap_or("").to_string(), text)
        })
        .collect()
}

/// The x axis's tick labels: centred text below the plot area (the title is centred at the top,
/// the axis title sits lower and is not a number).
fn x_ticks(svg: &str) -> Vec<String> {
    texts(svg)
        .into_iter()
        .filter(|t| {
            t.2 == "middle"
                && t.1 > 100.0
                && t.3.trim_end_matches(|c: char| c.is_alphabetic()).trim().parse::<f64>().is_ok()
        })
        .map(|t| t.3)
        .collect()
}

/// The y axis's tick labels: right-aligned text.
fn y_ticks(svg: &str) -> Vec<String> {
    texts(svg).into_iter().filter(|t| t.2 == "end").map(|t| t.3).collect()
}

#[test]
fn tick_labels_have_three_significant_digits_and_no_trailing_zeros() {
    for (x, want) in [
        (0.25, "0.25"),
        (0.5, "0.5"),
        (0.501_187, "0.501"),
        (2.0, "2"),
        (4.0, "4"),
        (15.848_9, "15.8"),
        (100.0, "100"),
        (251.19, "251"),
        (1500.0, "1500"),
        (0.0, "0"),
        (1.25e-4, "1.25e-4"),
        (2e6, "2e6"),
        (-0.3, "-0.3"),
    ] {
        assert_eq!(plot::tick_label(x), want, "{x}");
    }
}

/// A sweep over factors 0.25 … 4 on a log axis is ticked at the factors themselves, where
/// plotters' steps of 10^0.2 were labelled 0.251, 0.398, 0.631, 1.58, 2.51, 3.98.
#[test]
fn a_log_axis_is_ticked_at_the_swept_values_when_they_are_few_and_round() {
    let points = [0.25, 0.5, 1.0, 2.0, 4.0].map(|f| (f, 0.8, 0.79, 0.81)).to_vec();
    let curve = Curve { label: "simulated".into(), points, model: vec![] };
    let x = Axis {
        desc: "factor, log scale",
        map: &|v: f64| v.log10(),
        label: &|v| plot::tick_label(10f64.powf(v)),
        log: true,
        unit: None,
    };
    let svg = plot::curves_svg("t", &x, "e", false, SeriesLabelPosition::UpperLeft, &[curve], &Marks::default())
        .expect("a plot");
    assert_eq!(x_ticks(&svg), ["0.25", "0.5", "1", "2", "4"]);
}

/// Intervals that are not round (factors of Young's interval) get 1-2-5 ticks per decade.
#[test]
fn a_log_axis_is_ticked_at_1_2_5_multiples_otherwise() {
    // Minutes 2.7 … 43.6, as in young-daly's sweep for a 20 s checkpoint, and further out.
    let young_s = 654.3;
    let points = [0.25, 0.5, 1.0, 2.0, 4.0, 16.0, 64.0].map(|f| (f * young_s, 0.2, 0.19, 0.21)).to_vec();
    let curve = Curve { label: "simulated".into(), points, model: vec![] };
    let svg = plot::overhead_svg("t", &[curve], &Marks::default()).expect("a plot");
    let ticks = x_ticks(&svg);
    assert!(ticks.len() >= 4, "{ticks:?}");
    for t in &ticks {
        let v: f64 = t.parse().unwrap();
        let mantissa = v / 10f64.powf(v.log10().floor());
        assert!([1.0, 2.0, 5.0].iter().any(|m| (mantissa - m).abs() < 1e-9), "tick {t} of {ticks:?}");
    }
    // The narrow span of one optimize plot: still round values, a few of them.
    let points = [62.0, 100.0, 150.0, 350.0].map(|m| (m * 60.0, 0.03, 0.029, 0.031)).to_vec();
    let curve = Curve { label: "simulated".into(), points: points.clone(), model: vec![] };
    let svg = plot::overhead_svg("t", &[curve], &Marks::default()).expect("a plot");
    let ticks = x_ticks(&svg);
    assert!(ticks.len() >= 4, "{ticks:?}");
    assert!(ticks.iter().all(|t| t.parse::<f64>().unwrap().fract() == 0.0 && t.len() <= 3), "{ticks:?}");
}

/// The histogram's counts are whole numbers, distinct even when they are small.
#[test]
fn wall_time_counts_are_integers() {
    for top in [3, 40, 1400] {
        let bins: Vec<(f64, f64, u64)> =
            (0..10).map(|i| (3600.0 * (60.0 + i as f64), 3600.0 * (61.0 + i as f64), (i * top / 9) as u64)).collect();
        let svg = plot::wall_svg("t", &bins).expect("a plot");
        let ticks = y_ticks(&svg);
        assert!(ticks.len() >= 3, "{ticks:?}");
        for t in &ticks {
            assert!(t.parse::<u64>().is_ok(), "count label {t} of {ticks:?}");
        }
        let mut distinct = ticks.clone();
        distinct.dedup();
        assert_eq!(distinct, ticks);
    }
}

/// The overhead plot draws the closed form between the swept intervals: with only factors
/// 0.25 and 4 swept, the dashed curve dips far below the chord through the two simulated
/// points (it was that chord, hidden under the solid line).
#[test]
fn the_overhead_plot_draws_the_closed_form_between_the_swept_intervals() {
    let tmp = tempfile::tempdir().unwrap();
    let toml = tmp.path().join("two.toml");
    let text = fs::read_to_string(super::root("scenarios/young-daly.toml")).unwrap();
    let text = text.split("[sweep]").next().unwrap().to_string() + "[sweep]\n\"policy.factor\" = [0.25, 4]\n";
    fs::write(&toml, text.replace("name = \"young-daly\"", "name = \"two\"")).unwrap();
    let o = ckptsim(&["run", toml.to_str().unwrap(), "--reps", "200", "--plot", "--out", tmp.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let svg = fs::read_to_string(tmp.path().join("two-overhead.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let blue = "#1F77B4";
    let circles: Vec<(f64, f64)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle") && n.attribute("fill") == Some(blue))
        .map(|n| (n.attribute("cx").unwrap().parse().unwrap(), n.attribute("cy").unwrap().parse().unwrap()))
        .collect();
    assert_eq!(circles.len(), 2, "{circles:?}");
    let ((x0, y0), (x1, y1)) = (circles[0], circles[1]);
    let chord = |x: f64| y0 + (y1 - y0) * (x - x0) / (x1 - x0);
    // The dashes: thin polylines in the curve's colour; SVG y grows downwards.
    let dip = doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some(blue))
        .filter(|n| n.attribute("stroke-width") == Some("1"))
        .flat_map(|n| {
            n.attribute("points")
                .unwrap()
                .split_whitespace()
                .map(|p| {
                    let (x, y) = p.split_once(',').unwrap();
                    (x.parse::<f64>().unwrap(), y.parse::<f64>().unwrap())
                })
                .collect::<Vec<_>>()
        })
        .map(|(x, y)| y - chord(x))
        .fold(f64::NEG_INFINITY, f64::max);
    assert!(dip > 50.0, "the closed form runs {dip} px below the chord at most");
}

/// `optimize`'s plot: formulas whose intervals round to the same pixel share one label, no two
/// labels overlap, and the intervals not significantly worse are shaded, in the legend.
#[test]
fn optimize_labels_its_formulas_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let o = ckptsim(&["optimize", "scenarios/rack-events.toml", "--out", tmp.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let svg = fs::read_to_string(tmp.path().join("rack-events-optimize-0.svg")).unwrap();
    let names = ["young", "daly", "daly-high-order", "optimal", "optimal-work", "best"];
    let labels: Vec<(f64, f64, String)> = texts(&svg)
        .into_iter()
        .filter(|t| t.3.split(", ").all(|w| names.contains(&w)))
        .map(|t| (t.0, t.1, t.3))
        .collect();
    let all: Vec<&str> = labels.iter().flat_map(|l| l.2.split(", ")).collect();
    for n in names {
        assert_eq!(all.iter().filter(|w| **w == n).count(), 1, "{n} in {labels:?}");
    }
    // Each label 10.5 px high and at most 8 px a character wide: no two boxes meet.
    for (i, a) in labels.iter().enumerate() {
        for b in &labels[i + 1..] {
            let apart_y = (a.1 - b.1).abs() >= 12.0;
            let (l, r) = if a.0 <= b.0 { (a, b) } else { (b, a) };
            let apart_x = r.0 - l.0 >= 8.0 * l.2.chars().count() as f64;
            assert!(apart_y || apart_x, "{a:?} and {b:?} overlap");
        }
    }
    // On a white box, to read across the neighbouring markers' lines.
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let boxes: Vec<[f64; 4]> = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some("#FFFFFF"))
        .map(|n| ["x", "y", "width", "height"].map(|a| n.attribute(a).unwrap().parse().unwrap()))
        .collect();
    for (x, y, text) in &labels {
        let width = 5.0 * text.chars().count() as f64;
        assert!(
            boxes.iter().any(|b| b[0] <= *x && b[1] <= *y && b[0] + b[2] >= x + width && b[1] + b[3] >= y + 10.0),
            "no box under {text}"
        );
    }
    assert!(svg.contains("not significantly worse than the best"), "the shaded range is in the legend");
}

/// Linear axes' ticks read without float noise or trailing zeros (they printed `120.0`,
/// `1.0`, `60.0`): the overhead plot's y axis and the histogram's x axis.
#[test]
fn linear_tick_labels_have_no_trailing_zeros() {
    for (x, want) in
        [(120.0, "120"), (1.0, "1"), (0.23049999999999998, "0.2305"), (62.5, "62.5"), (0.0, "0"), (-0.5, "-0.5")]
    {
        assert_eq!(plot::number_label(x), want, "{x}");
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_str().unwrap();
    let o = ckptsim(&["run", "scenarios/young-daly.toml", "--reps", "20", "--plot", "--out", out]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for file in ["young-daly-overhead.svg", "young-daly-wall.svg"] {
        let svg = fs::read_to_string(tmp.path().join(file)).unwrap();
        let numbers: Vec<String> = texts(&svg).into_iter().map(|t| t.3).filter(|t| t.parse::<f64>().is_ok()).collect();
        assert!(numbers.len() > 5, "{file}: {numbers:?}");
        assert!(numbers.iter().all(|t| !t.ends_with(".0")), "{file}: {numbers:?}");
    }
}

/// The legend's box (x, y, width, height): plotters draws it as a filled white rectangle and
/// then its border, the only rectangle with a black stroke at opacity 0.3.
fn legend_box(svg: &str) -> [f64; 4] {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let boxes: Vec<[f64; 4]> = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("stroke") == Some("#000000"))
        .filter(|n| n.attribute("opacity") == Some("0.3"))
        .map(|n| ["x", "y", "width", "height"].map(|a| n.attribute(a).unwrap().parse().unwrap()))
        .collect();
    assert_eq!(boxes.len(), 1, "one legend: {boxes:?}");
    boxes[0]
}

/// The markers' centres (the circles) and the canvas' width.
fn markers_and_width(svg: &str) -> (Vec<(f64, f64)>, f64) {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let circles = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle"))
        .map(|n| (n.attribute("cx").unwrap().parse().unwrap(), n.attribute("cy").unwrap().parse().unwrap()))
        .collect();
    (circles, doc.root_element().attribute("width").unwrap().parse().unwrap())
}

/// The markers the legend covers (a marker's radius is 3 pixels).
fn covered(svg: &str) -> Vec<(f64, f64)> {
    let [x, y, w, h] = legend_box(svg);
    let (circles, _) = markers_and_width(svg);
    circles
        .into_iter()
        .filter(|c| c.0 >= x - 3.0 && c.0 <= x + w + 3.0 && c.1 >= y - 3.0 && c.1 <= y + h + 3.0)
        .collect()
}

/// daly-2006's plot: one point per MTBF, the 15-min one top left, where the legend stood and
/// hid it. The legend moves to a free place; the same data give the same bytes.
#[test]
fn the_legend_leaves_points_in_its_default_corner_visible() {
    let curve = |label: &str, min: f64, overhead: f64| Curve {
        label: label.into(),
        points: vec![(min * 60.0, overhead, overhead - 0.01, overhead + 0.01)],
        model: vec![],
    };
    let curves = [
        curve("failures.mtbf = 24 h", 110.0, 0.1),
        curve("failures.mtbf = 6 h", 57.0, 0.2),
        curve("failures.mtbf = 15 min", 8.0, 4.0),
    ];
    let svg = plot::overhead_svg("t", &curves, &Marks::default()).expect("a plot");
    assert!(covered(&svg).is_empty(), "the legend {:?} hides {:?}", legend_box(&svg), covered(&svg));
    let (circles, width) = markers_and_width(&svg);
    assert_eq!(width, 800.0, "room inside the plot: the canvas keeps its width");
    assert!(circles.iter().any(|c| c.0 < 200.0 && c.1 < 100.0), "the 15-min point is top left: {circles:?}");
    assert_eq!(plot::overhead_svg("t", &curves, &Marks::default()).unwrap(), svg, "deterministic");
    // Points in every corner, none in the top middle: the legend goes there, not over a point.
    let corners = [(2.0, 1.0), (2.0, 0.0), (200.0, 1.0), (200.0, 0.0), (20.0, 0.0)];
    let points = corners.map(|(m, y)| (m * 60.0, y, y, y)).to_vec();
    let svg = plot::overhead_svg("t", &[Curve { label: "simulated".into(), points, model: vec![] }], &Marks::default())
        .expect("a plot");
    assert!(covered(&svg).is_empty(), "the legend {:?} hides {:?}", legend_box(&svg), covered(&svg));
    assert_eq!(markers_and_width(&svg).1, 800.0);
}

/// Data everywhere in the plot area (a band from bottom to top over the whole width, and
/// points in all nine places a legend may take): the legend stands right of the plot area, on
/// a canvas widened for it, and hides nothing.
#[test]
fn the_legend_goes_outside_the_plot_where_every_place_inside_hides_data() {
    let xs = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0];
    let points = xs.iter().map(|m| (m * 60.0, 0.5, 0.0, 1.0)).collect();
    let band = Curve { label: "a band over everything".into(), points, model: vec![] };
    let grid = xs.iter().flat_map(|m| [0.05, 0.5, 0.95].map(|y| (m * 60.0, y, y, y))).collect();
    let grid = Curve { label: "a point in every place".into(), points: grid, model: vec![] };
    for curves in [vec![band], vec![grid]] {
        let svg = plot::overhead_svg("t", &curves, &Marks::default()).expect("a plot");
        let [x, _, w, _] = legend_box(&svg);
        let (circles, width) = markers_and_width(&svg);
        let right = circles.iter().map(|c| c.0).fold(f64::NEG_INFINITY, f64::max);
        assert!(x > right + 3.0, "the legend at x = {x} is not right of the points (up to {right})");
        assert!(width > 800.0 && width >= x + w + 10.0, "a canvas {width} wide for a legend at {x}..{}", x + w);
        assert!(covered(&svg).is_empty());
        // The whole legend, not clipped to the plot area: its text and key inside its box.
        let label = &curves[0].label;
        let text = texts(&svg).into_iter().find(|t| t.3 == *label).expect("the legend's text");
        assert!(w > 100.0 && text.0 > x + 20.0 && text.0 < x + w, "{label} at {text:?} in a legend at {x}..{}", x + w);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let key = doc
            .descendants()
            .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some("#1F77B4"))
            .filter_map(|n| n.attribute("points").and_then(|p| p.split_whitespace().next()?.split_once(',')))
            .filter_map(|(px, _)| px.parse::<f64>().ok())
            .any(|px| px > x && px + 20.0 < x + w);
        assert!(key, "the curve's key in the legend");
    }
}

/// `optimize`'s summary plot of the Young–Daly job over a sweep of `key` (a TOML array), as
/// SVG: `name-optimize.svg`.
fn optimize_sweep_svg(name: &str, key: &str, values: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join(format!("{name}.toml"));
    let scenario = format!(
        "name = \"{name}\"\n[run]\nreplications = 200\nseed = 5\n[job]\nwork = \"2e5 s\"\ncheckpoint = \"2 min\"\n\
         restart = \"10 min\"\n[failures]\nmtbf = \"3.1 h\"\n[sweep]\n\"{key}\" = {values}\n"
    );
    fs::write(&file, scenario).unwrap();
    let o = ckptsim(&["optimize", file.to_str().unwrap(), "--out", tmp.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    fs::read_to_string(tmp.path().join(format!("{name}-optimize.svg"))).expect("the summary plot is written")
}

/// `optimize` over a key swept from 0 ("off" against "on") draws its summary plot on a linear
/// axis: it wrote none, without a word, as a log axis cannot hold 0.
#[test]
fn optimize_plots_a_sweep_from_zero() {
    let svg = optimize_sweep_svg("od", "job.downtime", r#"["0 s", "5 min", "20 min"]"#);
    let labels: Vec<String> = texts(&svg).into_iter().map(|t| t.3).collect();
    assert!(labels.iter().any(|l| l == "0 min"), "a tick at 0: {labels:?}");
    assert!(labels.iter().any(|l| l == "job.downtime"), "a linear axis, not `(log scale)`: {labels:?}");
}

/// A linear axis of durations is ticked at round multiples of one unit, that of the largest
/// value: plotters' steps of 200 s were labelled 0 s, 3.33 min, 6.67 min, 10 min, 13.3 min,
/// 16.7 min, 20 min, and its steps of 50 s 100 s, 2.5 min, 3.33 min, 4.17 min, 5 min (two
/// units, no tick at the first value). The same sweep draws the same bytes.
#[test]
fn a_linear_duration_axis_is_ticked_at_round_multiples_of_one_unit() {
    let svg = optimize_sweep_svg("od", "job.downtime", r#"["0 s", "5 min", "20 min"]"#);
    assert_eq!(x_ticks(&svg), ["0 min", "5 min", "10 min", "15 min", "20 min"]);
    assert_eq!(optimize_sweep_svg("od", "job.downtime", r#"["0 s", "5 min", "20 min"]"#), svg, "deterministic");
    let svg = optimize_sweep_svg("oc", "job.checkpoint", r#"["1 min", "2 min", "3 min", "5 min"]"#);
    assert_eq!(x_ticks(&svg), ["1 min", "2 min", "3 min", "4 min", "5 min"]);
    let svg = optimize_sweep_svg("os", "job.downtime", r#"["0 s", "30 s", "90 s"]"#);
    assert_eq!(x_ticks(&svg), ["0 s", "20 s", "40 s", "60 s", "80 s"]);
    let svg = optimize_sweep_svg("oh", "job.downtime", r#"["0 s", "1 h", "3 h"]"#);
    assert_eq!(x_ticks(&svg), ["0 h", "1 h", "2 h", "3 h"]);
}

/// The legend names the dashed closed form only where one is drawn: not for a Weibull platform
/// (no closed form applies) or bursts; and the shaded 95% band always.
#[test]
fn the_legend_names_the_dashed_closed_form_only_where_drawn() {
    let tmp = tempfile::tempdir().unwrap();
    for (scenario, dashed) in [("young-daly", true), ("weibull-platform", false), ("bursts", false)] {
        let out = run_plots(tmp.path(), scenario, &[]);
        let svg = fs::read_to_string(out.join(format!("{scenario}-overhead.svg"))).unwrap();
        let labels: Vec<String> = texts(&svg).into_iter().map(|t| t.3).collect();
        assert_eq!(labels.iter().any(|t| t == plot::DASHED_LEGEND), dashed, "{scenario}: {labels:?}");
        assert!(labels.iter().any(|t| t == plot::BAND_LEGEND), "{scenario}: {labels:?}");
    }
}

/// Runs `scenario` (a shipped one) with 40 replications and `--plot` into a folder of `dir`
/// named after it, with `sets` (`--set KEY=VALUE`); returns the folder.
fn run_plots(dir: &std::path::Path, scenario: &str, sets: &[&str]) -> std::path::PathBuf {
    let out = dir.join(scenario);
    let path = format!("scenarios/{scenario}.toml");
    let mut args = vec!["run", &path, "--reps", "40", "--plot", "--out", out.to_str().unwrap()];
    for set in sets {
        args.extend(["--set", set]);
    }
    let o = ckptsim(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

/// Every text element of `svg`, the rotated ones (the y axis title) too.
fn all_texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    doc.descendants().filter(|n| n.has_tag_name("text")).map(|n| n.text().unwrap_or("").trim().to_string()).collect()
}

/// The y axis title: the rotated text.
fn y_title(svg: &str) -> String {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    doc.descendants()
        .find(|n| n.has_tag_name("text") && n.attribute("transform").is_some_and(|t| t.starts_with("rotate")))
        .and_then(|n| n.text())
        .unwrap_or("")
        .trim()
        .to_string()
}

/// (x, y) of a polygon's points.
fn polygon_points(n: roxmltree::Node) -> Vec<(f64, f64)> {
    n.attribute("points")
        .unwrap_or("")
        .split_whitespace()
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}

/// Each simulated curve has its 95% band: a shaded polygon in its colour that holds each of
/// its points between its upper and lower edges, wider where the interval is wider.
#[test]
fn each_simulated_curve_has_its_95_percent_band() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run_plots(tmp.path(), "young-daly", &[]);
    let svg = fs::read_to_string(out.join("young-daly-overhead.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    for colour in ["#1F77B4", "#D62728", "#2CA02C"] {
        let band = doc
            .descendants()
            .find(|n| n.has_tag_name("polygon") && n.attribute("fill") == Some(colour))
            .unwrap_or_else(|| panic!("no band in {colour}"));
        assert_eq!(band.attribute("opacity"), Some("0.25"));
        let edge = polygon_points(band);
        let markers: Vec<(f64, f64)> = doc
            .descendants()
            .filter(|n| n.has_tag_name("circle") && n.attribute("fill") == Some(colour))
            .map(|n| (n.attribute("cx").unwrap().parse().unwrap(), n.attribute("cy").unwrap().parse().unwrap()))
            .collect();
        assert_eq!(edge.len(), 2 * markers.len(), "{colour}: the upper edge, then the lower one");
        for (x, y) in &markers {
            let at: Vec<f64> = edge.iter().filter(|p| (p.0 - x).abs() <= 1.0).map(|p| p.1).collect();
            assert_eq!(at.len(), 2, "{colour}: the band's edges at the point ({x}, {y})");
            let (top, bottom) = (at[0].min(at[1]), at[0].max(at[1]));
            assert!(top <= *y && *y <= bottom && bottom > top, "{colour}: ({x}, {y}) in {top}..{bottom}");
        }
    }
}

/// Every axis title says its unit: the overhead as a fraction of the work, the interval in
/// minutes, the wall time in hours, the histogram's counts, the efficiency as a fraction of
/// the node-hours.
#[test]
fn axis_titles_carry_their_units() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run_plots(tmp.path(), "rack-events", &[]);
    let overhead = fs::read_to_string(out.join("rack-events-overhead.svg")).unwrap();
    assert_eq!(y_title(&overhead), plot::OVERHEAD_AXIS);
    assert!(plot::OVERHEAD_AXIS.ends_with("(fraction of the work)"));
    assert!(all_texts(&overhead).iter().any(|t| t == "checkpoint interval (min, log scale)"));
    let wall = fs::read_to_string(out.join("rack-events-wall.svg")).unwrap();
    assert_eq!(y_title(&wall), "replications (count per bin)");
    assert!(all_texts(&wall).iter().any(|t| t == "wall time (h)"));
    let causes = fs::read_to_string(out.join("rack-events-causes.svg")).unwrap();
    assert!(all_texts(&causes).iter().any(|t| t.starts_with("overhead (fraction of the work")), "causes");
    let dir = tmp.path().join("e");
    let o = ckptsim(&[
        "efficiency",
        "scenarios/small-schedule.toml",
        "--reps",
        "20",
        "--plot",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let e = fs::read_to_string(dir.join("small-schedule-efficiency.svg")).unwrap();
    assert!(y_title(&e).ends_with("(fraction of the node-hours)"), "{}", y_title(&e));
    assert!(all_texts(&e).iter().any(|t| t == "cadence factor (× u_c), log scale"));
}

/// Titles name the study (the scenario's name and description) on their first line and what
/// the figure shows in words on the second: the wall time's point by its swept values
/// (`checkpoint 20 s, factor 1`), not by its number; the bars of the overhead by cause too.
#[test]
fn titles_name_the_study_and_the_point_in_words() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run_plots(tmp.path(), "young-daly", &[]);
    let study = "young-daly: Seed example: M = 3.1 h, R = 10 min, 2e5 s of work";
    for file in ["young-daly-overhead.svg", "young-daly-wall.svg"] {
        let svg = fs::read_to_string(out.join(file)).unwrap();
        assert_eq!(all_texts(&svg)[0], study, "{file}");
    }
    let overhead = fs::read_to_string(out.join("young-daly-overhead.svg")).unwrap();
    assert_eq!(all_texts(&overhead)[1], "overhead against the checkpoint interval");
    assert!(all_texts(&overhead).iter().any(|t| t == "checkpoint 2 min"), "a curve's legend in words");
    let wall = all_texts(&fs::read_to_string(out.join("young-daly-wall.svg")).unwrap())[1].clone();
    assert!(wall.starts_with("wall time at checkpoint ") && wall.contains(", factor "), "{wall}");
    assert!(!wall.split_whitespace().any(|w| w == "point"), "{wall}");
    let out = run_plots(tmp.path(), "rack-events", &[]);
    let causes = all_texts(&fs::read_to_string(out.join("rack-events-causes.svg")).unwrap());
    assert_eq!(causes[1], "overhead by cause at each point");
    assert!(causes.iter().any(|t| t == "placement packed, factor 0.5"), "{causes:?}");
}

/// Where the interval is not swept, the overhead is plotted against the key that is: the
/// two-level job's n on a log axis, placements as words.
#[test]
fn the_overhead_is_plotted_against_the_key_swept_where_the_interval_is_not() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run_plots(tmp.path(), "two-level", &[]);
    let svg = fs::read_to_string(out.join("two-level-overhead.svg")).expect("an overhead plot");
    assert_eq!(all_texts(&svg)[1], "overhead against level-2 every");
    assert!(all_texts(&svg).iter().any(|t| t == "job.level2.every (checkpoints per level-2 one, log scale)"));
    assert_eq!(x_ticks(&svg), ["1", "2", "4", "8", "16", "32"]);
    let out = run_plots(tmp.path(), "rack-events", &["policy.factor=1"]);
    let svg = fs::read_to_string(out.join("rack-events-overhead.svg")).unwrap();
    assert_eq!(all_texts(&svg)[1], "overhead against placement");
    let words: Vec<String> = texts(&svg).into_iter().map(|t| t.3).filter(|t| !t.is_empty()).collect();
    for placement in ["packed", "spread", "random"] {
        assert!(words.iter().any(|w| w == placement), "{placement} in {words:?}");
    }
    assert!(words.iter().any(|w| w == plot::BAND_LEGEND), "{words:?}");
}
