//! Issue #7 acceptance 4: seeded fuzz tests over every file the tool reads (scenario text with
//! `--set` arguments, failure logs, job schedules, partial summaries) and the Weibull fit of
//! logs. Each case mutates a valid seed at the byte level (bit flips, deleted, duplicated and
//! swapped lines, swapped table headers or fields, extreme numbers, garbage units, random keys,
//! truncation anywhere, even inside a UTF-8 character; text APIs get the bytes through
//! `String::from_utf8_lossy`) and must give an `Err` or a valid result, never a panic: 33,000
//! cases in all, at least 10,000 checked at compile time. Every call runs under
//! `catch_unwind`; the first panic of a family fails its test and prints the offending input
//! (escaped, truncated to [`SHOWN_BYTES`]), so the default panic hook prints one message per
//! failing test and needs no silencing.
//!
//! Valid scenarios are also simulated (two replications), but only when that is cheap:
//! see [`cheap`]. Platform sizes are kept small (see [`SIZES`]). Everything is seeded, so a
//! failure reproduces exactly. The `*_regressions` tests keep the inputs this fuzzer found
//! that panicked (or, in release builds, gave garbage), each with the error it now gives.

use std::panic::{self, AssertUnwindSafe};
use std::path::Path;

use ckptsim::failure::trace::{self, Malformed, Observation, TraceEnd};
use ckptsim::failure::{FailureModel, Sampler};
use ckptsim::scenario::{self, Scenario, Stop};
use ckptsim::{partial, runner, schedule};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde_json::Value;

use super::{bin, root};

// Cases per family; their sum is the issue's 10,000 at least (checked at compile time).
const SCENARIO_CASES: usize = 20_000;
const LOG_CASES: usize = 5000;
const SCHEDULE_CASES: usize = 5000;
const PARTIAL_CASES: usize = 1000;
const WEIBULL_CASES: usize = 2000;
const MIN_TOTAL_CASES: usize = 10_000;
const _: () = assert!(SCENARIO_CASES + LOG_CASES + SCHEDULE_CASES + PARTIAL_CASES + WEIBULL_CASES >= MIN_TOTAL_CASES);

/// The master seed; each family derives its own stream from it.
const SEED: u64 = 0x00f0_22ed;

/// At most this many bytes of a failing input are printed.
const SHOWN_BYTES: usize = 4000;

// The cheap-simulation guard ([`cheap`]).
const MAX_WORK_PER_MTBF: f64 = 50.0;
const MAX_CHUNKS: f64 = 1e5;
const MAX_EXPOSURE_PER_MTBF: f64 = 10.0;
const MAX_NODES: u64 = 100_000;
const MAX_PER_NODE_SAMPLER_NODES: u64 = 10_000;
const MAX_POINTS: usize = 64;
const MAX_PLATFORM_NODES: u64 = 1_000_000;

/// Numbers as written in files, extreme ones first.
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "-1",
    "1e308",
    "-1e308",
    "1.7976931348623157e308",
    "nan",
    "-nan",
    "inf",
    "-inf",
    "+inf",
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775807",
    "-9223372036854775808",
    "4294967296",
    "1e-320",
    "5e-324",
    "1e-9",
    "0.9999999999",
    "1.0000000001",
    "1e19",
    "99999999999999999999999",
    "007",
    "1_000",
    "0x10",
    "1e",
    ".",
    "-",
    "",
    "1",
    "2",
    "0.5",
    "3",
    "64",
    "1000",
];

/// Numbers for rack sizes (`racks`, `nodes_per_rack`, `racks_per_*`): every extreme that is
/// not a valid count, and valid counts of at most 64. Bigger platforms are out of reach of the
/// fuzz loop's time budget: the exact distribution of a random placement
/// (`topology::touched_racks_pmf`) costs O(racks · nodes · nodes_per_rack) time and
/// O(racks · (nodes_per_rack + nodes)) memory in `scenario::parse`, and fixed placements
/// collect the touched racks, so 2³² racks abort on a failed allocation. Job sizes are then
/// bounded by the platform where there is one, so they may take any value ([`NODE_COUNTS`]).
const SIZES: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "3",
    "7",
    "64",
    "1e308",
    "-1e308",
    "nan",
    "inf",
    "18446744073709551615",
    "-9223372036854775808",
    "1e-320",
    "0.5",
    "99999999999999999999999",
    "0x10",
    "",
];

/// Numbers for node counts (`nodes`): [`SIZES`] and big counts.
const NODE_COUNTS: &[&str] = &["1000", "4294967296", "10000000000", "9007199254740993", "9223372036854775807"];

/// Units that are not units.
const GARBAGE_UNITS: &[&str] =
    &["", "S", "sec", "weeks", "µs", "m", "hh", "s s", "мин", "\u{0}", "y2", "e5", "inf", "s\"s", "h#"];

/// Bytes worth inserting: multibyte characters, control characters and CSV/TOML syntax.
const SPECIAL: &[&str] = &[
    "é",
    "€",
    "\u{1F600}",
    "\u{FEFF}",
    "\u{0}",
    "\r",
    "\n",
    "\t",
    "\"",
    "'",
    "[",
    "]",
    "{",
    "}",
    "=",
    ",",
    "#",
    "\\",
    "\"\"\"",
    "[[",
    "]]",
    ".",
    "-",
    "\u{7f}",
    "\u{a0}",
];

/// Every dotted key a scenario knows, and a few it does not.
const KEYS: &[&str] = &[
    "name",
    "description",
    "run.replications",
    "run.precision",
    "run.seed",
    "job.work",
    "job.nodes",
    "job.checkpoint",
    "job.restart",
    "job.downtime",
    "job.final_checkpoint",
    "job.failures_during_checkpoint",
    "job.failures_during_restart",
    "job.on_failure",
    "job.placement",
    "failures.law",
    "failures.mtbf",
    "failures.node_mtbf",
    "failures.shape",
    "failures.sigma",
    "failures.times",
    "failures.renewal",
    "failures.start",
    "failures.sampler",
    "failures.class",
    "failures.rack.law",
    "failures.rack.mtbf",
    "failures.rack.shape",
    "failures.switch.mtbf",
    "failures.switch.law",
    "failures.power.mtbf",
    "failures.power.sigma",
    "failures.system.mtbf",
    "failures.system.times",
    "failures.random.nodes",
    "failures.random.mtbf",
    "failures.random.law",
    "failures.burst.branching",
    "failures.burst.decay",
    "policy.interval",
    "policy.factor",
    "topology.racks",
    "topology.nodes_per_rack",
    "topology.racks_per_switch",
    "topology.racks_per_power",
    "sweep.job.work",
    "sweep",
    "job",
    "job.work.unit",
    "failures.class.0.share",
    "bogus",
    "job.bogus",
];

