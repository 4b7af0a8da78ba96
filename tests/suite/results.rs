//! Issue #6 acceptance 4 and the `results/` contract: the committed reference results are
//! current (the same bytes from the same seed) and the SVG plots are well-formed XML.

use super::{FRONTIER_SCHEDULE, LANL_LOG, ckptsim, root, shared_data};
use std::fs;

/// The scenarios whose outputs are committed in results/ (results/scenarios.txt).
fn committed() -> Vec<String> {
    fs::read_to_string(root("results/scenarios.txt")).unwrap().lines().map(str::to_string).collect()
}

#[test]
fn committed_results_are_current() {
    let tmp = tempfile::tempdir().unwrap();
    for name in committed() {
        let o = ckptsim(&[
            "run",
            &format!("scenarios/{name}.toml"),
            "--out",
            tmp.path().to_str().unwrap(),
            "--plot",
            "--format",
            "markdown",
        ]);
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        let md = fs::read_to_string(root(&format!("results/{name}.md"))).unwrap();
        assert_eq!(
            String::from_utf8(o.stdout).unwrap(),
            md,
            "results/{name}.md is stale: run bash results/regenerate.sh"
        );
        for ext in ["csv", "json", "overhead.svg", "wall.svg", "causes.csv", "causes.svg"] {
            let file = if ext.contains('.') { format!("{name}-{ext}") } else { format!("{name}.{ext}") };
            let committed = root(&format!("results/{file}"));
            if !committed.exists() {
                assert!(!tmp.path().join(&file).exists(), "results/{file} is missing: run bash results/regenerate.sh");
                continue;
            }
            assert_eq!(
                fs::read(tmp.path().join(&file)).unwrap(),
                fs::read(&committed).unwrap(),
                "results/{file} is stale: run bash results/regenerate.sh"
            );
        }
    }
}

/// The machine-efficiency results of `scenarios/NAME.toml` that `results/regenerate.sh`
/// writes are current.
fn assert_efficiency_results_are_current(name: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_str().unwrap();
    let scenario = format!("scenarios/{name}.toml");
    let o = ckptsim(&["efficiency", &scenario, "--out", out, "--plot", "--format", "markdown"]);
    assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        fs::read_to_string(root(&format!("results/{name}.md"))).unwrap(),
        "results/{name}.md is stale: run bash results/regenerate.sh"
    );
    for file in [format!("{name}.csv"), format!("{name}.json"), format!("{name}-efficiency.svg")] {
        assert_eq!(
            fs::read(tmp.path().join(&file)).unwrap(),
            fs::read(root(&format!("results/{file}"))).unwrap(),
            "results/{file} is stale: run bash results/regenerate.sh"
        );
    }
}

/// The small schedule's machine-efficiency results.
#[test]
fn committed_efficiency_results_are_current() {
    assert_efficiency_results_are_current("small-schedule");
}

/// The Frontier year's machine-efficiency results (the schedule is in the shared data folder).
#[test]
#[ignore = "needs ../shared/data"]
fn committed_frontier_results_are_current() {
    shared_data(FRONTIER_SCHEDULE);
    assert_efficiency_results_are_current("frontier-2024");
}

/// The LANL log's per-system statistics (`trace stats`; the log is in the shared data folder).
#[test]
#[ignore = "needs ../shared/data"]
fn committed_trace_stats_are_current() {
    let log = shared_data(LANL_LOG);
    let tmp = tempfile::tempdir().unwrap();
    let o = ckptsim(&["trace", "stats", log.to_str().unwrap(), "--out", tmp.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let file = "LA-UR-05-7318-failure-data-1996-2005-stats.csv";
    assert_eq!(
        fs::read(tmp.path().join(file)).unwrap(),
        fs::read(root(&format!("results/{file}"))).unwrap(),
        "results/{file} is stale: run bash results/regenerate.sh"
    );
}

#[test]
fn committed_optimizer_results_are_current() {
    // The cheapest of the optimizer runs; the others take longer and follow the same code.
    let tmp = tempfile::tempdir().unwrap();
    let line = fs::read_to_string(root("results/optimize.txt")).unwrap().lines().next().unwrap().to_string();
    let mut words = line.split_whitespace();
    let scenario = format!("scenarios/{}.toml", words.next().unwrap());
    let mut args = vec!["optimize".to_string(), scenario, "--out".into(), tmp.path().to_str().unwrap().into()];
    args.extend(words.map(str::to_string));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = ckptsim(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for file in ["young-daly-2min-optimize.json", "young-daly-2min-optimize.csv", "young-daly-2min-optimize.svg"] {
        assert_eq!(
            fs::read(tmp.path().join(file)).unwrap(),
            fs::read(root(&format!("results/optimize/{file}"))).unwrap(),
            "results/optimize/{file} is stale: run bash results/regenerate.sh"
        );
    }
}

#[test]
fn svg_plots_are_well_formed() {
    let mut checked = 0;
    for dir in ["results", "results/optimize"] {
        for entry in fs::read_dir(root(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "svg") {
                let text = fs::read_to_string(&path).unwrap();
                let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert_eq!(doc.root_element().tag_name().name(), "svg", "{}", path.display());
                // Axes labels, and at least one drawn series.
                assert!(doc.descendants().any(|n| n.has_tag_name("text")), "{}", path.display());
                assert!(
                    doc.descendants().any(|n| n.has_tag_name("polyline") || n.has_tag_name("rect")),
                    "{}",
                    path.display()
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "only {checked} SVG files");
}

/// The numbers among the SVG's text elements (tick labels, where the x labels are not numbers).
fn numeric_labels(svg: &str) -> Vec<f64> {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    doc.descendants().filter_map(|n| n.text()).filter_map(|t| t.trim().parse::<f64>().ok()).collect()
}

/// The y axis holds the closed form as well as the simulated band: a dashed curve that peaks
/// between two simulated points (the efficiency's, on a fine grid) was cut off at the top.
#[test]
fn plots_hold_the_closed_form_and_fit_long_titles() {
    use ckptsim::report::plot::{Axis, Curve, caption_size, curves_svg};
    let curve = Curve {
        label: "simulated".into(),
        points: vec![(1.0, 0.15, 0.1, 0.2), (3.0, 0.15, 0.1, 0.2)],
        model: vec![(1.0, 0.15), (2.0, 0.5), (3.0, 0.15)],
    };
    let x = Axis { desc: "x", map: &|v| v, label: &|v| format!("x{v}"), log: false, unit: None };
    let svg = curves_svg(
        "t",
        &x,
        "y",
        true,
        plotters::prelude::SeriesLabelPosition::UpperLeft,
        &[curve],
        &Default::default(),
    )
    .expect("a plot");
    let top = numeric_labels(&svg).into_iter().fold(f64::NEG_INFINITY, f64::max);
    assert!(top >= 0.45, "the y axis stops at {top}, below the closed form's 0.5");
    // Long titles (a sweep case's failure model) get a smaller caption, short ones the full size.
    assert!((caption_size("young-daly: overhead (dashed: closed form)") - 20.0).abs() < 1e-12);
    let long = "rack-events case 0 (job.placement = packed): nodes 256×exponential; packed on 64×32; rack exponential";
    assert!(caption_size(long) < 16.0, "{}", caption_size(long));
}
