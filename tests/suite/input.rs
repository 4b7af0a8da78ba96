//! Issue #32, "CLI habits": durations accept the long names of their units ("10 minutes",
//! "2 hours") wherever one is parsed, and a scenario path `-` reads standard input (its
//! default name `stdin`, its relative paths against the current folder, its errors at
//! `<stdin>:LINE:COL`, its partial summaries merged without reading it again).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use ckptsim::scenario::{self, DURATION_NAMES, DURATION_UNITS};

use super::{bin, ckptsim, entries, root};

/// Replications of the runs compared here: enough to differ between scenarios, quick.
const REPS: &str = "20";

/// A restart cost written in `unit` that is about ten minutes, so that every unit gives a job
/// like young-daly's.
fn ten_minutes_in(unit: &str) -> &'static str {
    match unit {
        "ms" => "600000",
        "s" => "600",
        "min" => "10",
        "h" => "0.2",
        "d" => "0.007",
        "w" => "0.001",
        "y" => "0.00002",
        other => panic!("no value for the unit {other}"),
    }
}

/// young-daly's text with its restart cost written as `restart`.
fn young_daly_with_restart(restart: &str) -> String {
    let text = fs::read_to_string(root("scenarios/young-daly.toml")).unwrap();
    assert!(text.contains("restart = \"10 min\""));
    text.replace("restart = \"10 min\"", &format!("restart = \"{restart}\""))
}

/// young-daly's text without its `name` line.
fn young_daly_unnamed() -> String {
    let text = fs::read_to_string(root("scenarios/young-daly.toml")).unwrap();
    let unnamed: String = text.lines().filter(|l| !l.starts_with("name =")).map(|l| format!("{l}\n")).collect();
    assert_ne!(unnamed, text, "young-daly names itself");
    unnamed
}