/// Scenario values (TOML), extreme and ordinary.
const VALUES: &[&str] = &[
    "\"0 s\"",
    "\"-1 s\"",
    "\"1e308 y\"",
    "\"1e-320 ms\"",
    "\"nan s\"",
    "\"inf h\"",
    "\"5 weeks\"",
    "\"\"",
    "\"1e300 s\"",
    "\"1e-300 s\"",
    "\"2 min\"",
    "\"10 min\"",
    "\"3.1 h\"",
    "\"1 y\"",
    "\"18446744073709551615 d\"",
    "\"young\"",
    "\"daly\"",
    "\"daly-high-order\"",
    "\"optimal\"",
    "\"none\"",
    "\"exponential\"",
    "\"weibull\"",
    "\"lognormal\"",
    "\"gamma\"",
    "\"empirical\"",
    "\"job\"",
    "\"node\"",
    "\"fresh\"",
    "\"stationary\"",
    "\"cohort\"",
    "\"per-node\"",
    "\"packed\"",
    "\"spread\"",
    "\"random\"",
    "\"restart\"",
    "\"end-job\"",
    "true",
    "false",
    "[]",
    "[\"1e-300 s\"]",
    "[\"1e308 s\", \"1e308 s\"]",
    "[\"1e300 s\", \"1e-300 s\"]",
    "[\"2 min\", \"3 h\"]",
    "[0.5, 1]",
    "[[1]]",
    "{}",
    "[{ share = 1.0, node_mtbf = \"1 y\" }]",
    "[{ share = 0.5, node_mtbf = \"1 y\" }, { share = 0.5000000001, node_mtbf = \"2 y\" }]",
    "1979-05-27T07:32:00Z",
];

/// `--set` values without TOML quoting, as typed on a shell.
const BARE_VALUES: &[&str] = &["300s", "2 min", "young", "", "=", "\"unterminated", "1e308 y", "per-node", "[1,"];

/// Extra scenario seeds beside `scenarios/*.toml`, so that every law, class tables (with
/// shares that sum to 1 within the tolerance), the per-node sampler and every correlated
/// failure kind are one mutation away.
const EXTRA_SCENARIOS: &[&str] = &[
    r#"[run]
replications = 10
[job]
work = "1 d"
checkpoint = "1 min"
restart = "2 min"
downtime = "1 min"
[failures]
law = "empirical"
times = ["1 h", "3 h", "30 min"]
mtbf = "2 h"
renewal = "job"
start = "fresh"
[policy]
interval = "optimal"
[sweep]
"failures.mtbf" = ["1 h", "5 h"]
"#,
    r#"[job]
work = "1 d"
nodes = 64
checkpoint = "1 min"
restart = "2 min"
failures_during_restart = false
[failures]
sampler = "per-node"
start = "fresh"
[[failures.class]]
share = 0.5
law = "gamma"
shape = 2.0
node_mtbf = "30 d"
[[failures.class]]
share = 0.5000000001
law = "lognormal"
sigma = 1.5
node_mtbf = "60 d"
[policy]
interval = "daly"
"#,
    r#"[run]
precision = 0.01
seed = 5
[topology]
racks = 8
nodes_per_rack = 4
racks_per_switch = 2
racks_per_power = 4
[job]
work = "1 d"
nodes = 12
placement = "random"
checkpoint = "1 min"
restart = "1 min"
on_failure = "end-job"
failures_during_checkpoint = false
final_checkpoint = false
[failures]
law = "exponential"
node_mtbf = "1 y"
[failures.switch]
law = "weibull"
shape = 0.8
mtbf = "30 d"
[failures.power]
mtbf = "90 d"
[failures.system]
law = "empirical"
times = ["100 d", "200 d"]
[failures.random]
nodes = 3
mtbf = "10 d"
[failures.burst]
branching = 0.3
decay = "5 min"
[policy]
interval = "2 h"
factor = 0.5
"#,
];

/// A LANL header, as shipped.
const LANL_HEADER: &str = "System,machine type,nodes,procstot,procsinnode,nodenum,nodenumz,node install,node prod,\
node decom,fru type,mem,cputype,memtype,num intercon,purpose,Prob Started,Prob Fixed,Down Time,Facilities,Hardware,\
Human Error,Network,Undetermined,Software,Same Event";

// ───────────────────────────── harness ─────────────────────────────

fn rng_for(family: u64) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(runner::mix64(SEED ^ family))
}

/// An input for the failure report: escaped (a Rust literal), truncated to [`SHOWN_BYTES`].
fn show(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(SHOWN_BYTES)];
    let more = if cut.len() < bytes.len() { format!(" … ({} bytes in all)", bytes.len()) } else { String::new() };
    format!("b\"{}\"{more}", cut.escape_ascii())
}

/// Runs `f`; a panic fails the test, printing the family, the case and `input()`.
fn no_panic<R>(family: &str, case: usize, input: &dyn Fn() -> String, f: impl FnOnce() -> R) -> R {
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            eprintln!("{family} case {case} panicked ({message}) on this input:\n{}", input());
            panic!("{family} case {case}: panic on bad input: {message}");
        }
    }
}

fn pick<'a, T: ?Sized>(rng: &mut Pcg64Mcg, items: &[&'a T]) -> &'a T {
    items[rng.random_range(0..items.len())]
}

/// The lines of `bytes`, each with its `\n`.
fn lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes.split_inclusive(|&b| b == b'\n').map(<[u8]>::to_vec).collect()
}

/// Spans of the numbers in `bytes`: words (letters, digits, `.+-_`) with a digit after at
/// most a sign or a point.
fn number_spans(bytes: &[u8]) -> Vec<(usize, usize)> {
    let word = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-' | b'_');
    let mut spans = vec![];
    let mut i = 0;
    while i < bytes.len() {
        if word(bytes[i]) && (i == 0 || !word(bytes[i - 1])) {
            let end = i + bytes[i..].iter().take_while(|&&b| word(b)).count();
            let first_digit = bytes[i..end].iter().position(u8::is_ascii_digit);
            if first_digit.is_some_and(|d| bytes[i..i + d].iter().all(|b| matches!(b, b'+' | b'-' | b'.'))) {
                spans.push((i, end));
            }
            i = end;
        } else {
            i += 1;
        }
    }
    spans
}

/// Spans of the letters that follow a digit (and optional spaces): the units of durations,
/// not the `e` of an exponent.
fn unit_spans(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = vec![];
    for i in (0..bytes.len()).filter(|&i| bytes[i].is_ascii_digit()) {
        let start = i + 1 + bytes[i + 1..].iter().take_while(|&&b| b == b' ').count();
        let len = bytes[start..].iter().take_while(|b| b.is_ascii_alphabetic()).count();
        let exponent = start == i + 1 && matches!(bytes.get(start), Some(b'e' | b'E'));
        if len > 0 && !exponent {
            spans.push((start, start + len));
        }
    }
    spans
}

/// Replaces `bytes[a..b]` with `with`.
fn splice(bytes: &mut Vec<u8>, (a, b): (usize, usize), with: &[u8]) {
    bytes.splice(a..b, with.iter().copied());
}

/// What a family's mutations draw from.
struct Pools<'a> {
    /// Whole lines worth inserting.
    inserts: &'a [String],
    /// Values worth putting into a comma-separated field.
    fields: &'a [&'a str],
    /// Whether numbers after a size key are drawn from [`SIZES`] (scenarios).
    sizes: bool,
}

/// What the text before a number (or a key) says it counts.
#[derive(PartialEq)]
enum Size {
    /// Racks or nodes per rack: see [`SIZES`].
    Racks,
    /// Nodes: see [`NODE_COUNTS`].
    Nodes,
    /// Not a size.
    No,
}

