//! Default terminal tables fit 100 columns (issue #32, item 4): every shipped scenario's, and
//! every other command's; the wide tables keep every column; numbers carry the digits their
//! interval supports; columns empty in every row are left out.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use super::{bin, load, root, simulate};
use ckptsim::report::{FIT_COLUMNS, Report, TableWidth};

/// The lines of `stdout` over [`FIT_COLUMNS`] characters (not bytes: `─`, `±`, `₂`).
fn too_wide(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| l.chars().count() > FIT_COLUMNS)
        .map(|l| format!("{:>4} {l}", l.chars().count()))
        .collect()
}

/// Runs the binary with `args` in `dir`, where `--out o` names short paths (the line under
/// a table names the files written), and checks it succeeds and every line of its standard
/// output fits.
fn fits_in(dir: &Path, what: &str, args: &[&str]) -> String {
    let o: Output = bin().args(args).current_dir(dir).output().expect("the binary runs");
    assert!(o.status.success(), "{what}: {}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8(o.stdout).expect("UTF-8");
    let wide = too_wide(&stdout);
    assert!(wide.is_empty(), "{what}: lines over {FIT_COLUMNS} characters:\n{}\n\n{stdout}", wide.join("\n"));
    stdout
}

/// [`fits_in`] in a fresh temporary folder.
fn fits(what: &str, args: &[&str]) -> String {
    let tmp = tempfile::tempdir().unwrap();
    fits_in(tmp.path(), what, args)
}

/// The shipped scenarios, and whether each reads the shared data folder beside the checkout.
fn shipped() -> Vec<(PathBuf, bool)> {
    let mut files: Vec<PathBuf> = fs::read_dir(root("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let shared = fs::read_to_string(&p).unwrap().contains("shared/data");
            (p, shared)
        })
        .collect()
}

/// Runs each shipped scenario (`shared`: those on the shared data, or the others) with a few
/// replications, and checks its table fits.
fn shipped_scenarios_fit(shared: bool) {
    let scenarios: Vec<PathBuf> = shipped().into_iter().filter(|(_, s)| *s == shared).map(|(p, _)| p).collect();
    assert!(!scenarios.is_empty());
    for path in scenarios {
        let study = fs::read_to_string(&path).unwrap().lines().any(|l| l.trim() == "[schedule]");
        let command = if study { "efficiency" } else { "run" };
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        fits(&name, &[command, path.to_str().unwrap(), "--reps", "8", "--out", "o"]);
    }
}

#[test]
fn every_shipped_scenario_fits() {
    shipped_scenarios_fit(false);
}

#[test]
#[ignore = "needs ../shared/data"]
fn every_shipped_scenario_on_the_shared_data_fits() {
    shipped_scenarios_fit(true);
}

#[test]
fn optimize_tables_fit() {
    let young_daly = root("scenarios/young-daly.toml");
    let sc = young_daly.to_str().unwrap();
    // One search, then a sweep of three with its summary.
    fits("optimize, one search", &["optimize", sc, "--set", "job.checkpoint=2 min", "--reps", "100", "--out", "o"]);
    let summary = fits("optimize, three searches", &["optimize", sc, "--reps", "100", "--out", "o"]);
    assert!(summary.contains("best interval (range)"), "{summary}");
    let two_level = root("scenarios/two-level.toml");
    fits("optimize, two levels", &["optimize", two_level.to_str().unwrap(), "--reps", "40", "--out", "o"]);
}

#[test]
fn two_level_formulas_fit() {
    let base = ["formulas", "--checkpoint", "120s", "--mtbf", "3.1h", "--restart", "600s"];
    let two = ["--level2-checkpoint", "10min", "--level2-mtbf", "12h"];
    let both: Vec<&str> = base.iter().chain(&two).copied().collect();
    fits("formulas --level2-checkpoint", &both);
    let mut all = both.clone();
    all.extend(["--work", "2e5s", "--every", "3", "--interval", "20min"]);
    let out = fits("formulas --level2-checkpoint --work", &all);
    assert!(out.contains("E[wall]") && out.contains("job overhead"), "{out}");
}

#[test]
fn a_schedule_csv_fits() {
    let csv = root("scenarios/schedules/small.csv");
    fits("efficiency small.csv", &["efficiency", csv.to_str().unwrap(), "--reps", "8", "--out", "o"]);
}

#[test]
fn formulas_fit() {
    let base = ["formulas", "--checkpoint", "120s", "--mtbf", "3.1h", "--restart", "600s"];
    fits("formulas", &base);
    let mut work = base.to_vec();
    work.extend(["--work", "2e5s", "--interval", "30min"]);
    fits("formulas --work", &work);
}

#[test]
#[ignore = "needs ../shared/data"]
fn trace_stats_fit() {
    let log = root("../shared/data/lanl/LA-UR-05-7318-failure-data-1996-2005.csv.xz");
    fits("trace stats", &["trace", "stats", log.to_str().unwrap(), "--out", "o"]);
}

#[test]
fn validate_fits() {
    let tmp = tempfile::tempdir().unwrap();
    let o = bin().args(["validate", "--quick"]).current_dir(tmp.path()).output().unwrap();
    let stdout = String::from_utf8(o.stdout).unwrap();
    assert!(too_wide(&stdout).is_empty(), "{}", too_wide(&stdout).join("\n"));
}

/// The wide table keeps every column of the layout before (`--wide`); the fit one names what
/// it left out, and every line of it fits.
#[test]
fn the_wide_table_has_every_column() {
    let sc = load("scenarios/young-daly.toml", &[]);
    let result = simulate(&sc, 20, 1);
    let report = Report::new(&sc, &result);
    let wide = report.table_with(TableWidth::Wide);
    let fit = report.table_with(TableWidth::Fit);
    assert_eq!(fit, report.table());
    for header in ["overhead mean ± 95% CI", "wall p50 (h)", "wall p95 (h)", "failures"] {
        assert!(wide.contains(header), "{header} in\n{wide}");
    }
    assert!(!too_wide(&wide).is_empty(), "the wide table is the wide one:\n{wide}");
    assert!(too_wide(&fit).is_empty(), "{}", too_wide(&fit).join("\n"));
    assert!(fit.contains("left out to fit 100 columns: wall p50 (h)"), "{fit}");
    // Five decimals in the wide table, as before.
    assert!(wide.lines().any(|l| l.contains(" ± 0.00")), "{wide}");
}

/// The model and z columns are left out where no point has a closed form (Hawkes bursts); the
/// wide table keeps them, empty.
#[test]
fn columns_empty_in_every_row_are_left_out() {
    let sc = load("scenarios/bursts.toml", &[]);
    let result = simulate(&sc, 20, 1);
    let report = Report::new(&sc, &result);
    let header = |table: &str| table.lines().find(|l| l.trim_start().starts_with("point")).unwrap().to_string();
    let fit = header(&report.table());
    let wide = header(&report.table_with(TableWidth::Wide));
    assert!(wide.contains("model") && wide.contains("  z  "), "{wide}");
    assert!(!fit.contains("model") && !fit.contains("  z  "), "{fit}");
    assert!(fit.contains("Poisson"), "{fit}");
}

/// Every `mean ± half-width` of the fit run table shows the half-width to two significant
/// digits, and the mean to as many decimals.
#[test]
fn numbers_carry_the_digits_their_interval_supports() {
    let sc = load("scenarios/young-daly.toml", &[]);
    let result = simulate(&sc, 30, 3);
    let table = Report::new(&sc, &result).table();
    let mut checked = 0;
    for line in table.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first().is_none_or(|w| w.parse::<u64>().is_err()) {
            continue;
        }
        for w in words.windows(3).filter(|w| w[1] == "±") {
            let (mean, half) = (w[0], w[2]);
            let decimals = |s: &str| s.split('.').nth(1).map_or(0, str::len);
            assert_eq!(decimals(mean), decimals(half), "{line}");
            let digits = half.replace('.', "").trim_start_matches('0').len();
            assert!(digits == 2 || (digits == 3 && decimals(half) == 0), "{half} in {line}");
            checked += 1;
        }
    }
    assert_eq!(checked, sc.points.len(), "{table}");
}
