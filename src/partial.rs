//! Partial summaries: the versioned on-disk format of shards (`run --shard I/N`) and of
//! resumable runs (`run --resume`), and their exact merge (`ckptsim merge`).
//!
//! A partial file is JSON: `format` = `"ckptsim-partial"`, `format_version`, the crate
//! `version`, the `scenario` (name, path, text, `--set` arguments and a hash of both),
//! `seed`, `replications` (of the whole run), `shard` (`index`, `count`), `done` (the
//! shard's replications summarised, a prefix of them), `complete`, and `points`: one
//! summary per sweep point, lossless (exact sums as limbs, histograms as value/count pairs),
//! so merging partials gives exactly the summaries of the whole run.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::error::{Error, Origin, Result};
use crate::runner::{Progress, RunResult, Shard};
use crate::scenario::{self, Scenario};
use crate::stats::{FieldError, Summary};

/// The `format` field of every partial file.
pub const FORMAT: &str = "ckptsim-partial";
/// The version of the partial format this build reads and writes.
pub const FORMAT_VERSION: u64 = 4;

/// FNV-1a (64 bit) of the scenario text and its `--set` arguments: a run's identity.
pub fn scenario_hash(text: &str, sets: &[String]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(text.as_bytes());
    for s in sets {
        eat(&[0]);
        eat(s.as_bytes());
    }
    format!("{h:016x}")
}

/// One partial file, read back.
#[derive(Debug, Clone)]
pub struct Partial {
    /// The file it came from.
    pub path: PathBuf,
    /// The scenario, parsed again from the stored text and `--set` arguments.
    pub scenario: Scenario,
    /// The scenario's hash.
    pub hash: String,
    /// The crate version that wrote it.
    pub version: String,
    /// The master seed.
    pub seed: u64,
    /// Replications of the whole run.
    pub replications: u64,
    /// Which shard.
    pub shard: Shard,
    /// The shard's progress.
    pub progress: Progress,
}

impl Partial {
    /// Whether the shard's replications are all summarised.
    pub fn complete(&self) -> bool {
        self.progress.done == self.shard.len(self.replications)
    }
}

/// The file name of a partial: `<name>.partial.json` for a whole run, or
/// `<name>.shard-I-of-N.json` for a shard (`--shard`, even `0/1`).
pub fn file_name(scenario: &Scenario, shard: Option<Shard>) -> String {
    match shard {
        None => format!("{}.partial.json", scenario.name),
        Some(shard) => format!("{}.shard-{}-of-{}.json", scenario.name, shard.index, shard.count),
    }
}

/// The JSON text of a partial.
pub fn to_json(scenario: &Scenario, seed: u64, replications: u64, shard: Shard, progress: &Progress) -> String {
    let doc = json!({
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "version": env!("CARGO_PKG_VERSION"),
        "scenario": {
            "name": scenario.name,
            // Absolute, so that `merge` in another folder resolves the scenario's relative
            // paths (a replayed log) as the run did.
            "path": std::path::absolute(&scenario.path).unwrap_or_else(|_| scenario.path.clone()).to_string_lossy(),
            "text": scenario.text,
            "sets": scenario.sets,
            "hash": scenario_hash(&scenario.text, &scenario.sets),
        },
        "seed": seed,
        "replications": replications,
        "shard": {"index": shard.index, "count": shard.count},
        "done": progress.done,
        "complete": progress.done == shard.len(replications),
        "points": progress.summaries.iter().map(Summary::to_json).collect::<Vec<_>>(),
    });
    let mut text = serde_json::to_string(&doc).expect("JSON of plain values");
    text.push('\n');
    text
}

fn bad(path: &Path, message: impl Into<String>) -> Error {
    Error::Scenario {
        origin: Origin::File { path: path.to_path_buf(), line: None, column: None },
        key: None,
        message: message.into(),
    }
}

/// The error for point `point`'s field `e` in the partial file `path`.
fn bad_field(path: &Path, point: usize, e: FieldError) -> Error {
    Error::Scenario {
        origin: Origin::File { path: path.to_path_buf(), line: None, column: None },
        key: Some(format!("points[{point}].{}", e.key)),
        message: e.message,
    }
}

/// The format version of the partial file at `path` when it is a ckptsim partial of another
/// version than this build's (one that [`read`] refuses), else `None`: its progress is not
/// this build's to replace.
pub fn other_format_version(path: &Path) -> Option<u64> {
    let bytes = crate::input::read_bounded(path, crate::input::MAX_INPUT_BYTES).ok()?;
    let v: Value = serde_json::from_slice(&bytes).ok()?;
    if v.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return None;
    }
    v.get("format_version").and_then(Value::as_u64).filter(|fv| *fv != FORMAT_VERSION)
}