fn size_of(before: &[u8]) -> Size {
    let text = String::from_utf8_lossy(before);
    if text.contains("rack") {
        Size::Racks
    } else if text.contains("nodes") {
        Size::Nodes
    } else {
        Size::No
    }
}

/// One random byte-level mutation of `bytes`.
fn mutate(bytes: &mut Vec<u8>, rng: &mut Pcg64Mcg, pools: &Pools) {
    let (inserts, fields) = (pools.inserts, pools.fields);
    let n = bytes.len();
    match rng.random_range(0..14) {
        0 if n > 0 => {
            let i = rng.random_range(0..n);
            bytes[i] ^= 1 << rng.random_range(0..8);
        }
        1 if n > 0 => {
            let i = rng.random_range(0..n);
            bytes[i] = rng.random();
        }
        2..=4 => {
            let mut ls = lines(bytes);
            if ls.is_empty() {
                return;
            }
            let i = rng.random_range(0..ls.len());
            match rng.random_range(0..3) {
                0 => {
                    ls.remove(i);
                }
                1 => {
                    let copy = ls[i].clone();
                    ls.insert(rng.random_range(0..=ls.len()), copy);
                }
                _ => {
                    let j = rng.random_range(0..ls.len());
                    ls.swap(i, j);
                }
            }
            *bytes = ls.concat();
        }
        5 | 6 => {
            let spans = number_spans(bytes);
            if !spans.is_empty() {
                let s = spans[rng.random_range(0..spans.len())];
                let line = &bytes[bytes[..s.0].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)..s.0];
                let number = match size_of(line) {
                    Size::Racks if pools.sizes => pick(rng, SIZES),
                    Size::Nodes if pools.sizes && rng.random_bool(0.3) => pick(rng, NODE_COUNTS),
                    Size::Nodes if pools.sizes => pick(rng, SIZES),
                    _ => pick(rng, NUMBERS),
                };
                splice(bytes, s, number.as_bytes());
            }
        }
        7 => {
            let spans = unit_spans(bytes);
            if !spans.is_empty() {
                let s = spans[rng.random_range(0..spans.len())];
                splice(bytes, s, pick(rng, GARBAGE_UNITS).as_bytes());
            }
        }
        8 if !inserts.is_empty() => {
            let mut ls = lines(bytes);
            let line = &inserts[rng.random_range(0..inserts.len())];
            ls.insert(rng.random_range(0..=ls.len()), format!("{line}\n").into_bytes());
            *bytes = ls.concat();
        }
        9 => {
            // Truncate anywhere: inside a line, a quoted string or a multibyte character.
            bytes.truncate(rng.random_range(0..=n));
        }
        10 => {
            let at = rng.random_range(0..=n);
            let s = pick(rng, SPECIAL).as_bytes();
            // Sometimes only a prefix of a multibyte character.
            let s = if s.len() > 1 && rng.random_bool(0.3) { &s[..rng.random_range(1..s.len())] } else { s };
            splice(bytes, (at, at), s);
        }
        11 if n > 0 => {
            let a = rng.random_range(0..n);
            let b = (a + rng.random_range(1..=16)).min(n);
            splice(bytes, (a, b), b"");
        }
        12 => {
            // Swap two table headers (TOML) or two fields of a line (CSV).
            let mut ls = lines(bytes);
            let headers: Vec<usize> = (0..ls.len()).filter(|&i| ls[i].starts_with(b"[")).collect();
            if headers.len() >= 2 {
                let (a, b) = (pick_index(rng, &headers), pick_index(rng, &headers));
                ls.swap(a, b);
            } else if !ls.is_empty() {
                let i = rng.random_range(0..ls.len());
                let text = String::from_utf8_lossy(&ls[i]).into_owned();
                let mut f: Vec<&str> = text.trim_end_matches('\n').split(',').collect();
                let (a, b) = (rng.random_range(0..f.len()), rng.random_range(0..f.len()));
                f.swap(a, b);
                ls[i] = format!("{}\n", f.join(",")).into_bytes();
            }
            *bytes = ls.concat();
        }
        _ => {
            // Replace one comma-separated field of a line.
            let mut ls = lines(bytes);
            if ls.is_empty() || fields.is_empty() {
                return;
            }
            let i = rng.random_range(0..ls.len());
            let text = String::from_utf8_lossy(&ls[i]).into_owned();
            let mut f: Vec<&str> = text.trim_end_matches(['\n', '\r']).split(',').collect();
            let k = rng.random_range(0..f.len());
            f[k] = pick(rng, fields);
            ls[i] = format!("{}\n", f.join(",")).into_bytes();
            *bytes = ls.concat();
        }
    }
}

fn pick_index(rng: &mut Pcg64Mcg, items: &[usize]) -> usize {
    items[rng.random_range(0..items.len())]
}

/// A mutant of a random seed: one to four mutations (zero when `may_keep`, sometimes).
fn mutant(rng: &mut Pcg64Mcg, seeds: &[Vec<u8>], pools: &Pools, may_keep: bool) -> Vec<u8> {
    let mut bytes = seeds[rng.random_range(0..seeds.len())].clone();
    let rounds = if may_keep && rng.random_bool(0.2) { 0 } else { rng.random_range(1..=4) };
    for _ in 0..rounds {
        mutate(&mut bytes, rng, pools);
    }
    bytes
}

// ───────────────────────────── scenarios ─────────────────────────────

/// The example scenarios and [`EXTRA_SCENARIOS`]. `rack-events.toml` comes with its
/// platform shrunk from 64 racks of 32 nodes (job 256 nodes) to 8 racks of 4 (job 16 nodes):
/// at full size the exact distribution of its random placement takes 0.3 s a parse.
fn scenario_seeds() -> Vec<Vec<u8>> {
    let mut paths: Vec<_> = std::fs::read_dir(root("scenarios"))
        .expect("scenarios/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 8, "the example scenarios");
    let mut seeds = vec![];
    for path in paths {
        let mut text = std::fs::read_to_string(&path).expect("a scenario");
        // Run scenarios only: efficiency scenarios have their own format, and replays read
        // outside data (the trace family fuzzes logs directly).
        if text.contains("[machine]") || text.contains("[schedule]") || text.contains("[failures.trace]") {
            continue;
        }
        if path.ends_with("rack-events.toml") {
            for (from, to) in [
                ("racks = 64", "racks = 8"),
                ("nodes_per_rack = 32", "nodes_per_rack = 4"),
                ("nodes = 256", "nodes = 16"),
            ] {
                assert!(text.contains(from), "rack-events.toml has `{from}`");
                text = text.replace(from, to);
            }
        }
        seeds.push(text.into_bytes());
    }
    seeds.extend(EXTRA_SCENARIOS.iter().map(|s| s.as_bytes().to_vec()));
    seeds
}

/// The numbers for the dotted `key`: [`SIZES`], [`NODE_COUNTS`] or [`NUMBERS`].
fn numbers_for(key: &str) -> Vec<&'static str> {
    match size_of(key.as_bytes()) {
        Size::Racks => SIZES.to_vec(),
        Size::Nodes => SIZES.iter().chain(NODE_COUNTS).copied().collect(),
        Size::No => NUMBERS.to_vec(),
    }
}