/// Runs the binary with `args` in `dir`, `stdin` given on its standard input.
fn with_stdin(dir: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = bin()
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    // A refused command may exit before it reads: a broken pipe is its answer, not a failure.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

fn succeeded(o: &Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `run - --reps 20 --out OUT` in the package root, reading `text`.
fn run_stdin(text: &str, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["run", "-", "--reps", REPS, "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    with_stdin(&root(""), &args, text)
}

/// The names of the files in `dir`, less its state folder, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        entries(dir).iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn every_long_unit_name_reads_as_its_short_unit() {
    for &(name, short) in &DURATION_NAMES {
        let x = ten_minutes_in(short);
        let long = scenario::parse_duration_s(&format!("{x} {name}"));
        assert_eq!(long, scenario::parse_duration_s(&format!("{x} {short}")), "{name}");
        assert_eq!(scenario::parse_duration_s(&format!("{x}{name}")), long, "{name} without a space");
        // In a scenario file, through the library: the same points, the restart included.
        let path = Path::new("restart.toml");
        let by_name = scenario::parse(&young_daly_with_restart(&format!("{x} {name}")), path, &[]).unwrap();
        let by_unit = scenario::parse(&young_daly_with_restart(&format!("{x} {short}")), path, &[]).unwrap();
        assert_eq!(by_name.points, by_unit.points, "{name}");
        let restart_s = by_name.points[0].job.restart_s;
        assert!((500.0..800.0).contains(&restart_s), "{name}: {restart_s} s");
    }
    // The durations people write most, to the second.
    for (text, seconds) in [
        ("1 day", 86_400.0),
        ("2 days", 172_800.0),
        ("1.5 hours", 5400.0),
        ("3 hr", 10_800.0),
        ("5 minutes", 300.0),
        ("30 seconds", 30.0),
        ("250 milliseconds", 0.25),
        ("1 year", 365.0 * 86_400.0),
        ("2 weeks", 14.0 * 86_400.0),
        ("1 w", 7.0 * 86_400.0),
        ("27.28 minutes", 1636.8),
    ] {
        assert_eq!(scenario::parse_duration_s(text), Ok(seconds), "{text}");
    }
    // Every name stands for a unit there is.
    for (name, short) in DURATION_NAMES {
        assert!(DURATION_UNITS.iter().any(|(u, _)| *u == short), "{name} → {short}");
    }
}

/// `--set` takes the long names too: the run is the one with the short unit, byte for byte.
#[test]
fn set_takes_long_unit_names() {
    let tmp = tempfile::tempdir().unwrap();
    let csv = |set: &str, out: &str| {
        let out = tmp.path().join(out);
        let o = ckptsim(&[
            "run",
            "scenarios/young-daly.toml",
            "--reps",
            REPS,
            "--set",
            &format!("job.restart={set}"),
            "--out",
            out.to_str().unwrap(),
        ]);
        succeeded(&o);
        fs::read(out.join("young-daly.csv")).unwrap()
    };
    let mut short_csv = std::collections::HashMap::new();
    for (i, &(name, short)) in DURATION_NAMES.iter().enumerate() {
        let x = ten_minutes_in(short);
        let expected = short_csv.entry(short).or_insert_with(|| csv(&format!("{x} {short}"), short)).clone();
        assert_eq!(csv(&format!("{x} {name}"), &format!("name-{i}")), expected, "--set job.restart={x} {name}");
    }
}

/// A unit that is no unit's name is still refused, naming the units and that their names
/// are accepted; a name in another case is answered with the short unit meant.
#[test]
fn an_unknown_long_unit_names_the_accepted_ones() {
    for (value, expected) in [
        ("3 hourz", "unknown unit `hourz`"),
        ("3 fortnights", "unknown unit `fortnights`"),
        ("3 Hours", "unknown unit `Hours`: write it as \"3 h\""),
        ("3 m", "unknown unit `m`: write it as \"3 min\""),
    ] {
        let e = scenario::parse_duration_s(value).unwrap_err();
        for part in [expected, "ms, s, min, h, d, y, w", "hours", "minutes"] {
            assert!(e.contains(part), "{value}: {e}");
        }
        let tmp = tempfile::tempdir().unwrap();
        let set = format!("failures.mtbf={value}");
        let o = ckptsim(&["run", "scenarios/young-daly.toml", "--set", &set, "--out", tmp.path().to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{value}: {stderr}");
        assert!(stderr.contains(expected) && stderr.contains("or their names"), "{value}: {stderr}");
        assert!(names(tmp.path()).is_empty(), "{value}");
    }
}

/// A scenario without a name read from standard input is named `stdin`; one with a name
/// keeps it, and runs exactly as its file does.
#[test]
fn a_scenario_on_stdin_runs_as_its_file() {
    let tmp = tempfile::tempdir().unwrap();
    let unnamed = tmp.path().join("unnamed");
    succeeded(&run_stdin(&young_daly_unnamed(), &unnamed, &[]));
    assert_eq!(names(&unnamed), ["stdin.csv", "stdin.json"]);

    let named = tmp.path().join("named");
    let text = fs::read_to_string(root("scenarios/young-daly.toml")).unwrap();
    succeeded(&run_stdin(&text, &named, &[]));
    assert_eq!(names(&named), ["young-daly.csv", "young-daly.json"]);
    let file = tmp.path().join("file");
    succeeded(&ckptsim(&["run", "scenarios/young-daly.toml", "--reps", REPS, "--out", file.to_str().unwrap()]));
    let csv = fs::read(file.join("young-daly.csv")).unwrap();
    assert_eq!(fs::read(named.join("young-daly.csv")).unwrap(), csv);
    // The unnamed one is the same run under another name.
    assert_eq!(fs::read(unnamed.join("stdin.csv")).unwrap(), csv);
}

/// The library reads `-` the same way: the default name is `stdin`, an error is located at
/// `<stdin>:LINE:COL`.
#[test]
fn the_library_names_stdin() {
    let sc = scenario::parse(&young_daly_unnamed(), Path::new("-"), &[]).unwrap();
    assert_eq!(sc.name, scenario::STDIN_NAME);
    // A partial summary stores the scenario's absolute path: the name survives it.
    let stored = std::path::absolute("-").unwrap();
    assert_eq!(scenario::parse(&young_daly_unnamed(), &stored, &[]).unwrap().name, "stdin");
    let e = scenario::parse("[job]\nwork = = 1\n", Path::new("-"), &[]).unwrap_err();
    assert!(e.to_string().starts_with("<stdin>:2:"), "{e}");
}

/// A syntax error on standard input is located at `<stdin>:LINE:COL`, exits 2 and writes
/// nothing.
#[test]
fn a_syntax_error_on_stdin_is_located_there() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let text = young_daly_unnamed().replace("checkpoint = \"120 s\"", "checkpoint = = \"120 s\"");
    let line = text.lines().position(|l| l.starts_with("checkpoint = =")).unwrap() + 1;
    let o = run_stdin(&text, &out, &[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&format!("<stdin>:{line}:")), "{stderr}");
    assert!(!stderr.contains("-:"), "{stderr}");
    assert!(names(&out).is_empty(), "{:?}", names(&out));
}

/// `-` twice in one command is refused: standard input is read once.
#[test]
fn stdin_is_read_once() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = with_stdin(&root(""), &["run", "-", "-", "--out", out.to_str().unwrap()], &young_daly_unnamed());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("<stdin>") && stderr.contains("read already"), "{stderr}");
    assert!(names(&out).is_empty());
}

/// An efficiency study on standard input resolves its schedule against the current folder,
/// through `run` and `efficiency`, and gives the file's results.
#[test]
fn an_efficiency_study_on_stdin_resolves_paths_from_here() {
    let tmp = tempfile::tempdir().unwrap();
    let text = fs::read_to_string(root("scenarios/small-schedule.toml")).unwrap();
    let file = tmp.path().join("file");
    let o = ckptsim(&["efficiency", "scenarios/small-schedule.toml", "--reps", "5", "--out", file.to_str().unwrap()]);
    succeeded(&o);
    let csv = fs::read(file.join("small-schedule.csv")).unwrap();
    for command in ["run", "efficiency"] {
        let out: PathBuf = tmp.path().join(command);
        let args = [command, "-", "--reps", "5", "--out", out.to_str().unwrap()];
        succeeded(&with_stdin(&root("scenarios"), &args, &text));
        assert_eq!(fs::read(out.join("small-schedule.csv")).unwrap(), csv, "{command}");
    }
    // From another folder the schedule is not there.
    let out = tmp.path().join("elsewhere");
    let o = with_stdin(&root(""), &["run", "-", "--reps", "5", "--out", out.to_str().unwrap()], &text);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Shards of a run on standard input merge, in another folder and without standard input, to
/// the whole run.
#[test]
fn shards_from_stdin_merge_to_the_whole_run() {
    let tmp = tempfile::tempdir().unwrap();
    let text = young_daly_unnamed();
    let shards = tmp.path().join("shards");
    for shard in ["0/2", "1/2"] {
        succeeded(&run_stdin(&text, &shards, &["--shard", shard]));
    }
    assert_eq!(names(&shards), ["stdin.shard-0-of-2.json", "stdin.shard-1-of-2.json"]);
    let merged = tmp.path().join("merged");
    let partials: Vec<String> = names(&shards).iter().map(|n| shards.join(n).to_string_lossy().into_owned()).collect();
    let mut args = vec!["merge", "--out", merged.to_str().unwrap()];
    args.extend(partials.iter().map(String::as_str));
    // Nothing on its standard input: merge reads the text the partials hold.
    succeeded(&with_stdin(tmp.path(), &args, ""));
    let whole = tmp.path().join("whole");
    succeeded(&run_stdin(&text, &whole, &[]));
    assert_eq!(names(&merged), ["stdin.csv", "stdin.json"]);
    assert_eq!(fs::read(merged.join("stdin.csv")).unwrap(), fs::read(whole.join("stdin.csv")).unwrap());
}