/// Reads a partial file, checking its format, version and scenario.
pub fn read(path: &Path) -> Result<Partial> {
    let bytes = crate::input::read_bounded(path, crate::input::MAX_INPUT_BYTES)
        .map_err(|e| bad(path, format!("cannot read the partial summary: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        bad(
            path,
            format!(
                "not a partial summary: byte {} is not UTF-8 text (accepted is the JSON that `run --shard` or an \
                 interrupted run wrote)",
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    let v: Value =
        serde_json::from_str(&text).map_err(|e| bad(path, format!("not a partial summary (malformed JSON: {e})")))?;
    if v.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(bad(path, format!("not a partial summary: its `format` is not \"{FORMAT}\"")));
    }
    let fv = v.get("format_version").and_then(Value::as_u64);
    if fv != Some(FORMAT_VERSION) {
        let fv = match fv {
            Some(v) => format!("version {v}"),
            None => "version missing or not an integer".to_string(),
        };
        return Err(bad(path, format!("partial format {fv}: this build reads version {FORMAT_VERSION}")));
    }
    // An edited-in key would be ignored without a word, as an unknown scenario key is not.
    let known = |at: Option<&Value>, prefix: &str, keys: &[&str]| -> Result<()> {
        let Some(map) = at.and_then(Value::as_object) else { return Ok(()) };
        match map.keys().find(|k| !keys.contains(&k.as_str())) {
            Some(k) => Err(bad(
                path,
                format!("unknown key `{prefix}{k}` in the partial summary: accepted are {}", keys.join(", ")),
            )),
            None => Ok(()),
        }
    };
    let top = [
        "format",
        "format_version",
        "version",
        "scenario",
        "seed",
        "replications",
        "shard",
        "done",
        "complete",
        "points",
    ];
    known(Some(&v), "", &top)?;
    known(v.get("scenario"), "scenario.", &["name", "path", "text", "sets", "hash"])?;
    known(v.get("shard"), "shard.", &["index", "count"])?;
    let field = |k: &str| v.get(k).ok_or_else(|| bad(path, format!("the partial summary lacks `{k}`")));
    let version = field("version")?.as_str().unwrap_or_default().to_string();
    let sc = field("scenario")?;
    let s = |k: &str| {
        sc.get(k).and_then(Value::as_str).ok_or_else(|| bad(path, format!("the partial summary lacks scenario.{k}")))
    };
    let (scenario_text, scenario_path, hash) =
        (s("text")?.to_string(), PathBuf::from(s("path")?), s("hash")?.to_string());
    // Every `--set` is text; one that is not was edited in (it used to be dropped silently).
    let sets: Vec<String> = match sc.get("sets") {
        None => vec![],
        Some(v) => v
            .as_array()
            .and_then(|a| a.iter().map(|x| x.as_str().map(str::to_string)).collect::<Option<Vec<_>>>())
            .ok_or_else(|| bad(path, "scenario.sets: accepted is a list of `--set` arguments (strings)"))?,
    };
    if scenario_hash(&scenario_text, &sets) != hash {
        return Err(bad(path, "the scenario text does not match its hash: the file was altered"));
    }
    let scenario = scenario::parse(&scenario_text, &scenario_path, &sets).map_err(|e| match e {
        // Name the partial file too: the error's own file is the scenario it holds.
        Error::Scenario { .. } => {
            bad(path, format!("the scenario it holds ({}) does not load here: {e}", scenario_path.display()))
        }
        other => other,
    })?;
    let num = |k: &str| field(k).and_then(|x| x.as_u64().ok_or_else(|| bad(path, format!("`{k}` is not a count"))));
    let shard_v = field("shard")?;
    let shard = Shard {
        index: shard_v
            .get("index")
            .and_then(Value::as_u64)
            .ok_or_else(|| bad(path, "shard.index: accepted is an integer ≥ 0"))?,
        count: shard_v
            .get("count")
            .and_then(Value::as_u64)
            .filter(|c| *c >= 1)
            .ok_or_else(|| bad(path, "shard.count: accepted is an integer ≥ 1"))?,
    };
    let points = field("points")?.as_array().ok_or_else(|| bad(path, "`points` is not a list"))?;
    if points.len() != scenario.points.len() {
        return Err(bad(
            path,
            format!("{} point summaries for a scenario of {} points", points.len(), scenario.points.len()),
        ));
    }
    let summaries = points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            Summary::from_json(p).map_err(|mut e| {
                e.message = format!("the summary of point {i} is malformed: {}", e.message);
                bad_field(path, i, e)
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let done = num("done")?;
    let replications = num("replications")?;
    if shard.index >= shard.count {
        return Err(bad(
            path,
            format!(
                "shard.index {} is out of range: accepted is 0 to {} (shard.count is {})",
                shard.index,
                shard.count - 1,
                shard.count
            ),
        ));
    }
    if done > shard.len(replications) {
        return Err(bad(
            path,
            format!(
                "done = {done} is out of range: accepted is 0 to {}, the replications of shard {} of {} out of {replications}",
                shard.len(replications),
                shard.index,
                shard.count
            ),
        ));
    }
    // Counts the run could not have produced would otherwise pass into merged totals.
    let max_failures = crate::engine::Limits::default().max_failures;
    let causes = scenario.causes();
    for (i, s) in summaries.iter().enumerate() {
        let baseline = scenario.run.baseline;
        s.check(done, max_failures, baseline, baseline.point() == Some(i), &causes)
            .map_err(|e| bad_field(path, i, e))?;
    }
    Ok(Partial {
        path: path.to_path_buf(),
        scenario,
        hash,
        version,
        seed: num("seed")?,
        replications,
        shard,
        progress: Progress { done, summaries },
    })
}

/// [`merge`] names at most this many missing shards.
const MISSING_LISTED: usize = 20;

/// Merges a complete set of shards of one run into the result of the unsharded run,
/// refusing shards of another scenario, seed, size or version, duplicates, missing shards
/// and unfinished ones.
pub fn merge(partials: &[Partial]) -> Result<(Scenario, RunResult)> {
    let Some(first) = partials.first() else {
        return Err(Error::Usage("merge needs at least one partial summary".into()));
    };
    // By index, not one slot per shard: a file may claim any shard count.
    let mut seen = std::collections::BTreeMap::<u64, &Path>::new();
    for p in partials {
        let differs = |what: &str, a: String, b: String| {
            bad(
                &p.path,
                format!(
                    "{what} {b} differs from {a} in {}: shards of different runs cannot merge",
                    first.path.display()
                ),
            )
        };
        if p.hash != first.hash {
            // The hash covers the file's text and the `--set` arguments: say which differ.
            let shown = |sets: &[String]| {
                if sets.is_empty() {
                    "no --set".to_string()
                } else {
                    sets.iter().map(|s| format!("--set {s}")).collect::<Vec<_>>().join(" ")
                }
            };
            let how = if p.scenario.text != first.scenario.text {
                "the scenario files' texts differ".to_string()
            } else {
                format!(
                    "this one was run with {}, that one with {}",
                    shown(&p.scenario.sets),
                    shown(&first.scenario.sets)
                )
            };
            return Err(bad(
                &p.path,
                format!(
                    "scenario {} differs from {} in {} ({how}): shards of different runs cannot merge",
                    p.hash,
                    first.hash,
                    first.path.display()
                ),
            ));
        }
        if p.seed != first.seed {
            return Err(differs("seed", first.seed.to_string(), p.seed.to_string()));
        }
        if p.replications != first.replications {
            return Err(differs("replications", first.replications.to_string(), p.replications.to_string()));
        }
        if p.version != env!("CARGO_PKG_VERSION") {
            // Checked against this build first: the first file itself may be of another version
            // (it said "version 9.9.9 differs from 9.9.9 in" the same file).
            return Err(bad(
                &p.path,
                format!(
                    "written by ckptsim {}: this build ({}) merges partial summaries of its own version only",
                    p.version,
                    env!("CARGO_PKG_VERSION")
                ),
            ));
        }
        if p.shard.count != first.shard.count {
            return Err(differs("shard count", first.shard.count.to_string(), p.shard.count.to_string()));
        }
        if let Some(other) = seen.get(&p.shard.index) {
            return Err(bad(
                &p.path,
                format!("shard {} of {} is given twice (also {})", p.shard.index, p.shard.count, other.display()),
            ));
        }
        if !p.complete() {
            return Err(bad(
                &p.path,
                format!(
                    "shard {} is unfinished ({} of {} replications): finish it with --resume",
                    p.shard.index,
                    p.progress.done,
                    p.shard.len(p.replications)
                ),
            ));
        }
        seen.insert(p.shard.index, &p.path);
    }
    let mut missing: Vec<String> = (0..first.shard.count)
        .filter(|i| !seen.contains_key(i))
        .take(MISSING_LISTED + 1)
        .map(|i| i.to_string())
        .collect();
    if !missing.is_empty() {
        if missing.len() > MISSING_LISTED {
            missing[MISSING_LISTED] = "…".into();
        }
        // "shards 2 of 3 are missing" read as two shards of three.
        let count = first.shard.count;
        return Err(Error::Usage(format!(
            "missing shard{} {} of {count} (numbered 0 to {}): accepted are all {count} shards of the run",
            if missing.len() > 1 { "s" } else { "" },
            missing.join(", "),
            count - 1
        )));
    }
    let mut summaries = vec![Summary::default(); first.scenario.points.len()];
    for p in partials {
        for (i, (a, b)) in summaries.iter_mut().zip(&p.progress.summaries).enumerate() {
            a.try_merge(b).map_err(|e| bad_field(&p.path, i, e))?;
        }
    }
    Ok((first.scenario.clone(), RunResult { replications: first.replications, seed: first.seed, summaries }))
}