/// A value for `key`: a TOML value, a number, or (for `--set`) a bare word.
fn value_for(rng: &mut Pcg64Mcg, key: &str, bare: bool) -> &'static str {
    match rng.random_range(0..10) {
        0..3 => pick(rng, &numbers_for(key)),
        3 if bare => pick(rng, BARE_VALUES),
        _ => pick(rng, VALUES),
    }
}

/// Lines worth inserting into a scenario: `leaf = value` for every known key, table headers
/// and sweep entries.
fn scenario_inserts() -> Vec<String> {
    let mut out = vec![];
    for key in KEYS {
        let leaf = key.rsplit('.').next().unwrap_or(key);
        for value in VALUES.iter().step_by(3).chain(numbers_for(key).iter().step_by(2)) {
            out.push(format!("{leaf} = {value}"));
        }
        out.push(format!("\"{key}\" = [{}]", VALUES[0]));
    }
    for header in [
        "[job]",
        "[failures]",
        "[[failures.class]]",
        "[failures.rack]",
        "[failures.random]",
        "[failures.burst]",
        "[topology]",
        "[policy]",
        "[run]",
        "[sweep]",
        "[bogus]",
        "[[job]]",
    ] {
        out.push(header.to_string());
    }
    out.extend(
        [
            "\"policy.interval\" = [\"young\", \"none\", \"0 s\"]",
            "\"failures.shape\" = [0.05, 50, 0.04]",
            "\"job.nodes\" = [1, 0, 64]",
            "\"run.seed\" = [1, 2]",
            "\"job.placement\" = [\"random\"]",
            "law = \"empirical\"\ntimes = [\"1e-300 s\"]\nmtbf = \"1e300 s\"",
        ]
        .map(String::from),
    );
    out
}

fn random_set(rng: &mut Pcg64Mcg) -> String {
    let key = pick(rng, KEYS);
    let value = value_for(rng, key, true);
    match rng.random_range(0..20) {
        0 => format!("{key}{value}"),
        1 => format!(" {key} = {value} "),
        2 => format!("{key}.={value}"),
        3 => format!("={value}"),
        _ => format!("{key}={value}"),
    }
}

/// Whether two replications of every point of `sc` are cheap, so that no case can hang:
/// the work is at most [`MAX_WORK_PER_MTBF`] MTBFs (failures per replication), it splits
/// into at most [`MAX_CHUNKS`] chunks, a chunk with its checkpoint and a restart with its
/// downtime each last at most [`MAX_EXPOSURE_PER_MTBF`] MTBFs (their attempts grow like
/// e^(length/MTBF)), the job has at most [`MAX_NODES`] nodes ([`MAX_PER_NODE_SAMPLER_NODES`]
/// with the per-node sampler, O(nodes) per replication), the platform at most
/// [`MAX_PLATFORM_NODES`] (random placements draw on it) and the sweep at most
/// [`MAX_POINTS`] points.
fn cheap(sc: &Scenario) -> bool {
    sc.points.len() <= MAX_POINTS
        && sc.points.iter().all(|p| {
            let (w, m) = (p.job.work_s, p.failures.mtbf_s());
            let per_node = matches!(p.failures.base, FailureModel::Platform { sampler: Sampler::PerNode, .. });
            let platform = p.failures.topology.as_ref().map_or(0, |t| t.racks.saturating_mul(t.nodes_per_rack));
            w.is_finite()
                && m.is_finite()
                && m > 0.0
                && w / m <= MAX_WORK_PER_MTBF
                && p.interval_s >= w / MAX_CHUNKS
                && (p.interval_s.min(w) + p.job.checkpoint_s) / m <= MAX_EXPOSURE_PER_MTBF
                && (p.job.restart_s + p.job.downtime_s) / m <= MAX_EXPOSURE_PER_MTBF
                && p.nodes <= MAX_NODES
                && !(per_node && p.nodes > MAX_PER_NODE_SAMPLER_NODES)
                && platform <= MAX_PLATFORM_NODES
        })
}

/// What a valid scenario promises (the `Point` docs and the validation in `scenario`).
fn check_scenario(sc: &Scenario) {
    let count: usize = sc.axes.iter().map(|a| a.values.len()).product();
    assert_eq!(sc.points.len(), count, "one point per combination of the sweep");
    for p in &sc.points {
        assert!(p.job.work_s > 0.0, "{p:?}");
        assert!(p.job.checkpoint_s >= 0.0 && p.job.restart_s >= 0.0 && p.job.downtime_s >= 0.0, "{p:?}");
        assert!(p.nodes >= 1, "{p:?}");
        assert!(p.interval_s > 0.0, "{p:?}");
        assert!(p.factor > 0.0 && p.factor.is_finite(), "{p:?}");
        assert_eq!(p.labels.len(), sc.axes.len());
    }
    match sc.run.stop {
        Stop::Replications(n) => assert!(n >= 2),
        Stop::Precision(h) => assert!(h > 0.0 && h.is_finite()),
    }
}

struct ScenarioTally {
    cases: usize,
    valid: usize,
    simulated: usize,
}

fn scenario_case(case: usize, text: &str, sets: &[String], tally: &mut ScenarioTally) {
    let input = || format!("{}\n--set arguments: {sets:?}", show(text.as_bytes()));
    no_panic("scenario", case, &input, || {
        tally.cases += 1;
        let sc = match scenario::parse(text, Path::new("fuzz.toml"), sets) {
            Ok(sc) => sc,
            Err(e) => {
                assert_eq!(e.exit_code(), 2, "{e}");
                assert!(!e.to_string().is_empty());
                return;
            }
        };
        tally.valid += 1;
        check_scenario(&sc);
        if cheap(&sc) {
            tally.simulated += 1;
            match runner::run(&sc, Stop::Replications(2), case as u64, &|_| {}, &|_| {}) {
                Ok(r) => {
                    assert_eq!(r.summaries.len(), sc.points.len());
                    assert!(r.summaries.iter().all(|s| s.replications() == 2));
                }
                Err(e) => assert!(!e.to_string().is_empty()),
            }
        }
    });
}

#[test]
fn scenario_text_and_sets_never_panic() {
    let seeds = scenario_seeds();
    for (i, s) in seeds.iter().enumerate() {
        let text = String::from_utf8_lossy(s);
        scenario::parse(&text, Path::new("seed.toml"), &[]).unwrap_or_else(|e| panic!("seed {i} is invalid: {e}"));
    }
    let inserts = scenario_inserts();
    let pools = Pools { inserts: &inserts, fields: NUMBERS, sizes: true };
    let mut rng = rng_for(1);
    let mut tally = ScenarioTally { cases: 0, valid: 0, simulated: 0 };
    for case in 0..SCENARIO_CASES {
        let sets: Vec<String> = if rng.random_bool(0.4) {
            (0..rng.random_range(1..=3)).map(|_| random_set(&mut rng)).collect()
        } else {
            vec![]
        };
        let bytes = mutant(&mut rng, &seeds, &pools, !sets.is_empty());
        let text = String::from_utf8_lossy(&bytes);
        scenario_case(case, &text, &sets, &mut tally);
    }
    eprintln!("fuzz: {} scenario cases, {} valid, {} simulated", tally.cases, tally.valid, tally.simulated);
    assert_eq!(tally.cases, SCENARIO_CASES);
    // The mutations must leave enough inputs valid to exercise validation and simulation.
    assert!(tally.valid >= SCENARIO_CASES / 20, "only {} valid", tally.valid);
    assert!(tally.simulated >= SCENARIO_CASES / 50, "only {} simulated", tally.simulated);
}

