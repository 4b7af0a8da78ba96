//! Issue acceptance 4: `ckptsim formulas` reproduces Daly (2006)'s published optima and the
//! SCR-model point.

use super::ckptsim;

fn formulas(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["formulas", "--format", "json"];
    all.extend_from_slice(args);
    let o = ckptsim(&all);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn interval_min(doc: &serde_json::Value, name: &str) -> f64 {
    let row = doc["intervals"].as_array().unwrap().iter().find(|r| r["name"] == name).unwrap();
    row["interval_s"].as_f64().unwrap() / 60.0
}

#[test]
fn daly_2006_published_optima() {
    // Daly (2006), Figs. 3–5: δ = 5 min, R = 10 min; optima 117 min, 57 min, 9.1 min. The
    // published figures are eq. 37's; the exact optimum agrees at 24 h and 6 h, and is
    // 9.17 min at 15 min (δ/M = 1/3 is where eq. 37's O(δ²/M) error shows).
    let cases = [
        ("24h", 117.0, 0, &["optimal", "daly-high-order"][..]),
        ("6h", 57.0, 0, &["optimal", "daly-high-order"][..]),
        ("15min", 9.1, 1, &["daly-high-order"][..]),
    ];
    for (mtbf, published_min, decimals, names) in cases {
        let doc = formulas(&["--checkpoint", "5min", "--restart", "10min", "--mtbf", mtbf]);
        let scale = 10f64.powi(decimals);
        for &name in names {
            let got = (interval_min(&doc, name) * scale).round() / scale;
            assert_eq!(got, published_min, "{name} at M = {mtbf}: {}", interval_min(&doc, name));
        }
        if mtbf == "15min" {
            assert_eq!((interval_min(&doc, "optimal") * 100.0).round() / 100.0, 9.17);
        }
    }
}

#[test]
fn scr_model_efficiency() {
    // LLNL SCR model, single level: λ = 8.329e-6 /s, C = R = 438 s, T = 10,000 s.
    let doc =
        formulas(&["--checkpoint", "438 s", "--restart", "438 s", "--rate", "8.329e-6/s", "--interval", "10000 s"]);
    let row = doc["intervals"].as_array().unwrap().iter().find(|r| r["name"] == "given").unwrap();
    let e = row["efficiency"].as_f64().unwrap();
    assert_eq!((e * 1e6).round() / 1e6, 0.913657, "efficiency {e}");
}

#[test]
fn formulas_table_and_bad_values() {
    let o = ckptsim(&["formulas", "--checkpoint", "120s", "--mtbf", "3.1h", "--work", "2e5 s"]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    for name in ["young", "daly", "daly-high-order", "optimal", "E[wall]"] {
        assert!(text.contains(name), "{text}");
    }
    for bad in [["--checkpoint", "120"], ["--checkpoint", "-1 s"]] {
        let o = ckptsim(&["formulas", bad[0], bad[1], "--mtbf", "3.1h"]);
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("--checkpoint"));
    }
    let o = ckptsim(&["formulas", "--checkpoint", "1 s", "--rate", "5"]);
    assert_eq!(o.status.code(), Some(2));
}

/// `formulas`' integer flags say what they accept for any bad value (a negative one was
/// taken for an unknown flag, text and overflow gave Rust's parse errors), and a rate whose
/// MTBF is below the smallest normal number is refused as such an MTBF is.
#[test]
fn integer_flags_and_extreme_rates_say_what_is_accepted() {
    let level2 = ["--level2-checkpoint", "10min", "--level2-mtbf", "12h"];
    for bad in ["-1", "x", "1.5", "99999999999999999999"] {
        let o = ckptsim(&["formulas", "--checkpoint", "5min", "--node-mtbf", "5y", "--nodes", bad]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(&format!("'{bad}' for '--nodes")) && err.contains("an integer ≥ 1"), "{err}");
        let o =
            ckptsim(&[&["formulas", "--checkpoint", "5min", "--mtbf", "1h"][..], &level2, &["--every", bad]].concat());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains("--every") && err.contains("an integer from 1 to 1000000"), "{err}");
    }
    let o = ckptsim(&["formulas", "--checkpoint", "5min", "--rate", "1e308/s"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--rate") && err.contains("at least 2.2e-308 s"), "{err}");
    assert!(ckptsim(&["formulas", "--checkpoint", "5min", "--rate", "1e300/s"]).status.success());
}

/// The table's header shows durations people can read at any magnitude: seconds to the
/// microsecond without float noise, scientific notation where three decimals would hide the
/// value or show sixteen digits.
#[test]
fn the_header_shows_durations_readably_at_any_magnitude() {
    let header = |args: &[&str]| {
        let o = ckptsim(&[&["formulas"], args].concat());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).lines().next().unwrap_or_default().to_string()
    };
    let scr = header(&["--rate", "8.329e-6/s", "--checkpoint", "438 s"]);
    assert!(scr.contains("M = 33.351 h (120062.432465 s)") && scr.contains("(438 s)"), "{scr}");
    let extreme = header(&["--mtbf", "1e20 s", "--checkpoint", "1e-5 s"]);
    assert!(extreme.contains("M = 1.157e15 d (1e20 s)"), "{extreme}");
    assert!(extreme.contains("δ = 1.000e-5 s (0.00001 s)"), "{extreme}");
}

/// Extreme values keep the table narrow: from 10⁹ on, interval_s is in scientific notation
/// (an MTBF of 1e100 s printed the interval's 52 digits), and ordinary ones stay fixed.
#[test]
fn huge_values_print_in_scientific_notation() {
    let o = ckptsim(&["formulas", "--wide", "--checkpoint", "5min", "--mtbf", "1e100s"]);
    let table = String::from_utf8(o.stdout).unwrap();
    assert!(o.status.success());
    let young = table.lines().find(|l| l.trim_start().starts_with("young")).unwrap();
    assert!(young.contains(" 2.449490e51 ") && young.len() < 100, "{young}");
    let o = ckptsim(&["formulas", "--wide", "--checkpoint", "5min", "--mtbf", "24h"]);
    let table = String::from_utf8(o.stdout).unwrap();
    let young = table.lines().find(|l| l.trim_start().starts_with("young")).unwrap();
    assert!(young.contains(" 7200.000000 "), "{young}");
}

/// The table explains its finite-work columns under it, and the help says that the MTBF (or
/// rate) is the whole job's, not one node's (a user with n nodes gave a node's MTBF).
#[test]
fn finite_work_columns_and_the_job_mtbf_are_explained() {
    let o = ckptsim(&["formulas", "--checkpoint", "3min", "--mtbf", "5h", "--restart", "10min", "--work", "30d"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8(o.stdout).unwrap();
    assert!(table.contains("job overhead") && table.contains("E[wall], sd(wall): the wall time of the --work given"));
    let o = ckptsim(&["formulas", "--checkpoint", "3min", "--mtbf", "5h"]);
    assert!(!String::from_utf8(o.stdout).unwrap().contains("E[wall], sd(wall)"), "no finite-work columns, no note");
    let help = String::from_utf8(ckptsim(&["formulas", "--help"]).stdout).unwrap();
    assert!(help.contains("of the whole job, not of one node"), "{help}");
}

/// `formulas`' errors put the flag first and the value in quotes, as for a scenario's keys:
/// a value out of range and one that does not parse read alike.
#[test]
fn flag_errors_read_alike() {
    for (args, want) in [
        (
            ["--checkpoint", "-3min", "--mtbf", "5h"],
            "--checkpoint: \"-3min\" is out of range: accepted is a duration ≥ 0",
        ),
        (["--checkpoint", "3min", "--mtbf", "0h"], "--mtbf: \"0h\" is out of range: accepted is a duration > 0"),
        (["--checkpoint", "3min", "--rate", "1e-200/s"], "--rate: \"1e-200/s\" is out of range: accepted is a rate"),
        (["--checkpoint", "3min", "--mtbf", "5Hours"], "--mtbf: \"5Hours\": unknown unit"),
    ] {
        let mut all = vec!["formulas"];
        all.extend_from_slice(&args);
        let o = ckptsim(&all);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
    }
}

/// `--node-mtbf m --nodes n` is `--mtbf m/n` (independent exponential nodes), to the byte;
/// each needs the other, neither goes with `--mtbf` or `--rate`, and 0 nodes is refused.
#[test]
fn node_mtbf_and_nodes_give_the_job_mtbf() {
    let by_node =
        ckptsim(&["formulas", "--checkpoint", "3min", "--node-mtbf", "5y", "--nodes", "10000", "--restart", "10min"]);
    let by_job = ckptsim(&["formulas", "--checkpoint", "3min", "--mtbf", "15768s", "--restart", "10min"]);
    assert!(by_node.status.success(), "{}", String::from_utf8_lossy(&by_node.stderr));
    assert_eq!(by_node.stdout, by_job.stdout);
    for args in [
        vec!["--node-mtbf", "5y"],
        vec!["--nodes", "4"],
        vec!["--node-mtbf", "5y", "--nodes", "4", "--mtbf", "3h"],
        vec!["--node-mtbf", "5y", "--nodes", "4", "--rate", "0.1/h"],
        vec!["--node-mtbf", "5y", "--nodes", "0"],
        vec!["--node-mtbf", "-5y", "--nodes", "2"],
    ] {
        let mut all = vec!["formulas", "--checkpoint", "3min"];
        all.extend_from_slice(&args);
        let o = ckptsim(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    }
    // `--nodes` with the job's MTBF or rate was ignored (clap drops a requirement that
    // conflicts with a given flag): a node's MTBF passed as `--mtbf` went unnoticed.
    for (flag, value) in [("--mtbf", "20h"), ("--rate", "0.05/h")] {
        let o = ckptsim(&["formulas", "--checkpoint", "3min", flag, value, "--nodes", "2048"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flag}: {err}");
        assert!(
            err.contains("--nodes 2048 goes with --node-mtbf") && err.contains(&format!("{flag} \"{value}\"")),
            "{err}"
        );
        // The advice, followed, runs: a rate is not offered as an MTBF.
        assert!(!err.contains("--node-mtbf \"0.05/h\""), "{err}");
    }
}

/// Beyond the chunk limit of scenario files the finite-work columns lose their digits (the
/// wall time came out below the work): they are left out, and stderr says why.
#[test]
fn finite_work_beyond_the_chunk_limit_is_left_out() {
    let args = ["--checkpoint", "1e-12s", "--mtbf", "1h", "--restart", "1min", "--work", "1e30s"];
    let doc = formulas(&args);
    for row in doc["intervals"].as_array().unwrap() {
        assert!(row["wall_mean_s"].is_null() && row["job_overhead"].is_null(), "{row}");
    }
    let mut table = vec!["formulas"];
    table.extend(args);
    let o = ckptsim(&table);
    assert!(o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("more than 1e12 chunks"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // Within the limit they are there, and the wall time exceeds the work.
    let doc = formulas(&["--checkpoint", "5min", "--mtbf", "24h", "--restart", "10min", "--work", "500h"]);
    for row in doc["intervals"].as_array().unwrap() {
        assert!(row["wall_mean_s"].as_f64().unwrap() > 500.0 * 3600.0, "{row}");
    }
}

/// Without a failure rate, the error names all three ways to give one (it named `--mtbf` only).
#[test]
fn a_missing_failure_rate_names_every_way_to_give_one() {
    let o = ckptsim(&["formulas", "--checkpoint", "2min"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    for flag in ["--mtbf", "--rate", "--node-mtbf"] {
        assert!(err.contains(flag), "{flag} missing: {err}");
    }
}

/// With `--work`, an `optimal-work` row: the best equal chunking of that work, the interval
/// `policy.interval = "optimal-work"` gives (W/128 on the Young–Daly 2 min point), with the
/// least job overhead of all rows; without `--work` there is none.
#[test]
fn formulas_give_the_best_chunking_of_the_work() {
    let base = ["--checkpoint", "2min", "--mtbf", "3.1h", "--restart", "10min"];
    let mut with_work = base.to_vec();
    with_work.extend(["--work", "2e5s"]);
    let doc = formulas(&with_work);
    assert_eq!(interval_min(&doc, "optimal-work"), 2e5 / 128.0 / 60.0);
    let rows = doc["intervals"].as_array().unwrap();
    let least = rows.iter().map(|r| r["job_overhead"].as_f64().unwrap()).fold(f64::INFINITY, f64::min);
    let row = rows.iter().find(|r| r["name"] == "optimal-work").unwrap();
    assert_eq!(row["job_overhead"].as_f64().unwrap(), least);
    let doc = formulas(&base);
    assert!(doc["intervals"].as_array().unwrap().iter().all(|r| r["name"] != "optimal-work"), "{doc}");
}