/// Scenarios this fuzzer found: in debug builds they panicked (`ExactSum::add(inf)`: the
/// summaries add the square of the overhead, or of the wall time, which overflowed); release
/// builds summed garbage. They became an error of the run (exit 1), and are now refused at
/// parse (exit 2, naming `job.work`); the run's own guard stays, checked here on points
/// changed after parsing.
#[test]
fn scenario_regressions() {
    let found = EXTRA_SCENARIOS[1].replace("work = \"1 d\"", "work = \"5e-324 d\"");
    let huge_wall = "[job]\nwork = \"1e200 s\"\ncheckpoint = \"1 min\"\nrestart = \"1 min\"\n\
                     [failures]\nmtbf = \"1e300 s\"\n[policy]\ninterval = \"none\"\n";
    for (i, (text, work_s)) in [(found.as_str(), 5e-324 * 86400.0), (huge_wall, 1e200)].into_iter().enumerate() {
        let input = || show(text.as_bytes());
        let e = scenario::parse(text, Path::new("regression.toml"), &[]).expect_err("refused at parse");
        assert_eq!(e.exit_code(), 2, "{e}");
        assert!(e.to_string().contains("key `job.work`"), "{e}");
        // The same scenario with an ordinary work, then the found one put back by hand.
        let ordinary = text.replace("5e-324 d", "1 d").replace("1e200 s", "1 d");
        let mut sc = scenario::parse(&ordinary, Path::new("regression.toml"), &[]).expect("a valid scenario");
        sc.points.iter_mut().for_each(|p| p.job.work_s = work_s);
        let r =
            no_panic("scenario regression", i, &input, || runner::run(&sc, Stop::Replications(2), 1, &|_| {}, &|_| {}));
        let e = r.expect_err("the overhead or the wall time cannot be summarised");
        assert_eq!(e.exit_code(), 1);
        assert!(e.to_string().contains("too large to summarise"), "{e}");
    }
}

/// Class shares within the tolerance of 1 rounded to more nodes than the job has: with
/// 10¹⁰ nodes the largest-remainder rounding subtracted with overflow (a panic in debug
/// builds; release builds gave the classes 3 nodes too many). Now refused, naming the shares.
#[test]
fn class_rounding_regressions() {
    for nodes in ["10000000000", "9223372036854775807"] {
        let text = EXTRA_SCENARIOS[1].replace("nodes = 64", &format!("nodes = {nodes}"));
        let input = || show(text.as_bytes());
        let e = no_panic("class regression", 0, &input, || scenario::parse(&text, Path::new("r.toml"), &[]))
            .expect_err("the rounded classes exceed the job");
        let message = e.to_string();
        assert!(message.contains("failures.class.0.share") && message.contains("more nodes than it has"), "{message}");
    }
}

/// Scenarios this fuzzer found that panicked in every build (`Law::scaled`: "scaling keeps
/// lifetimes valid"): an empirical law rescaled to a mean that takes its times to 0 or ∞.
/// They are now refused, naming the times.
#[test]
fn empirical_rescaling_regressions() {
    let found = EXTRA_SCENARIOS[2].replace("law = \"empirical\"\n", "law = \"empirical\"\nmtbf = \"5e-324 d\"\n");
    let to_infinity = "[job]\nwork = \"1 d\"\ncheckpoint = \"1 min\"\nrestart = \"1 min\"\n\
                       [failures]\nlaw = \"empirical\"\ntimes = [\"1e-300 s\"]\nmtbf = \"1e300 s\"\n";
    for (i, (text, key)) in
        [(found.as_str(), "failures.system.times"), (to_infinity, "failures.times")].into_iter().enumerate()
    {
        let input = || show(text.as_bytes());
        let e = no_panic("empirical regression", i, &input, || scenario::parse(text, Path::new("r.toml"), &[]))
            .expect_err("the rescaled times leave (0, ∞)");
        let message = e.to_string();
        assert!(message.contains(key) && message.contains("rescaled"), "{message}");
    }
}

// ───────────────────────────── failure logs ─────────────────────────────

fn lanl_row(system: &str, nodes: &str, node: &str, started: &str, down: &str, cause: usize) -> String {
    let mut causes = [""; 6];
    causes[cause] = "\"Some, cause\"";
    format!(
        "{system},cluster,{nodes},6152,128,{node},{node},Nov-96,Jan-97,5-Nov,part,32,1,1,12,compute,{started},\
         {started},{down},{},No",
        causes.join(",")
    )
}

fn log_seeds() -> Vec<Vec<u8>> {
    let lanl = [
        LANL_HEADER.to_string(),
        lanl_row("2", "49", "3", "4/19/2001 3:27", "21", 5),
        lanl_row("2", "49", "4", "4/19/2001 3:30", "5", 1),
        lanl_row("7", "1", "0", "2/29/2004 23:59", "", 1),
        lanl_row("2", "49", "0", "12/31/1999 0:00", "10", 0),
        lanl_row("2", "", "", "1/1/2000 13:05", "0", 3),
    ]
    .join("\n")
        + "\n";
    let simple = "# a comment\ntime,node,cause\n0 s,0,hardware\n90 s,1,\n3.5 h,0,\"soft, ware\"\n\n2 d,7,network\n";
    let seconds = "\u{feff}TIME_S , Node\r\n0,0\r\n60,1\r\n60,1\r\n7200.5,3\r\n86400,2\r\n";
    let two = "time,node\n1 min,0\n1 min,1\n";
    let mut xz = vec![];
    lzma_rs::xz_compress(&mut simple.as_bytes(), &mut xz).expect("xz in memory");
    vec![lanl.into_bytes(), simple.as_bytes().to_vec(), seconds.as_bytes().to_vec(), two.as_bytes().to_vec(), xz]
}

fn log_inserts() -> Vec<String> {
    vec![
        LANL_HEADER.to_string(),
        lanl_row("3", "1024", "1023", "2/29/2000 23:59", "1e308", 2),
        lanl_row("3", "18446744073709551615", "18446744073709551615", "2/29/1900 0:00", "-1", 4),
        lanl_row("4", "1", "0", "1/1/0000 0:00", "nan", 0),
        lanl_row("4", "1", "0", "12/31/9999 23:59", "inf", 0),
        "time,node,cause".into(),
        "time_s,node".into(),
        "1e308 y,0,x".into(),
        "1e-320 s,18446744073709551615,".into(),
        "1e308,0".into(),
        "-0,0".into(),
        "\"1 h\",\"2\",\"a\"\"b\"".into(),
        "# comment".into(),
        "".into(),
        ",,".into(),
    ]
}

const LOG_FIELDS: &[&str] = &[
    "",
    "0",
    "-1",
    "1e308",
    "nan",
    "inf",
    "18446744073709551615",
    "18446744073709551616",
    "1e-320",
    "1e308 y",
    "1e-300 s",
    "5 weeks",
    "2/30/2001 25:61",
    "13/1/2001 1:00",
    "1/1/99999 1:00",
    "2/29/2100 0:00",
    "1/1/2000",
    "1/1/2000 1:5",
    "\"",
    "\"unterminated",
    "\"q, uoted\"",
    "Prob Started",
    "System",
    "Hardware",
    "é",
];

fn log_case(case: usize, bytes: &[u8], name: &str, malformed: Malformed) -> bool {
    let input = || format!("{} (file {name:?}, {malformed:?})", show(bytes));
    no_panic("log", case, &input, || {
        let log = match trace::parse_log(bytes, Path::new(name), malformed) {
            Ok(log) => log,
            Err(e) => {
                assert_eq!(e.exit_code(), 2, "{e}");
                return false;
            }
        };
        assert!(!log.systems.is_empty());
        if malformed == Malformed::Fatal {
            assert_eq!(log.skipped, 0);
        }
        assert_eq!(log.system_names().len(), log.systems.len());
        let mut stats = vec![];
        for sys in log.systems.values() {
            assert!(!sys.events.is_empty(), "{}", sys.name);
            assert!(sys.events.windows(2).all(|w| w[0].time_s.total_cmp(&w[1].time_s).is_le()));
            assert_eq!((sys.start_s, sys.end_s), (sys.events[0].time_s, sys.events[sys.events.len() - 1].time_s));
            let s = trace::system_stats(sys);
            assert_eq!(s.failures, sys.events.len());
            let _ = trace::fit_weibull(&trace::observations(sys));
            let _ = trace::fragment(&s, name);
            let period = trace::wrap_period_s(sys);
            if period > 0.0 && period < 1e300 {
                for end in [TraceEnd::Wrap, TraceEnd::Censor] {
                    let window = trace::events_in_window(sys, -period / 2.0, 3.0 * period, end);
                    assert!(window.iter().all(|e| e.time_s >= 0.0 && e.time_s < 3.0 * period));
                }
            }
            let csv = trace::to_simple_csv(sys);
            let _ = trace::parse_log(csv.as_bytes(), Path::new("again.csv"), Malformed::Fatal);
            stats.push(s);
        }
        let _ = trace::stats_table(&stats);
        let _ = trace::stats_csv(&stats);
        true
    })
}

#[test]
fn failure_logs_never_panic() {
    let seeds = log_seeds();
    for (i, s) in seeds.iter().enumerate() {
        trace::parse_log(s, Path::new("seed.csv"), Malformed::Fatal).unwrap_or_else(|e| panic!("seed {i}: {e}"));
    }
    let inserts = log_inserts();
    let pools = Pools { inserts: &inserts, fields: LOG_FIELDS, sizes: false };
    let names = ["fuzz.csv", "fuzz.csv.xz", "", ".csv", "é.csv"];
    let mut rng = rng_for(2);
    let (mut cases, mut valid) = (0, 0);
    for case in 0..LOG_CASES {
        let bytes = mutant(&mut rng, &seeds, &pools, false);
        let name = names[rng.random_range(0..names.len())];
        let malformed = if rng.random_bool(0.5) { Malformed::Fatal } else { Malformed::Skip };
        valid += usize::from(log_case(case, &bytes, name, malformed));
        cases += 1;
    }
    eprintln!("fuzz: {cases} failure-log cases, {valid} valid");
    assert_eq!(cases, LOG_CASES);
    assert!(valid >= LOG_CASES / 20, "only {valid} valid");
}

fn random_observation(rng: &mut Pcg64Mcg) -> Observation {
    let x = |rng: &mut Pcg64Mcg| match rng.random_range(0..40) {
        0 => NUMBERS[rng.random_range(0..NUMBERS.len())].parse::<f64>().unwrap_or(f64::NAN),
        1..4 => rng.random_range(0.0..10.0),
        _ => (rng.random_range(-5.0..5.0f64)).exp() * 100.0,
    };
    match rng.random_range(0..6) {
        0 => Observation::Exact(x(rng)),
        1 => {
            let lo_s = x(rng);
            Observation::Interval { lo_s, hi_s: if rng.random_bool(0.9) { lo_s + x(rng) } else { x(rng) } }
        }
        2 => Observation::RightCensored(x(rng)),
        _ => Observation::Rounded {
            recorded_s: x(rng).round(),
            resolution_s: [60.0, 1.0, 0.0, x(rng)][rng.random_range(0..4)],
        },
    }
}

#[test]
fn weibull_fits_never_panic() {
    let mut rng = rng_for(3);
    let mut fitted = 0;
    for case in 0..WEIBULL_CASES {
        let obs: Vec<Observation> = (0..rng.random_range(0..40)).map(|_| random_observation(&mut rng)).collect();
        let input = || format!("{obs:?}");
        let fit = no_panic("weibull", case, &input, || trace::fit_weibull(&obs));
        if let Some(f) = fit {
            fitted += 1;
            let fields = [f.shape, f.scale_s, f.mean_s, f.log_likelihood, f.shape_se, f.scale_se_s];
            assert!(
                fields.iter().all(|v| v.is_finite()) && f.shape > 0.0 && f.scale_s > 0.0 && f.mean_s > 0.0,
                "{f:?} from {obs:?}"
            );
        }
    }
    eprintln!("fuzz: {WEIBULL_CASES} Weibull-fit cases, {fitted} fitted");
    assert!(fitted > 0);
}

// ───────────────────────────── schedules ─────────────────────────────

fn schedule_seeds() -> Vec<Vec<u8>> {
    [
        "Node Count,Requested Duration,Actual Duration\n128,3600,1800\n2,600,600\n\"9408\",\"86400\",\"0\"\n",
        "# a comment\n\nnodes,requested_s,actual_s\r\n1,60,30\r\n4,1e3,2e3\r\n",
        "\u{feff} requested_s , NODES \n7200,16\n3600,1\n",
        "actual_s,nodes,requested_s\n0.5,3,1\n",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect()
}

fn schedule_inserts() -> Vec<String> {
    [
        "Node Count,Requested Duration,Actual Duration",
        "nodes,requested_s,actual_s",
        "nodes,nodes,requested_s",
        "Node Count,requested_s",
        "18446744073709551615,1e308,1e308",
        "18446744073709551616,1,1",
        "1,5e-324,0",
        "1,-0,0",
        "0,1,1",
        "1,nan,inf",
        "\"1\",\"\",\"2\"",
        "1,2",
        "# comment",
        "",
    ]
    .map(String::from)
    .to_vec()
}

const SCHEDULE_FIELDS: &[&str] = &[
    "",
    "0",
    "-0",
    "-1",
    "1e308",
    "1.7976931348623157e308",
    "nan",
    "inf",
    "18446744073709551615",
    "18446744073709551616",
    "1e-320",
    "5e-324",
    "0x10",
    "1_000",
    "\"",
    "\"1\"",
    "\" 2 \"",
    "Node Count",
    "Requested Duration",
    "actual_s",
    "é",
];

fn schedule_case(case: usize, bytes: &[u8]) -> bool {
    no_panic("schedule", case, &|| show(bytes), || {
        let s = match schedule::parse_schedule(bytes, Path::new("fuzz.csv")) {
            Ok(s) => s,
            Err(e) => {
                assert_eq!(e.exit_code(), 2, "{e}");
                return false;
            }
        };
        assert!(!s.jobs.is_empty());
        for j in &s.jobs {
            assert!(j.nodes >= 1 && j.requested_s.is_finite() && j.requested_s > 0.0, "{j:?}");
            assert!(j.actual_s.is_none_or(|a| a.is_finite() && a >= 0.0), "{j:?}");
        }
        let ratio = s.runtime_ratio_usage_weighted();
        let _ = s.runtime_ratio_plain();
        let _ = s.requested_usage_nh();
        let types = s.job_types(ratio.unwrap_or(1.0));
        assert_eq!(types.iter().map(|t| t.count).sum::<u64>(), s.jobs.len() as u64);
        true
    })
}

#[test]
fn schedules_never_panic() {
    let seeds = schedule_seeds();
    for (i, s) in seeds.iter().enumerate() {
        schedule::parse_schedule(s, Path::new("seed.csv")).unwrap_or_else(|e| panic!("seed {i}: {e}"));
    }
    let inserts = schedule_inserts();
    let pools = Pools { inserts: &inserts, fields: SCHEDULE_FIELDS, sizes: false };
    let mut rng = rng_for(4);
    let (mut cases, mut valid) = (0, 0);
    for case in 0..SCHEDULE_CASES {
        let bytes = mutant(&mut rng, &seeds, &pools, false);
        valid += usize::from(schedule_case(case, &bytes));
        cases += 1;
    }
    eprintln!("fuzz: {cases} schedule cases, {valid} valid");
    assert_eq!(cases, SCHEDULE_CASES);
    assert!(valid >= SCHEDULE_CASES / 20, "only {valid} valid");
}

/// Schedules this fuzzer found: N·T overflowed, so in debug builds the usage sums panicked
/// (`ExactSum::add(inf)`) and release builds summed garbage. They are now refused, as
/// durations beyond 1e100 s (which keeps N·T finite for any node count).
#[test]
fn schedule_regressions() {
    let cases: [(&[u8], &str); 2] = [
        (b"# a comment\n\nnodes,requested_s,actual_s\r\n1,60,30\r\n4,1e308,2e3\r\n", "fuzz.csv:5"),
        (b"nodes,requested_s,actual_s\n2,60,1.7976931348623157e308\n", "fuzz.csv:2"),
    ];
    for (i, (bytes, at)) in cases.into_iter().enumerate() {
        assert!(!schedule_case(i, bytes), "case {i} is refused");
        let e = schedule::parse_schedule(bytes, Path::new("fuzz.csv")).expect_err("N·T would overflow");
        let message = e.to_string();
        assert!(message.contains(at) && message.contains("is too long"), "{message}");
    }
}

// ───────────────────────────── partial summaries ─────────────────────────────

const TINY: &str = r#"name = "tiny"
[job]
work = "1 h"
checkpoint = "1 min"
restart = "1 min"
[failures]
mtbf = "2 h"
[sweep]
"policy.factor" = [0.5, 1]
"#;

/// JSON values worth putting anywhere in a partial summary.
fn json_value(rng: &mut Pcg64Mcg) -> Value {
    use serde_json::json;
    match rng.random_range(0..14) {
        0 => json!(0),
        1 => json!(-1),
        2 => json!(u64::MAX),
        3 => json!(i64::MIN),
        4 => json!(i64::MAX),
        5 => json!(1e308),
        6 => json!(0.5),
        7 => json!(null),
        8 => json!("ckptsim-partial"),
        9 => json!([]),
        10 => json!([i64::MAX, i64::MAX, i64::MIN]),
        11 => json!([[u64::MAX, u64::MAX], [1, u64::MAX]]),
        12 => json!({}),
        _ => json!(vec![i64::MIN; 68]),
    }
}

/// Replaces, deletes or grows a random node of `v`.
fn mutate_json(v: &mut Value, rng: &mut Pcg64Mcg, pools: &Pools) {
    let mut node = v;
    loop {
        let children = match node {
            Value::Object(m) => m.len(),
            Value::Array(a) => a.len(),
            _ => 0,
        };
        if children == 0 || rng.random_bool(0.25) {
            break;
        }
        let i = rng.random_range(0..children);
        if rng.random_bool(0.15) {
            match node {
                Value::Object(m) => {
                    let k = m.keys().nth(i).cloned().expect("a key");
                    m.remove(&k);
                }
                Value::Array(a) => {
                    a.remove(i);
                }
                _ => {}
            }
            return;
        }
        node = match node {
            Value::Object(m) => m.values_mut().nth(i).expect("a value"),
            Value::Array(a) => &mut a[i],
            _ => unreachable!("a container"),
        };
    }
    *node = match node {
        Value::Array(a) if rng.random_bool(0.3) => {
            let mut a = a.clone();
            a.push(json_value(rng));
            Value::Array(a)
        }
        Value::String(s) if rng.random_bool(0.5) => {
            let mut bytes = s.clone().into_bytes();
            mutate(&mut bytes, rng, pools);
            Value::String(String::from_utf8_lossy(&bytes).into_owned())
        }
        _ => json_value(rng),
    };
}

/// A partial summary from a real run of [`TINY`] (`--shard 0/2 --reps 4`), in `dir`.
fn tiny_partial(dir: &Path) -> Vec<u8> {
    tiny_partial_of(dir, "4")
}

/// A partial summary from a real run of [`TINY`] (`--shard 0/2 --reps REPS`), in `dir`.
fn tiny_partial_of(dir: &Path, reps: &str) -> Vec<u8> {
    let file = dir.join("tiny.toml");
    std::fs::write(&file, TINY).unwrap();
    let out = dir.join(format!("out-{reps}"));
    let o = bin()
        .args(["run", file.to_str().unwrap(), "--shard", "0/2", "--reps", reps, "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read(out.join("tiny.shard-0-of-2.json")).unwrap()
}

/// Partial summaries this fuzzer found (each case below says what it did).
#[test]
fn partial_regressions() {
    let tmp = tempfile::tempdir().unwrap();
    let mut v: Value = serde_json::from_slice(&tiny_partial(tmp.path())).unwrap();
    let target = tmp.path().join("bad.json");
    let mut bad = v.clone();
    bad["points"][0]["lost_s"] = serde_json::json!([i64::MAX, i64::MAX, i64::MIN]);
    let bytes = serde_json::to_vec(&bad).unwrap();
    std::fs::write(&target, &bytes).unwrap();
    let e = no_panic("partial regression", 0, &|| show(&bytes), || partial::read(&target)).expect_err("malformed");
    assert!(e.to_string().contains("the summary of point 0 is malformed"), "{e}");

    // A wall time at the histogram's top (runs of more than u64::MAX ms are recorded there):
    // the plot's bins overflowed (a panic in debug builds, bins out of order in release builds).
    v["points"][1]["wall_histogram_ms"][1][0] = serde_json::json!(u64::MAX);
    let bytes = serde_json::to_vec(&v).unwrap();
    std::fs::write(&target, &bytes).unwrap();
    let p = partial::read(&target).expect("a valid partial");
    let bins = no_panic("partial regression", 1, &|| show(&bytes), || p.progress.summaries[1].wall_bins(10));
    assert!(bins.windows(2).all(|w| w[0].0 <= w[0].1 && w[0].1 <= w[1].1), "{bins:?}");

    // A shard of u64::MAX shards: merging it allocated a slot per shard (capacity overflow;
    // 2⁴⁰ shards aborted on a failed allocation). Now the missing shards are named. Its one
    // replication comes from a shard of one (the summaries must count `done` replications).
    let one: Value = serde_json::from_slice(&tiny_partial_of(tmp.path(), "2")).unwrap();
    assert_eq!(one["done"], serde_json::json!(1));
    for count in [u64::MAX, 1 << 40] {
        let mut huge = one.clone();
        huge["shard"]["count"] = serde_json::json!(count);
        let bytes = serde_json::to_vec(&huge).unwrap();
        std::fs::write(&target, &bytes).unwrap();
        let p = partial::read(&target).expect("a valid partial");
        let e =
            no_panic("partial regression", 2, &|| show(&bytes), || partial::merge(&[p])).expect_err("missing shards");
        let message = e.to_string();
        assert!(
            message.contains(&format!(
                "missing shards 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, … of {count} \
                 (numbered 0 to {})",
                count - 1
            )),
            "{message}"
        );
    }
}

#[test]
fn partial_summaries_never_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let seed = tiny_partial(tmp.path());
    let seed_json: Value = serde_json::from_slice(&seed).unwrap();
    let target = tmp.path().join("fuzz.json");
    std::fs::write(&target, &seed).unwrap();
    partial::read(&target).expect("the seed partial reads");

    let inserts = scenario_inserts();
    let pools = Pools { inserts: &inserts, fields: NUMBERS, sizes: true };
    let bytes_pools = Pools { inserts: &[], fields: NUMBERS, sizes: true };
    let mut rng = rng_for(5);
    let (mut cases, mut valid) = (0, 0);
    for case in 0..PARTIAL_CASES {
        let bytes = if rng.random_bool(0.3) {
            let mut bytes = seed.clone();
            for _ in 0..rng.random_range(1..=3) {
                mutate(&mut bytes, &mut rng, &bytes_pools);
            }
            bytes
        } else {
            let mut v = seed_json.clone();
            for _ in 0..rng.random_range(1..=3) {
                mutate_json(&mut v, &mut rng, &pools);
            }
            // Mostly re-sign the scenario, so mutants get past the hash check.
            if rng.random_bool(0.8)
                && let Some(sc) = v.get_mut("scenario").and_then(Value::as_object_mut)
            {
                let text = sc.get("text").and_then(Value::as_str).unwrap_or_default().to_string();
                let sets: Vec<String> = sc
                    .get("sets")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect())
                    .unwrap_or_default();
                sc.insert("hash".into(), Value::String(partial::scenario_hash(&text, &sets)));
            }
            serde_json::to_vec(&v).unwrap()
        };
        std::fs::write(&target, &bytes).unwrap();
        let ok = no_panic("partial", case, &|| show(&bytes), || match partial::read(&target) {
            Ok(p) => {
                assert_eq!(p.progress.summaries.len(), p.scenario.points.len());
                assert!(p.shard.index < p.shard.count);
                for s in &p.progress.summaries {
                    let _ = s.overhead.estimate();
                    let _ = s.wall_quantile_s(0.5);
                    let bins = s.wall_bins(10);
                    assert!(bins.windows(2).all(|w| w[0].0 <= w[0].1 && w[0].1 <= w[1].1), "{bins:?}");
                }
                let _ = partial::merge(std::slice::from_ref(&p));
                true
            }
            Err(e) => {
                assert_eq!(e.exit_code(), 2, "{e}");
                false
            }
        });
        valid += usize::from(ok);
        cases += 1;
    }
    eprintln!("fuzz: {cases} partial-summary cases, {valid} valid");
    assert_eq!(cases, PARTIAL_CASES);
    assert!(valid > 0);
}

/// Partial files edited by hand, and merged from another folder.
#[test]
fn edited_and_moved_partials() {
    let tmp = tempfile::tempdir().unwrap();
    let v: Value = serde_json::from_slice(&tiny_partial(tmp.path())).unwrap();
    let target = tmp.path().join("edited.json");
    let read = |doc: &Value| {
        std::fs::write(&target, serde_json::to_vec(doc).unwrap()).unwrap();
        partial::read(&target)
    };
    // The scenario's path is stored absolute, so a merge in another folder resolves the
    // scenario's relative paths (a replayed log) as the run did.
    assert!(Path::new(v["scenario"]["path"].as_str().unwrap()).is_absolute(), "{}", v["scenario"]["path"]);
    // `--set` arguments that are not text were dropped silently (the hash still matched).
    let mut sets = v.clone();
    sets["scenario"]["sets"] = serde_json::json!([1, 2]);
    let e = read(&sets).expect_err("sets must be strings");
    assert!(e.to_string().contains("scenario.sets: accepted is a list"), "{e}");
    // A file of another version was said to differ from itself ("version 9.9.9 differs from
    // 9.9.9 in" the same file).
    let mut version = v.clone();
    version["version"] = serde_json::json!("9.9.9");
    let p = read(&version).expect("readable");
    let e = partial::merge(&[p]).expect_err("another version");
    assert!(e.to_string().contains("written by ckptsim 9.9.9: this build"), "{e}");
    // A scenario that no longer loads names the partial file as well as the scenario.
    let mut gone = v.clone();
    let text = gone["scenario"]["text"].as_str().unwrap().to_string();
    let text = format!("{text}\n[failures.trace]\nfile = \"no-such-log.csv\"\n").replace("mtbf", "# mtbf");
    gone["scenario"]["text"] = serde_json::json!(text);
    gone["scenario"]["hash"] = serde_json::json!(partial::scenario_hash(&text, &[]));
    let e = read(&gone).expect_err("the log is gone");
    let message = e.to_string();
    assert!(message.starts_with(&format!("{}: the scenario it holds", target.display())), "{message}");
    assert!(message.contains("no-such-log.csv"), "{message}");
}

/// Compressed and binary files given as a schedule or a failure log: they failed at line 1
/// with "not UTF-8 text" (schedules) or showed their bytes as the header (logs).
#[test]
fn compressed_or_binary_schedules_and_logs() {
    let gzip: &[u8] = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03";
    let xz: Vec<u8> = [&trace::XZ_MAGIC[..], b"\x00\x04\xe6\xd6\xb4\x46"].concat();
    for (bytes, kind) in [(gzip, "gzip"), (&xz[..], "xz")] {
        let e = schedule::parse_schedule(bytes, Path::new("jobs.csv")).expect_err("compressed");
        let message = e.to_string();
        assert!(
            message.starts_with("jobs.csv: the file is ") && message.contains(&format!("{kind}-compressed")),
            "{message}"
        );
    }
    let e = trace::parse_log(gzip, Path::new("log.csv.gz"), Malformed::Fatal).expect_err("compressed");
    assert!(e.to_string().contains("log.csv.gz: the file is gzip-compressed"), "{e}");
    let e =
        trace::parse_log(b"\xfd\x37\x7a\x01,\xff\n1,2\n", Path::new("log.bin"), Malformed::Fatal).expect_err("binary");
    assert!(e.to_string().contains("log.bin:1: the header line is not UTF-8 text"), "{e}");
    assert_eq!(e.exit_code(), 2);
}
